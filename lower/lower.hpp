// The CAIRN front end's public entry: check a program and lower it to a
// .uir module (ir/module.hpp) that the oracle validates and the module
// interpreter runs.
#pragma once
#include <map>
#include <string>
#include <string_view>

#include "ir/diag.hpp"
#include "ir/module.hpp"
#include "lower/check/check.hpp"

namespace cairn {

struct LowerOptions {
  std::string stdDir;  // where `import std.NAME` finds NAME.cairn
  // `cairn check`: also check (and lower) every non-generic function and
  // type of the file that main does not reach; constructs `cairn run` does
  // not support are not reported there, since they never run.
  bool checkAll = false;
  // `cairn doc`: when set, receives the Markdown documentation of the
  // file's functions with their effect rows (lower/check/doc.cpp).
  std::string *doc = nullptr;
  // `cairn check --receipt`: when set, receives the JSON build receipt.
  std::string *receipt = nullptr;
  // And why it could not be made ("" when it was): libcrypto, which takes
  // its sha256, could not be loaded.
  std::string *receiptError = nullptr;
  // Tests: receives every move the checker saw in the root file.
  std::vector<check::MoveEvent> *moves = nullptr;
  // `cairn lower`: the first node of each CAIRN line carries the comment
  // `line N: TEXT`, so the printed module reads beside the source. Callers
  // that never print the module (`cairn run`, `check`, `doc`, the C back end)
  // turn it off: writing the comments is 6% of lowering's instructions.
  bool lineComments = true;
};

// Parses `text` (the contents of `path`) and every std module it imports,
// checks it and lowers every function `main` reaches into `out`. Diagnostics
// carry their file (Diagnostic::file) when it is not `path`. Returns true when
// no error was reported. Never throws on any input.
bool lowerCairn(const std::string &path, std::string_view text, Module &out, Diags &diags,
                const LowerOptions &opts = {});

// The std folder: $CAIRN_STD, else an installed cairn's PREFIX/share/cairn/std
// (ir/data_dir.hpp), else the source tree's std/ (compiled in).
std::string defaultStdDir();

}  // namespace cairn
