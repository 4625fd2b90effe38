// The module interpreter: runs `main` of a validated module (docs/uir.md,
// "Modules").
//
// Each function body is compiled once into a compact instruction list (one
// register per node; module_compile.cpp) and run in text (id) order by one
// dispatch loop with an explicit call stack (module_interp.cpp), so neither
// deep recursion of the program nor long chains use the native stack.
// Scalars are 64-bit `Bits` in the normal form of ir/dtype.hpp, computed by
// exec/alu.hpp (bit-identical with the flat interpreter); views are a
// pointer to their first element and a length. Versions, carry, after and
// end are free at run time: every version of a storage is that storage,
// written in place. Externs are called through libffi (module_ffi.cpp).
//
// Assumes `facts` came from validateModule(m, ...) succeeding on this very
// module; anything else is undefined. A view taken from a heap object must
// not be used after the object is freed (the front end's ownership rules
// guarantee it; the interpreter does not check it).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

#include "exec/interp.hpp"
#include "ir/module.hpp"
#include "oracle/module.hpp"

namespace cairn {

struct ModuleRunOptions {
  RunLimits limits;               // maxElements: live heap + buffer elements
  uint32_t maxCallDepth = 10000;  // frames on the call stack, main included
  std::ostream *out = nullptr;    // where `print` writes; nullptr = std::cout
};

struct ModuleRunResult {
  enum class Status { Ok, Trap, Error } status = Status::Ok;
  int32_t value = 0;     // main's return value
  std::string message;   // trap or error text, without location
  // A trap: where the node came from (Function::origin when the function has
  // one, else {0, the node's .uir location}).
  Origin where;
  std::string function;  // the function that trapped
  uint64_t steps = 0;    // instructions executed
  uint64_t leaked = 0;   // heap objects still live when the run ended
  // Status::Error from a bug in whatever built the module (a double free, a
  // released or mistyped object): `cairn run` reports it as an internal
  // error, exit 70. Otherwise the module cannot run (no suitable main, an
  // extern not found): exit 1.
  bool internal = false;
};

// Runs `main` (no parameters, returns i32). Status::Error: the module cannot
// run (no suitable main, an extern symbol not found) or an internal error
// of the program (double free, a freed or mistyped object).
ModuleRunResult runModule(const Module &m, const ModuleFacts &facts, const ModuleRunOptions &opts);

// The symbol of the first extern of m that dlsym does not find in this
// process ("" when all are found): the C back end checks it before
// compiling, so both engines refuse the same modules.
std::string missingExtern(const Module &m);

}  // namespace cairn
