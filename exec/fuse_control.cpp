// The module compiler's control fusions (optimizing only): the loops of 0
// or 1 iterations that CAIRN's `if` lowers to, and the `while` loop around
// such an `if`.
//
// An `if` is a range whose count is a bool (or a bool cast to an integer):
// it runs its body once or not at all. With no `until` and no buffers in
// its body it needs no index, flag or mark: kIfBegin branches on the count
// and kIfEnd only counts steps. When the compare that makes the bool is the
// instruction just before, the two are one kIf<Cmp>_<T>; when it is a bool
// neg that nothing else uses, one kIfNot on the neg's operand. A CAIRN `while`
// is a range of the form { cond...; if cond { body }; until !cond | ret }:
// its kIfEnd, kUntilNotOr and kMLoopEnd become one kWhileEnd for the path
// where the condition held; the kUntilNotOr and kMLoopEnd stay after it for
// the path where it did not (the `if`'s jump lands on them). A loop end
// right after a copy or two (loop-carried locals: `a = b; b = t;`) takes
// them into one kMovLoopEndN / kMov2LoopEndN (with the add that computes
// the rotated value, one kAddMov2LoopEndN_<T>; a wrapping multiply-add or
// add into one kMulAddLoopEndN_<T>), and an if's end (outside a `while`)
// those before it into a kMovIfEnd / kMov2IfEnd. An if's end just before a
// kIfNot on its own count (`if c { ...; return x; } rest`, whose rest runs
// under `if !c`) jumps where that kIfNot would: kIfEndJ / kMovIfEndJ. A
// `while` that scans (`while j < n { if xs[j] == v { ... } j += inc; }`)
// has its end marked for the self-loop that skips the if (markScans).
//
// Steps stay exact (docs/uir.md, "maxSteps"): a fused instruction counts
// the steps of the instructions it replaces, and its stretch of
// Program::stepNodes is still contiguous (the compare's and the begin's
// steps; the if's end, the until's and the loop end's), so Machine::limits
// and Machine::trap place a limit or a trap at the same op as before. No
// jump lands between the fused instructions: jumps land on a loop's first
// body instruction, after a loop end, or after a call.
#include <algorithm>

#include "exec/compiler.hpp"
#include "exec/self_loop.hpp"

namespace cairn::exec {

// Which ranges have an `until`, or a buffer that is not a promoted cell, in
// their own body (the same loops the unfused compile gives kMLoopBegin).
void Compiler::markLoops() {
  loopFlags_.assign(g_.size(), 0);
  for (uint32_t i = 0; i < g_.size(); ++i) {
    NodeId n{i}, r = g_.parent(n);
    if (!r.valid()) continue;
    if (g_.op(n) == Op::Until) loopFlags_[r.v] |= kUntilIn;
    if (g_.op(n) == Op::Buffer && cells_.cell[i] == CellPlan::kNone) loopFlags_[r.v] |= kBufferIn;
  }
}

// Is range r's count 0 or 1: a bool, or a bool cast to an integer?
bool Compiler::boolCount(NodeId r) const {
  Operand o = g_.operands(r)[0];
  if (o.isLit()) return false;
  NodeId c = o.node();
  if (f_.type[c.v] == DType::Bool) return true;
  if (g_.op(c) != Op::Cast) return false;
  Operand x = g_.operands(c)[0];
  return !x.isLit() && f_.type[x.node().v] == DType::Bool;
}

// The first instruction of range n, a loop of 0 or 1 iterations on count
// register cnt: the compare just emitted fused with it, or a kIfBegin. Its
// jump is set by ifEnd.
uint32_t Compiler::ifBegin(NodeId n, uint32_t cnt) {
  if (!p_.code.empty() && p_.code.back().d == cnt) {
    Ins &prev = p_.code.back();
    const uint32_t op = prev.op;
    for (int w = 0; w < 3; ++w) {
      const uint32_t first = aluOpc(aluIndex(w == 0 ? Op::Cmplt : w == 1 ? Op::Cmpne : Op::Cmpeq), DType::Bool);
      if (op < first || op >= first + kNumDTypes) continue;
      prev.op = static_cast<uint16_t>(cmpIfOpc(w, static_cast<DType>(op - first)));
      joinStep(n);
      const uint32_t k = static_cast<uint32_t>(p_.code.size() - 1);
      control(k);
      return k;
    }
  }
  if (ifNot(n, cnt) || fuseLe(n, cnt)) {
    const uint32_t k = static_cast<uint32_t>(p_.code.size() - 1);
    control(k);
    return k;
  }
  const uint32_t k = emit(kIfBegin, n, 0, cnt);
  control(k);
  return k;
}

// `if !x`: the bool neg just emitted, whose value only range n's count
// uses (directly or through a cast), becomes a kIfNot on x. The count's
// register is then never written.
bool Compiler::ifNot(NodeId n, uint32_t cnt) {
  if (p_.code.empty()) return false;
  Ins &prev = p_.code.back();
  const NodeId x = owner_.back();
  if (prev.op != aluOpc(aluIndex(Op::Neg), DType::Bool) || prev.d != cnt || !x.valid() || uses_[x.v] != 1 ||
      intoCell_[x.v])
    return false;
  NodeId c = g_.operands(n)[0].node();
  if (!(c == x) && !(g_.op(c) == Op::Cast && uses_[c.v] == 1 && g_.operands(c)[0].node() == x)) return false;
  prev = Ins{static_cast<uint16_t>(kIfNot), 0, 0, 0, prev.a, 0, 0, 0};
  joinStep(n);
  return true;
}

// `if a <= b` (and `b >= a`), which lowers to or(cmplt(a, b), cmpeq(a, b))
// (the eq's operands in either order): the three just emitted, in either
// order of the first two, whose or is the count and whose compares only
// the or reads, become one kIfCmple_<T>. Its R[d] is the or's value; the
// compares' registers are then never written. Their steps and the or's
// stay in the fused instruction's stretch.
bool Compiler::fuseLe(NodeId n, uint32_t cnt) {
  const size_t s = p_.code.size();
  if (s < 3) return false;
  const Ins &o = p_.code[s - 1];
  if (o.op != kOr || o.d != cnt) return false;
  const uint32_t lt0 = aluOpc(aluIndex(Op::Cmplt), DType::Bool), eq0 = aluOpc(aluIndex(Op::Cmpeq), DType::Bool);
  const size_t li = p_.code[s - 3].op >= lt0 && p_.code[s - 3].op < lt0 + kNumDTypes ? s - 3 : s - 2;
  const size_t ei = li == s - 3 ? s - 2 : s - 3;
  const Ins lt = p_.code[li], eq = p_.code[ei];
  if (lt.op < lt0 || lt.op >= lt0 + kNumDTypes || eq.op != eq0 + (lt.op - lt0)) return false;
  if (!((o.a == lt.d && o.b == eq.d) || (o.a == eq.d && o.b == lt.d)) || lt.d == eq.d) return false;
  if (!((eq.a == lt.a && eq.b == lt.b) || (eq.a == lt.b && eq.b == lt.a))) return false;
  for (size_t k : {li, ei}) {
    const NodeId c = owner_[k];
    if (!c.valid() || uses_[c.v] != 1 || intoCell_[c.v]) return false;
  }
  const Ins f{static_cast<uint16_t>(cmpIfOpc(3, static_cast<DType>(lt.op - lt0))), 0, 0, o.d, lt.a, lt.b, 0, 0};
  p_.code[s - 3] = f;
  popIns();
  popIns();
  joinStep(n);
  return true;
}

// The end of the 0-or-1 loop `range` that began at `begin`: a kIfEnd, and
// the begin's jump past it. pad 1: the count's register is not a promoted
// cell, so nothing in the body writes it (fuseWhileEnd relies on that).
void Compiler::ifEnd(NodeId n, uint32_t begin, NodeId range) {
  const Ins b = p_.code[begin];
  if (b.pad || (loopFlags_[range.v] & (kUntilIn | kBufferIn))) fail("an `if` loop with an until or buffers");
  const uint32_t cnt = b.op == kIfBegin || b.op == kIfNot ? b.a : b.d;
  const uint32_t k = emit(kIfEnd, n, 0, cnt);
  p_.code[k].pad = b.op == kIfNot || inCell(g_.operands(range)[0].node()) ? 0 : 1;
  control(k);
  // A copy or two just before join the end (not in a `while`, whose
  // kWhileEnd takes the kIfEnd itself).
  const NodeId up = g_.parent(range);
  const uint32_t mv = p_.code[k - 1].op;
  if (k > begin + 1 && (mv == kMov || mv == kMov2) && !(up.valid() && (loopFlags_[up.v] & kUntilIn))) {
    Ins &f = p_.code[k - 1];
    if (mv == kMov) {  // b and pad as the kIfEnd's a and pad (threadIfEnds), unless the copy writes the count
      f.b = cnt;
      f.pad = p_.code[k].pad && f.d != cnt ? 1 : 0;
    }
    f.op = static_cast<uint16_t>(mv == kMov ? kMovIfEnd : kMov2IfEnd);
    f.w = p_.code[k].w;
    p_.stepEnd[k - 1] = p_.stepEnd[k];
    popIns();
  }
  p_.code[begin].c = static_cast<uint32_t>(p_.code.size()) - begin;
}

// What an if's end (kIfEnd, or kMovIfEnd: the copy first) does next, done
// by the end itself, which then counts the next instruction's stretch
// after its own (the two contiguous: checked). The next instruction stays
// where it was for the paths that land on it.
//   - a kIfNot on the end's count (the `if !c { rest }` after `if c { ...;
//     return x; }`): the body ran, so the count is nonzero at its end (a
//     kIfBegin's or kIf<Cmp>'s; pad: nothing in the body writes it) and the
//     kIfNot would jump: the end jumps to its target (kIfEndJ, kMovIfEndJ);
//   - another if's end that only counts, or has been given a jump here (ifs
//     that end together): the end jumps past it or to its target;
//   - a return (kRet, which linkCalls may make a kRetL; neither reads where
//     it is, nor traps): a kIfEnd becomes that return.
// Backwards, so a chain of ends reaches its last target in one jump. Run
// once the body's code is complete, so every jump is final.
void Compiler::threadIfEnds() {
  for (size_t k = p_.code.size() - 1; k-- > 0;) {
    Ins &e = p_.code[k];
    const Ins &next = p_.code[k + 1];
    if ((e.op != kIfEnd && e.op != kMovIfEnd) || p_.stepEnd[k + 1] - next.w != p_.stepEnd[k]) continue;
    const uint32_t cnt = e.op == kIfEnd ? e.a : e.b;
    int32_t jump = 0;  // relative to k; 0: not threaded
    if (next.op == kIfNot && e.pad && next.a == cnt) jump = 1 + static_cast<int32_t>(next.c);
    else if (next.op == kIfEnd) jump = 2;
    else if (next.op == kIfEndJ) jump = 1 + static_cast<int32_t>(next.c);
    if (jump != 0) {
      e.op = static_cast<uint16_t>(e.op == kIfEnd ? kIfEndJ : kMovIfEndJ);
      e.c = static_cast<uint32_t>(jump);
    } else if (e.op == kIfEnd && (next.op == kRet || next.op == kRetL)) {
      const uint32_t w = e.w;
      e = next;
      e.w = w;  // (nodeOf[k] stays the end's: a return reports nothing at its place)
    } else {
      continue;
    }
    e.w += next.w;
    p_.stepEnd[k] = p_.stepEnd[k + 1];
  }
}

// Marks (t = 1) each kCAddWhileEndN_U64 whose `while` is a scan (exec/
// self_loop.hpp, selfLoopScan): its jump back lands on a kIfCmplt_U64 of
// the added register, then a kVLoadAt_<T> at it and a kIf<Cmp>_<T> whose
// false path jumps back to the end; and each kMLoopEndN whose jump back
// lands on a kVLoadAt_<T> at its counter and such a compare
// (selfLoopScanFor: `for i in 0..n { if xs[i] == v { ... } }`); and (pad
// = 1) each kWhileEnd(N) whose jump back lands on a copy of its index from
// a cell, a kIfCmplt_U64 of it, such a load and compare, whose false path
// lands on the kAdd_U64 of the cell just before the end (selfLoopScanCell:
// `for x in xs { if x == v { return ...; } }`). The shapes are
// exec/self_loop.hpp's isScanWhile, isScanFor and isScanCell. The handler
// calls the self-loop only for a marked end, which checks the registers
// itself. Run last, when no fusion will change the instructions it looked
// at.
void Compiler::markScans() {
  for (size_t k = 0; k < p_.code.size(); ++k) {
    Ins &e = p_.code[k];
    if (e.t != 0 || static_cast<int64_t>(k) + static_cast<int32_t>(e.c) < 0) continue;
    const Ins *ip = &e;
    if ((e.op == kWhileEnd || e.op == kWhileEndN) && isScanCell(ip)) e.pad = 1;
    else if ((e.op == kMLoopEndN && isScanFor(ip)) || (e.op == kCAddWhileEndN_U64 && isScanWhile(ip))) e.t = 1;
  }
}

// The kMLoopEnd at `end` of a loop with an `until`, whose body (from
// `begin` + 1) ends in [kIfEnd, kUntilNotOr]: the until tests the if's
// count, which nothing in the if's body writes. The kIfEnd becomes a
// kWhileEnd counting all three stretches.
void Compiler::fuseWhileEnd(uint32_t end, uint32_t begin) {
  if (end < 2) return;
  Ins &ie = p_.code[end - 2];
  const Ins un = p_.code[end - 1], le = p_.code[end];
  if (ie.op != kIfEnd || !ie.pad || un.op != kUntilNotOr || un.a != ie.a || un.d != le.d + 1) return;
  const bool plain = un.t == 1 && le.t == 0;  // R[un.b] is zero, nothing to release: kWhileEndN
  if (plain && fuseAddWhileEnd(end, begin)) return;
  ie = Ins{static_cast<uint16_t>(plain ? kWhileEndN : kWhileEnd), le.t, 0, le.d, le.a, un.b, (begin + 1) - (end - 2),
           ie.w + le.w};
  p_.stepEnd[end - 2] = p_.stepEnd[end];
}

// The plain `while` end of fuseWhileEnd when the if's body ends in a
// checked add of a fused dtype (`j += i;`), all registers below 2^16: one
// kCAddWhileEndN_<T> in the add's place, counting the three stretches (the
// add's step and those after it are in the kIfEnd's). The kIfEnd stays
// where it was, never run: the jumps that pass over it keep their targets.
// A jump that landed on the add lands on the fused instruction, which does
// both; the if's false path jumps past the kIfEnd, as before.
bool Compiler::fuseAddWhileEnd(uint32_t end, uint32_t begin) {
  if (end < begin + 4) return false;
  const Ins ad = p_.code[end - 3], ie = p_.code[end - 2], le = p_.code[end];
  const uint32_t addAt = checkedOpc(0, DType::Bool);
  if (ad.op < addAt || ad.op >= addAt + kNumDTypes) return false;
  const int i = fuseDTIndex(static_cast<DType>(ad.op - addAt));
  const uint32_t back = p_.stepEnd[end] - p_.stepEnd[end - 3];
  if (i < 0 || std::max({ad.d, ad.a, ad.b, le.d}) > 0xffff || back > 255) return false;
  p_.code[end - 3] = Ins{static_cast<uint16_t>(kCAddWhileEndN_I32 + static_cast<uint32_t>(i)), 0, static_cast<uint8_t>(back),
                         le.d | (ad.d << 16), le.a, ad.a | (ad.b << 16), (begin + 1) - (end - 3), ie.w + le.w};
  p_.stepEnd[end - 3] = p_.stepEnd[end];
  return true;
}

namespace {

// Puts `f` in place of the last two instructions (at - 1 and at, the last
// one), counting the stretch that ended at the last: the tail every fusion
// of a pair into one instruction ends with.
void fuseLastPair(Program &p, std::vector<NodeId> &owner, uint32_t at, const Ins &f) {
  p.code[at - 1] = f;
  p.stepEnd[at - 1] = p.stepEnd[at];
  p.code.pop_back();
  p.nodeOf.pop_back();
  p.stepEnd.pop_back();
  owner.pop_back();
}

}  // namespace

// The kMLoopEndN at `end` of the loop that began at `begin`, right after a
// copy or a pair of copies in its body (all registers below 2^16): one
// kMovLoopEndN / kMov2LoopEndN in the copy's place, counting the end's
// stretch (which holds the copies' steps). No jump lands on the end: the
// instruction before it is a copy.
bool Compiler::fuseMovLoopEnd(uint32_t end, uint32_t begin) {
  if (end < begin + 2) return false;
  const Ins mv = p_.code[end - 1], le = p_.code[end];
  if (mv.op != kMov && mv.op != kMov2) return false;
  const bool two = mv.op == kMov2;
  if (std::max({mv.d, mv.a, le.d, le.a}) > 0xffff || (two && std::max(mv.b, mv.c) > 0xffff)) return false;
  fuseLastPair(p_, owner_, end,
               Ins{static_cast<uint16_t>(two ? kMov2LoopEndN : kMovLoopEndN), 0, 0, le.d | (le.a << 16),
                   mv.d | (mv.a << 16), two ? mv.b | (mv.c << 16) : 0, (begin + 1) - (end - 1), le.w});
  return true;
}

// The kMLoopEndN at `end` right after a wrapping multiply-add or add in
// its body (a loop that accumulates: `s = add_wrap(s, mul_wrap(a[i],
// b[i]))`, `s = add_wrap(s, x)`), all registers below 2^16: one
// kMulAddLoopEndN_<T> in its place, counting the end's stretch (which
// holds the arithmetic's steps; it cannot trap). An add is a multiply-add
// by the constant 1 (x * 1 is x in every fused dtype), its operand that is
// not the result the one multiplied, so the accumulator's chain is one
// add. A jump that landed on the arithmetic lands on the fused
// instruction, which does both; none lands on the end.
//
// The checked forms (kCMulAdd, kCheckedAdd) make a kCMulAddLoopEndN_<T>,
// whose overflows trap before the stretch is counted (trapsBeforeCounting):
// the add's step t and the multiply's pad steps before the stretch's end.
bool Compiler::fuseMulAddLoopEnd(uint32_t end, uint32_t begin) {
  if (end < begin + 2) return false;
  Ins ma = p_.code[end - 1];
  const Ins le = p_.code[end];
  const int addAt = aluOpc(aluIndex(Op::Add), DType::Bool), caddAt = checkedOpc(0, DType::Bool);
  auto family = [&](uint32_t op, bool &checked, bool &add) {
    checked = false;
    add = false;
    if (op >= kMulAdd_I32 && op <= kMulAdd_U64) return static_cast<int>(op - kMulAdd_I32);
    if (op >= kCMulAdd_I32 && op <= kCMulAdd_U64) return checked = true, static_cast<int>(op - kCMulAdd_I32);
    add = true;
    if (op >= addAt && op < addAt + kNumDTypes) return fuseDTIndex(static_cast<DType>(op - addAt));
    if (op >= caddAt && op < caddAt + kNumDTypes) return checked = true, fuseDTIndex(static_cast<DType>(op - caddAt));
    return -1;
  };
  bool checked = false, add = false;
  const int i = family(ma.op, checked, add);
  if (i < 0) return false;
  if (add) {  // R[d] = R[x] * 1 + R[acc]
    const uint32_t x = ma.d == ma.a ? ma.b : ma.a, acc = ma.d == ma.a ? ma.a : ma.b;
    ma.a = x;
    ma.b = constReg(1);
    ma.c = acc;
    ma.pad = 0;  // x * 1 never overflows
  }
  // The steps after the add's (its own last step) to the stretch's end.
  const uint32_t after = p_.stepEnd[end] - p_.stepEnd[end - 1];
  if (std::max({ma.d, ma.a, ma.b, ma.c, le.d, le.a}) > 0xffff || after + ma.pad > 255) return false;
  const uint32_t opc = (checked ? kCMulAddLoopEndN_I32 : kMulAddLoopEndN_I32) + static_cast<uint32_t>(i);
  fuseLastPair(p_, owner_, end,
               Ins{static_cast<uint16_t>(opc), static_cast<uint8_t>(checked ? after : 0),
                   static_cast<uint8_t>(checked ? after + ma.pad : 0), le.d | (le.a << 16), ma.d | (ma.a << 16),
                   ma.b | (ma.c << 16), (begin + 1) - (end - 1), le.w});
  return true;
}

// The kMov2LoopEndN at `at` right after a wrapping add whose value t is
// read only by its second copy, through a store into a cell (loop-carried
// locals rotated: `t = add_wrap(a, b); a = b; b = t;`): one
// kAddMov2LoopEndN_<T> in the add's place, which hands t to the copy in a
// machine register and never writes t's own register (nothing reads it),
// so each iteration's chain of values through the frame is one step
// shorter. The first copy neither reads nor writes t's register. The add
// cannot trap and counts no steps (the end's stretch holds its step); no
// jump lands between the two (the copies are not a jump target after an
// add). Registers below 2^16, the jump back below 2^16 instructions.
bool Compiler::fuseAddMov2LoopEnd(uint32_t at, uint32_t begin) {
  if (at < begin + 2) return false;
  const Ins ad = p_.code[at - 1], mv = p_.code[at];
  const uint32_t addAt = aluOpc(aluIndex(Op::Add), DType::Bool);
  if (mv.op != kMov2LoopEndN || ad.op < addAt || ad.op >= addAt + kNumDTypes) return false;
  const int i = fuseDTIndex(static_cast<DType>(ad.op - addAt));
  const NodeId x = owner_[at - 1];
  const uint32_t t = ad.d, back = (at - 1) - (begin + 1);
  if (i < 0 || !x.valid() || p_.regOf[x.v] != t || uses_[x.v] != 1 || intoCell_[x.v] || hi16(mv.b) != t ||
      lo16(mv.a) == t || hi16(mv.a) == t || std::max(ad.a, ad.b) > 0xffff || back > 0xffff)
    return false;
  // x's one user is a store (of x into a cell: the second copy), not an
  // op that shares x's register (an identity cast) and passes it on.
  uint32_t u = x.v + 1;
  auto readsX = [&](uint32_t k) {
    for (Operand o : g_.operands(NodeId{k}))
      if (!o.isLit() && o.node() == x) return true;
    return false;
  };
  while (u < g_.size() && !readsX(u)) ++u;
  if (u == g_.size() || g_.op(NodeId{u}) != Op::Store) return false;
  fuseLastPair(p_, owner_, at,
               Ins{static_cast<uint16_t>(kAddMov2LoopEndN_I32 + static_cast<uint32_t>(i)), 0, 0, mv.d, mv.a,
                   ad.a | (ad.b << 16), back | (lo16(mv.b) << 16), mv.w});
  return true;
}

}  // namespace cairn::exec
