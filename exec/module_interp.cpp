// runModule: runs `main` of a validated module on the one compiler and
// machine of exec/ (compile_module.cpp, interp.cpp, machine.cpp, heap.cpp),
// after checking that the module can run (a suitable main, every extern
// found with dlsym: module_ffi.cpp).
#include <iostream>
#include <stdexcept>

#include "exec/emit_module_c.hpp"
#include "exec/externs.hpp"
#include "exec/machine.hpp"
#include "exec/module_interp.hpp"
#include "exec/trap_text.hpp"

namespace cairn {

std::string missingExtern(const Module &m) {
  exec::Externs ext;
  std::string missing;
  return ext.resolve(m, missing) ? std::string() : missing;
}

ModuleRunResult runModule(const Module &m, const ModuleFacts &facts, const ModuleRunOptions &opts) {
  ModuleRunResult r;
  int mainIdx = m.find("main");
  if (std::string why = moduleEntryError(m); !why.empty()) {
    r.status = ModuleRunResult::Status::Error;
    r.message = why;
    return r;
  }
  if (facts.funcs.size() != m.funcs.size()) {
    r.status = ModuleRunResult::Status::Error;
    r.message = "the module was not validated";
    r.internal = true;
    return r;
  }
  exec::Externs ext;
  std::string missing;
  if (!ext.resolve(m, missing)) {
    r.status = ModuleRunResult::Status::Error;
    r.message = "extern symbol `" + missing + "` not found";
    return r;
  }
  try {
    std::vector<Program> fns = exec::compileModule(m, facts, opts.optimize);
    RunOptions ro;
    ro.limits = opts.limits;
    ro.laneBlock = opts.laneBlock;
    exec::Machine mc(fns, mainIdx, opts, ro, r, ext);
    mc.start();
    exec::runMachine(mc);
    (opts.out ? *opts.out : std::cout).flush();
    r.leaked = mc.liveObjects();
  } catch (const std::bad_alloc &) {
    r.status = ModuleRunResult::Status::Trap;
    r.message = exec::kOutOfMemory.format;
  } catch (const std::length_error &) {
    r.status = ModuleRunResult::Status::Trap;
    r.message = exec::kOutOfMemory.format;
  }
  return r;
}

}  // namespace cairn
