// The compiler (exec/compiler.hpp) for flat graphs, its shared helpers, and
// `compile`: lowering a validated graph to the bytecode of exec/program.hpp.
//
// Walks the schedule once. Each scalar node gets a register; each view gets
// an integer register with its element offset (or shares one: a version is
// offset 0, a shrink of offset 0 by a register is that register, a shrink of
// constants is a constant). Nodes with no run-time effect (after, carry,
// const, reduce results, folded shrinks) emit nothing and are remembered for
// --trace. A loop becomes
//
//     kMov acc, identity          (one per `reduce` of the loop)
//     kLoopBegin i, n, exit
//   body:
//     ...body...
//     k<op>_<T> acc, acc, value   (one per `reduce`, in iteration order)
//     kLoopEnd i, n, body
//   exit:
//
// Assumes the oracle accepted the graph with these facts: kinds, dtypes,
// storage and element counts are those of Facts, and unchecked shrinks are
// in bounds (loads and stores still check their offset, so a wrong proof
// traps instead of corrupting memory). Anything unexpected sets
// Program::error rather than throwing or crashing.
#include <algorithm>
#include <bit>
#include <limits>
#include <unordered_map>

#include "exec/compiler.hpp"
#include "exec/interp.hpp"
#include "ir/check.hpp"

namespace cairn {

void ProgramDeleter::operator()(Program *p) const { delete p; }

namespace {

using namespace exec;

// `%name`, built by appending (GCC 12 warns falsely on "%" + std::string).
std::string pct(const Graph &g, NodeId n) {
  std::string s = "%";
  s += g.name(n);
  return s;
}


}  // namespace

namespace exec {

uint32_t Compiler::constReg(Bits v) {
  auto [it, fresh] = consts_.try_emplace(v, 0);
  if (fresh) {
    it->second = newReg();
    constVal_.emplace(it->second, v);
  }
  return it->second;
}

void Compiler::finishInitSet() {
  std::vector<std::pair<uint32_t, Bits>> &s = p_.initSet;
  s = std::move(startRegs_);
  for (const auto &[v, r] : consts_) s.push_back({r, v});
  std::sort(s.begin(), s.end());  // each register once: every entry's is a newReg of its own
}

uint32_t Compiler::reduceOpc(Op rop, DType t) const {
  return rop == Op::And ? kAnd : rop == Op::Or ? kOr : rop == Op::Xor ? kXor : aluOpc(aluIndex(rop), t);
}

void Compiler::runFlat(const std::vector<NodeId> *order) {
  const uint32_t n = g_.size();
  auto at = [&](size_t k) { return order ? (*order)[k] : NodeId{static_cast<uint32_t>(k)}; };
  p_.regOf.assign(n, kNoReg);
  // A node emits one instruction or none (the halt is one more), and an
  // `after`, `carry` or `const` none: room for the rest at once, so the
  // code does not grow by doubling, which holds the old and the new arrays,
  // three times the last size, at once.
  size_t most = size_t{n} + 1;
  for (uint32_t i = 0; i < n; ++i) {
    const Op op = g_.op(NodeId{i});
    most -= op == Op::After || op == Op::Carry || op == Op::Const;
  }
  p_.code.reserve(most);
  zero_ = constReg(0);
  collectBuffers();
  if (const char *why = reduces_.build(g_)) return fail(why);
  // An operand may be any earlier node, so on a graph larger than the cache
  // its register (regOf) is a random read: fetch those of the node
  // kPrefetch places ahead while compiling this one.
  constexpr size_t kPrefetch = 16;
  for (size_t k = 0; k < n; ++k) {
    if (k + kPrefetch < n)
      for (Operand o : g_.operands(at(k + kPrefetch)))
        if (!o.isLit() && o.node().v < n) __builtin_prefetch(&p_.regOf[o.node().v]);
    node(at(k));
  }
  if (!loops_.empty()) return fail("a loop is not closed in the schedule");
  emit(kHalt, NodeId::none());
  p_.code.back().w = steps_ - 1 - segSteps_;  // the halt itself is not counted
  finishInitSet();
}

uint32_t Compiler::scalar(Operand o, DType t) {
  if (o.isLit()) {
    auto b = literalBits(g_.literal(o.lit()), t);
    if (!b) fail("a literal does not fit " + std::string(dtypeName(t)));
    return constReg(b.value_or(0));
  }
  uint32_t r = o.node().valid() ? p_.regOf[o.node().v] : kNoReg;
  if (r == kNoReg) {
    fail(pct(g_, o.node()) + " is used before it is computed");
    return zero_;
  }
  return r;
}

uint32_t Compiler::view(Operand o) {
  if (o.isLit() || !o.node().valid()) {
    fail("a view operand is a literal");
    return zero_;
  }
  if (f_.kind[o.node().v] == ResultKind::Version) return zero_;
  return scalar(o, DType::I64);
}

// The buffer table is in node order (collectBuffers): a buffer node's
// entry is found by bisection, so no column of 4 bytes a node maps them.
uint32_t Compiler::bufIndex(NodeId s) const {
  auto at = std::lower_bound(p_.bufs.begin(), p_.bufs.end(), s, [](const BufDesc &b, NodeId x) { return b.node.v < x.v; });
  return s.valid() && at != p_.bufs.end() && at->node == s ? static_cast<uint32_t>(at - p_.bufs.begin()) : kNoReg;
}

uint32_t Compiler::bufferOf(NodeId v) {
  uint32_t b = bufIndex(f_.storage[v.v]);
  if (b == kNoReg) fail(pct(g_, v) + " has no buffer");
  return b == kNoReg ? 0 : b;
}

void Compiler::collectBuffers() {
  std::vector<std::pair<int64_t, uint32_t>> slots;
  for (uint32_t i = 0; i < g_.size(); ++i) {
    NodeId n{i};
    if (g_.op(n) != Op::Buffer) continue;
    BufDesc b;
    b.node = n;
    b.type = scalarType(g_.dtype(n));
    b.slot = g_.slot(n);
    auto ops = g_.operands(n);
    if (ops.size() != 1) return fail("a buffer without a size");
    if (ops[0].isLit()) {
      const Literal &l = g_.literal(ops[0].lit());
      b.negative = l.kind == Literal::Kind::Int && l.negative;
      b.size = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
    } else {
      b.dynamic = true;
    }
    if (g_.hasData(n)) {
      auto data = g_.data(n);
      b.init.reserve(data.size());
      for (const Literal &l : data) {
        auto v = literalBits(l, b.type);
        if (!v) return fail("data of " + pct(g_, n) + " does not fit its dtype");
        b.init.push_back(*v);
      }
      if (b.dynamic || b.init.size() != b.size) return fail("data of " + pct(g_, n) + " has the wrong count");
    }
    if (b.slot >= 0) slots.push_back({b.slot, static_cast<uint32_t>(p_.bufs.size())});
    p_.bufs.push_back(std::move(b));
  }
  std::sort(slots.begin(), slots.end());
  for (auto [s, bi] : slots) p_.slotOrder.push_back(bi);
}

void Compiler::node(NodeId n) {
  auto ops = g_.operands(n);
  Op op = g_.op(n);
  const OpInfo &info = opInfo(op);
  if (static_cast<int>(ops.size()) < info.minArgs) return fail("too few operands");
  uint32_t &dst = p_.regOf[n.v];
  switch (op) {
    case Op::Buffer:
      if (p_.bufs[bufIndex(n)].dynamic) {
        DType st = typeOf(ops[0]);
        emit(kBufferDyn, n, 0, scalar(ops[0], st), bufIndex(n), isSigned(st));
      } else {
        silent(n);
      }
      return;
    case Op::After:
    case Op::Carry:
      return silent(n);
    case Op::Shrink:
    case Op::CShrink: return shrink(n, ops);
    case Op::Load: {
      uint32_t off = view(ops[0]);
      dst = newReg();
      emit(loadOpc(scalarType(f_.type[n.v])), n, dst, off, bufferOf(ops[0].node()));
      return;
    }
    case Op::Store: {
      uint32_t off = view(ops[0]);
      DType t = scalarType(f_.type[ops[0].node().v]);
      emit(storeOpc(t), n, 0, off, bufferOf(ops[0].node()), scalar(ops[1], t));
      return;
    }
    case Op::Range: return loopBegin(n, ops);
    case Op::End: return loopEnd(n);
    case Op::Reduce:
      if (dst == kNoReg) return fail("a reduce before its loop");
      return silent(n);
    case Op::Const:
      dst = scalar(ops[0], g_.dtype(n));
      return silent(n);
    case Op::Cast: {
      DType to = scalarType(g_.dtype(n)), from = typeOf(ops[0]);
      if (from == DType::None) {  // a literal: its own natural dtype
        const Literal &l = g_.literal(ops[0].lit());
        from = l.kind == Literal::Kind::Float  ? DType::F64
               : l.kind == Literal::Kind::Bool ? DType::Bool
               : l.negative || l.magnitude <= INT64_MAX ? DType::I64
                                                         : DType::U64;
      }
      from = scalarType(from);
      uint32_t a = scalar(ops[0], from);
      dst = newReg();
      emit(castOpc(from, to), n, dst, a, a);
      return;
    }
    case Op::Where: {
      if (ops.size() != 3) return fail("where needs 3 operands");
      DType t = f_.type[n.v];
      uint32_t c = scalar(ops[0], DType::Bool), a = scalar(ops[1], t), b = scalar(ops[2], t);
      dst = newReg();
      emit(kWhere, n, dst, c, a, b);
      return;
    }
    default: return alu(n, ops);
  }
}

// The ALU ops: operands share one dtype, the result is f_.type (bool for
// comparisons).
void Compiler::alu(NodeId n, std::span<const Operand> ops) {
  Op op = g_.op(n);
  const OpInfo &info = opInfo(op);
  DType t = f_.type[n.v];
  if (info.is(opflag::B)) {
    t = typeOf(ops[0]);
    if (t == DType::None && ops.size() > 1) t = typeOf(ops[1]);
  }
  if (t == DType::None || ops.empty()) return fail("an ALU op without a dtype");
  uint32_t a = scalar(ops[0], t), b = ops.size() > 1 ? scalar(ops[1], t) : a;
  uint32_t opc;
  if (op == Op::And) opc = kAnd;
  else if (op == Op::Or) opc = kOr;
  else if (op == Op::Xor) opc = kXor;
  else if (int k = aluIndex(op); k >= 0) opc = aluOpc(k, t);
  else return fail("op `" + std::string(info.name) + "` cannot be compiled");
  uint32_t dst = p_.regOf[n.v] = newReg();
  if ((op == Op::Mod || op == Op::Idiv) && divByConstant(n, op == Op::Idiv, t, dst, a, b)) return;
  emit(opc, n, dst, a, b);
}

// `a mod b`, or `a idiv b` (div), of dtype t into dst by b's reciprocal, as
// a C compiler would (kModC/kDivC: exact for every dividend), when b is a
// constant in [2, 2^32), which never traps, and t has the instructions.
// False: it does not apply, and nothing was emitted.
bool Compiler::divByConstant(NodeId n, bool div, DType t, uint32_t dst, uint32_t a, uint32_t b) {
  if (!modCOpc(div, t) || !isConst(b) || constVal(b) < 2 || constVal(b) > 0xffffffffu) return false;
  emit(modCOpc(div, t), n, dst, a, b, constReg(UINT64_MAX / constVal(b) + 1));
  return true;
}

void Compiler::shrink(NodeId n, std::span<const Operand> ops) {
  uint32_t parent = view(ops[0]);
  // Offsets are integers of any width; in registers they are normal-form
  // 64-bit values, so a wrapping 64-bit add gives the flat offset.
  DType ot = typeOf(ops[1]);
  uint32_t off;
  if (ops[1].isLit()) {
    const Literal &l = g_.literal(ops[1].lit());
    ot = DType::I64;
    if (l.kind != Literal::Kind::Int) fail("a shrink offset is not an integer");
    off = constReg(l.negative ? Bits{0} - l.magnitude : l.magnitude);
  } else {
    off = scalar(ops[1], ot);
  }
  uint32_t &dst = p_.regOf[n.v];
  if (g_.op(n) == Op::CShrink) {
    NodeId pv = ops[0].node();
    CheckDesc c;
    c.size = f_.elems[n.v] < 0 ? 0 : static_cast<uint64_t>(f_.elems[n.v]);
    c.parentElems = f_.elems[pv.v];
    c.buf = bufferOf(pv);
    c.offType = ot;
    p_.checks.push_back(c);
    dst = newReg();
    emit(kCShrink, n, dst, parent, off, static_cast<uint32_t>(p_.checks.size() - 1));
    return;
  }
  if (isConst(parent) && isConst(off)) {
    dst = constReg(constVal(parent) + constVal(off));
    return silent(n);
  }
  if (isConst(parent) && constVal(parent) == 0) {
    dst = off;
    return silent(n);
  }
  if (isConst(off) && constVal(off) == 0) {
    dst = parent;
    return silent(n);
  }
  dst = newReg();
  emit(kAddOff, n, dst, parent, off);
}

void Compiler::loopBegin(NodeId n, std::span<const Operand> ops) {
  // The counter is the index register; its dtype is N's (i64 for a
  // literal). A literal count is compared unsigned: it is never negative
  // unless written so, and then the loop runs zero times.
  uint32_t count;
  bool isSignedCount;
  if (ops[0].isLit()) {
    const Literal &l = g_.literal(ops[0].lit());
    count = constReg(l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0);
    isSignedCount = false;
  } else {
    count = scalar(ops[0], typeOf(ops[0]));
    isSignedCount = isSigned(typeOf(ops[0]));
  }
  reduces_.forEach(n, [&](NodeId r) {
    uint32_t acc = p_.regOf[r.v] = newReg();
    emit(kMov, NodeId::none(), acc, constReg(reduceIdentity(g_.reduceOp(r), f_.type[r.v])));
  });
  uint32_t idx = p_.regOf[n.v] = newReg();
  uint32_t k = emit(isSignedCount ? kLoopBeginS : kLoopBeginU, n, idx, count);
  control(k);
  loops_.push_back({n, k, count});
}

void Compiler::loopEnd(NodeId n) {
  if (loops_.empty()) return fail("an end outside any loop");
  Loop l = loops_.back();
  loops_.pop_back();
  reduces_.forEach(l.range, [&](NodeId r) {
    auto rops = g_.operands(r);
    DType t = scalarType(f_.type[r.v]);
    uint32_t acc = p_.regOf[r.v], v = scalar(rops[1], t);
    emit(reduceOpc(g_.reduceOp(r), t), r, acc, acc, v);
  });
  uint32_t k = emit(kLoopEnd, n, p_.regOf[l.range.v], l.count, l.begin + 1);
  control(k);
  p_.code[l.begin].b = k + 1;
  jumps(l.begin, k);
}
}  // namespace exec

ProgramPtr compile(const Graph &g, const Facts &facts, SchedulePriority prio, bool traceable) {
  ProgramPtr p(new Program);
  p->g = &g;
  p->facts = &facts;
  p->traceable = traceable;
  CAIRN_CHECK(facts.kind.size() == g.size() && facts.type.size() == g.size() && facts.storage.size() == g.size() &&
                  facts.elems.size() == g.size(),
              "compile: the facts do not match the graph (was it validated?)");
  if (schedulesInSourceOrder(g, facts, prio)) {
    Compiler(g, facts, *p).runFlat(nullptr);
  } else {
    Schedule s = schedule(g, facts, prio);
    Compiler(g, facts, *p).runFlat(&s.order);
  }
  if (!traceable) std::vector<uint32_t>().swap(p->regOf);  // the compile's own, from here on
  exec::planBlocks(*p);
  return p;
}

}  // namespace cairn
