// Layer 3 of the oracle: views in bounds, and the lane rule.
//
// Assumes layer 1 (structure) reported nothing. Invariants checked:
//   B1  every `shrink` lies inside the view it shrinks: 0 <= offset and
//       offset + size <= the parent's size, for every value the offset can
//       take (`checked_shrink` is checked when it runs instead);
//   B2  the lane rule: in a parallel loop over i, a store into an outer
//       version writes at offset c*i + r, r independent of i, where the
//       window [min r, max r + 1) fits in c elements, so no two iterations
//       write one element; a load in the loop of a version the loop writes
//       reads inside its own iteration's window.
//   B3  (modules) a `shrink` of a view whose length is known only at run
//       time (a vparam, a deref, a part, or versions of them) cannot be
//       proven: it must be a `checked_shrink`; a store through a `part` or a
//       call's write in a parallel loop cannot be proven to stay in its lane.
//
// The interval analysis runs once over the nodes in id order. Each integer
// value gets a numeric range [lo, hi] (in 128 bits, so no bound overflows)
// and, where it has one, a symbolic upper bound `%s + k`: the index of
// `range %n` is at most %n - 1, `mod %x %n` (for %n >= 1) at most %n - 1,
// `sub %n 1` at most %n - 1. A size `%n` of a buffer is compared with such a
// bound by following the chain of symbolic bounds (at most kChain steps).
// Values that may wrap in their dtype get their dtype's full range.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "oracle/oracle.hpp"
#include "oracle/util.hpp"

namespace cairn {

namespace {

using i128 = __int128;
constexpr int kChain = 8;

struct Sym {
  NodeId sym;  // none: no symbolic bound
  i128 k = 0;
};

struct Range {
  i128 lo = 0, hi = 0;
  Sym sym;            // hi <= sym + k, when sym is valid
  // `x = a - c` (c >= 0) may wrap when a is near its dtype's minimum, so
  // x <= a - c is not a fact in general. It is one whenever a >= 0, which
  // holds for a buffer's size at every view of that buffer (a negative size
  // traps before the buffer exists): kept here, used only against that size.
  Sym ifNonNeg;
  bool wraps = false; // the value may have wrapped: no affine reasoning
};

// Bounds are exact while they fit; beyond +-2^125 they saturate there (far
// outside every dtype, so such a value is "out of range" for every check),
// so sums and products of bounds never overflow 128 bits.
constexpr i128 kSat = i128{1} << 125;
i128 sat(i128 v) { return v > kSat ? kSat : v < -kSat ? -kSat : v; }
i128 sadd(i128 a, i128 b) { return sat(sat(a) + sat(b)); }
i128 ssub(i128 a, i128 b) { return sat(sat(a) - sat(b)); }
i128 smul(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(sat(a), sat(b), &r)) return (a < 0) != (b < 0) ? -kSat : kSat;
  return sat(r);
}

std::string str(i128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) s += static_cast<char>('0' + static_cast<int>(u % 10)), u /= 10;
  if (neg) s += '-';
  return {s.rbegin(), s.rend()};
}

// An affine form in one loop index: coef*i + rest, where coef is a constant
// or (times one) a loop-invariant node. `all` bounds rest over every
// execution; `var` bounds only the part of rest computed inside the loop (the
// rest is fixed while the loop runs), which is what injectivity needs.
struct Part {
  i128 lo = 0, hi = 0;
  Sym sym;  // symbolic upper bound, when known
};
struct Affine {
  bool ok = false;
  i128 coef = 0;
  NodeId coefSym;  // valid: the coefficient is this node's value
  Part all, var;
};

Part addParts(const Part &a, const Part &b) {
  Part r{sadd(a.lo, b.lo), sadd(a.hi, b.hi), {}};
  if (a.sym.sym.valid()) r.sym = {a.sym.sym, sadd(a.sym.k, b.hi)};
  else if (b.sym.sym.valid()) r.sym = {b.sym.sym, sadd(b.sym.k, a.hi)};
  return r;
}
Part subParts(const Part &a, const Part &b) {
  Part r{ssub(a.lo, b.hi), ssub(a.hi, b.lo), {}};
  if (a.sym.sym.valid()) r.sym = {a.sym.sym, ssub(a.sym.k, b.lo)};
  return r;
}
Part scalePart(const Part &a, i128 c) {
  Part r{std::min(smul(a.lo, c), smul(a.hi, c)), std::max(smul(a.lo, c), smul(a.hi, c)), {}};
  if (c == 1) r.sym = a.sym;
  return r;
}

class Bounds {
 public:
  Bounds(const Graph &g, const Facts &f, Diags &d) : g_(g), f_(f), d_(d) {}

  bool run() {
    size_t before = d_.size();
    for (uint32_t i = 0; i < g_.size() && !d_.full(); ++i) {
      NodeId n{i};
      if (g_.op(n) == Op::Shrink) checkShrink(n);
      if (g_.op(n) == Op::Range && g_.parallel(n)) checkLanes(n);
    }
    return d_.size() == before;
  }

 private:
  std::string nm(NodeId n) const { return pct(g_, n); }
  static i128 tmin(DType t) { return isSigned(t) ? static_cast<i128>(intMin(t)) : 0; }
  static i128 tmax(DType t) { return static_cast<i128>(intMaxU(t)); }

  Range operandRange(NodeId n, size_t k, DType t) const {
    Operand o = g_.operands(n)[k];
    if (o.isLit()) {
      Range r;
      auto b = literalBits(g_.literal(o.lit()), t);
      i128 v = b ? (isSigned(t) ? static_cast<i128>(static_cast<int64_t>(*b)) : static_cast<i128>(*b)) : 0;
      r.lo = r.hi = v;
      return r;
    }
    return rangeOf(o.node());
  }
  // The best symbolic upper bound of operand k: its own, or the node itself.
  Sym operandSym(NodeId n, size_t k) const {
    Operand o = g_.operands(n)[k];
    if (o.isLit()) return {};
    const Range &r = rangeOf(o.node());
    if (r.sym.sym.valid()) return r.sym;
    return Sym{o.node(), 0};
  }

  // The range of x, computed on demand: only values that feed an offset, a
  // size or a bound are ever analysed (most of a large program is not), with
  // an explicit stack instead of recursion on the program's depth.
  const Range &rangeOf(NodeId x) const {
    if (auto it = r_.find(x.v); it != r_.end()) return it->second;
    std::vector<std::pair<NodeId, bool>> stack{{x, false}};
    while (!stack.empty()) {
      auto [y, expanded] = stack.back();
      stack.pop_back();
      if (r_.count(y.v)) continue;
      if (!expanded && analysed(y)) {
        stack.push_back({y, true});
        for (Operand o : g_.operands(y))
          if (!o.isLit() && analysed(o.node()) && !r_.count(o.node().v)) stack.push_back({o.node(), false});
        continue;
      }
      interval(y);
    }
    return r_[x.v];
  }
  // Integer and bool scalars have ranges; the operands of loads, stores
  // and views are not followed (their values come from memory).
  bool analysed(NodeId y) const {
    DType t = f_.type[y.v];
    return (isInteger(t) || t == DType::Bool) && (f_.kind[y.v] == ResultKind::Scalar || f_.kind[y.v] == ResultKind::Index) &&
           g_.op(y) != Op::Load && g_.op(y) != Op::Reduce;
  }

  static void full(Range &r, DType t) {
    r.lo = tmin(t);
    r.hi = tmax(t);
    r.sym = {};
  }

  void interval(NodeId n) const {
    Range &out = r_[n.v];  // operands are already computed (see rangeOf)
    DType t = f_.type[n.v];
    if (!isInteger(t) && t != DType::Bool) return;
    if (f_.kind[n.v] != ResultKind::Scalar && f_.kind[n.v] != ResultKind::Index) return;
    full(out, t);
    Op op = g_.op(n);
    auto ops = g_.operands(n);
    auto R = [&](size_t k) { return operandRange(n, k, ops[k].isLit() ? t : f_.type[ops[k].node().v]); };
    Range res = out;
    bool wrapCheck = true;
    switch (op) {
      case Op::Const: res = operandRange(n, 0, t); break;
      case Op::Range: {
        Range b = R(0);
        res.lo = 0;
        res.hi = b.hi - 1;
        if (!ops[0].isLit()) res.sym = {ops[0].node(), -1};
        break;
      }
      case Op::Cast: {
        if (ops[0].isLit() || !isInteger(f_.type[ops[0].node().v])) return;
        Range a = rangeOf(ops[0].node());
        if (a.lo >= tmin(t) && a.hi <= tmax(t)) res = a;
        return void(out = res.wraps ? out : res);
      }
      case Op::Add:
      case Op::Sub: {
        Range a = R(0), b = R(1);
        res.lo = op == Op::Add ? sadd(a.lo, b.lo) : ssub(a.lo, b.hi);
        res.hi = op == Op::Add ? sadd(a.hi, b.hi) : ssub(a.hi, b.lo);
        Sym sa = operandSym(n, 0), sb = operandSym(n, 1);
        if (op == Op::Add && sa.sym.valid() && (!sb.sym.valid() || rangeOf(ops[0].node()).sym.sym.valid()))
          res.sym = {sa.sym, sadd(sa.k, b.hi)};
        else if (op == Op::Add && sb.sym.valid())
          res.sym = {sb.sym, sadd(sb.k, a.hi)};
        else if (op == Op::Sub && sa.sym.valid())
          res.sym = {sa.sym, ssub(sa.k, b.lo)};
        if (!ops[0].isLit() && b.lo == b.hi && ((op == Op::Sub && b.lo >= 0) || (op == Op::Add && b.lo <= 0)))
          res.ifNonNeg = {ops[0].node(), op == Op::Sub ? -b.lo : b.lo};
        res.wraps = a.wraps || b.wraps;
        break;
      }
      case Op::Mul: {
        Range a = R(0), b = R(1);
        i128 c[4] = {smul(a.lo, b.lo), smul(a.lo, b.hi), smul(a.hi, b.lo), smul(a.hi, b.hi)};
        res.lo = *std::min_element(c, c + 4);
        res.hi = *std::max_element(c, c + 4);
        res.wraps = a.wraps || b.wraps;
        break;
      }
      case Op::Idiv: {
        Range a = R(0), b = R(1);
        if (b.lo >= 1 || b.hi <= -1) {
          i128 c[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
          res.lo = *std::min_element(c, c + 4);
          res.hi = *std::max_element(c, c + 4);
        }
        wrapCheck = false;  // MIN / -1 wraps to MIN: the range above may miss it; the full range keeps it sound
        if (isSigned(t) && b.lo <= -1 && a.lo <= tmin(t)) full(res, t);
        break;
      }
      case Op::Mod: {
        Range a = R(0), b = R(1);
        i128 m = -1;
        if (b.lo >= 1) m = b.hi - 1;
        else if (b.hi <= -1) m = -b.lo - 1;
        if (m >= 0) {
          if (a.lo >= 0) res.lo = 0, res.hi = std::min(a.hi, m);
          else if (a.hi <= 0) res.lo = std::max(a.lo, -m), res.hi = 0;
          else res.lo = std::max(a.lo, -m), res.hi = std::min(a.hi, m);
          if (b.lo >= 1 && !ops[1].isLit()) res.sym = {ops[1].node(), -1};
          else if (a.lo >= 0 && a.sym.sym.valid()) res.sym = a.sym;
        }
        break;
      }
      case Op::Max:
      case Op::Min: {
        Range a = R(0), b = R(1);
        res.lo = op == Op::Max ? std::max(a.lo, b.lo) : std::min(a.lo, b.lo);
        res.hi = op == Op::Max ? std::max(a.hi, b.hi) : std::min(a.hi, b.hi);
        if (op == Op::Min) {  // min(a, b) <= a and <= b
          if (!ops[0].isLit() && rangeOf(ops[0].node()).sym.sym.valid()) res.sym = rangeOf(ops[0].node()).sym;
          else if (!ops[1].isLit() && rangeOf(ops[1].node()).sym.sym.valid()) res.sym = rangeOf(ops[1].node()).sym;
          else if (!ops[0].isLit()) res.sym = {ops[0].node(), 0};
          else if (!ops[1].isLit()) res.sym = {ops[1].node(), 0};
        }
        break;
      }
      case Op::And: {
        Range a = R(0), b = R(1);
        if (a.lo >= 0 || b.lo >= 0) {
          res.lo = 0;
          res.hi = std::min(a.lo >= 0 ? a.hi : tmax(t), b.lo >= 0 ? b.hi : tmax(t));
        }
        break;
      }
      case Op::Or:
      case Op::Xor: {
        Range a = R(0), b = R(1);
        if (a.lo >= 0 && b.lo >= 0) {
          i128 m = std::max(a.hi, b.hi), p = 1;
          while (p <= m) p <<= 1;
          res.lo = 0;
          res.hi = p - 1;
        }
        break;
      }
      case Op::Shr: {
        Range a = R(0), b = R(1);
        int w = dtypeBits(t);
        if (b.lo == b.hi && b.lo >= 0 && b.lo < w) {
          int s = static_cast<int>(b.lo);
          res.lo = a.lo >> s;
          res.hi = a.hi >> s;
        }
        break;
      }
      case Op::Shl: {
        Range a = R(0), b = R(1);
        int w = dtypeBits(t);
        if (b.lo == b.hi && b.lo >= 0 && b.lo < w && a.lo >= 0 && a.hi < (i128{1} << 64)) {
          res.lo = smul(a.lo, i128{1} << static_cast<int>(b.lo));
          res.hi = smul(a.hi, i128{1} << static_cast<int>(b.lo));
        }
        break;
      }
      case Op::Neg: {
        if (t == DType::Bool) break;
        Range a = R(0);
        res.lo = -a.hi;
        res.hi = -a.lo;
        res.wraps = a.wraps;
        break;
      }
      case Op::Where: {
        Range a = R(1), b = R(2);
        res.lo = std::min(a.lo, b.lo);
        res.hi = std::max(a.hi, b.hi);
        break;
      }
      case Op::Cmplt:
      case Op::Cmpne:
      case Op::Cmpeq: res.lo = 0, res.hi = 1; break;
      default: break;  // load, reduce: anything of the dtype
    }
    if (wrapCheck && (res.lo < tmin(t) || res.hi > tmax(t))) {
      Sym keep = res.ifNonNeg;
      full(res, t);
      res.wraps = true;
      res.ifNonNeg = keep;
    }
    out = res;
  }

  // Is `b` (a symbolic bound) plus `extra` at most the node `size`?
  bool symAtMost(Sym b, i128 extra, NodeId size) const {
    for (int step = 0; step < kChain && b.sym.valid(); ++step) {
      if (b.sym == size) return b.k + extra <= 0;
      const Range &r = rangeOf(b.sym);
      Sym next = r.sym.sym.valid() ? r.sym : r.ifNonNeg.sym == size ? r.ifNonNeg : Sym{};
      if (!next.sym.valid()) break;
      b = Sym{next.sym, next.k + b.k};
    }
    return false;
  }

  // B1.
  void checkShrink(NodeId n) {
    NodeId parent = g_.operands(n)[0].node();
    i128 s = f_.elems[n.v];
    DType ot = g_.operands(n)[1].isLit() ? DType::I64 : f_.type[g_.operands(n)[1].node().v];
    Range o = operandRange(n, 1, ot);
    if (o.lo > o.hi) return;  // in a loop that never runs
    int64_t pe = f_.elems[parent.v];
    NodeId sizeNode = NodeId::none();
    i128 psize;
    if (pe < 0 && (g_.op(parent) == Op::Part || g_.op(f_.storage[parent.v]) != Op::Buffer)) {
      d_.error(g_.loc(n), "bounds", "cannot prove the view " + nm(n) + " lies inside " + nm(parent) +
                                        ": its length is known only when the program runs")
          .note(g_.loc(parent), nm(parent) + " is defined here")
          .note(g_.loc(n), "use `checked_shrink`, which checks the offset when it runs");
      return;
    }
    if (pe >= 0) {
      psize = pe;
    } else {
      NodeId buf = f_.storage[parent.v];
      sizeNode = g_.operands(buf)[0].node();
      psize = rangeOf(sizeNode).lo;  // the least the dynamic size can be
    }
    bool lowOk = o.lo >= 0;
    bool highOk = o.hi + s <= psize;
    if (!highOk && sizeNode.valid()) {
      Sym b = operandSym(n, 1);
      highOk = b.sym.valid() && symAtMost(b, s, sizeNode);
    }
    if (lowOk && highOk) return;
    std::string pn = nm(parent), what;
    std::string sizeText = sizeNode.valid() ? nm(sizeNode) + " (its dynamic size)" : str(psize);
    if (g_.operands(n)[1].isLit()) {
      what = "the view " + nm(n) + " of " + str(s) + " element(s) at offset " + str(o.lo) + " lies outside " + pn + ", which has " +
             sizeText + " element(s)";
    } else {
      NodeId off = g_.operands(n)[1].node();
      std::string range = "[" + str(o.lo) + ", " + str(o.hi) + "]";
      if (o.lo == tmin(ot) && o.hi == tmax(ot)) range += " (any " + std::string(dtypeName(ot)) + ")";
      if (Sym b = operandSym(n, 1); b.sym.valid() && b.sym != off)
        range += " and at most " + nm(b.sym) + (b.k > 0 ? " + " + str(b.k) : b.k < 0 ? " - " + str(-b.k) : "");
      what = "cannot prove the view " + nm(n) + " lies inside " + pn + ": its offset " + nm(off) + " is in " + range +
             ", but the view needs 0 <= offset and offset + " + str(s) + " <= " + sizeText;
    }
    auto &dg = d_.error(g_.loc(n), "bounds", what);
    if (!g_.operands(n)[1].isLit()) {
      NodeId off = g_.operands(n)[1].node();
      dg.note(g_.loc(off), nm(off) + " is computed here");
    }
    dg.note(g_.loc(parent), pn + " is defined here");
    if (!g_.operands(n)[1].isLit())
      dg.note(g_.loc(n), "mask the offset into range (max, min, mod), or use `checked_shrink` to check it when it runs");
  }

  // ---- B2: the lane rule ----

  // Do two views add up the same offset operands (so name the same element)?
  bool sameOffsets(NodeId a, NodeId b) const {
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

  // Is x computed inside the body of `loop`?
  bool inside(NodeId x, NodeId loop) const {
    for (NodeId p = g_.op(x) == Op::Range ? x : g_.parent(x); p.valid(); p = g_.parent(p))
      if (p == loop) return true;
    return false;
  }

  // A value taken whole: coefficient 0, bounded by its range; `in` says
  // whether it is computed inside the loop (and so varies with it).
  Affine leaf(const Range &r, NodeId self, bool in) const {
    Affine a;
    a.ok = true;
    a.all = Part{r.lo, r.hi, r.sym};
    if (!a.all.sym.sym.valid() && self.valid()) a.all.sym = {self, 0};
    if (in) a.var = a.all;
    return a;
  }

  // The affine form of operand k of n in the index of `loop`, without
  // recursion on the program's depth: an explicit stack over the DAG.
  Affine affine(NodeId n, size_t k, NodeId loop, std::unordered_map<uint32_t, Affine> &memo) {
    Operand o = g_.operands(n)[k];
    DType t = o.isLit() ? DType::I64 : f_.type[o.node().v];
    if (o.isLit() || !inside(o.node(), loop)) return leaf(operandRange(n, k, t), o.isLit() ? NodeId::none() : o.node(), false);
    std::vector<std::pair<NodeId, bool>> stack{{o.node(), false}};
    while (!stack.empty()) {
      auto [x, expanded] = stack.back();
      stack.pop_back();
      if (memo.count(x.v)) continue;
      Op op = g_.op(x);
      bool combines = opInfo(op).is(opflag::A);
      if (!expanded && combines) {
        stack.push_back({x, true});
        for (Operand p : g_.operands(x))
          if (!p.isLit() && inside(p.node(), loop) && !memo.count(p.node().v)) stack.push_back({p.node(), false});
        continue;
      }
      memo[x.v] = affineNode(x, loop, memo);
    }
    return memo[o.node().v];
  }

  static bool varies(const Affine &a) { return a.coef != 0 || a.coefSym.valid(); }

  Affine affineNode(NodeId x, NodeId loop, std::unordered_map<uint32_t, Affine> &memo) {
    if (x == loop) {
      Affine res;
      res.ok = true;
      res.coef = 1;
      return res;
    }
    // Any value is coefficient 0 plus itself, and its range bounds it over
    // every iteration: the sound fallback when no finer form is known, or when
    // the ops may have wrapped (which breaks the affine identity).
    Op op = g_.op(x);
    bool invariant = opInfo(op).is(opflag::A);  // pure ops of invariant operands are invariant
    for (Operand o : g_.operands(x))
      if (!o.isLit() && inside(o.node(), loop)) {
        const Affine &m = memo[o.node().v];
        invariant = invariant && !varies(m) && m.var.lo == 0 && m.var.hi == 0;
      }
    Affine fallback = leaf(rangeOf(x), x, !invariant);
    if (rangeOf(x).wraps) return fallback;
    auto get = [&](size_t k) {
      Operand o = g_.operands(x)[k];
      if (!o.isLit() && inside(o.node(), loop)) return memo[o.node().v];
      DType t = o.isLit() ? f_.type[x.v] : f_.type[o.node().v];
      return leaf(operandRange(x, k, t), o.isLit() ? NodeId::none() : o.node(), false);
    };
    if (op == Op::Cast) {
      if (g_.operands(x)[0].isLit() || !isInteger(f_.type[g_.operands(x)[0].node().v])) return fallback;
      return get(0);  // x's range does not wrap, so the value is kept
    }
    if (op != Op::Add && op != Op::Sub && op != Op::Mul) return fallback;
    Affine a = get(0), b = get(1), res;
    if (!a.ok || !b.ok) return fallback;
    res.ok = true;
    if (op == Op::Add || op == Op::Sub) {
      if (op == Op::Sub && varies(b)) return fallback;
      if (varies(a) && varies(b)) {
        if (a.coefSym.valid() || b.coefSym.valid()) return fallback;
        res.coef = sadd(a.coef, b.coef);
      } else {
        const Affine &v = varies(a) ? a : b;
        res.coef = v.coef;
        res.coefSym = v.coefSym;
      }
      res.all = op == Op::Add ? addParts(a.all, b.all) : subParts(a.all, b.all);
      res.var = op == Op::Add ? addParts(a.var, b.var) : subParts(a.var, b.var);
      return res;
    }
    // mul: by a constant, or the bare index by an invariant node.
    for (int side = 0; side < 2; ++side) {
      const Affine &v = side ? b : a, &c = side ? a : b;
      Operand co = g_.operands(x)[side ? 0 : 1];
      if (varies(c) || c.var.lo != 0 || c.var.hi != 0) continue;
      if (c.all.lo == c.all.hi && !v.coefSym.valid()) {
        res.coef = smul(v.coef, c.all.lo);
        res.all = scalePart(v.all, c.all.lo);
        res.var = scalePart(v.var, c.all.lo);
        return res;
      }
      bool bareIndex = v.coef == 1 && !v.coefSym.valid() && v.all.lo == 0 && v.all.hi == 0;
      if (!co.isLit() && bareIndex && c.all.lo >= 0) {
        res.coefSym = co.node();
        return res;
      }
    }
    return fallback;
  }

  // The offset of a view from its storage: the sum of its shrinks' offsets.
  Affine viewAffine(NodeId view, NodeId loop, std::unordered_map<uint32_t, Affine> &memo) {
    Affine sum;
    sum.ok = true;
    NodeId v = view;
    for (; g_.op(v) == Op::Shrink || g_.op(v) == Op::CShrink; v = g_.operands(v)[0].node()) {
      Affine a = affine(v, 1, loop, memo);
      if (!a.ok) return a;
      if (varies(a) && varies(sum)) {
        if (a.coefSym.valid() || sum.coefSym.valid()) return Affine{};
        sum.coef = sadd(sum.coef, a.coef);
      } else if (varies(a)) {
        sum.coef = a.coef;
        sum.coefSym = a.coefSym;
      }
      sum.all = addParts(sum.all, a.all);
      sum.var = addParts(sum.var, a.var);
    }
    if (g_.op(v) == Op::Part) return Affine{};  // its low bound is not followed
    return sum;
  }

  // Is the window [lo, lo + width) of parts p inside c elements?
  bool fits(const Part &p, i128 width, const Affine &a) const {
    if (a.coefSym.valid()) return p.hi - p.lo + width <= 1 || (p.sym.sym.valid() && symAtMost(p.sym, width - p.lo, a.coefSym));
    i128 c = a.coef < 0 ? -a.coef : a.coef;
    return c != 0 && p.hi - p.lo + width <= c;
  }
  // Do distinct iterations write disjoint elements? Within one run of the
  // loop the invariant part of rest is fixed, so only `var` spreads a write.
  bool injective(const Affine &a) const { return fits(a.var, 1, a); }

  // Does the load read only its own iteration's window? Iteration i writes
  // inside [c*i + min rest, c*i + min rest + c) when rest spans at most c.
  bool ownLane(const Affine &store, const Affine &load) const {
    if (!load.ok || load.coef != store.coef || load.coefSym != store.coefSym) return false;
    if (!fits(store.all, 1, store) || load.all.lo < store.all.lo) return false;
    Part span = load.all;
    span.lo = store.all.lo;
    return fits(span, 1, store);
  }

  // The version outside `loop` that v continues (through `carry` and the
  // `after`s of a serial body), or none when v starts inside the loop.
  NodeId outsideRoot(NodeId v, NodeId loop) const {
    while (v.valid() && inside(v, loop)) {
      if (g_.op(v) == Op::Carry || g_.op(v) == Op::After) v = g_.operands(v)[0].node();
      else return NodeId::none();
    }
    return v;
  }

  // B2 for one parallel loop: group the stores of its body (at any depth)
  // that write a version from outside it by buffer; each group's writes must
  // fall in disjoint per-iteration windows, and each load of that buffer in
  // the body inside its own iteration's window.
  void checkLanes(NodeId loop) {
    struct Group {
      NodeId outer;  // the version written
      std::vector<std::pair<NodeId, Affine>> stores;
    };
    std::vector<Group> groups;  // by storage, in order of first store
    std::vector<NodeId> storages;
    auto &memo = memo_[loop.v];
    std::string where = "in the parallel loop of " + nm(loop) + ", ";
    uint32_t endId = loop.v + 1;
    for (; endId < g_.size(); ++endId) {
      NodeId x{endId};
      if (g_.op(x) == Op::End && g_.operands(x)[0].node() == loop) break;
      if (g_.op(x) == Op::CallWrite && outsideRoot(f_.version[x.v], loop).valid()) {
        d_.error(g_.loc(x), "lane", where + "a call cannot write a version from outside the loop: its writes cannot be proven to "
                                            "stay in the iteration's elements")
            .note(g_.loc(loop), "the loop opens here");
        continue;
      }
      if (g_.op(x) != Op::Store) continue;
      NodeId outer = outsideRoot(f_.version[x.v], loop);
      if (!outer.valid()) continue;
      Affine w = viewAffine(g_.operands(x)[0].node(), loop, memo);
      if (!w.ok) {
        d_.error(g_.loc(x), "lane", where + "cannot prove that iterations write different elements of " + nm(outer) +
                                        ": the store's offset must be c*" + nm(loop) + " + r, with r independent of " + nm(loop))
            .note(g_.loc(loop), "the loop opens here");
        continue;
      }
      NodeId st = f_.storage[x.v];
      size_t k = std::find(storages.begin(), storages.end(), st) - storages.begin();
      if (k == storages.size()) {
        storages.push_back(st);
        groups.push_back({outer, {}});
      }
      groups[k].stores.push_back({x, w});
    }
    for (size_t k = 0; k < groups.size(); ++k) {
      auto &gr = groups[k];
      const Affine &w0 = gr.stores[0].second;
      // The window: one store spreads by its in-loop part; several stores
      // share one window spanning all their offsets.
      Affine win = w0;
      bool ok = true;
      NodeId bad = gr.stores[0].first;
      if (gr.stores.size() == 1) {
        ok = injective(w0);
      } else {
        for (auto &[st, w] : gr.stores) {
          if (w.coef != w0.coef || w.coefSym != w0.coefSym) ok = false, bad = st;
          win.all.lo = std::min(win.all.lo, w.all.lo);
        }
        for (auto &[st, w] : gr.stores) {
          Part span = w.all;
          span.lo = win.all.lo;
          if (ok && !fits(span, 1, w0)) ok = false, bad = st;
          win.all.hi = std::max(win.all.hi, w.all.hi);
        }
      }
      if (!ok) {
        const Affine &w = gr.stores.size() == 1 ? w0 : win;
        std::string form = (w.coefSym.valid() ? nm(w.coefSym) : str(w.coef)) + "*" + nm(loop) + " + r, where r is in [" +
                           str(gr.stores.size() == 1 ? w.var.lo : w.all.lo) + ", " + str(gr.stores.size() == 1 ? w.var.hi : w.all.hi) +
                           "]" + (gr.stores.size() == 1 ? " within one run of the loop" : " over its stores");
        auto &dg = d_.error(g_.loc(bad), "lane", where + "two iterations may write the same element of " + nm(gr.outer) +
                                                     ": the offset is " + form +
                                                     (w.coef == 0 && !w.coefSym.valid() ? " (every iteration writes the same element)" : ""));
        dg.note(g_.loc(loop), "the loop opens here");
        continue;
      }
      for (uint32_t i = loop.v + 1; i < endId; ++i) {
        NodeId x{i};
        if (g_.op(x) != Op::Load || f_.storage[x.v] != storages[k]) continue;
        NodeId lv = g_.operands(x)[0].node();
        bool same = false;
        for (auto &[st, w] : gr.stores) same = same || sameOffsets(lv, g_.operands(st)[0].node());
        if (same) continue;
        Affine l = viewAffine(lv, loop, memo);
        bool own = gr.stores.size() == 1 ? ownLane(w0, l)
                                         : l.ok && l.coef == w0.coef && l.coefSym == w0.coefSym && l.all.lo >= win.all.lo &&
                                               fits(Part{win.all.lo, l.all.hi, l.all.sym}, 1, w0);
        if (!own)
          d_.error(g_.loc(x), "lane", where + nm(x) + " reads an element of " + nm(gr.outer) +
                                          " that another iteration may write (the lane rule): a load of a buffer the loop writes "
                                          "must read inside its own iteration's elements")
              .note(g_.loc(gr.stores[0].first), "the loop writes " + nm(gr.outer) + " here");
      }
    }
  }

  const Graph &g_;
  const Facts &f_;
  Diags &d_;
  mutable std::unordered_map<uint32_t, Range> r_;  // a cache, filled on demand
  std::unordered_map<uint32_t, std::unordered_map<uint32_t, Affine>> memo_;
};

}  // namespace

bool checkBounds(const Graph &g, const Facts &facts, Diags &diags) { return Bounds(g, facts, diags).run(); }

}  // namespace cairn
