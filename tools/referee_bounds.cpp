// The referee's bounds half: views in bounds, and the lane rule, decided by
// evaluating offsets over assignments of their sources.
//
// An obligation reads some scalars (an offset, a dynamic size). Its cone is
// every scalar those depend on; the cone's sources are loaded and reduced
// values (any value of their dtype, per docs/uir.md) and loop indices
// (0 <= i < bound, the bound evaluated in the same assignment). The cone is
// walked in id order, which is a definition-before-use order, so a source
// is assigned before anything computed from it, and an index's bound before
// the index. Sources of at most 16 bits, and index ranges up to 4096, are
// enumerated completely; a wider source takes edge values (0, +-1, MIN,
// MAX, powers of two, NaN, infinities...) and, past the enumeration budget,
// random assignments. An assignment in which the program traps first (a
// zero divisor in the cone, a negative buffer size) or a loop runs no
// iteration places no obligation. The scalar semantics are those of
// exec/alu.hpp, the interpreter's, which the differential fuzzer in turn
// checks against compiled C.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "exec/alu.hpp"
#include "tools/referee_impl.hpp"

namespace cairn::ref {

namespace {

using i128 = __int128;

// ---- scalar evaluation, dispatched over (op, dtype) ----

template <DType D> Bits binT(Op op, Bits a, Bits b) {
  using namespace exec::alu;
  switch (op) {
    case Op::Add: return Add<D>(a, b);
    case Op::Sub: return Sub<D>(a, b);
    case Op::Mul: return Mul<D>(a, b);
    case Op::Idiv: return Idiv<D>(a, b);
    case Op::Mod: return Mod<D>(a, b);
    case Op::Max: return Max<D>(a, b);
    case Op::Min: return Min<D>(a, b);
    case Op::Neg: return Neg<D>(a, b);
    case Op::Cmplt: return Cmplt<D>(a, b);
    case Op::Cmpne: return Cmpne<D>(a, b);
    case Op::Cmpeq: return Cmpeq<D>(a, b);
    case Op::Shl: return Shl<D>(a, b);
    case Op::Shr: return Shr<D>(a, b);
    case Op::Fdiv: return Fdiv<D>(a, b);
    case Op::Recip: return Recip<D>(a, b);
    case Op::Sqrt: return Sqrt<D>(a, b);
    case Op::Exp2: return Exp2<D>(a, b);
    case Op::Log2: return Log2<D>(a, b);
    case Op::Sin: return Sin<D>(a, b);
    case Op::Trunc: return Trunc<D>(a, b);
    case Op::And: return a & b;  // bitwise ops keep the normal form
    case Op::Or: return a | b;
    case Op::Xor: return a ^ b;
    default: return 0;
  }
}

Bits bin(Op op, DType t, Bits a, Bits b) {
  switch (t) {
#define X(e, s, w) \
  case DType::e: return binT<DType::e>(op, a, b);
    CAIRN_DTYPES(X)
#undef X
    default: return 0;
  }
}

template <DType F> Bits castFrom(DType to, Bits a) {
  switch (to) {
#define X(e, s, w) \
  case DType::e: return exec::alu::Cast<F, DType::e>(a);
    CAIRN_DTYPES(X)
#undef X
    default: return 0;
  }
}

Bits castBits(DType from, DType to, Bits a) {
  switch (from) {
#define X(e, s, w) \
  case DType::e: return castFrom<DType::e>(to, a);
    CAIRN_DTYPES(X)
#undef X
    default: return 0;
  }
}

i128 asInt(Bits b, DType t) { return isSigned(t) ? i128{static_cast<int64_t>(b)} : i128{static_cast<uint64_t>(b)}; }

bool isSource(Op op) { return op == Op::Load || op == Op::Reduce || op == Op::Range; }

// Edge values of a wide dtype, in normal form.
std::vector<Bits> makeEdgeValues(DType t) {
  std::vector<Bits> v;
  if (isFloat(t)) {
    const double d[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.0, 3.0, 7.0, 255.0, 256.0, 1e9, -1e9, 2147483648.0,
                        -2147483649.0, 9.3e18, -9.3e18, 1.9e19, 1e300, -1e300, INFINITY, -INFINITY, NAN, -NAN, 5e-324};
    for (double x : d)
      v.push_back(t == DType::F32 ? Bits{std::bit_cast<uint32_t>(static_cast<float>(x))} : std::bit_cast<uint64_t>(x));
    return v;
  }
  std::set<Bits> s;
  const int64_t k[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 63, 64, 100, 127, 128, 255, 256, 1000, 65535, 65536,
                       -1, -2, -3, -4, -5, -8, -9, -128, -129, -256, -65536, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1};
  for (int64_t x : k) s.insert(normalize(static_cast<Bits>(x), t));
  for (int p : {7, 8, 15, 16, 31, 32, 62, 63})
    for (int64_t d : {-1, 0, 1}) {
      Bits x = (Bits{1} << p) + static_cast<Bits>(d);
      s.insert(normalize(x, t));
      s.insert(normalize(Bits{0} - x, t));
    }
  s.insert(intMaxU(t) & ~Bits{0});
  s.insert(normalize(static_cast<Bits>(intMin(t)), t));
  s.insert(normalize(static_cast<Bits>(intMin(t)) + 1, t));
  s.insert(normalize(intMaxU(t) - 1, t));
  return {s.begin(), s.end()};
}

const std::vector<Bits> &edgeValues(DType t) {
  static const auto table = [] {
    std::vector<std::vector<Bits>> v;
    for (int k = 0; k < kNumDTypes; ++k) v.push_back(makeEdgeValues(static_cast<DType>(k)));
    return v;
  }();
  return table[static_cast<size_t>(t)];
}

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
      if (!eval(from)) return true;  // traps first: no obligation here
      return each(from + 1, to, leaf);
    }
    std::vector<Bits> dom;
    domain(x, dom, false);
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
      if (n <= 4096 && !pick) {
        for (i128 i = 0; i < n; ++i) dom.push_back(normalize(static_cast<Bits>(static_cast<int64_t>(i)), t));
        return;
      }
      if (n > 4096) sampled = true;
      for (i128 i : {i128{0}, i128{1}, i128{2}, n / 2, n - 3, n - 2, n - 1})
        if (i >= 0 && i < n) dom.push_back(normalize(static_cast<Bits>(static_cast<int64_t>(i)), t));
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
        out = castBits(in.ot, in.to, arg(in, 0));
        return true;
      case Op::Where: out = arg(in, 0) ? arg(in, 1) : arg(in, 2); return true;
      default: break;
    }
    Bits a = arg(in, 0), b = arg(in, 1);
    if ((in.op == Op::Idiv || in.op == Op::Mod) && b == 0) return false;  // division by zero traps first
    out = bin(in.op, in.ot, a, b);
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

i128 shapeElems(const Graph &g, NodeId view) {
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

}  // namespace

void judgeBounds(Ctx &c) {
  const Graph &g = c.g;
  std::vector<Bits> val(g.size(), 0);
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId s{i};
    if (g.op(s) != Op::Shrink) continue;
    NodeId p = c.opnd(s, 0);
    Enum probe(c, val);  // for operand access only
    std::vector<NodeId> targets;
    if (!c.isLit(s, 1)) targets.push_back(c.opnd(s, 1));
    NodeId sizeNode = NodeId::none();
    i128 staticSize = 0;
    if (g.op(p) == Op::Shrink || g.op(p) == Op::CShrink) {
      staticSize = shapeElems(g, p);
    } else {
      NodeId b = c.buf[p.v];
      if (c.isLit(b, 0)) staticSize = asInt(literalBits(g.literal(g.operands(b)[0].lit()), DType::I64).value_or(0), DType::I64);
      else targets.push_back(sizeNode = c.opnd(b, 0));
    }
    i128 elems = shapeElems(g, s);
    const auto offArg = probe.intArg(s, 1);
    const DType sizeType = sizeNode.valid() ? c.f.type[sizeNode.v] : DType::I64;
    auto check = [&] {
      i128 size = sizeNode.valid() ? asInt(val[sizeNode.v], sizeType) : staticSize;
      if (size < 0) return true;  // the buffer's creation traps first
      i128 off = probe.value(offArg);
      return off >= 0 && off + elems <= size;
    };
    int r = decide(c, val, targets, check);
    std::string what = "the view " + c.nm(s) + " of " + std::to_string(static_cast<long long>(elems)) + " element(s) in " + c.nm(p);
    if (r == 0) ++c.out.proven;
    else if (r == 1) {
      i128 off = probe.intOperand(s, 1);
      c.find("bounds", s, what + ": offset " + std::to_string(static_cast<long long>(off)) + " is out of range");
    } else
      c.undecided("bounds", s, what + ": no violation found, but not every value was tried");
  }
}

void judgeLanes(Ctx &c) {
  const Graph &g = c.g;
  std::vector<Bits> val(g.size(), 0);
  for (uint32_t pi = 0; pi < g.size(); ++pi) {
    NodeId P{pi};
    if (g.op(P) != Op::Range || !g.parallel(P) || !c.endOf[pi].valid()) continue;
    NodeId end = c.endOf[pi];
    // The accesses that matter: stores in the body (any depth); loads of a
    // buffer stored into, of the version the loop writes or one made inside.
    struct Access {
      NodeId node, buffer;
      bool store;
      std::vector<NodeId> offsets;  // shrinks along the view chain
      std::vector<Enum::IntArg> args;  // their offsets, resolved once the cone is known
    };
    std::vector<Access> acc;
    std::set<uint32_t> stored;
    for (uint32_t j = pi + 1; j < end.v; ++j)
      if (g.op(NodeId{j}) == Op::Store) stored.insert(c.buf[j].v);
    if (stored.empty()) continue;
    std::vector<NodeId> targets;
    for (uint32_t j = pi + 1; j < end.v; ++j) {
      NodeId x{j};
      bool st = g.op(x) == Op::Store;
      if (!st && g.op(x) != Op::Load) continue;
      if (!stored.count(c.buf[j].v)) continue;
      NodeId v = c.root[j];
      if (!st && !(v.v > pi && v.v < end.v)) {
        // A load of an outer version: only one the loop itself writes.
        bool written = false;
        for (uint32_t k = pi + 1; k < end.v && !written; ++k)
          written = g.op(NodeId{k}) == Op::Store && c.root[k] == v;
        // ... or one a nested serial loop carries (its stores write the carry).
        for (uint32_t k = pi + 1; k < end.v && !written; ++k)
          written = g.op(NodeId{k}) == Op::Carry && c.opnd(NodeId{k}, 0) == v;
        if (!written) continue;
      }
      Access a{x, c.buf[j], st, {}, {}};
      for (NodeId w = c.opnd(x, 0); g.op(w) == Op::Shrink || g.op(w) == Op::CShrink; w = c.opnd(w, 0)) {
        a.offsets.push_back(w);
        if (!c.isLit(w, 1)) targets.push_back(c.opnd(w, 1));
      }
      acc.push_back(std::move(a));
    }
    targets.push_back(P);
    Enum en(c, val);
    if (!en.setCone(targets)) {
      c.undecided("lane", P, "the parallel loop " + c.nm(P) + ": too many values to enumerate");
      continue;
    }
    size_t at = en.position(P), n = en.cone().size();
    for (Access &a : acc)
      for (NodeId w : a.offsets) a.args.push_back(en.intArg(w, 1));
    auto absOffset = [&](const Access &a) {
      i128 o = 0;
      for (const auto &x : a.args) o += en.value(x);
      return o;
    };
    // For one assignment of the values from outside the loop: every
    // iteration's accesses (over all values inside it), then a clash test.
    bool broken = false, over = false;
    std::string witness;
    std::vector<NodeId> clash;  // the accesses that clash
    auto iterations = [&](bool sampling) {
      std::vector<Bits> dom;
      i128 bound = en.intOperand(P, 0);
      if (bound <= 0) return true;
      i128 count = std::min<i128>(bound, sampling ? 16 : 1024);
      if (bound > count) en.sampled = true;
      std::map<std::pair<uint32_t, i128>, i128> writer;  // (buffer, element) -> iteration
      std::vector<std::tuple<uint32_t, i128, i128, NodeId>> reads;
      for (i128 k = 0; k < count && !broken; ++k) {
        i128 it = bound > count && k >= count / 2 ? bound - (count - k) : k;  // both ends of the range
        val[P.v] = normalize(static_cast<Bits>(static_cast<int64_t>(it)), c.f.type[pi]);
        auto leaf = [&] {
          for (const Access &a : acc) {
            i128 o = absOffset(a);
            if (!a.store) {
              reads.emplace_back(a.buffer.v, o, it, a.node);
              continue;
            }
            auto [w, fresh] = writer.emplace(std::make_pair(a.buffer.v, o), it);
            if (!fresh && w->second != it) {
              broken = true;
              clash = {a.node};
              for (const Access &o2 : acc)
                if (o2.store && o2.buffer == a.buffer) clash.push_back(o2.node);
              witness = "iterations " + std::to_string(static_cast<long long>(w->second)) + " and " +
                        std::to_string(static_cast<long long>(it)) + " both write element " +
                        std::to_string(static_cast<long long>(o)) + " of " + c.nm(a.buffer) + " (" + c.nm(a.node) + ")";
              return false;
            }
          }
          return true;
        };
        if (!sampling) {
          en.resetBudget();
          en.each(at + 1, n, leaf);
          over = over || en.over;
        } else {
          for (int s = 0; s < 16 && !broken; ++s)
            if (en.randomly(at + 1, n)) leaf();
        }
      }
      for (auto &[b, o, it, node] : reads) {
        auto w = writer.find({b, o});
        if (!broken && w != writer.end() && w->second != it) {
          broken = true;
          clash = {node};
          for (const Access &o2 : acc)
            if (o2.store && o2.buffer.v == b) clash.push_back(o2.node);
          witness = "iteration " + std::to_string(static_cast<long long>(it)) + " reads element " +
                    std::to_string(static_cast<long long>(o)) + " of " + c.nm(NodeId{b}) + " (" + c.nm(node) +
                    "), which iteration " + std::to_string(static_cast<long long>(w->second)) + " writes";
        }
      }
      return !broken;
    };
    uint64_t outer = 0;  // assignments of the values from outside the loop
    en.each(0, at, [&] {
      if (++outer > 4096) over = true;
      return !over && iterations(false) && !over;
    });
    if (!broken && over) {
      en.sampled = true;
      for (uint32_t s = 0; s < 32 && !broken; ++s)
        if (en.randomly(0, at)) iterations(true);
    }
    if (broken) c.find("lane", P, "the parallel loop " + c.nm(P) + ": " + witness, clash);
    else if (en.sampled || over || en.over) c.undecided("lane", P, "the parallel loop " + c.nm(P) + ": no clash found, but not every value was tried");
    else ++c.out.proven;
  }
}

}  // namespace cairn::ref
