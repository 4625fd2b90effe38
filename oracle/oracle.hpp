// The oracle: decides whether a .uir graph is valid, and records the facts
// the later layers (scheduler, interpreter, emitters) rely on.
//
// Layers, each its own file, run in this order; a later layer runs only when
// the earlier ones found no error, so malformed input never reaches an
// analysis that assumes structure:
//   1. structure.cpp  kinds, arity, dtypes, shapes, slots, loop scoping
//   2. order.cpp      the lesson's three rules (one store per version; every
//                     store sequenced by one `after`; old versions read before
//                     they are overwritten: a cycle check with Boost.Graph)
//   3. bounds.cpp     views in bounds (interval analysis with symbolic sizes)
//                     and the lane rule of parallel loops
// A module (ir/module.hpp) runs them per function body, then the module
// layer (oracle/module.hpp: calls against signatures, text order).
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/diag.hpp"
#include "ir/graph.hpp"

namespace cairn {

// Element counts by node: 4 bytes a node, where nearly every count fits;
// a count that does not (a buffer of 2^31 elements or more) is kept aside
// by node, its 4 bytes marking it. Reads give the int64 count (-1: dynamic).
class ElemCounts {
 public:
  int64_t operator[](size_t i) const { return small_[i] != kAside ? small_[i] : aside_.at(static_cast<uint32_t>(i)); }
  void set(size_t i, int64_t v) {
    if (v >= INT32_MIN + 1 && v <= INT32_MAX) {
      if (small_[i] == kAside) aside_.erase(static_cast<uint32_t>(i));
      small_[i] = static_cast<int32_t>(v);
    } else {
      small_[i] = kAside;
      aside_[static_cast<uint32_t>(i)] = v;
    }
  }
  size_t size() const { return small_.size(); }
  void assign(size_t n, int32_t v) {
    small_.assign(n, v);
    aside_.clear();
  }

 private:
  static constexpr int32_t kAside = INT32_MIN;
  std::vector<int32_t> small_;
  std::unordered_map<uint32_t, int64_t> aside_;
};

// Facts about a structurally valid graph, id-indexed side tables.
struct Facts {
  std::vector<ResultKind> kind;   // what each node's result is
  std::vector<DType> type;        // scalar: its dtype; view/version: element dtype
  std::vector<NodeId> storage;    // view/version/store/end-of-buffer: the `buffer` node
  std::vector<NodeId> version;    // view: the version it views; version: itself;
                                  // store: the version it writes into;
  ElemCounts elems;              // view/version: static element count, or -1 when
                                  // it is the whole of a dynamically sized buffer
  // One column for two facts, since a node is never both a version and an
  // event that writes: a version's successor, the `after` that builds on
  // it, if any (successor()); a store's, end's or call_write's sequencer,
  // the `after` (or enclosing parallel `end`) that sequences it
  // (sequencer()).
  std::vector<NodeId> link;
  // Serial loops: `end` operand k (k >= 1) is the next version of the k-th
  // `carry` of the body, in body order. Only ranges with carries have an
  // entry (a map, so 10^7-node graphs pay nothing for it): use carriesOf.
  std::unordered_map<uint32_t, std::vector<NodeId>> carries;
  // "Must come before" edges beyond data edges, (a, b): a runs before b.
  // Both are direct members of one region (a loop body, or the top level),
  // where a whole nested loop is represented by its `range` node: a load (or
  // the loop containing it) that must run before the event that overwrites
  // the version it reads (a store, or the loop whose stores do).
  std::vector<std::pair<NodeId, NodeId>> orderEdges;

  const std::vector<NodeId> &carriesOf(NodeId range) const {
    static const std::vector<NodeId> none;
    auto it = carries.find(range.v);
    return it == carries.end() ? none : it->second;
  }

  NodeId successor(NodeId version) const { return link[version.v]; }
  NodeId sequencer(NodeId event) const { return link[event.v]; }

  bool isView(NodeId n) const { return kind[n.v] == ResultKind::View || kind[n.v] == ResultKind::Version; }
};

struct OracleOptions {
  bool checkBounds = true;
  bool module = false;  // a module function body: module ops allowed (ir/module.hpp)
};

// Runs every layer; returns true when the graph is valid. All errors of the
// first failing layer are reported (a layer's errors would only echo the
// previous one's), sorted by line.
bool validate(const Graph &g, Facts &facts, Diags &diags, const OracleOptions &opts = {});

// The layers, for tests and tools that want one alone.
bool checkStructure(const Graph &g, Facts &facts, Diags &diags, bool module = false);
bool checkOrder(const Graph &g, Facts &facts, Diags &diags);
bool checkBounds(const Graph &g, const Facts &facts, Diags &diags);

// A node as diagnostics name it: `%s = store %e0 0` (line 3)
std::string describe(const Graph &g, NodeId n);

}  // namespace cairn
