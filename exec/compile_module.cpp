// The compiler (exec/compiler.hpp) for the functions of a validated module,
// and compileModule: one pass over each body in text (id) order.
//
// The text order is the run order (a module runs top to bottom), so no
// schedule is needed: a `range` opens a loop, its `end` closes it, and the
// body's instructions lie in between. Registers: one per node with a value,
// scalars in the frame's register file and views in its view file; `carry`
// and `after` share their operand's view register (every version of a
// storage is that storage); a `const` is a constant register; a `reduce` is
// an accumulator set to its identity before the loop and combined at the end
// of every iteration. A one-element shrink whose one user is a load or store
// of it fuses into that access (kVLoadAt / kVStoreAt). Events without effect
// at run time (store's successors, call_write, end's operands) compile to
// nothing. Loop control, calls, returns and prints count steps (Ins::w).
#include <algorithm>
#include <optional>

#include "exec/compiler.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/proven.hpp"

namespace cairn::exec {

void Compiler::runModule(const Module &m, const Function &fn, bool optimize) {
  m_ = &m;
  fn_ = &fn;
  p_.regOf.assign(g_.size(), kNoReg);
  reduces_.build(g_);  // the oracle validated the body: it cannot fail
  findFused();
  optimize_ = optimize;
  if (optimize) proofs_ = std::make_unique<IndexProofs>(g_, f_);
  cells_ = optimize ? planCells(g_, f_) : CellPlan::none(g_.size());
  cellReg_.assign(cells_.cells, kNoReg);
  intoCell_.assign(g_.size(), 0);
  if (optimize) markLoops();
  for (uint32_t i = 0; i < g_.size(); ++i) mnode(NodeId{i});
  control(emit(kRet, NodeId::none(), 0, kNoReg));  // a body without `ret` returns nothing
  if (optimize) threadIfEnds();
  if (optimize) markScans();
  finishInitSet();
}

// Also counts every node's uses (uses_), which the fusions read too.
void Compiler::findFused() {
  const uint32_t n = g_.size();
  uses_.assign(n, 0);
  valueRead_.assign(n, 0);
  std::vector<NodeId> &user = user_;
  user.assign(n, NodeId::none());
  for (uint32_t i = 0; i < n; ++i)
    for (Operand o : g_.operands(NodeId{i}))
      if (!o.isLit()) {
        ++uses_[o.node().v];
        user[o.node().v] = NodeId{i};
        if (g_.op(NodeId{i}) != Op::End) valueRead_[o.node().v] = 1;
      }
  fused_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    NodeId s{i};
    Op op = g_.op(s);
    if ((op != Op::Shrink && op != Op::CShrink) || f_.elems[i] != 1 || uses_[i] != 1) continue;
    NodeId u = user[i];
    if ((g_.op(u) == Op::Load || g_.op(u) == Op::Store) && !g_.operands(u)[0].isLit() && g_.operands(u)[0].node() == s)
      fused_[i] = 1;
  }
}

// Is u64 op n the index arithmetic of a fused access: its one use the
// offset of a fused checked_shrink, or (a checked_mul) the checked_add
// that is? Such arithmetic stays checked even where it cannot trap, so
// that it fuses with the access into one instruction (fuse_access.cpp).
bool Compiler::indexOfAccess(NodeId n) const {
  if (uses_[n.v] != 1 || f_.type[n.v] != DType::U64) return false;
  NodeId x = n, u = user_[n.v];
  if (g_.op(n) == Op::CheckedMul && g_.op(u) == Op::CheckedAdd && uses_[u.v] == 1) {
    x = u;
    u = user_[u.v];
  }
  if (!u.valid() || g_.op(u) != Op::CShrink || !fused_[u.v]) return false;
  const Operand o = g_.operands(u)[1];
  return !o.isLit() && o.node() == x;
}

// Does the fused access through shrink v check its index (a checked_shrink
// that exec/proven.hpp does not prove in bounds)?
bool Compiler::checkedIndex(NodeId v) const {
  return g_.op(v) == Op::CShrink && !(proofs_ && proofs_->proven(v));
}

// Operand k of n as a scalar register; a literal takes dtype t.
uint32_t Compiler::sreg(NodeId n, size_t k, DType t) {
  Operand o = g_.operands(n)[k];
  if (o.isLit()) return constReg(literalBits(g_.literal(o.lit()), t).value_or(0));
  return p_.regOf[o.node().v];
}

DType Compiler::operandType(NodeId n, size_t first) const {
  auto ops = g_.operands(n);
  for (size_t k = first; k < ops.size(); ++k)
    if (!ops[k].isLit()) return f_.type[ops[k].node().v];
  return DType::I64;
}

// Loads, stores, shrinks, parts, buffers.
bool Compiler::mmemory(NodeId n) {
  DType t = f_.type[n.v];
  auto ops = g_.operands(n);
  uint32_t &dst = p_.regOf[n.v];
  switch (g_.op(n)) {
    case Op::Store: {
      NodeId v = ops[0].node();
      if (fused_[v.v]) {  // nodeOf is the shrink: a trap is about its bounds
        if (optimize_ && (fuseAccess(n, v, false) || fuseDeref(n, v, false))) return true;
        int w = checkedIndex(v) ? kVStoreAtCW : kVStoreAtW;
        emit(vmemOpc(w, t), v, 0, vreg(v, 0), sreg(n, 1, t), sreg(v, 1, DType::I64));
        return true;
      }
      emit(vmemOpc(kVStoreW, t), n, 0, vreg(n, 0), sreg(n, 1, t));
      return true;
    }
    case Op::Load: {
      NodeId v = ops[0].node();
      if (fused_[v.v]) {
        if (optimize_ && (fuseAccess(n, v, true) || fuseDeref(n, v, true) || fuseLoad2(n, v))) return true;
        int w = checkedIndex(v) ? kVLoadAtCW : kVLoadAtW;
        uint32_t a = vreg(v, 0), b = sreg(v, 1, DType::I64);
        emit(vmemOpc(w, t), v, dst = newReg(), a, b);
        return true;
      }
      uint32_t a = vreg(n, 0);
      emit(vmemOpc(kVLoadW, t), n, dst = newReg(), a);
      return true;
    }
    case Op::Shrink:
    case Op::CShrink: {
      if (fused_[n.v]) return true;  // emitted with its load or store
      p_.sizes.push_back(static_cast<uint64_t>(f_.elems[n.v]));
      uint32_t a = vreg(n, 0), b = sreg(n, 1, DType::I64);
      emitT(kShrink, t, n, dst = newView(), a, b, static_cast<uint32_t>(p_.sizes.size() - 1));
      return true;
    }
    case Op::Part: {
      uint32_t a = vreg(n, 0), b = sreg(n, 1, DType::U64), c = sreg(n, 2, DType::U64);
      emitT(kPart, t, n, dst = newView(), a, b, c);
      return true;
    }
    case Op::Len: emit(kLen, n, dst = newReg(), vreg(n, 0)); return true;
    case Op::Buffer: {
      DType st = ops[0].isLit() ? DType::I64 : f_.type[ops[0].node().v];
      uint32_t c = (static_cast<uint32_t>(p_.data.size()) << 1) | (isSigned(st) ? 1 : 0);
      for (const Literal &l : g_.data(n)) p_.data.push_back(literalBits(l, g_.dtype(n)).value_or(0));
      uint32_t a = sreg(n, 0, DType::I64);
      emitT(kBuffer, g_.dtype(n), n, dst = newView(), a, (g_.hasData(n) ? 1 : 0) | (isFrameBuffer(g_, n) ? 2 : 0), c);
      if (!loops_.empty()) p_.code[loops_.back().begin].pad = 1;  // the loop releases it after each iteration
      return true;
    }
    default: return false;
  }
}

void Compiler::mloopEnd(NodeId n) {
  NodeId r = g_.operands(n)[0].node();
  reduces_.forEach(r, [&](NodeId red) {
    uint32_t acc = p_.regOf[red.v], val = p_.regOf[g_.operands(red)[1].node().v];
    DType rt = f_.type[red.v];
    emit(reduceOpc(g_.reduceOp(red), rt), red, acc, acc, val);
  });
  Loop l = loops_.back();
  loops_.pop_back();
  if (l.ifForm) return ifEnd(n, l.begin, l.range);
  const Ins b = p_.code[l.begin];
  // Without buffers to release or an `until` flag, the plain forms.
  const bool plain = optimize_ && !b.pad && !l.until;
  if (plain) p_.code[l.begin].op = kMLoopBeginN;
  if (optimize_ && (b.pad != 0) != ((loopFlags_[l.range.v] & kBufferIn) != 0))
    fail("a loop's buffers were not found before it");
  uint32_t k = emit(plain ? kMLoopEndN : kMLoopEnd, n, b.d, b.a, l.begin + 1);
  p_.code[k].t = b.pad;
  control(k);
  if (plain && (fuseMovLoopEnd(k, l.begin) || fuseMulAddLoopEnd(k, l.begin))) {
    fuseAddMov2LoopEnd(static_cast<uint32_t>(p_.code.size() - 1), l.begin);
    p_.code[l.begin].b = static_cast<uint32_t>(p_.code.size());
    p_.code[l.begin].c = p_.code[l.begin].b - l.begin;
    return;
  }
  p_.code[l.begin].b = static_cast<uint32_t>(p_.code.size());
  jumps(l.begin, k);
  if (optimize_ && l.until) fuseWhileEnd(k, l.begin);
}

// Loops, calls, returns, until, guard, print.
bool Compiler::mcontrol(NodeId n) {
  auto ops = g_.operands(n);
  switch (g_.op(n)) {
    case Op::Range: {
      uint32_t idx = newReg();
      newReg();  // idx + 1: the until flag
      newReg();  // idx + 2: the buffer mark
      p_.regOf[n.v] = idx;
      reduces_.forEach(n, [&](NodeId r) {
        uint32_t acc = p_.regOf[r.v] = newReg();
        emit(kMov, r, acc, constReg(reduceIdentity(g_.reduceOp(r), f_.type[r.v])));
      });
      DType ct = ops[0].isLit() ? DType::I64 : f_.type[ops[0].node().v];
      uint32_t cnt = sreg(n, 0, DType::I64);
      if (optimize_ && !loopFlags_[n.v] && boolCount(n)) {
        // Never written: a body that reads the index sees 0. The `end`
        // names the range without reading its value.
        if (valueRead_[n.v]) startRegs_.push_back({idx, 0});
        loops_.push_back({n, ifBegin(n, cnt), cnt, false, true});
        return true;
      }
      uint32_t k = emit(kMLoopBegin, n, idx, cnt, 0, 0);
      p_.code[k].t = isSigned(ct) ? 1 : 0;
      control(k);
      loops_.push_back({n, k, cnt});
      return true;
    }
    case Op::End: mloopEnd(n); return true;
    case Op::Call: {
      int callee = m_->find(g_.text(n));
      const Function &cf = m_->funcs[static_cast<size_t>(callee)];
      uint32_t start = static_cast<uint32_t>(p_.args.size());
      for (size_t k = 0; k < ops.size(); ++k) {
        if (cf.sig.params[k].mode != ParamSig::Mode::Scalar) p_.args.push_back(vreg(n, k) | kViewArg);
        else p_.args.push_back(sreg(n, k, cf.sig.params[k].type));
      }
      uint32_t d = g_.dtype(n) != DType::None ? (p_.regOf[n.v] = newReg()) : kNoReg;
      control(emit(kCall, n, d, static_cast<uint32_t>(callee), start, static_cast<uint32_t>(ops.size())));
      return true;
    }
    case Op::Ret: {
      uint32_t a = ops.empty() ? kNoReg : sreg(n, 0, fn_->sig.ret);
      control(emit(kRet, n, 0, a));
      return true;
    }
    case Op::Until: {
      uint32_t a = sreg(n, 0, DType::Bool);
      if (!optimize_ || !fuseUntil(n)) emit(kUntil, n, p_.regOf[g_.parent(n).v] + 1, a);
      for (Loop &l : loops_)
        if (l.range == g_.parent(n)) l.until = true;
      return true;
    }
    case Op::Guard: emit(kGuard, n, 0, sreg(n, 0, DType::Bool)); return true;
    case Op::Print: {
      NodeId x = ops[0].node();
      control(emitT(kPrint, f_.isView(x) ? DType::None : f_.type[x.v], n, 0, p_.regOf[x.v]));
      return true;
    }
    default: return false;
  }
}

// The heap: alloc, free, deref.
bool Compiler::mheap(NodeId n) {
  uint32_t &dst = p_.regOf[n.v];
  switch (g_.op(n)) {
    case Op::Alloc: {
      uint32_t a = sreg(n, 0, DType::U64);
      emit(kAlloc, n, dst = newReg(), a, 0, n.v);
      return true;
    }
    case Op::Free: emit(kFree, n, 0, sreg(n, 0, DType::U64)); return true;
    case Op::Deref: {
      uint32_t a = sreg(n, 0, DType::U64);
      emitT(kDeref, g_.dtype(n), n, dst = newView(), a, static_cast<uint32_t>(g_.literal(g_.operands(n)[1].lit()).magnitude));
      return true;
    }
    default: return false;
  }
}

// Promoted cells (promote.hpp): a register per cell. The buffer sets it to
// its initial value; a load is the register itself (an alias) or a copy of
// it; a store copies into it, or nothing when its value was computed there
// (intoCell). Carries, afters and shrinks of a cell emit nothing; a shrink
// that was its own instruction keeps its step.
bool Compiler::mcell(NodeId n) {
  const uint32_t c = cells_.cell[n.v];
  if (c == CellPlan::kNone) return false;
  auto ops = g_.operands(n);
  switch (g_.op(n)) {
    case Op::Buffer: {
      Bits init = g_.hasData(n) ? literalBits(g_.data(n)[0], g_.dtype(n)).value_or(0) : 0;
      if (cellReg_[c] == kNoReg && loops_.empty()) {
        // Outside every loop and `if` it runs once a call, before anything
        // reads the register: the frame starts with the value (initSet).
        cellReg_[c] = newReg();
        startRegs_.push_back({cellReg_[c], init});
        step(n);
        return true;
      }
      if (cellReg_[c] == kNoReg) cellReg_[c] = newReg();
      mov(n, cellReg_[c], constReg(init));
      return true;
    }
    case Op::Shrink:
    case Op::CShrink:
      if (!fused_[n.v]) step(n);
      return true;
    case Op::Load: {
      NodeId v = ops[0].node(), at = fused_[v.v] ? v : n;
      if (cells_.alias[n.v]) {
        p_.regOf[n.v] = cellReg_[c];
        step(at);
      } else {
        mov(at, p_.regOf[n.v] = newReg(), cellReg_[c]);
      }
      return true;
    }
    case Op::Store: {
      NodeId v = ops[0].node(), at = fused_[v.v] ? v : n;
      if (!ops[1].isLit() && intoCell_[ops[1].node().v]) step(at);
      else mov(at, cellReg_[c], sreg(n, 1, f_.type[n.v]));
      return true;
    }
    default: return true;  // carry, after: the cell itself
  }
}

// R[d] = R[a] at node n. A copy right after another one joins it (kMov2):
// no jump lands between them, since jumps land only after loop control and
// calls. The pair keeps both steps (copies never trap).
void Compiler::mov(NodeId n, uint32_t d, uint32_t a) {
  if (!p_.code.empty() && p_.code.back().op == kMov) {
    Ins &prev = p_.code.back();
    prev.op = kMov2;
    prev.b = d;
    prev.c = a;
    joinStep(n);
    return;
  }
  emit(kMov, n, d, a);
}

// A value the plan computes straight into a cell: its one instruction, just
// emitted, writes the cell's register instead of its own.
void Compiler::intoCell(NodeId n) {
  const uint32_t c = cells_.into[n.v];
  if (c == CellPlan::kNone || cellReg_[c] == kNoReg) return;
  uint32_t r = p_.regOf[n.v];
  if (r == kNoReg || p_.code.empty() || !(owner_.back() == n) || p_.code.back().d != r || p_.code.back().op == kMov2)
    return;
  p_.code.back().d = cellReg_[c];
  p_.regOf[n.v] = cellReg_[c];
  intoCell_[n.v] = 1;
}

void Compiler::mnode(NodeId n) {
  cur_ = n;
  if (!mcell(n)) mop(n);
  intoCell(n);
}

// Is x's register a cell's (an alias load, or computed into the cell)?
bool Compiler::inCell(NodeId x) const {
  return (x.v < cells_.alias.size() && cells_.alias[x.v]) || intoCell_[x.v];
}

namespace {

// The value of an integer operand that is a literal or a `const`; none
// when it is neither or negative.
std::optional<uint64_t> constOperand(const Graph &g, Operand o) {
  if (!o.isLit() && g.op(o.node()) == Op::Const) o = g.operands(o.node())[0];
  if (!o.isLit()) return std::nullopt;
  const Literal &l = g.literal(o.lit());
  if (l.kind != Literal::Kind::Int || (l.negative && l.magnitude != 0)) return std::nullopt;
  return l.magnitude;
}

// Does `checked_cast x` to `to` always succeed with x's bits? When every
// value of x's dtype is one of `to` (identityCast), or x is an unsigned
// `mod`/`checked_mod` by a constant d whose remainders [0, d) all fit `to`
// (u8(h % 251)): a non-negative value has the same normal form in every
// integer dtype that holds it.
bool castCannotFail(const Graph &g, const Facts &f, NodeId x, DType to) {
  const DType from = f.type[x.v];
  if (identityCast(from, to)) return true;
  if (!isUnsigned(from) || !isInteger(to) || (g.op(x) != Op::Mod && g.op(x) != Op::CheckedMod)) return false;
  const std::optional<uint64_t> d = constOperand(g, g.operands(x)[1]);
  const unsigned bits = static_cast<unsigned>(8 * dtypeBytes(to)) - (isSigned(to) ? 1 : 0);
  const uint64_t maxTo = bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
  return d && *d >= 1 && *d - 1 <= maxTo;
}

}  // namespace

void Compiler::mop(NodeId n) {
  Op op = g_.op(n);
  auto ops = g_.operands(n);
  uint32_t &dst = p_.regOf[n.v];
  if (mmemory(n) || mcontrol(n) || mheap(n)) return;
  switch (op) {
    case Op::Param:
    case Op::VParam: {
      bool v = op == Op::VParam;
      dst = v ? newView() : newReg();
      p_.params.push_back({static_cast<uint32_t>(g_.literal(ops[0].lit()).magnitude), v ? dst | kViewArg : dst});
      return;
    }
    case Op::Const: dst = constReg(literalBits(g_.literal(ops[0].lit()), g_.dtype(n)).value_or(0)); return;
    case Op::After:
    case Op::Carry: dst = vreg(n, 0); return;
    case Op::Reduce:
    case Op::CallWrite: return;  // the accumulator (see Range/End); nothing
    case Op::Cast: {
      NodeId x = ops[0].node();
      DType from = f_.type[x.v];
      uint32_t a = p_.regOf[x.v];
      // A cast that keeps the bits is its operand's register (not a cell's,
      // which a later store may change while the cast's value is live).
      if (optimize_ && identityCast(from, g_.dtype(n)) && !inCell(x)) {
        dst = a;
        step(n);
        return;
      }
      emit(castOpc(from, g_.dtype(n)), n, dst = newReg(), a);
      return;
    }
    case Op::CheckedCast: {
      NodeId x = ops[0].node();
      uint32_t a = p_.regOf[x.v];
      // One that cannot fail and keeps the bits is its operand's register,
      // as an identity cast (above); one that the value analysis shows
      // cannot fail (exec/proven.hpp) is the plain cast.
      if (optimize_ && castCannotFail(g_, f_, x, g_.dtype(n)) && !inCell(x)) {
        dst = a;
        step(n);
        return;
      }
      const bool sure = optimize_ && proofs_->cannotTrap(n);
      emit(sure ? castOpc(f_.type[x.v], g_.dtype(n)) : ccastOpc(f_.type[x.v], g_.dtype(n)), n, dst = newReg(), a);
      return;
    }
    case Op::Where: {
      DType vt = operandType(n, 1);
      uint32_t a = sreg(n, 0, DType::Bool), b = sreg(n, 1, vt), c = sreg(n, 2, vt);
      emit(kWhere, n, dst = newReg(), a, b, c);
      return;
    }
    default: break;
  }
  DType ot = operandType(n);
  // Checked arithmetic that cannot trap (the oracle's value analysis,
  // exec/proven.hpp) is the wrapping op, which has the same value; not an
  // access's index, which fuses with the access checked (indexOfAccess).
  if (optimize_ && op >= Op::CheckedAdd && op <= Op::CheckedMod && !indexOfAccess(n) && proofs_->cannotTrap(n)) {
    constexpr Op kPlain[] = {Op::Add, Op::Sub, Op::Mul, Op::Idiv, Op::Mod};
    op = kPlain[static_cast<int>(op) - static_cast<int>(Op::CheckedAdd)];
  }
  uint32_t opc;
  if (op == Op::And || op == Op::Or || op == Op::Xor) opc = reduceOpc(op, ot);
  else if (op >= Op::CheckedAdd && op <= Op::CheckedMod)
    opc = checkedOpc(static_cast<int>(op) - static_cast<int>(Op::CheckedAdd), ot);
  else if (aluIndex(op) >= 0) opc = aluOpc(aluIndex(op), ot);
  else return;
  uint32_t a = sreg(n, 0, ot), b = ops.size() > 1 ? sreg(n, 1, ot) : a;
  if (optimize_ && (op == Op::Add || op == Op::CheckedAdd) && fuseMulAdd(n, op == Op::CheckedAdd, ot, a, b)) return;
  dst = newReg();
  const bool div = op == Op::Idiv || op == Op::CheckedDiv;
  if (optimize_ && (div || op == Op::Mod || op == Op::CheckedMod) && divByConstant(n, div, ot, dst, a, b)) return;
  emit(opc, n, dst, a, b);
}

// `until (or (neg X) Y)` right after its neg and or, whose values nothing
// else uses (a CAIRN `while`: leave unless the condition holds or the
// function returned): one kUntilNotOr, keeping the three steps; t 1 when
// Y is known to be zero (fuseWhileEnd then drops it).
bool Compiler::fuseUntil(NodeId n) {
  Operand y = g_.operands(n)[0];
  const size_t k = p_.code.size();
  if (y.isLit() || k < 2 || !(owner_[k - 1] == y.node()) || uses_[y.node().v] != 1) return false;
  const Ins orI = p_.code[k - 1], negI = p_.code[k - 2];
  const NodeId x = owner_[k - 2];
  if (orI.op != kOr || negI.op != aluOpc(aluIndex(Op::Neg), DType::Bool) || !x.valid() || uses_[x.v] != 1 ||
      p_.regOf[x.v] != negI.d || p_.regOf[y.node().v] != orI.d || (orI.a == negI.d) == (orI.b == negI.d))
    return false;
  Ins &f = p_.code[k - 2];
  const auto ors = g_.operands(y.node());  // (neg X) and Y, in either order
  const Operand other = !ors[0].isLit() && ors[0].node() == x ? ors[1] : ors[0];
  f = Ins{static_cast<uint16_t>(kUntilNotOr), knownZero(other) ? uint8_t{1} : uint8_t{0}, 0,
          p_.regOf[g_.parent(n).v] + 1, negI.a, orI.a == negI.d ? orI.b : orI.a, 0, 0};
  popIns();
  joinStep(n);
  return true;
}

// An operand known to be zero: a literal or `const` of value 0 or false
// (a `while` in a function with no `return` tests `false` so), or a load of
// element 0 of a buffer's first version without `data` (a `while` with no
// `return` in it reads the `returned` local so, never stored before the
// loop). Versions never change, so the load sees the buffer as it was made,
// whatever is stored into it later.
bool Compiler::knownZero(Operand o) const {
  if (o.isLit()) return literalBits(g_.literal(o.lit()), DType::U64).value_or(1) == 0;
  if (g_.op(o.node()) == Op::Const)
    return literalBits(g_.literal(g_.operands(o.node())[0].lit()), g_.dtype(o.node())).value_or(1) == 0;
  if (g_.op(o.node()) != Op::Load) return false;
  const Operand v = g_.operands(o.node())[0];
  if (v.isLit() || g_.op(v.node()) != Op::Shrink) return false;
  const Operand b = g_.operands(v.node())[0];
  return !b.isLit() && g_.op(b.node()) == Op::Buffer && !g_.hasData(b.node());
}

// An add of a product that nothing else uses, right after the multiply
// (steps of ops that emit nothing may lie between): one kCMulAdd/kMulAdd.
// Its pad is how many steps follow the multiply's, so a trap of the
// multiply is placed at its own step.
bool Compiler::fuseMulAdd(NodeId n, bool checked, DType t, uint32_t a, uint32_t b) {
  const uint32_t opc = mulAddOpc(checked, t);
  if (opc == 0 || p_.code.empty()) return false;
  Ins &prev = p_.code.back();
  const uint32_t mulOpc = checked ? checkedOpc(2, t) : aluOpc(aluIndex(Op::Mul), t);
  const NodeId x = owner_.back();
  if (prev.op != mulOpc || !x.valid() || uses_[x.v] != 1 || intoCell_[x.v]) return false;
  auto ops = g_.operands(n);
  if (std::none_of(ops.begin(), ops.end(), [&](Operand o) { return !o.isLit() && o.node() == x; })) return false;
  if (p_.regOf[x.v] != prev.d || (a == prev.d) == (b == prev.d)) return false;
  // The steps after the multiply's: those of ops between, and the add's.
  const uint32_t back = static_cast<uint32_t>(p_.stepNodes.size()) - p_.stepEnd.back() + 1;
  if (back > 255) return false;
  prev.op = static_cast<uint16_t>(opc);
  prev.c = a == prev.d ? b : a;
  prev.d = p_.regOf[n.v] = newReg();
  prev.pad = static_cast<uint8_t>(back);
  joinStep(n);
  return true;
}

namespace {

// A light function has no views and no view parameters: its frame is
// registers only (exec/machine.hpp, kFrameHeader).
bool isLight(const Program &f) {
  if (f.fn->external || f.nviews != 0) return false;
  for (const auto &[k, reg] : f.params)
    if (reg & kViewArg) return false;
  return true;
}

// Calls and returns take their final forms once every function is
// compiled, since a call's form depends on its callee: a light callee is
// called with kCallL (with at most two parameters, its arguments'
// registers in b and c), so a light frame never moves the view file; a
// light function returns with kRetL. A call or return without a value
// names the frame's scratch register, so neither form tests for one.
void linkCalls(std::vector<Program> &fns) {
  for (Program &f : fns) {
    if (f.fn->external) continue;
    const uint32_t scratch = f.nregs;
    const bool light = isLight(f);
    for (Ins &ins : f.code) {
      if (ins.op == kRet) {
        if (ins.a == kNoReg) ins.a = scratch;
        if (light) ins.op = kRetL;
      } else if (ins.op == kCall) {
        if (ins.d == kNoReg) ins.d = scratch;
        const Program &callee = fns[ins.a];
        if (!isLight(callee)) continue;
        ins.op = kCallL;
        if (callee.params.size() > 2) continue;
        const uint32_t *args = f.args.data() + ins.b;
        ins.b = callee.params.size() > 0 ? args[callee.params[0].first] : scratch;
        ins.c = callee.params.size() > 1 ? args[callee.params[1].first] : scratch;
      }
    }
  }
}

}  // namespace

std::vector<Program> compileModule(const Module &m, const ModuleFacts &facts, bool optimize) {
  std::vector<Program> out(m.funcs.size());
  for (size_t i = 0; i < m.funcs.size(); ++i) {
    Program &p = out[i];
    p.fn = &m.funcs[i];
    p.index = static_cast<int>(i);
    p.g = &m.funcs[i].body;
    p.facts = &facts.funcs[i];
    if (m.funcs[i].external) continue;
    Compiler(m.funcs[i].body, facts.funcs[i], p).runModule(m, m.funcs[i], optimize);
    if (optimize) planModuleLanes(p);
  }
  linkCalls(out);
  return out;
}

}  // namespace cairn::exec
