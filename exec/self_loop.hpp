// Self-loops: a loop whose whole body fused into its loop-end instruction
// (the jump back lands on the instruction itself) runs a stretch of its
// iterations inside the handler, its values in machine registers instead of
// the register file, with no dispatch between iterations (exec/interp.cpp,
// exec/interp_module_fused.inc).
//
// Each function here runs only iterations that the handler, executed once
// per iteration, would have run with the same result: never the last one
// (the handler runs it, and leaves the loop), never one that reaches the
// step checkpoint (the handler runs it, and counts its steps there), and
// only when the registers it keeps apart really are distinct. It returns
// the steps left (rem) less the weight of the iterations it ran, and
// leaves the register file exactly as those iterations would have.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "exec/alu.hpp"
#include "exec/program.hpp"

namespace cairn::exec {

// How many iterations of the loop at ip (counter R[ic], count R[in],
// `weight` steps each) a self-loop may run: not the last, and not past
// rem, the steps left before the checkpoint.
inline uint64_t selfLoopRoom(const Bits *R, uint32_t ic, uint32_t in, uint64_t weight, int64_t rem) {
  const Bits i = R[ic], n = R[in];
  if (i >= n || rem <= 0) return 0;
  uint64_t k = n - i - 1;
  return weight ? std::min<uint64_t>(k, static_cast<uint64_t>(rem) / weight) : k;
}

// Whether the registers a self-loop writes are distinct from each other
// and from every register it reads (the invariants may coincide): only
// then do its machine registers stand for the register file's.
template <size_t W, size_t N>
inline bool keptApart(const uint32_t (&written)[W], const uint32_t (&read)[N]) {
  for (size_t a = 0; a < W; ++a) {
    for (size_t b = a + 1; b < W; ++b)
      if (written[a] == written[b]) return false;
    for (uint32_t r : read)
      if (written[a] == r) return false;
  }
  return true;
}

// One iteration's accumulation of a multiply-add loop end, s = x * y + s,
// as its handler computes it: wrapping (kMulAddLoopEndN) or checked
// (kCMulAddLoopEndN, Checked), where false means it would trap, and s is
// left as it was: the self-loop stops before that iteration, which the
// handler then runs, and traps at its step.
template <DType D, bool Checked>
inline bool mulAddStep(Bits x, Bits y, Bits &s) {
  if constexpr (!Checked) {
    s = alu::Add<D>(alu::Mul<D>(x, y), s);
    return true;
  } else {
    Bits p = 0, r = 0;
    if (alu::checked<2, D>(x, y, p) || alu::checked<0, D>(p, s, r)) return false;
    s = r;
    return true;
  }
}

// kAddMov2LoopEndN_<T> (t = R[x] + R[y]; R[ad] = R[as]; R[bd] = t; then the
// counter) that jumps back to itself (the handler tests lo16(ip->c) == 0,
// so no other loop pays for this call) and whose copies rotate a pair of
// registers through the sum, `t = a + b; a = b; b = t`: x != y and either
// ad == x, as == y, bd == y, or the mirror ad == y, as == x, bd == x (the
// add commutes). Neither x nor y is the counter or the count register.
template <DType D>
inline int64_t selfLoopAddMov2(const Ins *ip, Bits *R, int64_t rem) {
  const uint32_t x = lo16(ip->b), y = hi16(ip->b), ad = lo16(ip->a), as = hi16(ip->a), bd = hi16(ip->c);
  const uint32_t ic = lo16(ip->d), in = hi16(ip->d);
  if (x == y || ic == x || ic == y || in == x || in == y || ic == in) return rem;
  const bool fwd = ad == x && as == y && bd == y;
  const bool mirror = ad == y && as == x && bd == x;
  if (!fwd && !mirror) return rem;
  const uint64_t k = selfLoopRoom(R, ic, in, ip->w, rem);
  if (k == 0) return rem;
  Bits a = R[ad], b = R[bd];  // b = R[as] too: the copy's source is the sum's destination
  for (uint64_t j = 0; j < k; ++j) {
    const Bits t = alu::Add<D>(a, b);
    a = b;
    b = t;
  }
  R[ad] = a;
  R[bd] = b;
  R[ic] += k;
  return rem - static_cast<int64_t>(k * ip->w);
}

// kMulAddLoopEndN_<T> (R[acc'] = R[x] * R[y] + R[acc], then the counter)
// whose loop body is it and the kVLoad2At_<T> just before it (the jump back
// lands there: the handler tests c == -1 and the opcode before), loading
// R[p] and R[q] at the counter: the dot product `s = add_wrap(s,
// mul_wrap(a[i], b[i]))`. Runs at the handler's entry, where this
// iteration's loads are done: each iteration multiplies and adds, counts,
// and loads at the next index, which is below the count (not the last
// iteration), so in bounds: the compiler emits kVLoad2At only for loads
// proven in bounds at every index the loop counts. Needs acc' == acc,
// {x, y} == {p, q}, and p, q, acc, the counter and the count distinct.
template <DType D, bool Checked>
inline int64_t selfLoopDot(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const Ins &ld = ip[-1];
  const uint32_t acc = lo16(ip->a), x = hi16(ip->a), y = lo16(ip->b), acc0 = hi16(ip->b);
  const uint32_t p = lo16(ld.d), q = hi16(ld.d), ic = lo16(ip->d), in = hi16(ip->d);
  if (acc != acc0 || ld.b != ic || !((x == p && y == q) || (x == q && y == p))) return rem;
  const uint32_t regs[5] = {acc, p, q, ic, in};
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j)
      if (regs[i] == regs[j]) return rem;
  const uint64_t k = selfLoopRoom(R, ic, in, ip->w, rem);
  if (k == 0) return rem;
  const uint8_t *pa = V[lo16(ld.a)].p, *pb = V[hi16(ld.a)].p;
  Bits s = R[acc], a = R[p], b = R[q], i = R[ic];
  uint64_t j = 0;
  for (; j < k && mulAddStep<D, Checked>(a, b, s); ++j) {
    ++i;
    a = loadElem<D>(pa, i);
    b = loadElem<D>(pb, i);
  }
  R[acc] = s;
  R[p] = a;
  R[q] = b;
  R[ic] = i;
  return rem - static_cast<int64_t>(j * ip->w);
}

// One load of an inner-product body (selfLoopProduct), as its handler
// computes its index: R[b] (kVLoadAt, unchecked: proven in bounds wherever
// it runs; kVLoadAtC), R[a] + R[b] (kVLoadCA), R[a] * R[b] + R[c]
// (kVLoadCMA), the checked forms checked as the handler checks them.
struct ProductLoad {
  enum Form : uint8_t { At, AtC, CA, CMA } form = At;
  const uint8_t *p = nullptr;
  uint64_t n = 0;
  uint32_t d = 0, a = 0, b = 0, c = 0;
};

// The load at `ld` of dtype D, or false when it is none of those forms.
template <DType D>
inline bool productLoad(const Ins &ld, const View *V, ProductLoad &l) {
  if (ld.op == vmemOpc(kVLoadAtW, D) || ld.op == vmemOpc(kVLoadAtCW, D)) {
    l = ProductLoad{ld.op == vmemOpc(kVLoadAtW, D) ? ProductLoad::At : ProductLoad::AtC, V[ld.a].p, V[ld.a].n, ld.d, 0, ld.b, 0};
    return true;
  }
  if (ld.op == vidxOpc(kVLoadCAW, D) || ld.op == vidxOpc(kVLoadCMAW, D)) {
    l = ProductLoad{ld.op == vidxOpc(kVLoadCAW, D) ? ProductLoad::CA : ProductLoad::CMA, V[ld.w].p, V[ld.w].n, ld.d, ld.a, ld.b,
                    ld.c};
    return true;
  }
  return false;
}

// Load l's index with the counter (register ic) at i: false when its
// handler would trap (an overflow, or past the view's end).
inline bool productIndex(const ProductLoad &l, const Bits *R, uint32_t ic, Bits i, uint64_t &idx) {
  auto v = [&](uint32_t r) { return r == ic ? i : R[r]; };
  switch (l.form) {
    case ProductLoad::At: idx = v(l.b); return true;
    case ProductLoad::AtC: idx = v(l.b); break;
    case ProductLoad::CA:
      if (alu::checked<0, DType::U64>(v(l.a), v(l.b), idx)) return false;
      break;
    case ProductLoad::CMA: {
      Bits prod = 0;
      if (alu::checked<2, DType::U64>(v(l.a), v(l.b), prod) || alu::checked<0, DType::U64>(prod, v(l.c), idx)) return false;
      break;
    }
  }
  return idx < l.n;
}

// Load l's index as m * t + c0 for the counter at t (exact, in 128 bits),
// and `last`, the largest t at which its handler would not trap (every t
// for an unchecked kVLoadAt). False when the index is not of that form
// (the counter times itself).
inline bool productAffine(const ProductLoad &l, const Bits *R, uint32_t ic, unsigned __int128 &m,
                          unsigned __int128 &c0, uint64_t &last) {
  using U = unsigned __int128;
  auto part = [&](uint32_t r, U &mm, U &cc) { (r == ic ? mm : cc) += r == ic ? 1 : R[r]; };
  m = 0;
  c0 = 0;
  switch (l.form) {
    case ProductLoad::At:
    case ProductLoad::AtC: part(l.b, m, c0); break;
    case ProductLoad::CA:
      part(l.a, m, c0);
      part(l.b, m, c0);
      break;
    case ProductLoad::CMA:
      if (l.a == ic && l.b == ic) return false;
      if (l.a == ic || l.b == ic) m = R[l.a == ic ? l.b : l.a];
      else c0 = static_cast<U>(R[l.a]) * R[l.b];
      part(l.c, m, c0);
      break;
  }
  // Every step of a checked index is exact while m * t + c0 < n <= 2^64
  // (its terms are non-negative), and the index grows with t.
  if (l.form == ProductLoad::At) last = UINT64_MAX;
  else if (c0 >= l.n) last = 0;
  else if (m == 0) last = UINT64_MAX;
  else last = static_cast<uint64_t>(std::min<U>((l.n - 1 - c0) / m, UINT64_MAX));
  // (last 0 with c0 >= n: no t is safe; the room below is then 0 past t 0,
  // and t = 0 is never a next iteration's counter.)
  return true;
}

// kMulAddLoopEndN_<D> whose loop body is two loads of dtype D in any of
// ProductLoad's forms and it (the jump back lands on the first: c == -2),
// multiplying the two loaded values into the accumulator: `s = add_wrap(s,
// mul_wrap(a[i * n + k], b[k * n + j]))`. As selfLoopDot, from the
// handler's entry; an iteration runs here only when both loads of the
// next one would not trap (else the handlers run it, and trap at its
// step). The index registers are the counter or registers the body does
// not write.
template <DType D, bool Checked>
inline int64_t selfLoopProduct(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  ProductLoad l1, l2;
  if (!productLoad<D>(ip[-2], V, l1) || !productLoad<D>(ip[-1], V, l2)) return rem;
  const uint32_t acc = lo16(ip->a), x = hi16(ip->a), y = lo16(ip->b), acc0 = hi16(ip->b);
  const uint32_t ic = lo16(ip->d), in = hi16(ip->d);
  if (acc != acc0 || !((x == l1.d && y == l2.d) || (x == l2.d && y == l1.d))) return rem;
  const uint32_t regs[5] = {acc, l1.d, l2.d, ic, in};
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j)
      if (regs[i] == regs[j]) return rem;
  for (const ProductLoad *l : {&l1, &l2})
    for (uint32_t r : {l->a, l->b, l->c})
      if (r == acc || r == l1.d || r == l2.d) return rem;  // written by the body
  uint64_t k = selfLoopRoom(R, ic, in, ip->w, rem);
  Bits s = R[acc], a = R[l1.d], b = R[l2.d], i = R[ic];
  uint64_t j = 0;
  unsigned __int128 m1, c1, m2, c2;
  uint64_t last1, last2;
  if (k > 0 && productAffine(l1, R, ic, m1, c1, last1) && productAffine(l2, R, ic, m2, c2, last2)) {
    // Both indices are affine in the counter: the next iterations' indices
    // are safe up to the smaller `last`, so those run without a test.
    const uint64_t last = std::min(last1, last2);
    k = last <= i ? 0 : std::min<uint64_t>(k, last - i);
    if (k == 0) return rem;
    uint64_t i1 = static_cast<uint64_t>(m1 * (i + 1) + c1), i2 = static_cast<uint64_t>(m2 * (i + 1) + c2);
    const uint64_t s1 = static_cast<uint64_t>(m1), s2 = static_cast<uint64_t>(m2);
    for (; j < k && mulAddStep<D, Checked>(a, b, s); ++j, i1 += s1, i2 += s2) {
      a = loadElem<D>(l1.p, i1);
      b = loadElem<D>(l2.p, i2);
    }
    i += j;
    k = 0;
  }
  for (; j < k; ++j) {
    uint64_t i1 = 0, i2 = 0;
    if (!productIndex(l1, R, ic, i + 1, i1) || !productIndex(l2, R, ic, i + 1, i2) || !mulAddStep<D, Checked>(a, b, s))
      break;
    ++i;
    a = loadElem<D>(l1.p, i1);
    b = loadElem<D>(l2.p, i2);
  }
  R[acc] = s;
  R[l1.d] = a;
  R[l2.d] = b;
  R[ic] = i;
  return rem - static_cast<int64_t>(j * ip->w);
}

// The same with one load: the loop's body is a kVLoadAt_<T> at the counter
// into R[p] and the kMulAddLoopEndN_<D> after it, R[acc] = R[x] * R[y] +
// R[acc] with p one of x, y and the other factor a register the body does
// not write (an add is a multiply-add by a constant 1: `s = add_wrap(s,
// u32(xs[i]))`, the identity cast being the load's register). T is any
// integer dtype or bool: the loaded bits are what the handler would read.
template <DType D, DType T, bool Checked>
inline int64_t selfLoopSumOf(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const Ins &ld = ip[-1];
  const uint32_t acc = lo16(ip->a), x = hi16(ip->a), y = lo16(ip->b), acc0 = hi16(ip->b);
  const uint32_t p = ld.d, ic = lo16(ip->d), in = hi16(ip->d), f = x == p ? y : x;
  if (acc != acc0 || ld.b != ic || (x != p && y != p) || f == p || f == acc || f == ic) return rem;
  const uint32_t regs[4] = {acc, p, ic, in};
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (regs[i] == regs[j]) return rem;
  const uint64_t k = selfLoopRoom(R, ic, in, ip->w, rem);
  if (k == 0) return rem;
  const uint8_t *pa = V[ld.a].p;
  const Bits fv = R[f];
  const bool first = x == p;
  Bits s = R[acc], a = R[p], i = R[ic];
  uint64_t j = 0;
  for (; j < k && mulAddStep<D, Checked>(first ? a : fv, first ? fv : a, s); ++j) {
    ++i;
    a = loadElem<T>(pa, i);
  }
  R[acc] = s;
  R[p] = a;
  R[ic] = i;
  return rem - static_cast<int64_t>(j * ip->w);
}

// selfLoopSumOf for the dtype of the kVLoadAt_<T> before ip (opcode op).
template <DType D, bool Checked>
inline int64_t selfLoopSum(const Ins *ip, Bits *R, const View *V, int64_t rem, uint32_t op) {
  switch (static_cast<DType>(op - vmemOpc(kVLoadAtW, DType::Bool))) {
#define CAIRN_E(P, T) \
  case DType::T: return selfLoopSumOf<D, DType::T, Checked>(ip, R, V, rem);
    CAIRN_E(_, Bool) CAIRN_E(_, I8) CAIRN_E(_, I16) CAIRN_E(_, I32) CAIRN_E(_, I64)
    CAIRN_E(_, U8) CAIRN_E(_, U16) CAIRN_E(_, U32) CAIRN_E(_, U64)
#undef CAIRN_E
    default: return rem;  // a float: never an integer multiply-add's operand
  }
}

// kCAddWhileEndN_<D> (j += inc, checked, then the while's counter) whose
// body is `if j < n` (a kIfCmplt_U64 on j and a register the body does not
// write, where the jump back lands: c == -2) and a kVStoreAt_<T> of a
// register the body does not write at j, proven in bounds: the strided
// fill `while j < n { xs[j] = v; j += inc; }`. Runs after the handler's
// own iteration, as it jumps back: each iteration here is one whose test
// holds, whose add would not overflow and that is not the counter's last
// (so the handlers run the one that leaves or traps), within rem; the
// test's register is left true, as those iterations leave it. weight: the
// steps of the test's instruction and of ip.
template <DType D, DType T>
inline int64_t selfLoopStrideFillOf(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const Ins &test = ip[-2], &st = ip[-1];
  const uint32_t j = hi16(ip->d), x = lo16(ip->d), inc = hi16(ip->b), cond = test.d, bound = test.b;
  if (lo16(ip->b) != j || test.a != j || st.c != j || R[x + 1] != 0) return rem;
  // What the iterations write (j, the counter, the test) is distinct, and
  // none of what they read (the invariants may coincide).
  const uint32_t written[3] = {j, x, cond}, read[5] = {inc, bound, st.b, ip->a, x + 1};
  if (!keptApart(written, read)) return rem;
  const uint64_t weight = uint64_t{test.w} + ip->w;
  if (rem <= 0 || weight == 0 || R[x] >= R[ip->a]) return rem;
  const uint64_t k = std::min<uint64_t>(R[ip->a] - R[x] - 1, static_cast<uint64_t>(rem) / weight);
  uint8_t *p = V[st.a].p;
  const Bits v = R[st.b], step = R[inc], n = R[bound];
  Bits at = R[j], next = 0;
  uint64_t ran = 0;
  for (; ran < k && at < n && !alu::checked<0, D>(at, step, next); ++ran) {
    storeElem<T>(p, at, v);
    at = next;
  }
  if (ran == 0) return rem;
  R[j] = at;
  R[x] += ran;
  R[cond] = 1;
  return rem - static_cast<int64_t>(ran * weight);
}

// selfLoopStrideFillOf for the shape at ip, if it has it.
template <DType D>
inline int64_t selfLoopStrideFill(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  if (static_cast<int32_t>(ip->c) != -2 || ip[-2].op != cmpIfOpc(0, DType::U64)) return rem;
  const uint32_t op = ip[-1].op;
  if (op < vmemOpc(kVStoreAtW, DType::Bool) || op > vmemOpc(kVStoreAtW, DType::F64)) return rem;
  switch (static_cast<DType>(op - vmemOpc(kVStoreAtW, DType::Bool))) {
#define CAIRN_E(P, T) \
  case DType::T: return selfLoopStrideFillOf<D, DType::T>(ip, R, V, rem);
    CAIRN_EXEC_DT(CAIRN_E, _)
#undef CAIRN_E
    default: return rem;
  }
}


// Scans: a loop whose body starts (after the `while`'s test) with an
// unchecked load of the element at the index (kVLoadAt_<T>, proven) and a
// compare of it with a register the body does not write, in the load's
// dtype (kIf<Cmp>_<T>, either side), whose false path jumps back to the
// loop's end: the if that follows is mostly skipped.

// Whether ld and cmp are a scan's load and compare (by opcode).
constexpr bool isScanPair(uint32_t ld, uint32_t cmp) {
  return ld >= vmemOpc(kVLoadAtW, DType::Bool) && ld <= vmemOpc(kVLoadAtW, DType::F64) && isCmpIf(cmp) &&
         (cmp - cmpIfOpc(0, DType::Bool)) % kNumDTypes == ld - vmemOpc(kVLoadAtW, DType::Bool);
}

// The instruction shapes of the three scans, around a loop's end at ip
// whose jump back (ip->c) stays inside the code: Compiler::markScans marks
// the ends that have one, and each self-loop checks it again before it
// reads the instructions (cheap next to the iterations it runs). Each
// compare must read the load's register.
constexpr bool scanCompares(const Ins &ld, const Ins &cmp) {
  return isScanPair(ld.op, cmp.op) && (cmp.a == ld.d || cmp.b == ld.d);
}
// selfLoopScan: a kCAddWhileEndN_U64 adding to j, whose jump back lands on
// a kIfCmplt_U64 of j, then a scan's load at j and compare whose false
// path jumps back to the end.
inline bool isScanWhile(const Ins *ip) {
  const int32_t back = static_cast<int32_t>(ip->c);
  if (back > -3) return false;
  const Ins &test = ip[back], &ld = ip[back + 1], &cmp = ip[back + 2];
  return test.op == cmpIfOpc(0, DType::U64) && test.a == hi16(ip->d) && ld.b == test.a && scanCompares(ld, cmp) &&
         static_cast<int32_t>(cmp.c) == -(back + 2);
}
// selfLoopScanFor: a kMLoopEndN whose jump back lands on a scan's load at
// its counter and compare whose false path jumps back to the end.
inline bool isScanFor(const Ins *ip) {
  const int32_t back = static_cast<int32_t>(ip->c);
  if (back > -2) return false;
  const Ins &ld = ip[back], &cmp = ip[back + 1];
  return ld.b == ip->d && scanCompares(ld, cmp) && static_cast<int32_t>(cmp.c) == -(back + 1);
}
// selfLoopScanCell: a kWhileEnd(N) whose jump back lands on a kMov x =
// cell, a kIfCmplt_U64 of x, a scan's load at x and compare whose false
// path lands on the kAdd_U64 cell = x + inc (either order) just before the
// end.
inline bool isScanCell(const Ins *ip) {
  const int32_t back = static_cast<int32_t>(ip->c);
  if (back > -6) return false;
  const Ins &mv = ip[back], &test = ip[back + 1], &ld = ip[back + 2], &cmp = ip[back + 3], &ad = ip[-1];
  return mv.op == kMov && test.op == cmpIfOpc(0, DType::U64) && test.a == mv.d && ld.b == mv.d && scanCompares(ld, cmp) &&
         static_cast<int32_t>(cmp.c) == -(back + 4) && ad.op == aluOpc(aluIndex(Op::Add), DType::U64) && ad.d == mv.a &&
         (ad.a == mv.d || ad.b == mv.d);
}

// The scan's compare of element e with the invariant fv (left: e is the
// compare's first operand), as kIf<Cmp>_<T> computes it. Which: the compare
// (CAIRN_EXEC_CMPIF order).
template <DType T, int Which>
inline bool scanHit(Bits e, Bits fv, bool left) {
  if constexpr (Which == 0) return alu::Cmplt<T>(left ? e : fv, left ? fv : e) != 0;
  else if constexpr (Which == 1) return alu::Cmpne<T>(e, fv) != 0;
  else if constexpr (Which == 2) return alu::Cmpeq<T>(e, fv) != 0;
  else return alu::Cmple<T>(left ? e : fv, left ? fv : e) != 0;
}

// f.template operator()<T, Which>() for a scan's load and compare (a pair
// the scan's shape check found: isScanPair).
template <class F>
inline int64_t withScanPair(const Ins &cmp, int64_t rem, F &&f) {
  switch (cmp.op - cmpIfOpc(0, DType::Bool)) {
#define CAIRN_E2(P, T)                                                                             \
  case 0 * kNumDTypes + static_cast<uint32_t>(DType::T): return f.template operator()<DType::T, 0>(); \
  case 1 * kNumDTypes + static_cast<uint32_t>(DType::T): return f.template operator()<DType::T, 1>(); \
  case 2 * kNumDTypes + static_cast<uint32_t>(DType::T): return f.template operator()<DType::T, 2>(); \
  case 3 * kNumDTypes + static_cast<uint32_t>(DType::T): return f.template operator()<DType::T, 3>();
    CAIRN_EXEC_DT(CAIRN_E2, _)
#undef CAIRN_E2
    default: return rem;
  }
}

// The element loop of a scan whose index steps by `step` below `n`: runs
// iterations while ran < k, at < n and the compare of
// the element at `at` with fv fails, and (Checked) the step would not
// overflow; a wrapping step otherwise. Returns the iterations run; `at` is
// left at the index after the last one, lastAt at the last one's index and
// last at its element (both unchanged when none ran).
template <DType T, int Which, bool Checked>
inline uint64_t scanElems(const uint8_t *base, Bits &at, Bits n, Bits step, Bits fv, bool left, uint64_t k,
                          Bits &lastAt, Bits &last) {
  uint64_t ran = 0;
  for (; ran < k && at < n; ++ran) {
    const Bits e = loadElem<T>(base, at);
    if (scanHit<T, Which>(e, fv, left)) break;
    Bits next = 0;
    if constexpr (Checked) {
      if (alu::checked<0, DType::U64>(at, step, next)) break;
    } else {
      next = alu::Add<DType::U64>(at, step);
    }
    last = e;
    lastAt = at;
    at = next;
  }
  return ran;
}

// kCAddWhileEndN_U64 (j += inc, checked, then the while's counter) whose
// body starts `if j < n` (a kIfCmplt_U64 on j and a register the body does
// not write, where the jump back lands: ip + c), then a scan's load at j and
// compare: `while j < n { if xs[j] == v { ... } j += inc; }`. Runs after
// the handler's own iteration, as it jumps back: each iteration here is one
// whose test holds, whose compare fails, whose add would not overflow and
// that is not the counter's last (so the handlers run the one that leaves,
// enters the if or traps), within rem; the test's register is left true
// and the compare's false, the load's the last element read, as those
// iterations leave them.
template <DType T, int Which>
inline int64_t selfLoopScanOf(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const int32_t back = static_cast<int32_t>(ip->c);
  const Ins &test = ip[back], &ld = ip[back + 1], &cmp = ip[back + 2];
  const uint32_t j = hi16(ip->d), x = lo16(ip->d), inc = hi16(ip->b), cond = test.d, bound = test.b;
  const uint32_t p = ld.d, hit = cmp.d, f = cmp.a == p ? cmp.b : cmp.a;
  if (lo16(ip->b) != j || R[x + 1] != 0) return rem;
  // What the iterations write (j, the counter, the test, the load, the
  // compare) is distinct, and none of what they read (the invariants may
  // coincide; the view is in V, which they do not write).
  const uint32_t written[5] = {j, x, cond, p, hit}, read[5] = {inc, bound, f, ip->a, x + 1};
  if (!keptApart(written, read)) return rem;
  const uint64_t weight = uint64_t{test.w} + cmp.w + ip->w;
  if (rem <= 0 || weight == 0 || R[x] >= R[ip->a]) return rem;
  const uint64_t k = std::min<uint64_t>(R[ip->a] - R[x] - 1, static_cast<uint64_t>(rem) / weight);
  const uint8_t *base = V[ld.a].p;
  Bits at = R[j], lastAt = 0, last = 0;
  const uint64_t ran = scanElems<T, Which, true>(base, at, R[bound], R[inc], R[f], cmp.a == p, k, lastAt, last);
  if (ran == 0) return rem;
  R[j] = at;
  R[x] += ran;
  R[cond] = 1;
  R[p] = last;
  R[hit] = 0;
  return rem - static_cast<int64_t>(ran * weight);
}

// selfLoopScanOf for the shape at ip (a kCAddWhileEndN_<D> that
// Compiler::markScans marked, t = 1), if it has it.
template <DType D>
inline int64_t selfLoopScan(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  if constexpr (D != DType::U64) {
    return rem;
  } else {
    const int32_t back = static_cast<int32_t>(ip->c);
    if (!isScanWhile(ip)) return rem;
    return withScanPair(ip[back + 2], rem,
                        [&]<DType T, int Which>() { return selfLoopScanOf<T, Which>(ip, R, V, rem); });
  }
}

// The same for a counted loop: a kMLoopEndN (counter R[d], count R[a])
// whose body starts with a scan's load at the counter (where the jump back
// lands: ip + c) and compare: `for i in 0..n { if xs[i] == v { ... } }`.
// Each iteration here is one whose compare fails and that is not the last,
// within rem; the compare's register is left false and the load's the
// last element read.
template <DType T, int Which>
inline int64_t selfLoopScanForOf(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const int32_t back = static_cast<int32_t>(ip->c);
  const Ins &ld = ip[back], &cmp = ip[back + 1];
  const uint32_t ic = ip->d, in = ip->a, p = ld.d, hit = cmp.d, f = cmp.a == p ? cmp.b : cmp.a;
  const uint32_t written[3] = {ic, p, hit}, read[2] = {in, f};
  if (!keptApart(written, read)) return rem;
  const uint64_t weight = uint64_t{cmp.w} + ip->w;
  const uint64_t k = selfLoopRoom(R, ic, in, weight, rem);
  if (k == 0) return rem;
  const uint8_t *base = V[ld.a].p;
  const Bits fv = R[f];
  const bool left = cmp.a == p;
  Bits i = R[ic], last = 0;
  uint64_t ran = 0;
  for (; ran < k; ++ran, ++i) {
    const Bits e = loadElem<T>(base, i);
    if (scanHit<T, Which>(e, fv, left)) break;
    last = e;
  }
  if (ran == 0) return rem;
  R[ic] = i;
  R[p] = last;
  R[hit] = 0;
  return rem - static_cast<int64_t>(ran * weight);
}

// selfLoopScanForOf for the shape at ip (a kMLoopEndN that
// Compiler::markScans marked, t = 1), if it has it.
inline int64_t selfLoopScanFor(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const int32_t back = static_cast<int32_t>(ip->c);
  if (!isScanFor(ip)) return rem;
  return withScanPair(ip[back + 1], rem,
                      [&]<DType T, int Which>() { return selfLoopScanForOf<T, Which>(ip, R, V, rem); });
}

// A loop over a view that may leave early (`for x in xs { if x == v {
// return ...; } }`): CAIRN lowers it to a `while` whose index lives in a
// cell. Its end (kWhileEnd, or kWhileEndN) jumps back to a kMov x = cell,
// then a kIfCmplt_U64 x < bound, a scan's load at x and compare, whose
// false path lands on the kAdd_U64 cell = x + inc (either order) just
// before the end. Runs after the handler's own iteration, as it jumps
// back: each iteration here is one whose test holds and whose compare
// fails and that is not the counter's last, within rem; x, the test
// (true), the load (the last element), the compare (false) and the cell
// are left as those iterations leave them.
template <DType T, int Which>
inline int64_t selfLoopScanCellOf(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const int32_t back = static_cast<int32_t>(ip->c);
  const Ins &mv = ip[back], &test = ip[back + 1], &ld = ip[back + 2], &cmp = ip[back + 3], &ad = ip[-1];
  const uint32_t x = mv.d, cell = mv.a, cond = test.d, bound = test.b, p = ld.d, hit = cmp.d;
  const uint32_t f = cmp.a == p ? cmp.b : cmp.a, inc = ad.a == x ? ad.b : ad.a, ic = ip->d;
  const bool returns = ip->op == kWhileEnd;  // R[d + 1] |= R[b] each iteration
  if (R[ic + 1] != 0 || (returns && R[ip->b] != 0)) return rem;
  // What the iterations write is distinct, and none of what they read.
  const uint32_t written[6] = {x, cell, cond, p, hit, ic},
                 read[6] = {bound, f, inc, ip->a, ic + 1, returns ? ip->b : ic + 1};
  if (!keptApart(written, read)) return rem;
  uint64_t weight = ip->w;
  for (const Ins *q : {&mv, &test, &ld, &cmp, &ad}) weight += countsSteps(q->op) ? q->w : 0;
  const uint64_t k = selfLoopRoom(R, ic, ip->a, weight, rem);
  if (k == 0) return rem;
  const uint8_t *base = V[ld.a].p;
  Bits at = R[cell], lastAt = 0, last = 0;
  const uint64_t ran = scanElems<T, Which, false>(base, at, R[bound], R[inc], R[f], cmp.a == p, k, lastAt, last);
  if (ran == 0) return rem;
  R[x] = lastAt;
  R[cell] = at;
  R[cond] = 1;
  R[p] = last;
  R[hit] = 0;
  R[ic] += ran;
  return rem - static_cast<int64_t>(ran * weight);
}

// selfLoopScanCellOf for the shape at ip (a kWhileEnd or kWhileEndN that
// Compiler::markScans marked, pad = 1), if it has it.
inline int64_t selfLoopScanCell(const Ins *ip, Bits *R, const View *V, int64_t rem) {
  const int32_t back = static_cast<int32_t>(ip->c);
  if (!isScanCell(ip)) return rem;
  return withScanPair(ip[back + 3], rem,
                      [&]<DType T, int Which>() { return selfLoopScanCellOf<T, Which>(ip, R, V, rem); });
}

}  // namespace cairn::exec
