// The module interpreter: runs `main` of a validated module (docs/uir.md,
// "Modules").
//
// Each function body is compiled once by the one compiler of exec/ (in text
// order; compile_module.cpp) and run by the one machine (interp.cpp,
// machine.cpp, heap.cpp) with an explicit call stack, so neither deep
// recursion of the program nor long chains use the native stack.
// Scalars are 64-bit `Bits` in the normal form of ir/dtype.hpp, computed by
// exec/alu.hpp (bit-identical with the flat interpreter); views are a
// pointer to their first element and a length. Versions, carry, after and
// end are free at run time: every version of a storage is that storage,
// written in place. Externs are called through libffi (module_ffi.cpp).
// The result type is RunResult (exec/interp.hpp), under its old name.
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
  // The module compiler's optimizations: scalar promotion of one-element
  // cells (exec/promote.hpp), identity casts as their operand's register,
  // fused instructions (plain loops, copy pairs, multiply-adds). The
  // results, steps included, are the same either way; false is for the
  // tests that prove it (tests/unit/promote_test.cpp).
  bool optimize = true;
  // The most iterations the lane-block tier (exec/module_lanes.hpp) runs
  // as one block; 0: none (every iteration dispatched). Results, steps
  // included, are the same at every value.
  uint32_t laneBlock = 256;
};

using ModuleRunResult = RunResult;  // value, where, function, leaked, internal

// Runs `main` (no parameters, returns i32). Status::Error: the module cannot
// run (no suitable main, an extern symbol not found) or an internal error
// of the program (double free, a freed or mistyped object).
ModuleRunResult runModule(const Module &m, const ModuleFacts &facts, const ModuleRunOptions &opts);

// The symbol of the first extern of m that dlsym does not find in this
// process ("" when all are found): the C back end checks it before
// compiling, so both engines refuse the same modules.
std::string missingExtern(const Module &m);
// The shared objects (paths) that provide m's extern symbols in this
// process, other than the C library and libm, which every C program links:
// the C back end links them too, so that both engines call the same
// functions (a `crc32` the interpreter finds in libz, loaded by cairn).
std::vector<std::string> externLibraries(const Module &m);

}  // namespace cairn
