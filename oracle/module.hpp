// The oracle for modules: every function body through the three layers of
// oracle/oracle.hpp, then the module layer (oracle/module.cpp).
#pragma once
#include <vector>

#include "ir/diag.hpp"
#include "ir/module.hpp"
#include "oracle/oracle.hpp"

namespace cairn {

struct ModuleFacts {
  std::vector<Facts> funcs;  // one per Module::funcs entry (empty Facts for externs)
};

// Validates every function body (structure, then ordering and bounds, as
// `validate` does, with module ops allowed), then the module rules `call`
// and `text-order` over the bodies that passed. Diagnostics carry file line
// numbers; they are sorted by line. Returns true when the module is valid.
bool validateModule(const Module &m, ModuleFacts &facts, Diags &diags);

}  // namespace cairn
