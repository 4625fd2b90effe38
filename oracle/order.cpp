// Layer 2 of the oracle: the lesson's ordering rules.
//
// Assumes layer 1 (structure) reported nothing. Invariants checked:
//   O1  one store per version: at most one event writes into any version,
//       through any of its views (a parallel loop counts once per version it
//       writes, a serial loop once per version it carries);
//   O2  every store is sequenced: each store is the event of exactly one
//       `after`, or listed by the `end` of the parallel loop it is in; a loop
//       that writes versions has one `after` per version it writes;
//   O3  `after m s` names the version `s` writes into;
//   O4  stores write into a version of their own region (a serial body writes
//       only versions it made or carried; a parallel body writes outer ones);
//   O5  old versions are read before they are overwritten: the graph of "must
//       come before" edges (data edges, plus load -> overwriting event) is
//       acyclic. Loops are single nodes of the region around them, so the
//       edges live between members of one region; inside a serial loop, a
//       load of a version the loop overwrites is an error of its own.
// Module ops: a `call_write` is an event like a store, writing into the
// version its call's argument K views; a `call` is a load of each view it
// is passed; guard, print, free, until, ret and a call without dtype= are
// events that write no version and need no `after`.
// Facts filled: link (successors and sequencers), orderEdges.
//
// Data edges always point forward in id order (definition before use), so
// only a backward load -> store edge can close a cycle. When there is none,
// the graph is acyclic without a search; otherwise Boost.Graph's DFS finds a
// back edge and the tree path that closes the cycle, which the diagnostic
// lists arrow by arrow.
#include <algorithm>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "ir/printer.hpp"
#include "oracle/oracle.hpp"
#include "oracle/util.hpp"

namespace cairn {

namespace {

// Why an edge of the "must come before" graph exists; the original nodes are
// kept so a diagnostic can explain the arrow even when loops were collapsed.
struct EdgeWhy {
  NodeId from, to;  // the region members the edge joins
  NodeId a, b;      // data: b uses a;  order: load a reads what b overwrites
  bool order;
  NodeId v;         // order: the version a reads
};

const char *const kOldVersion = "a load of an old buffer version is needed after that version was overwritten";
const char *const kUnsequenced = "a store that no after sequences has no effect";

class Order {
 public:
  Order(const Graph &g, Facts &f, Diags &d) : g_(g), f_(f), d_(d) {}

  bool run() {
    size_t before = d_.size();
    listedBy_.clear();
    namedWrongly_.assign(g_.size(), 0);
    // A store's `after` is kept as its sequencer (f_.link, storeAfter
    // below), so it must start empty, as checkStructure leaves it.
    f_.link.assign(g_.size(), NodeId::none());
    collectWrites();
    sequencing();
    oneStorePerVersion();
    buildEdges();  // the order edges, and whether one points backward
    if (backward_) {
      // A cycle is possible: the edges again, now with why each exists
      // (without their diagnostics and facts a second time), and the data
      // edges. Most programs never get here, and keep no EdgeWhy at all.
      keepWhy_ = true;
      buildEdges();
      findCycles();
    }
    return d_.size() == before;
  }

 private:
  std::string nm(NodeId n) const { return pct(g_, n); }
  std::string line(NodeId n) const { return "line " + std::to_string(g_.loc(n).line); }
  NodeId rangeOf(NodeId end) const { return g_.operands(end)[0].node(); }
  bool inParallelBody(NodeId n) const { return g_.parent(n).valid() && g_.parallel(g_.parent(n)); }

  static bool isWrite(Op op) { return op == Op::Store || op == Op::CallWrite; }
  // The versions an event writes into (none for guard, print, ...).
  const std::vector<NodeId> &writes(NodeId e) const {
    static thread_local std::vector<NodeId> one(1);
    static const std::vector<NodeId> none;
    if (isWrite(g_.op(e))) {
      one[0] = f_.version[e.v];
      return one;
    }
    auto it = endWrites_.find(e.v);
    return it == endWrites_.end() ? none : it->second;
  }

  void collectWrites() {
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId n{i};
      if (g_.op(n) != Op::End) continue;
      NodeId r = rangeOf(n);
      std::vector<NodeId> w;
      if (g_.parallel(r)) {
        auto ops = g_.operands(n);
        for (size_t k = 1; k < ops.size(); ++k) {
          NodeId ev = ops[k].node();
          for (NodeId v : writes(ev)) {
            auto same = std::find(w.begin(), w.end(), v);
            if (same != w.end()) {
              d_.error(g_.loc(ev), "one-store-per-version",
                       "a second store into version " + nm(v) + " in one parallel loop: at most one store may write into any given "
                       "version, through any of its views")
                  .note(g_.loc(n), "both are listed by this `end`");
              continue;
            }
            w.push_back(v);
          }
          listedBy_[ev.v] = n;
        }
      } else {
        for (NodeId c : f_.carriesOf(r)) w.push_back(g_.operands(c)[0].node());
      }
      endWrites_[i] = std::move(w);
    }
  }

  NodeId &afterSlot(NodeId e, NodeId v) {
    if (isWrite(g_.op(e))) return storeAfter(e);
    return endAfter_[(uint64_t{e.v} << 32) | v.v];
  }

  // O2, O3, O4.
  void sequencing() {
    std::unordered_map<uint32_t, std::vector<NodeId>> extra;  // events with more than one after
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId a{i};
      if (g_.op(a) != Op::After) continue;
      NodeId v = g_.operands(a)[0].node(), e = g_.operands(a)[1].node();
      const auto &w = writes(e);
      if (std::find(w.begin(), w.end(), v) == w.end()) {
        namedWrongly_[e.v] = 1;  // sequenced, though wrongly: one error, not two
        if (w.empty()) {
          d_.error(g_.loc(a), "after-version", nm(e) + (g_.op(e) == Op::End ? " ends a loop that writes" : " writes") +
                                                   " no buffer version, so no `after` sequences it")
              .note(g_.loc(e), nm(e) + " is here");
        } else {
          d_.error(g_.loc(a), "after-version",
                   "`after " + nm(v) + " " + nm(e) + "` names " + nm(v) + ", but " + nm(e) + " writes into " + nm(w[0]) +
                       ": after m s must name the version the store writes into")
              .note(g_.loc(e), nm(e) + " writes into " + nm(w[0]) + " here");
        }
        continue;
      }
      if (NodeId listing = listedBy(e); listing.valid()) {
        d_.error(g_.loc(a), "store-sequenced",
                 nm(e) + " is in a parallel loop body, so the loop's `end` sequences it, not `after`")
            .note(g_.loc(listing), "the `end` that lists it");
        continue;
      }
      // One `after` per (event, version): a loop writing two versions has one
      // for each.
      NodeId &seen = afterSlot(e, v);
      if (seen.valid()) {
        extra[e.v].push_back(a);
        continue;
      }
      seen = a;
      f_.link[e.v] = a;                               // e's sequencer
      if (!f_.link[v.v].valid()) f_.link[v.v] = a;  // v's successor
    }
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId e{i};
      Op op = g_.op(e);
      if (!isWrite(op) && op != Op::End) continue;
      // O4: where a store may write.
      if (isWrite(op)) {
        NodeId v = f_.version[i];
        NodeId here = g_.parent(e);
        if (!inParallelBody(e) && g_.parent(v) != here) {
          d_.error(g_.loc(e), "loop", nm(e) + " writes into " + nm(v) + ", a version from outside this serial loop; the loop "
                                          "would write it once per iteration: carry it in with `carry " + nm(v) + "`")
              .note(g_.loc(v), nm(v) + " is defined here");
          continue;
        }
      }
      if (NodeId listing = listedBy(e); listing.valid()) {
        f_.link[i] = listing;  // e's sequencer
        continue;
      }
      const auto &w = writes(e);
      if (inParallelBody(e) && !w.empty() && !namedWrongly_[i]) {
        d_.error(g_.loc(e), "store-sequenced", std::string(isWrite(op) ? kUnsequenced : "a loop that no after sequences has no effect") +
                                                   ": in a parallel loop body, list it in the loop's `end`")
            .note(g_.loc(endOf(g_.parent(e))), "the loop's `end`");
        continue;
      }
      for (NodeId v : w) {
        if (!afterSlot(e, v).valid() && !namedWrongly_[i]) {
          if (isWrite(op))
            d_.error(g_.loc(e), "store-sequenced", op == Op::Store ? kUnsequenced : "a call's write that no after sequences has no effect")
                .note(g_.loc(e), "sequence it with `%NEW = after " + nm(v) + " " + nm(e) + "`");
          else
            d_.error(g_.loc(e), "store-sequenced",
                     "the loop's writes into " + nm(v) + " have no effect: no after sequences " + nm(e))
                .note(g_.loc(e), "sequence it with `%NEW = after " + nm(v) + " " + nm(e) + "`");
        }
      }
      if (auto it = extra.find(i); it != extra.end()) {
        auto &dg = d_.error(g_.loc(it->second[0]), "store-sequenced",
                            nm(e) + " is sequenced by more than one after: every store is the s of exactly one after");
        dg.note(g_.loc(f_.sequencer(e)), "first sequenced here");
        for (NodeId a : it->second) dg.note(g_.loc(a), "and here");
      }
    }
  }

  NodeId endOf(NodeId range) const {
    for (uint32_t i = range.v + 1; i < g_.size(); ++i)
      if (g_.op(NodeId{i}) == Op::End && rangeOf(NodeId{i}) == range) return NodeId{i};
    return range;
  }

  // O1: writers of a version, counted where they are sequenced (stores in a
  // parallel body count through their loop's `end`).
  void oneStorePerVersion() {
    firstWriter_.assign(g_.size(), NodeId::none());
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId e{i};
      Op op = g_.op(e);
      if ((!isWrite(op) && op != Op::End) || listedBy(e).valid()) continue;
      for (NodeId v : writes(e)) {
        if (!firstWriter_[v.v].valid()) {
          firstWriter_[v.v] = e;
          continue;
        }
        moreWriters_[v.v].push_back(e);
        d_.error(g_.loc(e), "one-store-per-version",
                 "a second store into version " + nm(v) + ": at most one store may write into any given version, through any of "
                 "its views")
            .note(g_.loc(firstWriter_[v.v]), nm(firstWriter_[v.v]) + " already writes into " + nm(v))
            .note(g_.loc(e), "chain them: the second store goes into a view of the first store's after");
      }
    }
  }

  // ---- O5: the "must come before" graph ----

  // The member of region `r` (a range, or none) that contains x; a loop is
  // its range node. Climbs at most kMaxModuleLoopDepth levels.
  NodeId member(NodeId x, NodeId r) const {
    if (g_.op(x) == Op::End) x = rangeOf(x);
    while (g_.parent(x) != r) x = g_.parent(x);
    return x;
  }
  uint32_t depth(NodeId r) const {
    uint32_t d = 0;
    for (; r.valid(); r = g_.parent(r)) ++d;
    return d;
  }
  NodeId lca(NodeId a, NodeId b) const {
    uint32_t da = depth(a), db = depth(b);
    for (; da > db; --da) a = g_.parent(a);
    for (; db > da; --db) b = g_.parent(b);
    while (a != b) a = g_.parent(a), b = g_.parent(b);
    return a;
  }
  // The region a node is a member of (an `end` belongs with its range).
  NodeId regionOf(NodeId x) const { return g_.op(x) == Op::End ? g_.parent(rangeOf(x)) : g_.parent(x); }

  void addEdge(NodeId from, NodeId to, NodeId a, NodeId b, bool order, NodeId v = NodeId::none()) {
    if (from == to) return;
    if (from.v > to.v) backward_ = true;
    if (keepWhy_) edges_.push_back({from, to, a, b, order, v});
  }

  // Order edges are built for every program (the scheduler needs them); data
  // edges only when an order edge points backward and a cycle is possible.
  void buildEdges() {
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId n{i};
      if (g_.op(n) == Op::Load) loadEdges(n, f_.version[i]);
      if (g_.op(n) == Op::Call)  // a call reads every view it is passed
        for (Operand o : g_.operands(n))
          if (!o.isLit() && f_.isView(o.node())) loadEdges(n, f_.version[o.node().v]);
    }
  }

  void dataEdges() {
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId x{i};
      Op op = g_.op(x);
      auto ops = g_.operands(x);
      for (size_t k = 0; k < ops.size(); ++k) {
        if (ops[k].isLit()) continue;
        // An `end`'s operands and a reduced value are inside the loop's node.
        if (op == Op::End || (op == Op::Reduce && k == 1)) continue;
        NodeId y = ops[k].node();
        if (g_.op(y) == Op::Range) continue;  // an index, used in its own body
        NodeId r = regionOf(y);
        addEdge(member(y, r), member(x, r), y, x, false);
      }
    }
  }

  // A load of version V must run before every event that overwrites V.
  void loadEdges(NodeId load, NodeId v) {
    if (!firstWriter_[v.v].valid()) return;
    static const std::vector<NodeId> none;
    auto more = moreWriters_.find(v.v);
    const auto &rest = more == moreWriters_.end() ? none : more->second;
    for (size_t w = 0; w <= rest.size(); ++w) {
      NodeId e = w == 0 ? firstWriter_[v.v] : rest[w - 1];
      // Descend through parallel loops that contain the load: inside one, the
      // lane rule (layer 3) keeps iterations apart, and within an iteration
      // the load precedes the store that writes the same lane.
      for (int guard = 0; guard <= static_cast<int>(kMaxModuleLoopDepth); ++guard) {
        NodeId r = lca(regionOf(load), regionOf(e));
        NodeId ml = member(load, r), me = member(e, r);
        if (ml != me) {
          addEdge(ml, me, load, e, true, v);
          if (!keepWhy_) f_.orderEdges.push_back({ml, me});
          break;
        }
        // The load is inside the loop that overwrites V.
        NodeId loop = g_.op(e) == Op::End ? rangeOf(e) : e;
        if (!g_.parallel(loop)) {
          if (keepWhy_) break;  // reported the first time
          d_.error(g_.loc(load), "old-version-order",
                   std::string(kOldVersion) + ": " + nm(load) + " reads " + nm(v) + " inside the loop that overwrites it, so every "
                   "iteration after the first would read the new contents")
              .note(g_.loc(loop), "this serial loop writes into " + nm(v))
              .note(g_.loc(load), "load the version carried into the iteration instead");
          break;
        }
        NodeId inner = NodeId::none();
        auto eops = g_.operands(e);
        for (size_t k = 1; k < eops.size() && !inner.valid(); ++k) {
          const auto &w = writes(eops[k].node());
          if (std::find(w.begin(), w.end(), v) != w.end()) inner = eops[k].node();
        }
        if (!inner.valid()) break;
        e = inner;
      }
    }
  }

  struct Found {};
  using BGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, uint32_t>;

  void findCycles() {
    dataEdges();
    std::vector<uint8_t> dropped(edges_.size(), 0);
    for (int round = 0; round < 10 && !d_.full(); ++round) {
      BGraph bg(g_.size());
      for (uint32_t k = 0; k < edges_.size(); ++k)
        if (!dropped[k]) boost::add_edge(edges_[k].from.v, edges_[k].to.v, k, bg);
      std::vector<uint32_t> predEdge(g_.size(), UINT32_MAX);
      uint32_t back = UINT32_MAX;
      struct Vis : boost::default_dfs_visitor {
        std::vector<uint32_t> *pred;
        uint32_t *back;
        void tree_edge(BGraph::edge_descriptor e, const BGraph &gr) { (*pred)[boost::target(e, gr)] = gr[e]; }
        void back_edge(BGraph::edge_descriptor e, const BGraph &gr) {
          *back = gr[e];
          throw Found{};
        }
      } vis;
      vis.pred = &predEdge;
      vis.back = &back;
      try {
        boost::depth_first_search(bg, boost::visitor(vis));
      } catch (const Found &) {
      }
      if (back == UINT32_MAX) return;
      // The cycle: the back edge u -> v, then the tree path v -> ... -> u.
      std::vector<uint32_t> cyc{back};
      for (NodeId at = edges_[back].from; at != edges_[back].to;) {
        uint32_t pe = predEdge[at.v];
        cyc.push_back(pe);
        at = edges_[pe].from;
      }
      std::reverse(cyc.begin() + 1, cyc.end());
      // Now cyc = back edge, then the path from its head around to its tail.
      // Start the story at an order edge (a load that must come first).
      auto firstOrder = std::find_if(cyc.begin(), cyc.end(), [&](uint32_t k) { return edges_[k].order; });
      std::rotate(cyc.begin(), firstOrder, cyc.end());
      reportCycle(cyc);
      for (uint32_t k : cyc)
        if (edges_[k].order) dropped[k] = 1;
    }
  }

  void reportCycle(const std::vector<uint32_t> &cyc) {
    const EdgeWhy &first = edges_[cyc[0]];
    auto &dg = d_.error(g_.loc(first.a), "old-version-order", kOldVersion);
    int k = 0, total = static_cast<int>(cyc.size());
    for (uint32_t ei : cyc) {
      const EdgeWhy &e = edges_[ei];
      std::string arrow = "arrow " + std::to_string(++k) + "/" + std::to_string(total) + ": ";
      if (e.order) {
        NodeId v = e.v;
        dg.note(g_.loc(e.b), arrow + nm(e.a) + " (" + line(e.a) + ") must come before " + nm(e.b) + " (" + line(e.b) + "): " + nm(e.a) +
                                 " reads " + nm(v) + ", which " + nm(e.b) + " overwrites");
      } else {
        std::string why = "`" + nodeText(g_, e.b) + "` uses " + nm(e.a);
        if (e.from != e.a || e.to != e.b) why += " (inside the loop at " + line(e.from != e.a ? e.from : e.to) + ")";
        dg.note(g_.loc(e.b), arrow + nm(e.a) + " (" + line(e.a) + ") must come before " + nm(e.b) + " (" + line(e.b) + "): " + why);
      }
    }
    dg.note(g_.loc(first.a), "no order satisfies every arrow; a compiler would have to copy the old buffer, and the program must say "
                             "what memory it uses");
  }

  const Graph &g_;
  Facts &f_;
  Diags &d_;
  std::unordered_map<uint32_t, std::vector<NodeId>> endWrites_;
  // Event -> the parallel `end` listing it. Few events are in parallel
  // bodies, so a map: a 10^7-node graph pays no column for it.
  std::unordered_map<uint32_t, NodeId> listedBy_;
  NodeId listedBy(NodeId e) const {
    if (listedBy_.empty()) return NodeId::none();
    auto it = listedBy_.find(e.v);
    return it == listedBy_.end() ? NodeId::none() : it->second;
  }
  std::vector<uint8_t> namedWrongly_;                  // event -> an `after` names it with the wrong version
  // Store -> its `after`: the store's sequencer, which sequencing() sets
  // exactly when it records the after. (A store listed by a parallel `end`
  // gets that `end` as its sequencer, and its slot is not read after that.)
  NodeId &storeAfter(NodeId e) { return f_.link[e.v]; }
  std::unordered_map<uint64_t, NodeId> endAfter_;      // (end, version) -> its `after`
  std::vector<NodeId> firstWriter_;                    // version -> the first event writing it
  std::unordered_map<uint32_t, std::vector<NodeId>> moreWriters_;  // version -> the others
  std::vector<EdgeWhy> edges_;  // kept on the second pass only (keepWhy_)
  bool backward_ = false, keepWhy_ = false;
};

}  // namespace

bool checkOrder(const Graph &g, Facts &facts, Diags &diags) { return Order(g, facts, diags).run(); }

}  // namespace cairn
