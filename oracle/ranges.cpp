// The value analysis of oracle/ranges.hpp: sets from the transfer functions
// of oracle/interval.hpp, symbolic bounds where they are facts, and the
// words that say where a value may have wrapped.
#include "oracle/ranges.hpp"

#include <algorithm>
#include <unordered_set>

#include "oracle/util.hpp"

namespace cairn {

std::string describeSet(IntType t, ISet s) {
  if (s.isEmpty()) return "never computed";
  if (s.isPoint()) return "is " + str(s.lo);
  std::string text = "is in " + str(t, s);
  if (s.crosses(t)) text += " (it wraps around)";
  return text;
}

bool ValueRanges::analysed(NodeId y) const {
  DType t = f_.type[y.v];
  return (isInteger(t) || t == DType::Bool) && (f_.kind[y.v] == ResultKind::Scalar || f_.kind[y.v] == ResultKind::Index);
}

// Does the analysis compute x from its operands? (Loads, reduces, params,
// calls and casts from floats take any value of their dtype.)
bool ValueRanges::follows(NodeId x) const {
  Op op = g_.op(x);
  auto ops = g_.operands(x);
  if (op == Op::Cast && !ops[0].isLit() && !analysed(ops[0].node())) return false;
  switch (op) {
    case Op::Range:
    case Op::Const:
    case Op::CheckedAdd:
    case Op::CheckedSub:
    case Op::CheckedMul:
    case Op::CheckedDiv:
    case Op::CheckedMod:
    case Op::CheckedCast: return true;
    default: return opInfo(op).is(opflag::A);
  }
}

const ValueInfo &ValueRanges::of(NodeId x) const {
  if (auto it = v_.find(x.v); it != v_.end()) return it->second;
  // Operands first, without recursion on the program's depth.
  std::vector<std::pair<NodeId, bool>> stack{{x, false}};
  while (!stack.empty()) {
    auto [y, expanded] = stack.back();
    stack.pop_back();
    if (v_.count(y.v)) continue;
    if (!expanded && analysed(y) && follows(y)) {
      stack.push_back({y, true});
      for (Operand o : g_.operands(y))
        if (!o.isLit() && analysed(o.node()) && !v_.count(o.node().v)) stack.push_back({o.node(), false});
      continue;
    }
    compute(y);
  }
  return v_[x.v];
}

IntType ValueRanges::operandType(NodeId n, size_t k, IntType asType) const {
  Operand o = g_.operands(n)[k];
  if (o.isLit() || !analysed(o.node())) return asType;
  return IntType::of(f_.type[o.node().v]);
}

ISet ValueRanges::operandSet(NodeId n, size_t k, IntType asType) const {
  Operand o = g_.operands(n)[k];
  if (o.isLit()) {
    DType dt = asType.isBool() ? DType::Bool : asType.isSigned ? DType::I64 : DType::U64;
    auto b = literalBits(g_.literal(o.lit()), dt);
    if (!b) return ISet::full(asType);
    i128 v = asType.isSigned ? static_cast<i128>(static_cast<int64_t>(*b)) : static_cast<i128>(*b);
    return asType.holds(v) ? ISet::point(v) : ISet::full(asType);
  }
  if (!analysed(o.node())) return ISet::full(asType);
  return of(o.node()).set;
}

Sym ValueRanges::operandSym(NodeId n, size_t k) const {
  Operand o = g_.operands(n)[k];
  if (o.isLit() || !analysed(o.node())) return {};
  const ValueInfo &r = of(o.node());
  if (r.sym.sym.valid()) return r.sym;
  return Sym{o.node(), 0};
}

void ValueRanges::compute(NodeId n) const {
  ValueInfo out;
  if (!analysed(n)) return void(v_[n.v] = out);
  DType dt = f_.type[n.v];
  out.type = IntType::of(dt);
  out.set = ISet::full(out.type);
  Op op = g_.op(n);
  auto ops = g_.operands(n);
  if (follows(n)) {
    // Operand types: comparisons and casts read theirs; where's condition is bool.
    IntType types[3];
    ISet sets[3];
    size_t n_ops = std::min<size_t>(ops.size(), 3);
    for (size_t k = 0; k < n_ops; ++k) {
      IntType as = out.type;
      if (opInfo(op).is(opflag::C) || op == Op::Cast || op == Op::CheckedCast || op == Op::Range) as = operandType(n, k, IntType{64, true});
      if (op == Op::Where && k == 0) as = IntType{1, false};
      if ((opInfo(op).is(opflag::C)) && ops[k].isLit()) as = operandType(n, 1 - k, IntType{64, true});
      types[k] = op == Op::Const ? out.type : as;
      sets[k] = op == Op::Const ? operandSet(n, 0, out.type) : operandSet(n, k, as);
    }
    Transfer tr = transfer(op, out.type, std::span<const IntType>(types, n_ops), std::span<const ISet>(sets, n_ops));
    out.set = tr.set;
    out.exact = tr.exact;
  }
  symbolic(n, out);
  v_[n.v] = out;
}

// The symbolic bounds of the header comment, each only where it is a fact.
void ValueRanges::symbolic(NodeId n, ValueInfo &out) const {
  Op op = g_.op(n);
  auto ops = g_.operands(n);
  IntType t = out.type;
  auto set = [&](size_t k) { return operandSet(n, k, t); };
  auto symOf = [&](size_t k) -> Sym {
    if (ops[k].isLit() || !analysed(ops[k].node())) return {};
    return of(ops[k].node()).sym;
  };
  switch (op) {
    case Op::Range:
      if (!ops[0].isLit()) out.sym = {ops[0].node(), -1};
      break;
    case Op::Mod:
    case Op::CheckedMod: {
      ISet b = set(1).hull(t), a = set(0).hull(t);
      if (!ops[1].isLit() && b.lo >= 1) out.sym = {ops[1].node(), -1};
      else if (a.lo >= 0 && !set(0).isEmpty()) out.sym = symOf(0);
      break;
    }
    case Op::Min:
      for (size_t k = 0; k < 2 && !out.sym.sym.valid(); ++k) out.sym = symOf(k);
      for (size_t k = 0; k < 2 && !out.sym.sym.valid(); ++k)
        if (!ops[k].isLit()) out.sym = {ops[k].node(), 0};
      break;
    case Op::Cast:
    case Op::CheckedCast:
      if (out.exact) out.sym = symOf(0);
      break;
    case Op::Add:
    case Op::Sub:
    case Op::CheckedAdd:
    case Op::CheckedSub: {
      bool add = op == Op::Add || op == Op::CheckedAdd;
      ISet a = set(0).hull(t), b = set(1).hull(t);
      if (out.exact) {
        Sym sa = operandSym(n, 0), sb = operandSym(n, 1);
        if (sa.sym.valid() && (!add || !sb.sym.valid() || symOf(0).sym.valid())) out.sym = {sa.sym, sa.k + (add ? b.hi : -b.lo)};
        else if (add && sb.sym.valid()) out.sym = {sb.sym, sb.k + a.hi};
      }
      // x = a - c (c >= 0), signed: no wrap whenever a >= 0.
      if (t.isSigned && !ops[0].isLit() && b.isPoint() && (add ? b.lo <= 0 : b.lo >= 0))
        out.ifNonNeg = {ops[0].node(), add ? b.lo : -b.lo};
      break;
    }
    default: break;
  }
}

bool ValueRanges::symAtMost(Sym b, i128 extra, NodeId size) const {
  constexpr int kChain = 8;
  for (int step = 0; step < kChain && b.sym.valid(); ++step) {
    if (b.sym == size) return b.k + extra <= 0;
    if (!analysed(b.sym)) break;
    const ValueInfo &r = of(b.sym);
    Sym next = r.sym.sym.valid() ? r.sym : r.ifNonNeg.sym == size ? r.ifNonNeg : Sym{};
    if (!next.sym.valid()) break;
    b = Sym{next.sym, next.k + b.k};
  }
  return false;
}

std::string ValueRanges::wrapReason(NodeId x) const {
  if (!analysed(x)) return "";
  Op op = g_.op(x);
  const ValueInfo &r = of(x);
  if (r.exact || r.set.isEmpty()) return "";
  IntType t = r.type;
  std::string tn(dtypeName(f_.type[x.v]));
  std::string holds = tn + " holds [" + str(t.min()) + ", " + str(t.max()) + "]";
  auto ops = g_.operands(x);
  auto opnd = [&](size_t k) { return ops[k].isLit() ? std::string("the literal") : pct(g_, ops[k].node()); };
  if (op == Op::Cast && !ops[0].isLit() && analysed(ops[0].node())) {
    const ValueInfo &a = of(ops[0].node());
    if (t.isBool()) return "";
    ISet h = a.set.hull(a.type);
    if (!a.set.crosses(a.type) && h.lo >= t.min() && h.hi > t.max())
      return "wraps once " + opnd(0) + " > " + str(t.max()) + " (" + opnd(0) + " " + describeSet(a.type, a.set) + "; " + holds + ")";
    if (!a.set.crosses(a.type) && h.hi <= t.max() && h.lo < t.min())
      return "wraps when " + opnd(0) + " < " + str(t.min()) + " (" + opnd(0) + " " + describeSet(a.type, a.set) + "; " + holds + ")";
    return "may wrap: " + opnd(0) + " " + describeSet(a.type, a.set) + ", and " + holds;
  }
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Neg:
    case Op::Shl:
    case Op::Idiv: {
      if (t.isBool()) return "";  // neg on bool is `not`
      std::string text = "may wrap around: its exact result can fall outside " + tn + "'s [" + str(t.min()) + ", " + str(t.max()) + "]";
      std::string each;
      for (size_t k = 0; k < ops.size(); ++k)
        if (!ops[k].isLit() && analysed(ops[k].node()))
          each += (each.empty() ? "" : ", ") + pct(g_, ops[k].node()) + " " + describeSet(of(ops[k].node()).type, of(ops[k].node()).set);
      return each.empty() ? text : text + " (" + each + ")";
    }
    default: return "";
  }
}

NodeId ValueRanges::firstWrap(NodeId x, size_t limit) const {
  std::vector<NodeId> queue{x};
  std::unordered_set<uint32_t> seen{x.v};
  for (size_t i = 0; i < queue.size() && i < limit; ++i) {
    NodeId y = queue[i];
    if (!analysed(y)) continue;
    if (!wrapReason(y).empty()) return y;
    Op op = g_.op(y);
    if (!opInfo(op).is(opflag::A) && op != Op::Range) continue;
    for (Operand o : g_.operands(y))
      if (!o.isLit() && analysed(o.node()) && seen.insert(o.node().v).second) queue.push_back(o.node());
  }
  return NodeId::none();
}

}  // namespace cairn
