// The C back end for modules: a validated module (docs/uir.md, "Modules"),
// everything CAIRN lowers to, as one self-contained C11 translation unit
// that runs `main` exactly as `cairn run` does on the module interpreter
// (exec/module_interp.hpp).
//
// The unit is the runtime (runtime/cairn_rt.h, whose module half is
// runtime/cairn_rt_module.h), then per module
//
//   static RET PREFIX_fK(cairn_mrt *rt, ARGS...)   one C function per
//       function of the module, in text order: scalars are C locals, a view
//       is a `cairn_view` (pointer, element count), a loop is a `for`, a
//       call is a direct C call (the call depth counted, so a deep
//       recursion traps as the interpreter does instead of overflowing);
//   an extern is a direct call of the C symbol through a prototype built
//       from its signature (`__asm__("SYMBOL")` names it, so a libc
//       declaration of the same name cannot clash); no libffi;
//   PREFIX_mod: the module's trap sites (file, line, column, function) and
//       its entry point.
//
// The compiled program, `prog [--max-elements N]`, prints what `cairn run`
// prints and exits as it does: main's value; 101 after
// `FILE:LINE:COL: error: trap: MESSAGE (in FN)` on stderr (the interpreter's
// message and location); 70 after `FILE: error: internal error: ...` (heap
// objects never released, a double free, a released handle used). Heap
// handles carry a generation, `free` is deep with an explicit work list,
// buffers are released when their region ends, `--max-elements` counts live
// buffer and heap elements, all as the interpreter does.
//
// Batches (the differential fuzzer): emitModuleCBatch puts many modules in
// one unit, module K's names prefixed `cairn_mK_`; its main takes `--count`,
// `--program K [OPTIONS]` (runs module K like a single executable) or
// `--all [OPTIONS]` (each in turn: `=== program K`, its stdout and stderr,
// then `=== exit STATUS`, all on stdout).
#pragma once
#include <string>
#include <vector>

#include "ir/module.hpp"
#include "oracle/module.hpp"

namespace cairn {

struct ModuleEmitOptions {
  // FILE in trap messages when a node has no CAIRN origin (Function::origin
  // names the CAIRN file otherwise): the name the CLI shows for the input.
  std::string sourceName = "program.uir";
  std::string prefix = "cairn";  // emitModuleCBatch overrides it per module
  // Check every element access against its view's length, trapping with
  // the interpreter's message: catches a wrong proof (the oracle proves the
  // unchecked ones in bounds). Costs time in loops.
  bool checkAccesses = false;
  bool withMain = true;  // emit `int main(int, char **)`
};

// The C text of one validated module (`facts` from validateModule on this
// very module). False, with `error` set, when the module cannot be emitted
// (then `out` is unchanged).
bool emitModuleC(const Module &m, const ModuleFacts &facts, const ModuleEmitOptions &opts, std::string &out,
                 std::string &error);

struct ModuleEmitUnit {
  const Module *module = nullptr;
  const ModuleFacts *facts = nullptr;
  std::string sourceName = "program.uir";
  int checkAccesses = -1;  // 0 or 1: this module's ModuleEmitOptions::checkAccesses; -1: the batch's
};

// A frame buffer: a `buffer` of literal size, 1 to 64 elements and at most
// 512 bytes (the cells CAIRN's mutable locals lower to). Both engines leave
// it out of the maxElements count (live heap and buffer elements): its
// memory is the function frame's, bounded by the call depth, and counting
// it would cost every call a memory update. The C back end puts it on the
// C stack.
bool isFrameBuffer(const Graph &g, NodeId n);

// Why `main` cannot run ("" when it can): missing, an extern, parameters,
// or a result other than i32. The interpreter and the compiled program
// refuse the same modules with the same words.
std::string moduleEntryError(const Module &m);

// Many modules in one unit (see above). A module that cannot be emitted
// becomes a program that reports it (`cairn: error: cannot emit this
// program: ...`, exit 2) when run.
std::string emitModuleCBatch(const std::vector<ModuleEmitUnit> &units, const ModuleEmitOptions &opts = {});

}  // namespace cairn
