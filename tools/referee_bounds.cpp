// The referee's bounds half: every `shrink` in bounds, decided by evaluating
// its offset (and its buffer's dynamic size) over every assignment of their
// sources (tools/referee_eval.hpp says which, and how exactly). The lane
// rule is tools/referee_lanes.cpp.
#include "tools/referee_eval.hpp"

namespace cairn::ref {

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

}  // namespace cairn::ref
