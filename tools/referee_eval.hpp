// Internal to the referee (tools/referee_bounds.cpp, referee_lanes.cpp):
// evaluating the scalars an obligation reads over assignments of their
// sources.
//
// An obligation reads some scalars (an offset, a dynamic size). Its cone is
// every scalar those depend on; the cone's sources are loaded and reduced
// values (any value of their dtype, per docs/uir.md) and loop indices
// (0 <= i < bound, the bound evaluated in the same assignment). The cone is
// walked in id order, which is a definition-before-use order, so a source
// is assigned before anything computed from it, and an index's bound before
// the index. Sources of at most 16 bits, and index ranges up to
// RefereeOptions::maxIndexRange, are enumerated completely; a wider source
// takes edge values (0, +-1, MIN, MAX, powers of two, NaN, infinities...)
// and a longer range its ends and the points where casts wrap (2^8, 2^16,
// 2^32 and their neighbours); past the enumeration budget, random
// assignments. An assignment in which the program traps first (a zero
// divisor in the cone, a negative buffer size) or a loop runs no iteration
// places no obligation. The scalar semantics are those of exec/alu.hpp, the
// interpreter's (integer ops and casts wrap modulo 2^width, docs/uir.md
// "Dtypes"), which the differential fuzzer in turn checks against compiled
// C; nothing here comes from the oracle's bounds layer.
#pragma once
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "tools/referee_impl.hpp"

namespace cairn::ref {

using i128 = __int128;

// Scalar semantics over (op, dtype), in the normal form of ir/dtype.hpp.
Bits evalBinary(Op op, DType t, Bits a, Bits b);  // also the unary ops (b ignored)
Bits evalCast(DType from, DType to, Bits a);
inline i128 asInt(Bits b, DType t) { return isSigned(t) ? i128{static_cast<int64_t>(b)} : i128{static_cast<uint64_t>(b)}; }
inline bool isSource(Op op) { return op == Op::Load || op == Op::Reduce || op == Op::Range; }
// Edge values of a wide dtype, in normal form.
const std::vector<Bits> &edgeValues(DType t);
// The iterations of a loop of n > cap iterations that are tried: both ends,
// and each side of the points where casts wrap.
std::vector<i128> sampledIterations(i128 n, i128 cap);

// The enumeration machinery for one cone.
class Enum {
 public:
  Enum(const Ctx &c, std::vector<Bits> &val) : c_(c), g_(c.g), val_(val), rng_(c.o.seed) {}

  // The cone of `targets`, sorted by id. False when it is too large.
  bool setCone(const std::vector<NodeId> &targets) {
    cone_.clear();
    std::vector<NodeId> stack;
    std::set<uint32_t> seen;
    auto add = [&](NodeId x) {
      if (x.valid() && seen.insert(x.v).second) stack.push_back(x);
    };
    for (NodeId t : targets) add(t);
    while (!stack.empty()) {
      NodeId x = stack.back();
      stack.pop_back();
      cone_.push_back(x);
      if (cone_.size() > c_.o.maxCone) return false;
      Op op = g_.op(x);
      if (op == Op::Load || op == Op::Reduce) continue;
      auto ops = g_.operands(x);
      for (size_t k = 0; k < ops.size(); ++k)
        if (!ops[k].isLit()) add(ops[k].node());
    }
    std::sort(cone_.begin(), cone_.end(), [](NodeId a, NodeId b) { return a.v < b.v; });
    ins_.clear();
    for (NodeId x : cone_) ins_.push_back(compileNode(x));
    return true;
  }
  const std::vector<NodeId> &cone() const { return cone_; }

  // Visits every assignment of cone positions [from, to), calling leaf()
  // for each; leaf returns false to stop. Returns false when stopped or
  // over budget (then `over` is set).
  template <class Leaf>
  bool each(size_t from, size_t to, Leaf &&leaf) {
    if (from == to) {
      if (++leaves_ > c_.o.maxExhaustive) {
        over = true;
        return false;
      }
      return leaf();
    }
    NodeId x = cone_[from];
    if (!isSource(ins_[from].op)) {
      if (eval(from)) return each(from + 1, to, leaf);
      // Traps first: no obligation here. It still counts against the
      // budget, or a cone whose every assignment traps would never stop.
      if (++leaves_ <= c_.o.maxExhaustive) return true;
      over = true;
      return false;
    }
    std::vector<Bits> dom;
    domain(x, dom, false);
    if (dom.empty() && ++leaves_ > c_.o.maxExhaustive) {  // a loop of no iteration: counted too
      over = true;
      return false;
    }
    for (Bits b : dom) {
      val_[x.v] = b;
      if (!each(from + 1, to, leaf)) return false;
    }
    return true;
  }

  // One random assignment of positions [from, to); false when it traps or a
  // loop of the cone runs no iteration.
  bool randomly(size_t from, size_t to) {
    for (size_t p = from; p < to; ++p) {
      NodeId x = cone_[p];
      if (!isSource(ins_[p].op)) {
        if (!eval(p)) return false;
        continue;
      }
      std::vector<Bits> dom;
      domain(x, dom, true);
      if (dom.empty()) return false;
      val_[x.v] = dom[rng_() % dom.size()];
    }
    return true;
  }

  void resetBudget() { leaves_ = 0, over = false; }
  size_t position(NodeId x) const {
    return static_cast<size_t>(std::lower_bound(cone_.begin(), cone_.end(), x, [](NodeId a, NodeId b) { return a.v < b.v; }) -
                               cone_.begin());
  }

  bool sampled = false;  // some domain was not complete
  bool over = false;     // the budget ran out
  std::mt19937_64 &rng() { return rng_; }

  // An integer operand (a size, offset or bound), resolved once.
  struct IntArg {
    bool lit = true;
    i128 v = 0;
    uint32_t node = 0;
    DType t = DType::I64;
  };
  IntArg intArg(NodeId n, size_t k) const {
    auto o = g_.operands(n)[k];
    if (o.isLit()) return {true, asInt(literalBits(g_.literal(o.lit()), DType::I64).value_or(0), DType::I64), 0, DType::I64};
    return {false, 0, o.node().v, c_.f.type[o.node().v]};
  }
  i128 value(const IntArg &a) const { return a.lit ? a.v : asInt(val_[a.node], a.t); }
  i128 intOperand(NodeId n, size_t k) const { return value(intArg(n, k)); }

 private:
  // The values a source takes; `pick` asks for a sample to draw one from.
  void domain(NodeId x, std::vector<Bits> &dom, bool pick) {
    DType t = c_.f.type[x.v];
    if (g_.op(x) == Op::Range) {
      i128 n = intOperand(x, 0);
      if (n <= 0) return;  // no iteration
      const i128 cap = static_cast<i128>(c_.o.maxIndexRange);
      if (n <= cap && !pick) {
        for (i128 i = 0; i < n; ++i) dom.push_back(normalize(static_cast<Bits>(static_cast<int64_t>(i)), t));
        return;
      }
      if (n > cap) sampled = true;
      for (i128 i : sampledIterations(n, 8)) dom.push_back(normalize(static_cast<Bits>(static_cast<int64_t>(i)), t));
      if (pick) dom.push_back(normalize(static_cast<Bits>(static_cast<int64_t>(static_cast<i128>(rng_() % static_cast<uint64_t>(n)))), t));
      return;
    }
    int bits = dtypeBits(t);
    if (!isFloat(t) && bits <= 16) {
      if (pick) {
        dom.push_back(normalize(rng_(), t));
        return;
      }
      for (uint64_t r = 0; r < (uint64_t{1} << bits); ++r) dom.push_back(normalize(r, t));
      return;
    }
    sampled = true;
    dom = edgeValues(t);
    if (pick) {
      Bits r = rng_();
      if (t == DType::F32) r &= 0xffffffffu;
      else if (!isFloat(t)) r = normalize(r, t);
      dom.assign(8, r);  // half of the draws random bits, half edge values
      const auto &e = edgeValues(t);
      dom.insert(dom.end(), e.begin(), e.begin() + std::min<size_t>(8, e.size()));
      dom.push_back(e[rng_() % e.size()]);
    }
  }

  // A cone node, its operands resolved once: literals to their bits in the
  // dtype they take, nodes to their slot in val_.
  struct Arg {
    bool lit = true;
    Bits bits = 0;
    uint32_t node = 0;
  };
  struct Instr {
    Op op = Op::Const;
    DType ot = DType::None, to = DType::None;  // operand dtype; result dtype (cast, where)
    Arg a[3];
  };
  Instr compileNode(NodeId x) const {
    Instr in;
    in.op = g_.op(x);
    auto ops = g_.operands(x);
    in.to = in.op == Op::Cast || in.op == Op::Const ? g_.dtype(x) : c_.f.type[x.v];
    in.ot = in.to;
    for (auto o : ops)  // the first non-literal operand gives the operand dtype
      if (!o.isLit()) {
        in.ot = c_.f.type[o.node().v];
        break;
      }
    if (in.op == Op::Where) in.ot = in.to;
    for (size_t k = 0; k < ops.size() && k < 3; ++k) {
      if (!ops[k].isLit()) {
        in.a[k] = {false, 0, ops[k].node().v};
        continue;
      }
      DType lt = in.op == Op::Const ? in.to : in.op == Op::Where ? (k == 0 ? DType::Bool : in.to) : in.ot;
      in.a[k] = {true, literalBits(g_.literal(ops[k].lit()), lt).value_or(0), 0};
    }
    return in;
  }
  Bits arg(const Instr &in, int k) const { return in.a[k].lit ? in.a[k].bits : val_[in.a[k].node]; }

  bool eval(size_t pos) {
    const Instr &in = ins_[pos];
    Bits &out = val_[cone_[pos].v];
    switch (in.op) {
      case Op::Const: out = in.a[0].bits; return true;
      case Op::Cast:
        if (in.a[0].lit) return false;  // rejected by the structure layer
        out = evalCast(in.ot, in.to, arg(in, 0));
        return true;
      case Op::Where: out = arg(in, 0) ? arg(in, 1) : arg(in, 2); return true;
      default: break;
    }
    Bits a = arg(in, 0), b = arg(in, 1);
    if ((in.op == Op::Idiv || in.op == Op::Mod) && b == 0) return false;  // division by zero traps first
    out = evalBinary(in.op, in.ot, a, b);
    return true;
  }

  const Ctx &c_;
  const Graph &g_;
  std::vector<Bits> &val_;
  std::vector<NodeId> cone_;
  std::vector<Instr> ins_;  // aligned with cone_
  uint64_t leaves_ = 0;
  std::mt19937_64 rng_;
};

inline i128 shapeElems(const Graph &g, NodeId view) {
  i128 e = 1;
  for (int64_t d : g.dims(view)) e *= d;  // the structure layer keeps this below 2^62
  return e;
}

// Runs `check` (true: holds) over the assignments of the cone of `targets`:
// exhaustively within budget, else by sampling. Returns 0 proven, 1 broken
// (a witness), 2 undecided.
template <class Check>
int decide(Ctx &c, std::vector<Bits> &val, const std::vector<NodeId> &targets, const Check &check) {
  Enum en(c, val);
  if (!en.setCone(targets)) return 2;
  bool broken = false;
  en.each(0, en.cone().size(), [&] {
    broken = !check();
    return !broken;
  });
  if (broken) return 1;
  if (!en.over) return en.sampled ? 2 : 0;
  for (uint32_t s = 0; s < c.o.samples && !broken; ++s)
    if (en.randomly(0, en.cone().size())) broken = !check();
  return broken ? 1 : 2;
}

}  // namespace cairn::ref
