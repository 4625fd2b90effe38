// The engines that run a module (a .uir module, or what a CAIRN program
// lowers to), each reporting what `cairn run` would: the exit status, stdout
// and stderr. The module interpreter (exec/module_interp.hpp) in-process,
// with tools/cmd_cairn.cpp's messages; the module C back end
// (exec/emit_module_c.hpp): emitted, compiled once with CC/CFLAGS in a
// private temporary folder, and run.
#pragma once
#include <cstdint>
#include <string>

#include "ir/module.hpp"
#include "oracle/module.hpp"

namespace cairn::filetest {

struct ModuleOutcome {
  bool failed = false;  // the engine could not run the program (`err` says why): never agrees
  int status = 0;       // the exit status
  std::string out, err;
  bool operator==(const ModuleOutcome &o) const {
    return !failed && !o.failed && status == o.status && out == o.out && err == o.err;
  }
};

// `shown`: FILE in messages (the test file's path as given); `maxElements`
// 0: the default limit.
ModuleOutcome runModuleInterp(const Module &m, const ModuleFacts &facts, const std::string &shown,
                              uint64_t maxElements);
ModuleOutcome runModuleC(const Module &m, const ModuleFacts &facts, const std::string &shown, uint64_t maxElements);

// One line: `exit status 3, stdout "...", stderr "..."`.
std::string describe(const ModuleOutcome &o);

}  // namespace cairn::filetest
