// Modules: a .uir file of functions (docs/uir.md, "Modules").
//
// A module is a list of functions and externs. Each function body is one
// ordinary Graph (names are per function), so the flat reader, printer and
// oracle layers apply to it unchanged; the module adds signatures and the
// ops marked `O` in ir/ops.def. Text form:
//
//   extern ["SYMBOL"] NAME(SIG) [-> T]
//   func NAME(SIG) [-> T]
//     %x = param 0 dtype=i32        (the body: node lines up to the next
//     ...                            func/extern line or the end of file)
//
// SIG is a comma-separated list of `T`, `ro T[]` or `rw T[]`. Full-line
// comments before the first declaration belong to the module, comments
// after a declaration's last node to that body (an extern's too), and a
// comment at the end of a declaration line to the function.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diag.hpp"
#include "ir/dtype.hpp"
#include "ir/graph.hpp"

namespace cairn {

struct ParamSig {
  DType type = DType::None;
  enum class Mode : uint8_t { Scalar, Ro, Rw } mode = Mode::Scalar;
  bool operator==(const ParamSig &) const = default;
};

struct Signature {
  std::vector<ParamSig> params;
  DType ret = DType::None;  // None: no value
  bool operator==(const Signature &) const = default;
};

// A location in a source file of Module::files.
struct Origin {
  uint32_t file = 0;
  Loc loc;
};

struct Function {
  std::string name;
  std::string symbol;     // externs: the C symbol (defaults to name)
  bool external = false;  // an extern: no body
  Signature sig;
  Loc loc;                // the func/extern line
  Graph body;
  // Optional, NodeId-indexed: where each node came from in CAIRN source;
  // empty for .uir input.
  std::vector<Origin> origin;
  std::vector<std::string> comments;  // full-line comments above the declaration
  std::string comment;                // the comment at the end of its line
};

struct Module {
  std::vector<std::string> files;
  std::vector<Function> funcs;
  std::vector<std::string> comments;  // full-line comments above the first declaration
  int find(std::string_view name) const;  // index into funcs; -1 if none
};

// True when the first non-blank, non-comment line starts with `func` or
// `extern` (followed by a blank, `(` or `"`).
bool looksLikeModule(std::string_view text);

// Parses a module. Bodies go through the flat reader (ir/parser.hpp) with
// their file line numbers; declaration lines are checked here (rule
// `syntax`). Returns true when no error was added. Never throws.
bool parseModule(std::string_view text, Module &m, Diags &diags);

// Canonical text: deterministic; bodies indented two spaces (loop bodies
// two more per level); comments kept. parse(print(m)) prints the same.
void printModule(std::ostream &os, const Module &m);
std::string printModule(const Module &m);

// `NAME(i32, ro u8[]) -> i64` (the declaration after `func `/`extern `).
std::string signatureText(const Function &f);

}  // namespace cairn
