// The C back end for modules (exec/emit_module_c.hpp). Placeholder: the
// emitter is being written; until then every module is refused.
#include "exec/emit_module_c.hpp"

namespace cairn {

bool emitModuleC(const Module &, const ModuleFacts &, const ModuleEmitOptions &, std::string &, std::string &error) {
  error = "the C back end for modules is not built yet";
  return false;
}

std::string emitModuleCBatch(const std::vector<ModuleEmitUnit> &, const ModuleEmitOptions &) {
  return "#error \"the C back end for modules is not built yet\"\n";
}

}  // namespace cairn
