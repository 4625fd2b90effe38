// B2, the lane rule of parallel loops (called by oracle/bounds.cpp for each
// parallel `range`).
//
// In a parallel loop over i, the stores of the body (at any depth) that
// write a version from outside the loop are grouped by buffer. Each store's
// offset (the sum of its view's shrink offsets) is put in the form
// c*i + r, where c is a non-zero constant (negative ones too) or, times the
// bare index, a loop-invariant value %n >= 1, and r is bounded by the value
// analysis. `all` bounds r over every execution; `var` bounds only the part
// of r computed inside the loop (the rest is fixed while the loop runs),
// which is what distinct iterations need. r may depend on i: if every r
// lies in a window of at most |c| values, c*i + r is still injective.
//   - one store: distinct iterations write distinct elements when `var`
//     spans at most |c| elements;
//   - several stores into one buffer: one c, and all offsets in one window
//     of |c| elements (iteration i writes inside its own window);
//   - a load in the loop of a buffer the loop writes: the same offset
//     operands as a store, or inside its own iteration's window.
// The form is followed only through ops whose result is their mathematical
// value for every value of their operands (ValueInfo::exact: no wrap-around
// for the index's whole range): add, sub, neg, mul and shl by a constant
// (or the bare index by an invariant value), idiv and shr by a constant
// that divides the coefficient, casts and the checked ops, and a max, min,
// mod or and that is one of its operands for all their values. Any other value
// is taken whole, bounded by its range; when that value depends on i, the
// first op where the dependence was lost is kept, and a refusal names it
// and says why (it may wrap, or it is not affine).
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "oracle/oracle.hpp"
#include "oracle/ranges.hpp"
#include "oracle/util.hpp"

namespace cairn {

namespace {

struct Part {
  i128 lo = 0, hi = 0;
  Sym sym;  // symbolic upper bound, when known
};
struct Affine {
  bool ok = true;  // false: the view goes through a `part`, whose low bound is not followed
  i128 coef = 0;
  NodeId coefSym;    // valid: the coefficient is this node's value
  Part all, var;
  bool dep = false;  // depends on the index
  NodeId lost;       // the first op where a dependence on the index was not followed
};

bool varies(const Affine &a) { return a.coef != 0 || a.coefSym.valid(); }
bool zero(const Part &p) { return p.lo == 0 && p.hi == 0; }

Part addParts(const Part &a, const Part &b) {
  Part r{a.lo + b.lo, a.hi + b.hi, {}};
  if (a.sym.sym.valid()) r.sym = {a.sym.sym, a.sym.k + b.hi};
  else if (b.sym.sym.valid()) r.sym = {b.sym.sym, b.sym.k + a.hi};
  return r;
}
Part negPart(const Part &a) { return Part{-a.hi, -a.lo, {}}; }
Part scalePart(const Part &a, i128 c) {
  Part r{std::min(a.lo * c, a.hi * c), std::max(a.lo * c, a.hi * c), {}};
  if (c == 1) r.sym = a.sym;
  return r;
}
i128 ceilDiv(i128 a, i128 d) { return -floorDiv(-a, d); }

class Lanes {
 public:
  Lanes(const Graph &g, const Facts &f, const ValueRanges &vr, Diags &d, NodeId loop)
      : g_(g), f_(f), vr_(vr), d_(d), loop_(loop) {}
  void check();

 private:
  std::string nm(NodeId n) const { return pct(g_, n); }
  bool inside(NodeId x) const {
    for (NodeId p = g_.op(x) == Op::Range ? x : g_.parent(x); p.valid(); p = g_.parent(p))
      if (p == loop_) return true;
    return false;
  }
  Affine leaf(NodeId n, size_t k, bool in) const;
  Affine whole(NodeId x, const Affine *ops, size_t n) const;
  Affine operand(NodeId n, size_t k);
  Affine form(NodeId x);
  Affine formNode(NodeId x);
  Affine addSub(NodeId x, bool sub);
  Affine scaled(NodeId x, const Affine &v, i128 c) const;
  Affine divided(NodeId x, const Affine &a, i128 d, bool floorAlways);
  std::optional<size_t> identityOperand(NodeId x) const;
  Affine viewForm(NodeId view);
  bool fits(const Part &p, i128 width, const Affine &a) const;
  bool sameOffsets(NodeId a, NodeId b) const;
  NodeId outsideRoot(NodeId v) const;
  NodeId heapRootInside(NodeId v) const;
  std::string lostText(const Affine &a) const;
  std::string reasonOf(NodeId x) const;
  std::string why(const Affine &w, bool single, const std::string &offset = "the offset") const;
  void attachLost(Diagnostic &dg, const Affine &a) const;
  void checkGroup(NodeId outer, NodeId storage, const std::vector<std::pair<NodeId, Affine>> &stores, uint32_t endId,
                  const std::string &where);

  const Graph &g_;
  const Facts &f_;
  const ValueRanges &vr_;
  Diags &d_;
  NodeId loop_;
  std::unordered_map<uint32_t, Affine> memo_;
};

// Operand k of n taken whole: bounded by its values, fixed in the loop
// unless `in` (computed inside it).
Affine Lanes::leaf(NodeId n, size_t k, bool in) const {
  Affine a;
  IntType t = vr_.operandType(n, k, vr_.analysed(n) ? vr_.of(n).type : IntType{64, true});
  ISet h = vr_.operandSet(n, k, t).hull(t);
  a.all = Part{h.lo, h.hi, vr_.operandSym(n, k)};
  if (in) a.var = a.all;
  return a;
}

// x taken whole (an op the form does not follow): bounded by its values;
// it keeps its operands' dependence on the index, and names x as where the
// form was lost when that dependence was not lost before.
Affine Lanes::whole(NodeId x, const Affine *ops, size_t n) const {
  Affine a;
  ISet h = vr_.of(x).set.hull(vr_.of(x).type);
  a.all = a.var = Part{h.lo, h.hi, vr_.of(x).sym.sym.valid() ? vr_.of(x).sym : Sym{x, 0}};
  for (size_t k = 0; k < n; ++k) {
    a.dep = a.dep || ops[k].dep;
    if (!a.lost.valid()) a.lost = ops[k].lost;
  }
  if (a.dep && !a.lost.valid()) a.lost = x;
  return a;
}

Affine Lanes::operand(NodeId n, size_t k) {
  Operand o = g_.operands(n)[k];
  if (o.isLit() || !inside(o.node())) return leaf(n, k, false);
  return form(o.node());
}

// The form of x, without recursion on the program's depth.
Affine Lanes::form(NodeId x) {
  if (auto it = memo_.find(x.v); it != memo_.end()) return it->second;
  std::vector<std::pair<NodeId, bool>> stack{{x, false}};
  while (!stack.empty()) {
    auto [y, expanded] = stack.back();
    stack.pop_back();
    if (memo_.count(y.v)) continue;
    if (!expanded && y != loop_ && vr_.analysed(y) && vr_.follows(y)) {
      stack.push_back({y, true});
      for (Operand p : g_.operands(y))
        if (!p.isLit() && inside(p.node()) && !memo_.count(p.node().v)) stack.push_back({p.node(), false});
      continue;
    }
    memo_[y.v] = formNode(y);
  }
  return memo_[x.v];
}

Affine Lanes::formNode(NodeId x) {
  if (x == loop_) {
    Affine a;
    a.coef = 1;
    a.dep = true;
    return a;
  }
  if (!vr_.analysed(x) || !vr_.follows(x)) return whole(x, nullptr, 0);  // a load, a reduce, ...: any value, per iteration
  Op op = g_.op(x);
  size_t n = std::min<size_t>(g_.operands(x).size(), 3);
  Affine ops[3];
  for (size_t k = 0; k < n; ++k) ops[k] = operand(x, k);
  if (op == Op::Range) return whole(x, ops, n);  // an inner loop's index varies in every iteration of this one
  bool invariant = true;
  for (size_t k = 0; k < n; ++k) {
    invariant = invariant && !ops[k].dep && !varies(ops[k]) && zero(ops[k].var);
  }
  if (invariant) {  // pure ops of values fixed in the loop are fixed in it
    Affine a = whole(x, nullptr, 0);
    a.var = Part{};
    return a;
  }
  bool anyDep = false;
  for (size_t k = 0; k < n; ++k) anyDep = anyDep || ops[k].dep;
  if (!anyDep || !vr_.of(x).exact) return whole(x, ops, n);  // may wrap: the form is lost here
  auto constant = [&](size_t k) -> std::optional<i128> {
    if (ops[k].dep || varies(ops[k]) || !zero(ops[k].var) || ops[k].all.lo != ops[k].all.hi) return std::nullopt;
    return ops[k].all.lo;
  };
  IntType t = vr_.of(x).type;
  switch (op) {
    case Op::Cast:
    case Op::CheckedCast: return ops[0];  // exact: the value is kept
    case Op::Add:
    case Op::CheckedAdd: return addSub(x, false);
    case Op::Sub:
    case Op::CheckedSub: return addSub(x, true);
    case Op::Neg:
      if (ops[0].coefSym.valid()) break;
      return scaled(x, ops[0], -1);
    case Op::Mul:
    case Op::CheckedMul:
      for (size_t side = 0; side < 2; ++side) {
        const Affine &v = ops[side];
        if (auto c = constant(1 - side); c && !v.coefSym.valid()) return scaled(x, v, *c);
        Operand co = g_.operands(x)[1 - side];
        bool bareIndex = v.coef == 1 && !v.coefSym.valid() && zero(v.all) && !v.lost.valid();
        if (!co.isLit() && bareIndex && !ops[1 - side].dep && zero(ops[1 - side].var)) {
          Affine a = v;
          a.coef = 0;
          a.coefSym = co.node();
          return a;
        }
      }
      break;
    case Op::Shl:
      if (auto s = constant(1); s && !ops[0].coefSym.valid()) {
        i128 k = *s % t.bits;
        return scaled(x, ops[0], i128{1} << static_cast<int>(k < 0 ? k + t.bits : k));
      }
      break;
    case Op::Idiv:
    case Op::CheckedDiv:
      if (auto d = constant(1); d && *d != 0) return divided(x, ops[0], *d, false);
      break;
    case Op::Shr:
      if (auto s = constant(1)) {
        i128 k = *s % t.bits;
        return divided(x, ops[0], i128{1} << static_cast<int>(k < 0 ? k + t.bits : k), true);
      }
      break;
    case Op::Max:
    case Op::Min:
    case Op::Mod:
    case Op::And:
      if (auto k = identityOperand(x)) return ops[*k];
      break;
    default: break;
  }
  return whole(x, ops, n);
}

// Is x, for every value of its operands, one of them (max of a value and
// one never above it; mod by a divisor larger than every |a|; and with a
// mask of every bit a can have)? Then it is that operand, form and all.
std::optional<size_t> Lanes::identityOperand(NodeId x) const {
  IntType t = vr_.of(x).type;
  ISet a = vr_.operandSet(x, 0, t).hull(t), b = vr_.operandSet(x, 1, t).hull(t);
  switch (g_.op(x)) {
    case Op::Max:
      if (b.hi <= a.lo) return 0;
      if (a.hi <= b.lo) return 1;
      break;
    case Op::Min:
      if (a.hi <= b.lo) return 0;
      if (b.hi <= a.lo) return 1;
      break;
    case Op::Mod:
      if (b.lo >= 1 && a.lo > -b.lo && a.hi < b.lo) return 0;
      if (b.hi <= -1 && a.lo > b.hi && a.hi < -b.hi) return 0;
      break;
    case Op::And:
      for (size_t k = 0; k < 2; ++k) {
        ISet v = k ? b : a, m = k ? a : b;
        if (m.isPoint() && v.lo >= 0 && m.lo >= 0 && ((m.lo + 1) & m.lo) == 0 && v.hi <= m.lo) return k;
      }
      break;
    default: break;
  }
  return std::nullopt;
}

Affine Lanes::addSub(NodeId x, bool sub) {
  Affine a = operand(x, 0), b = operand(x, 1);
  if (sub) {
    if (b.coefSym.valid()) {  // a negative invariant coefficient: not followed
      Affine w[2] = {a, b};
      return whole(x, w, 2);
    }
    b.coef = -b.coef;
    b.all = negPart(b.all);
    b.var = negPart(b.var);
  }
  Affine r;
  if (varies(a) && varies(b)) {
    if (a.coefSym.valid() || b.coefSym.valid()) {
      Affine w[2] = {a, b};
      return whole(x, w, 2);
    }
    r.coef = a.coef + b.coef;
  } else {
    const Affine &v = varies(a) ? a : b;
    r.coef = v.coef;
    r.coefSym = v.coefSym;
  }
  r.all = addParts(a.all, b.all);
  r.var = addParts(a.var, b.var);
  r.dep = a.dep || b.dep;
  r.lost = a.lost.valid() ? a.lost : b.lost;
  return r;
}

Affine Lanes::scaled(NodeId, const Affine &v, i128 c) const {
  Affine r = v;
  r.coef = v.coef * c;
  r.all = scalePart(v.all, c);
  r.var = scalePart(v.var, c);
  return r;
}

// trunc(a / d) (or floor, for shr) of a = c*i + r with d dividing c: it is
// (c/d)*i + r', where r' lies in [floor(r/d), ceil(r/d)] (exactly floor or
// ceil when the dividend never changes sign, or always for floor).
Affine Lanes::divided(NodeId x, const Affine &a, i128 d, bool floorAlways) {
  if (a.coefSym.valid() || a.coef % d != 0) return whole(x, &a, 1);
  i128 m = d < 0 ? -d : d;
  IntType ta = vr_.operandType(x, 0, vr_.of(x).type);
  ISet dividend = vr_.operandSet(x, 0, ta).hull(ta);
  bool floors = floorAlways || dividend.lo >= 0, ceils = !floorAlways && dividend.hi <= 0;
  auto lo = [&](i128 v) { return ceils && !floors ? ceilDiv(v, m) : floorDiv(v, m); };
  auto hi = [&](i128 v) { return floors ? floorDiv(v, m) : ceilDiv(v, m); };
  Affine r = a;
  r.coef = a.coef / m;
  r.all = Part{lo(a.all.lo), hi(a.all.hi), {}};
  // The invariant part of r and the varying part do not divide apart: r' is
  // fixed in the loop only when all of r is.
  r.var = zero(a.var) && (floors || ceils) ? Part{} : r.all;
  if (d < 0) r = scaled(x, r, -1);
  return r;
}

// The offset of a view from its storage: the sum of its shrinks' offsets.
Affine Lanes::viewForm(NodeId view) {
  Affine sum;
  NodeId v = view;
  for (; g_.op(v) == Op::Shrink || g_.op(v) == Op::CShrink; v = g_.operands(v)[0].node()) {
    Affine a = operand(v, 1);
    if (varies(a) && varies(sum)) {
      if (a.coefSym.valid() || sum.coefSym.valid()) {  // two invariant coefficients: this offset whole
        a = leaf(v, 1, true);
        a.dep = true;
        a.lost = v;
      } else {
        sum.coef += a.coef;
      }
    } else if (varies(a)) {
      sum.coef = a.coef;
      sum.coefSym = a.coefSym;
    }
    sum.all = addParts(sum.all, a.all);
    sum.var = addParts(sum.var, a.var);
    sum.dep = sum.dep || a.dep;
    if (!sum.lost.valid()) sum.lost = a.lost;
  }
  if (g_.op(v) == Op::Part) sum.ok = false;  // its low bound is not followed
  return sum;
}

// Is the window [lo, hi + width) of parts p inside |c| elements?
bool Lanes::fits(const Part &p, i128 width, const Affine &a) const {
  i128 span = p.hi - p.lo + width;
  if (a.coefSym.valid()) {
    ISet n = vr_.of(a.coefSym).set.hull(vr_.of(a.coefSym).type);
    if (n.isEmpty() || n.lo < 1) return false;  // %n = 0 puts every iteration on one element
    return span <= n.lo || (p.sym.sym.valid() && vr_.symAtMost(p.sym, width - p.lo, a.coefSym));
  }
  i128 c = a.coef < 0 ? -a.coef : a.coef;
  return c != 0 && span <= c;
}

// Do two views add up the same offset operands (so name the same element)?
bool Lanes::sameOffsets(NodeId a, NodeId b) const {
  auto next = [&](NodeId &v) {
    while (g_.op(v) == Op::Shrink || g_.op(v) == Op::CShrink) {
      Operand o = g_.operands(v)[1];
      v = g_.operands(v)[0].node();
      if (!(o.isLit() && g_.literal(o.lit()).magnitude == 0)) return std::optional<Operand>(o);
    }
    return std::optional<Operand>();
  };
  for (;;) {
    auto x = next(a), y = next(b);
    if (!x && !y) return a == b;
    if (!x || !y) return false;
    if (x->isLit() != y->isLit()) return false;
    if (x->isLit() ? !(g_.literal(x->lit()) == g_.literal(y->lit())) : x->raw != y->raw) return false;
  }
}

// The version outside the loop that v continues (through `carry` and the
// `after`s of a serial body), or none when v starts inside the loop.
NodeId Lanes::outsideRoot(NodeId v) const {
  while (v.valid() && inside(v)) {
    if (g_.op(v) == Op::Carry || g_.op(v) == Op::After) v = g_.operands(v)[0].node();
    else return NodeId::none();
  }
  return v;
}

// The `deref` inside the loop that v continues (through `carry` and
// `after`), or none: its object may be shared by every iteration.
NodeId Lanes::heapRootInside(NodeId v) const {
  while (v.valid() && inside(v) && (g_.op(v) == Op::Carry || g_.op(v) == Op::After)) v = g_.operands(v)[0].node();
  return v.valid() && inside(v) && g_.op(v) == Op::Deref ? v : NodeId::none();
}

std::string Lanes::lostText(const Affine &a) const { return describe(g_, a.lost) + " " + reasonOf(a.lost); }

// Why the form was lost at x: it may wrap, or it is not affine.
std::string Lanes::reasonOf(NodeId x) const {
  std::string reason = vr_.wrapReason(x);
  if (reason.empty())
    reason = g_.op(x) == Op::Shrink || g_.op(x) == Op::CShrink
                 ? "adds a second offset with a loop-invariant coefficient, which the lane rule does not follow"
                 : "is not affine in " + nm(loop_) + " (the lane rule follows add, sub, neg, mul and shl by a constant, mul of " +
                       nm(loop_) + " by a loop-invariant value, idiv and shr by a constant that divides the coefficient, and casts "
                       "that cannot wrap)";
  return reason;
}

void Lanes::attachLost(Diagnostic &dg, const Affine &a) const {
  if (a.lost.valid()) dg.note(g_.loc(a.lost), lostText(a));
}

// Why the offset(s) w fail: the text after "two iterations may write the
// same element of %b: ". Every clause is a fact about the program.
std::string Lanes::why(const Affine &w, bool single, const std::string &offset) const {
  // r's values over every run; what must fit |c| is its spread: within one
  // run of the loop for one store (the part of r computed inside it), over
  // all stores for several.
  const Part &p = single ? w.var : w.all;
  i128 width = p.hi - p.lo + 1;
  std::string r = "[" + str(w.all.lo) + ", " + str(w.all.hi) + "]";
  bool partial = single && (w.var.lo != w.all.lo || w.var.hi != w.all.hi);
  std::string spread = partial ? "the part of r computed inside the loop spans " + str(width) + " element(s)"
                               : "r spans " + str(width) + " element(s)" + (single ? "" : " over its stores");
  if (w.lost.valid())
    return offset + " depends on " + nm(loop_) + " through " + nm(w.lost) + ", which " + reasonOf(w.lost) +
           "; the rule knows only that the offset is " +
           (varies(w) ? (w.coefSym.valid() ? nm(w.coefSym) : str(w.coef)) + "*" + nm(loop_) + " + r, where r is in " + r + " and " + spread
                      : "in " + r);
  if (!varies(w)) {
    if (p.lo == p.hi) return offset + " does not depend on " + nm(loop_) + ", so every iteration writes the same element";
    return offset + " does not depend on " + nm(loop_) + ": it is r, where r is in " + r;
  }
  std::string c = w.coefSym.valid() ? nm(w.coefSym) : str(w.coef);
  std::string text = offset + " is " + c + "*" + nm(loop_) + " + r, where r is in " + r;
  if (w.coefSym.valid()) {
    ISet n = vr_.of(w.coefSym).set.hull(vr_.of(w.coefSym).type);
    if (n.lo < 1) return text + ", and " + nm(w.coefSym) + " may be " + str(std::max<i128>(n.lo, 0)) + " (" + nm(w.coefSym) + " " +
                         describeSet(vr_.of(w.coefSym).type, vr_.of(w.coefSym).set) + ")";
    return text + ", and " + spread + ", which may be more than " + nm(w.coefSym);
  }
  return text + ", and " + spread + ", more than |" + c + "|";
}

// One buffer's stores: one store spreads by its in-loop part; several
// share one window spanning all their offsets. Then its loads.
void Lanes::checkGroup(NodeId outer, NodeId storage, const std::vector<std::pair<NodeId, Affine>> &stores, uint32_t endId,
                       const std::string &where) {
  const Affine &w0 = stores[0].second;
  bool single = stores.size() == 1;
  Affine win = w0;
  bool ok = true;
  NodeId bad = stores[0].first;
  const Affine *badForm = &w0;
  if (single) {
    ok = fits(w0.var, 1, w0);
  } else {
    for (auto &[st, w] : stores) {
      if (ok && (w.coef != w0.coef || w.coefSym != w0.coefSym)) ok = false, bad = st, badForm = &w;
      win.all.lo = std::min(win.all.lo, w.all.lo);
      win.all.hi = std::max(win.all.hi, w.all.hi);
      if (!win.lost.valid()) win.lost = w.lost;
    }
    win.all.sym = {};
    for (auto &[st, w] : stores) {
      Part span = w.all;
      span.lo = win.all.lo;
      if (ok && !fits(span, 1, w0)) ok = false, bad = st, badForm = &w;
    }
  }
  if (!ok) {
    // Say only what is true of the store(s) named: with different
    // coefficients, a store whose form was lost is described by its own form.
    const Affine *shown = single ? &w0 : &win;
    bool mismatch = !single && (badForm->coef != w0.coef || badForm->coefSym != w0.coefSym);
    std::string text;
    if (mismatch && (badForm->lost.valid() || w0.lost.valid())) {
      shown = badForm->lost.valid() ? badForm : &w0;
      NodeId named = badForm->lost.valid() ? bad : stores[0].first;
      text = why(*shown, true, "the offset of " + nm(named));
    } else if (mismatch) {
      text = "the stores' offsets follow " + nm(loop_) + " with different coefficients (" +
             (w0.coefSym.valid() ? nm(w0.coefSym) : str(w0.coef)) + " and " +
             (badForm->coefSym.valid() ? nm(badForm->coefSym) : str(badForm->coef)) + ")";
    } else {
      text = why(*shown, single);
    }
    auto &dg = d_.error(g_.loc(bad), "lane", where + "two iterations may write the same element of " + nm(outer) + ": " + text);
    dg.note(g_.loc(loop_), "the loop opens here");
    attachLost(dg, *shown);
    return;
  }
  for (uint32_t i = loop_.v + 1; i < endId; ++i) {
    NodeId x{i};
    if (g_.op(x) != Op::Load || f_.storage[x.v] != storage) continue;
    NodeId lv = g_.operands(x)[0].node();
    bool same = false;
    for (auto &[st, w] : stores) same = same || sameOffsets(lv, g_.operands(st)[0].node());
    if (same) continue;
    Affine l = viewForm(lv);
    // Iteration i writes inside [c*i + win.lo, c*i + win.lo + |c|): the
    // load must read inside that window of its own iteration.
    bool own = l.ok && l.coef == w0.coef && l.coefSym == w0.coefSym && fits(win.all, 1, w0) && l.all.lo >= win.all.lo &&
               fits(Part{win.all.lo, l.all.hi, l.all.sym}, 1, w0);
    if (own) continue;
    auto &dg = d_.error(g_.loc(x), "lane", where + nm(x) + " reads an element of " + nm(outer) +
                                              " that another iteration may write (the lane rule): a load of a buffer the loop writes "
                                              "must read inside its own iteration's elements");
    dg.note(g_.loc(stores[0].first), "the loop writes " + nm(outer) + " here");
    attachLost(dg, l);
  }
}

// B2 for one parallel loop: group the stores of its body (at any depth)
// that write a version from outside it by buffer; each group's writes must
// fall in disjoint per-iteration windows, and each load of that buffer in
// the body inside its own iteration's window.
void Lanes::check() {
  struct Group {
    NodeId outer, storage;  // the version written, its buffer
    std::vector<std::pair<NodeId, Affine>> stores;
  };
  std::vector<Group> groups;  // in order of first store
  std::string where = "in the parallel loop of " + nm(loop_) + ", ";
  // A loop of at most one iteration has no two lanes to collide.
  IntType nt = vr_.operandType(loop_, 0, IntType{64, true});
  if (vr_.operandSet(loop_, 0, nt).hull(nt).hi <= 1) return;
  uint32_t endId = loop_.v + 1;
  for (; endId < g_.size(); ++endId) {
    NodeId x{endId};
    if (g_.op(x) == Op::End && g_.operands(x)[0].node() == loop_) break;
    if ((g_.op(x) == Op::Store || g_.op(x) == Op::CallWrite) && heapRootInside(f_.version[x.v]).valid()) {
      NodeId d = heapRootInside(f_.version[x.v]);
      d_.error(g_.loc(x), "lane", where + "a write into a heap object cannot be proven to stay in the iteration's elements: " +
                                      nm(d) + " is a `deref` made in the loop, and every iteration may name the same object")
          .note(g_.loc(d), describe(g_, d) + " is made here")
          .note(g_.loc(loop_), "the loop opens here");
      continue;
    }
    if (g_.op(x) == Op::CallWrite && outsideRoot(f_.version[x.v]).valid()) {
      d_.error(g_.loc(x), "lane", where + "a call cannot write a version from outside the loop: its writes cannot be proven to "
                                          "stay in the iteration's elements")
          .note(g_.loc(loop_), "the loop opens here");
      continue;
    }
    if (g_.op(x) != Op::Store) continue;
    NodeId outer = outsideRoot(f_.version[x.v]);
    if (!outer.valid()) continue;
    Affine w = viewForm(g_.operands(x)[0].node());
    if (!w.ok) {
      d_.error(g_.loc(x), "lane", where + "cannot prove that iterations write different elements of " + nm(outer) +
                                      ": the store's view goes through a `part`, whose offset the lane rule does not follow")
          .note(g_.loc(loop_), "the loop opens here");
      continue;
    }
    NodeId st = f_.storage[x.v];
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group &gr) { return gr.storage == st; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{outer, st, {}});
    it->stores.push_back({x, w});
  }
  for (auto &gr : groups) checkGroup(gr.outer, gr.storage, gr.stores, endId, where);
}

}  // namespace

void checkLanes(const Graph &g, const Facts &f, const ValueRanges &vr, Diags &d, NodeId loop) { Lanes(g, f, vr, d, loop).check(); }

}  // namespace cairn
