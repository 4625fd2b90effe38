// The scheduler: Kahn's algorithm, one region (loop body or top level) at a
// time, with loops kept contiguous.
//
// Assumes a graph the oracle accepted: names resolve, `range`/`end` nest as
// Graph::parent says, operands are defined earlier in source order, and the
// "must come before" relation (data edges plus Facts::orderEdges) is acyclic.
//
// Model. The items of a region are its nodes, except that a nested loop is
// one item: its `range` node stands for the whole block range..end, and its
// `end` is no item of its own. Every edge a -> b of the graph is lifted to
// the region where a and b meet: a node inside a loop is replaced by the
// loop's `range` (and `end` by its `range`) until both sides sit in one
// region. Edges that become a self-loop (a body node and its own loop's
// `end`, a loop's index and its body) need no order and are dropped: the
// body runs after its `range` and before its `end` anyway.
//
// Data edges are lifted during one scan in source order with the stack of
// open loops, so each costs O(1); order edges are already within one region
// (the oracle's contract), so their lifting loop runs only on bad input.
//
// The ready set is a hierarchical bitset over node ids. The items of one
// region's body all lie strictly between its `range` and `end` ids, and only
// the innermost region being scheduled has ready items in that span (an
// inner region's items are only marked while it is being scheduled), so "the
// smallest/largest ready id of this region" is a next/previous-set-bit query
// bounded to the span: O(log64 n), about 4 word probes for 10^7 nodes. The
// whole schedule is O((nodes + edges) * log64 n) time and needs no recursion.
#include "exec/schedule.hpp"

#include <bit>

namespace cairn {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// ---- the priority table -------------------------------------------------
// Which ready item of the current region runs next:
//   SourceOrder  the smallest node id: the program as written, where allowed
//   Latest       the largest node id: as far from source order as allowed
// Both are total orders on ids, so a schedule is a pure function of the graph.
enum class Pick { Smallest, Largest };
constexpr Pick pickFor(SchedulePriority p) {
  switch (p) {
    case SchedulePriority::SourceOrder: return Pick::Smallest;
    case SchedulePriority::Latest: return Pick::Largest;
  }
  return Pick::Smallest;
}

// A set of ids with next/previous-member queries: level 0 has one bit per
// id, each higher level one bit per non-zero word of the level below.
class ReadySet {
 public:
  explicit ReadySet(uint32_t n) {
    size_t words = (static_cast<size_t>(n) + 63) / 64;
    do {
      words = words == 0 ? 1 : words;
      levels_.emplace_back(words, 0);
      words = (words + 63) / 64;
    } while (levels_.back().size() > 1);
  }
  void set(uint32_t i) {
    size_t p = i;
    for (auto &lv : levels_) {
      uint64_t &w = lv[p >> 6];
      bool was = w != 0;
      w |= uint64_t{1} << (p & 63);
      if (was) break;  // the levels above already know this word is non-zero
      p >>= 6;
    }
  }
  void clear(uint32_t i) {
    size_t p = i;
    for (auto &lv : levels_) {
      uint64_t &w = lv[p >> 6];
      w &= ~(uint64_t{1} << (p & 63));
      if (w != 0) break;
      p >>= 6;
    }
  }
  // The smallest member >= i, or kNone.
  uint32_t next(uint32_t i) const {
    size_t level = 0, p = i;
    for (;;) {
      const auto &lv = levels_[level];
      if ((p >> 6) >= lv.size()) return kNone;
      uint64_t w = lv[p >> 6] & (~uint64_t{0} << (p & 63));
      if (w != 0) {
        p = (p & ~size_t{63}) | static_cast<size_t>(std::countr_zero(w));
        while (level > 0) {
          --level;
          p = p * 64 + static_cast<size_t>(std::countr_zero(levels_[level][p]));
        }
        return static_cast<uint32_t>(p);
      }
      if (++level == levels_.size()) return kNone;
      p = (p >> 6) + 1;
    }
  }
  // The largest member <= i, or kNone.
  uint32_t prev(uint32_t i) const {
    size_t level = 0, p = i;
    for (;;) {
      const auto &lv = levels_[level];
      unsigned bit = p & 63;
      uint64_t mask = bit == 63 ? ~uint64_t{0} : (uint64_t{1} << (bit + 1)) - 1;
      uint64_t w = lv[p >> 6] & mask;
      if (w != 0) {
        p = (p & ~size_t{63}) | static_cast<size_t>(63 - std::countl_zero(w));
        while (level > 0) {
          --level;
          p = p * 64 + static_cast<size_t>(63 - std::countl_zero(levels_[level][p]));
        }
        return static_cast<uint32_t>(p);
      }
      if ((p >> 6) == 0 || ++level == levels_.size()) return kNone;
      p = (p >> 6) - 1;
    }
  }

 private:
  std::vector<std::vector<uint64_t>> levels_;
};

class Scheduler {
 public:
  Scheduler(const Graph &g, const Facts &f, SchedulePriority prio, bool alwaysKahn)
      : g_(g), f_(f), n_(g.size()), pick_(pickFor(prio)), alwaysKahn_(alwaysKahn) {}

  bool inSourceOrder() { return !buildLoops() || (pick_ == Pick::Smallest && orderEdgesForward()); }

  Schedule run() {
    Schedule s;
    if (!buildLoops()) return sourceOrder();
    if (!alwaysKahn_ && pick_ == Pick::Smallest && orderEdgesForward()) return sourceOrder();
    // Two passes over the edges: count, then fill a CSR adjacency. This
    // keeps no list of edge pairs (8 bytes an edge) alive.
    std::vector<uint32_t> outStart(static_cast<size_t>(n_) + 1, 0);
    indeg_.assign(n_, 0);
    forEachEdge([&](uint32_t a, uint32_t b) {
      ++outStart[a + 1];
      ++indeg_[b];
    });
    for (uint32_t i = 0; i < n_; ++i) outStart[i + 1] += outStart[i];
    succ_.resize(outStart[n_]);
    std::vector<uint32_t> fill(outStart.begin(), outStart.end() - 1);
    forEachEdge([&](uint32_t a, uint32_t b) { succ_[fill[a]++] = b; });
    fill = {};
    outStart_ = std::move(outStart);
    s.order = kahn();
    if (s.order.size() != n_) return sourceOrder();  // a cycle: not a validated graph
    return s;
  }

 private:
  uint32_t rep(uint32_t x) const { return g_.op(NodeId{x}) == Op::End ? link_[x] : x; }
  uint32_t parentOf(uint32_t x) const { return g_.parent(NodeId{x}).v; }

  // Pairs each `range` with its `end` (link_) and records each node's region
  // depth. False when the loops do not nest (only on unvalidated input).
  bool buildLoops() {
    link_.assign(n_, kNone);
    depth_.assign(n_, 0);
    std::vector<uint32_t> open;
    for (uint32_t i = 0; i < n_; ++i) {
      Op op = g_.op(NodeId{i});
      if (op == Op::End) {
        if (open.empty()) return false;
        link_[open.back()] = i;
        link_[i] = open.back();
        open.pop_back();
      }
      if (parentOf(i) != (open.empty() ? kNone : open.back())) return false;
      depth_[i] = static_cast<uint32_t>(open.size());
      if (op == Op::Range) open.push_back(i);
    }
    return open.empty();
  }

  // Calls fn(a, b) for every lifted edge "item a runs before item b".
  template <class Fn>
  void forEachEdge(Fn &&fn) {
    std::vector<uint32_t> open;  // the loops enclosing the node being scanned
    for (uint32_t i = 0; i < n_; ++i) {
      NodeId n{i};
      Op op = g_.op(n);
      if (op == Op::End) open.pop_back();
      uint32_t b = rep(i);
      uint32_t cur = static_cast<uint32_t>(open.size());
      for (Operand o : g_.operands(n)) {
        if (o.isLit() || !o.node().valid() || o.node().v >= i) continue;
        uint32_t a = rep(o.node().v), da = depth_[a];
        // Lift a until its region encloses b's (only a reduce's VALUE,
        // which sits in a loop body the reduce follows, needs this).
        while (!(da <= cur && parentOf(a) == (da == 0 ? kNone : open[da - 1]))) {
          a = parentOf(a);
          if (a == kNone) break;
          da = depth_[a];
        }
        if (a == kNone) continue;
        uint32_t bb = da == cur ? b : open[da];  // b's item in a's region
        if (a != bb) fn(a, bb);
      }
      if (op == Op::Range) open.push_back(i);
    }
    forEachOrderEdge(fn);
  }
  template <class Fn>
  void forEachOrderEdge(Fn &&fn) const {
    for (auto [x, y] : f_.orderEdges) {
      if (!x.valid() || !y.valid() || x.v >= n_ || y.v >= n_) continue;
      uint32_t a = rep(x.v), b = rep(y.v);
      while (depth_[a] > depth_[b]) a = parentOf(a);
      while (depth_[b] > depth_[a]) b = parentOf(b);
      while (parentOf(a) != parentOf(b)) {
        a = parentOf(a);
        b = parentOf(b);
      }
      if (a != b) fn(a, b);
    }
  }

  // Whether every order edge, lifted to its region, runs from a smaller id
  // to a larger one. Data edges always do: an operand is defined earlier,
  // and lifting keeps that (a loop's nodes are the contiguous ids from its
  // `range` to its `end`, so an item before a loop is before its `range`).
  // Then every item's predecessors have smaller ids, the smallest ready id
  // is always the next one, and SourceOrder's schedule is the source order
  // itself: one scan of the order edges instead of Kahn's algorithm, whose
  // indegree updates miss the cache on nearly every edge of a graph larger
  // than the cache.
  bool orderEdgesForward() const {
    bool forward = true;
    forEachOrderEdge([&](uint32_t a, uint32_t b) { forward = forward && a < b; });
    return forward;
  }

  // The items of the region spanning ids [lo, hi): skip each nested loop
  // from its `range` to its `end`.
  template <class Fn>
  void forEachItem(uint32_t lo, uint32_t hi, Fn &&fn) const {
    for (uint32_t x = lo; x < hi; x = (g_.op(NodeId{x}) == Op::Range ? link_[x] : x) + 1) fn(x);
  }

  uint32_t pickIn(const ReadySet &ready, uint32_t lo, uint32_t hi) const {
    if (lo >= hi) return kNone;
    if (pick_ == Pick::Smallest) {
      uint32_t x = ready.next(lo);
      return x < hi ? x : kNone;
    }
    uint32_t x = ready.prev(hi - 1);
    return x != kNone && x >= lo ? x : kNone;
  }

  std::vector<NodeId> kahn() {
    std::vector<NodeId> order;
    order.reserve(n_);
    ReadySet ready(n_);
    auto enter = [&](uint32_t lo, uint32_t hi) {
      forEachItem(lo, hi, [&](uint32_t x) {
        if (indeg_[x] == 0) ready.set(x);
      });
    };
    auto release = [&](uint32_t x) {
      for (uint32_t k = outStart_[x]; k < outStart_[x + 1]; ++k)
        if (--indeg_[succ_[k]] == 0) ready.set(succ_[k]);
    };
    struct Frame {
      uint32_t loop, lo, hi;  // the region's loop (kNone: top level) and id span
    };
    std::vector<Frame> stack{{kNone, 0, n_}};
    enter(0, n_);
    while (!stack.empty()) {
      Frame f = stack.back();
      uint32_t x = pickIn(ready, f.lo, f.hi);
      if (x == kNone) {  // the region is done (or stuck on a cycle)
        stack.pop_back();
        if (f.loop != kNone) {
          order.push_back(NodeId{link_[f.loop]});
          release(f.loop);
        }
        continue;
      }
      ready.clear(x);
      order.push_back(NodeId{x});
      if (g_.op(NodeId{x}) == Op::Range) {
        stack.push_back({x, x + 1, link_[x]});
        enter(x + 1, link_[x]);
      } else {
        release(x);
      }
    }
    return order;
  }

  Schedule sourceOrder() const {
    Schedule s;
    s.order.reserve(n_);
    for (uint32_t i = 0; i < n_; ++i) s.order.push_back(NodeId{i});
    return s;
  }

  const Graph &g_;
  const Facts &f_;
  uint32_t n_;
  Pick pick_;
  bool alwaysKahn_;
  std::vector<uint32_t> link_, depth_, indeg_, outStart_, succ_;
};

}  // namespace

Schedule schedule(const Graph &g, const Facts &facts, SchedulePriority prio) {
  return Scheduler(g, facts, prio, false).run();
}

bool schedulesInSourceOrder(const Graph &g, const Facts &facts, SchedulePriority prio) {
  return Scheduler(g, facts, prio, false).inSourceOrder();
}

Schedule scheduleByKahn(const Graph &g, const Facts &facts, SchedulePriority prio) {
  return Scheduler(g, facts, prio, true).run();
}

}  // namespace cairn
