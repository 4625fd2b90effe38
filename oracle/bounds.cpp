// Layer 3 of the oracle: views in bounds (here), and the lane rule
// (oracle/lanes.cpp).
//
// Assumes layer 1 (structure) reported nothing. Invariants checked:
//   B1  every `shrink` lies inside the view it shrinks: 0 <= offset and
//       offset + size <= the parent's size, for every value the offset can
//       take (`checked_shrink` is checked when it runs instead). The values
//       come from oracle/ranges.hpp: sets that account for wrap-around in
//       every op's own dtype, and symbolic bounds only where they are facts;
//   B2  the lane rule of parallel loops (oracle/lanes.cpp);
//   B3  (modules) a `shrink` of a view whose length is known only at run
//       time (a vparam, a deref, a part, or versions of them) cannot be
//       proven: it must be a `checked_shrink`.
// When an offset cannot be proven and an op on its path may have wrapped,
// the diagnostic names that op and says why.
#include "oracle/oracle.hpp"
#include "oracle/ranges.hpp"
#include "oracle/util.hpp"

namespace cairn {

namespace {

class Bounds {
 public:
  Bounds(const Graph &g, const Facts &f, Diags &d) : g_(g), f_(f), d_(d), vr_(g, f) {}

  bool run() {
    size_t before = d_.size();
    for (uint32_t i = 0; i < g_.size() && !d_.full(); ++i) {
      NodeId n{i};
      if (g_.op(n) == Op::Shrink) checkShrink(n);
      if (g_.op(n) == Op::Range && g_.parallel(n)) checkLanes(g_, f_, vr_, d_, n);
    }
    return d_.size() == before;
  }

 private:
  std::string nm(NodeId n) const { return pct(g_, n); }

  // B3: the parent's length is known only when the program runs.
  bool unknownLength(NodeId n, NodeId parent) {
    if (f_.elems[parent.v] >= 0 || (g_.op(parent) != Op::Part && g_.op(f_.storage[parent.v]) == Op::Buffer)) return false;
    d_.error(g_.loc(n), "bounds", "cannot prove the view " + nm(n) + " lies inside " + nm(parent) +
                                      ": its length is known only when the program runs")
        .note(g_.loc(parent), nm(parent) + " is defined here")
        .note(g_.loc(n), "use `checked_shrink`, which checks the offset when it runs");
    return true;
  }

  // B1.
  void checkShrink(NodeId n) {
    NodeId parent = g_.operands(n)[0].node();
    if (unknownLength(n, parent)) return;
    i128 s = f_.elems[n.v];
    IntType ot = vr_.operandType(n, 1, IntType{64, true});
    ISet o = vr_.operandSet(n, 1, ot);
    if (o.isEmpty()) return;  // computed only in a loop that never runs
    ISet h = o.hull(ot);
    NodeId sizeNode = NodeId::none();
    i128 psize = f_.elems[parent.v];
    if (psize < 0) {  // the whole of a buffer of dynamic size: at least its least size
      sizeNode = g_.operands(f_.storage[parent.v])[0].node();
      ISet sz = vr_.of(sizeNode).set.hull(vr_.of(sizeNode).type);
      psize = sz.isEmpty() ? 0 : sz.lo;
    }
    bool lowOk = h.lo >= 0;
    bool highOk = h.hi + s <= psize;
    if (!highOk && sizeNode.valid()) {
      Sym b = vr_.operandSym(n, 1);
      highOk = b.sym.valid() && vr_.symAtMost(b, s, sizeNode);
    }
    if (lowOk && highOk) return;
    report(n, parent, sizeNode, psize, ot, o);
  }

  void report(NodeId n, NodeId parent, NodeId sizeNode, i128 psize, IntType ot, ISet o) {
    i128 s = f_.elems[n.v];
    std::string pn = nm(parent), what;
    std::string sizeText = sizeNode.valid() ? nm(sizeNode) + " (its dynamic size)" : str(psize);
    Operand off = g_.operands(n)[1];
    if (off.isLit()) {
      what = "the view " + nm(n) + " of " + str(s) + " element(s) at offset " + str(o.lo) + " lies outside " + pn + ", which has " +
             sizeText + " element(s)";
    } else {
      std::string range = describeSet(ot, o);
      if (o.isFull(ot)) range += " (any " + std::string(dtypeName(f_.type[off.node().v])) + ")";
      if (Sym b = vr_.operandSym(n, 1); b.sym.valid() && b.sym != off.node())
        range += " and at most " + nm(b.sym) + (b.k > 0 ? " + " + str(b.k) : b.k < 0 ? " - " + str(-b.k) : "");
      what = "cannot prove the view " + nm(n) + " lies inside " + pn + ": its offset " + nm(off.node()) + " " + range +
             ", but the view needs 0 <= offset and offset + " + str(s) + " <= " + sizeText;
    }
    auto &dg = d_.error(g_.loc(n), "bounds", what);
    if (!off.isLit()) {
      dg.note(g_.loc(off.node()), nm(off.node()) + " is computed here");
      if (NodeId w = vr_.firstWrap(off.node()); w.valid())
        dg.note(g_.loc(w), describe(g_, w) + " " + vr_.wrapReason(w) + ", so no bound through it holds");
    }
    dg.note(g_.loc(parent), pn + " is defined here");
    if (!off.isLit())
      dg.note(g_.loc(n), "mask the offset into range (max, min, mod), or use `checked_shrink` to check it when it runs");
  }

  const Graph &g_;
  const Facts &f_;
  Diags &d_;
  ValueRanges vr_;
};

}  // namespace

bool checkBounds(const Graph &g, const Facts &facts, Diags &diags) { return Bounds(g, facts, diags).run(); }

}  // namespace cairn
