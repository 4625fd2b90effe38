// The oracle's pipeline: structure, then ordering and bounds.
//
// Ordering and bounds both assume only a sound structure, so when structure
// passes both run and all their errors are reported together.
#include "oracle/oracle.hpp"

#include "ir/printer.hpp"

namespace cairn {

bool validate(const Graph &g, Facts &facts, Diags &diags, const OracleOptions &opts) {
  bool ok = checkStructure(g, facts, diags, opts.module);
  if (ok) {
    bool order = checkOrder(g, facts, diags);
    bool bounds = !opts.checkBounds || checkBounds(g, facts, diags);
    ok = order && bounds;
  }
  diags.sort();
  return ok && !diags.truncated();
}

std::string describe(const Graph &g, NodeId n) {
  return "`" + nodeText(g, n) + "` (line " + std::to_string(g.loc(n).line) + ")";
}

}  // namespace cairn
