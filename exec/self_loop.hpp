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

}  // namespace cairn::exec
