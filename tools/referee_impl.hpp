// Internal to the referee (tools/referee*.cpp): the facts it computes for
// itself from the graph, and the two halves' entry points.
//
// Everything here is derived afresh from the graph's operands and regions;
// the only thing taken from the oracle is its structure layer's per-node
// kind and dtype, which exist once that layer accepted the program.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "oracle/oracle.hpp"
#include "tools/referee.hpp"

namespace cairn::ref {

struct Ctx {
  const Graph &g;
  const RefereeOptions &o;
  RefereeVerdict &out;
  Facts f;                     // kind and type only (from the structure layer)
  std::vector<NodeId> root;    // view/version: the version it names
  std::vector<NodeId> buf;     // view/version/store: the buffer node
  std::vector<NodeId> endOf;   // range: its `end`
  std::vector<NodeId> listed;  // event: the parallel `end` that lists it

  Ctx(const Graph &graph, const RefereeOptions &opts, RefereeVerdict &v) : g(graph), o(opts), out(v) {}

  std::string nm(NodeId n) const { return "%" + std::string(g.name(n)); }
  NodeId opnd(NodeId n, size_t k) const { return g.operands(n)[k].node(); }
  bool isLit(NodeId n, size_t k) const { return g.operands(n)[k].isLit(); }
  NodeId rangeOfEnd(NodeId e) const { return opnd(e, 0); }
  bool inParallelBody(NodeId n) const { return g.parent(n).valid() && g.parallel(g.parent(n)); }
  // Is x inside the body of `loop` (at any depth)?
  bool inside(NodeId x, NodeId loop) const {
    for (NodeId p = g.parent(x); p.valid(); p = g.parent(p))
      if (p == loop) return true;
    return false;
  }
  void find(const char *rule, NodeId n, std::string msg, std::vector<NodeId> related = {}) {
    out.findings.push_back({rule, n, std::move(msg), std::move(related)});
  }
  void undecided(const char *rule, NodeId n, std::string msg) { out.undecided.push_back({rule, n, std::move(msg), {}}); }
};

// Fills root, buf, endOf (listed is filled by the ordering half).
void deriveViews(Ctx &c);
// Bounds of every `shrink` (tools/referee_bounds.cpp).
void judgeBounds(Ctx &c);
// The lane rule of every parallel loop (tools/referee_bounds.cpp).
void judgeLanes(Ctx &c);

}  // namespace cairn::ref
