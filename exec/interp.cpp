// The one dispatch loop of exec/, for flat graphs and modules alike: one
// indirect jump per instruction.
//
// With GCC or Clang the loop is threaded with computed gotos (`goto *label`),
// so each handler ends in its own indirect jump, which predicts better than
// one shared switch; elsewhere (or with -DCAIRN_EXEC_SWITCH) it is a plain
// switch. Every handler is generated from the X-macros of exec/program.hpp,
// in the opcode enum's order, and does its whole job without looking at a
// dtype at run time.
//
// Hot state (ip, the register and view
// files, buffer table, steps left to the next checkpoint) lives in locals.
// Steps are added only at the counting instructions (loop control, the halt,
// calls, returns, prints; each carries its straight-line stretch's weight),
// and one test of the steps left covers both the step limit and the next
// time check. Calls and returns go through the machine, which moves
// the register and view files to the new frame. Tracing (flat graphs) is a
// second instantiation of the same loop. The module engine's fused
// instructions' handlers are a fragment of the loop, included in place:
// exec/interp_module_fused.inc.
#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <type_traits>

#include "exec/alu.hpp"
#include "exec/block.hpp"
#include "exec/interp.hpp"
#include "exec/machine.hpp"
#include "exec/program.hpp"
#include "exec/self_loop.hpp"
#include "exec/trap_text.hpp"
#include "ir/check.hpp"

#if (defined(__GNUC__) || defined(__clang__)) && !defined(CAIRN_EXEC_SWITCH)
#define CAIRN_EXEC_THREADED 1
#else
#define CAIRN_EXEC_THREADED 0
#endif

namespace cairn {

namespace {

using namespace exec;

// Module: the program is a module's (views and frames; no buffer table). The
// flat instantiation keeps V and B constant, so neither takes a register.
// The untraced loop's tracer: nothing, so it holds no register.
struct NoTracer {
  NoTracer(const Machine &, std::ostream *) {}
  void step(const Ins *) {}
  void end() {}
};

template <bool Trace, bool Module>
void interpret(Machine &m) {
  const Ins *ip = m.cur->code.data();
  Bits *R = Module ? m.frameR() : m.regs.data();
  View *V = Module ? m.frameV() : nullptr;
  BufRT *const B = Module ? nullptr : m.bt.data();
  // The steps counted so far are m.stepBase - rem; the hot path keeps only
  // rem, the steps left before the next checkpoint less one (reaching it is
  // rem < 0, the sign of the subtraction), capped so it never wraps. The
  // checkpoint and base live in the machine, out of the loop's registers.
  constexpr uint64_t kRemCap = uint64_t{1} << 62;
  m.checkpoint = m.firstCheckpoint();
  int64_t rem = static_cast<int64_t>(std::min(m.checkpoint, kRemCap)) - 1;
  m.stepBase = static_cast<uint64_t>(rem);
  std::conditional_t<Trace, Tracer, NoTracer> tr(m, m.o.trace);

// The steps counted so far.
#define CAIRN_STEPS() (m.stepBase - static_cast<uint64_t>(rem))
// Adds this control instruction's weight; at or past the checkpoint (or
// the end of rem's range), asks the machine whether a limit was hit.
#define CAIRN_COUNT()                                          \
  rem -= static_cast<int64_t>(ip->w);                          \
  if (rem < 0) [[unlikely]] CAIRN_CHECKPOINT();
// rem < 0: at ip, the counting instruction whose steps went past it.
#define CAIRN_CHECKPOINT()                                     \
  do {                                                         \
    const uint64_t now = CAIRN_STEPS();                        \
    if (now >= m.checkpoint) {                                 \
      m.checkpoint = m.limits(ip, now);                        \
      if (m.failed()) goto done;                               \
    }                                                          \
    rem = m.checkpoint > now ? static_cast<int64_t>(std::min(m.checkpoint - now, kRemCap)) - 1 : -1; \
    m.stepBase = now + static_cast<uint64_t>(rem);             \
  } while (0)

#if CAIRN_EXEC_THREADED
  static const void *const kLabels[] = {
#define CAIRN_T(name) &&L_##name,
      CAIRN_EXEC_CTRL(CAIRN_T)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kLoad_##D,
      CAIRN_EXEC_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kStore_##D,
      CAIRN_EXEC_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T2(W, D) &&L_k##W##_##D,
#define CAIRN_T(P, W) CAIRN_EXEC_DT(CAIRN_T2, W)
      CAIRN_EXEC_VMEM(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, O, K) CAIRN_EXEC_DT(CAIRN_T2, O)
      CAIRN_EXEC_CHK(CAIRN_T, _)
#undef CAIRN_T
#undef CAIRN_T2
#define CAIRN_T2(O, D) &&L_k##O##_##D,
#define CAIRN_T(P, O, Z) CAIRN_EXEC_DT(CAIRN_T2, O)
      CAIRN_EXEC_ALU(CAIRN_T, _)
#undef CAIRN_T
#undef CAIRN_T2
#define CAIRN_T2(F, D) &&L_kCast_##F##_##D,
#define CAIRN_T(P, F) CAIRN_EXEC_DT2(CAIRN_T2, F)
      CAIRN_EXEC_DT(CAIRN_T, _)
#undef CAIRN_T
#undef CAIRN_T2
#define CAIRN_T2(F, D) &&L_kCCast_##F##_##D,
#define CAIRN_T(P, F) CAIRN_EXEC_DT2(CAIRN_T2, F)
      CAIRN_EXEC_DT(CAIRN_T, _)
#undef CAIRN_T
#undef CAIRN_T2
#define CAIRN_T2(O, D) &&L_kIf##O##_##D,
#define CAIRN_T(P, O) CAIRN_EXEC_DT(CAIRN_T2, O)
      CAIRN_EXEC_CMPIF(CAIRN_T, _)
#undef CAIRN_T
#undef CAIRN_T2
#define CAIRN_T2(O, D) &&L_k##O##_##D,
#define CAIRN_T(P, O) CAIRN_EXEC_DT(CAIRN_T2, O)
      CAIRN_EXEC_VIDX(CAIRN_T, _)
#undef CAIRN_T
#undef CAIRN_T2
#define CAIRN_T(P, D) &&L_kCMulAdd_##D,
      CAIRN_EXEC_FUSE_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kMulAdd_##D,
      CAIRN_EXEC_FUSE_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kModC_##D, &&L_kDivC_##D,
      CAIRN_EXEC_FUSE_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kMulAddLoopEndN_##D,
      CAIRN_EXEC_FUSE_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kAddMov2LoopEndN_##D,
      CAIRN_EXEC_FUSE_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kCAddWhileEndN_##D,
      CAIRN_EXEC_FUSE_DT(CAIRN_T, _)
#undef CAIRN_T
#define CAIRN_T(P, D) &&L_kCMulAddLoopEndN_##D,
      CAIRN_EXEC_FUSE_DT(CAIRN_T, _)
#undef CAIRN_T
  };
  static_assert(sizeof kLabels / sizeof kLabels[0] == kNumOpcodes, "one label per opcode");
#define CAIRN_DISPATCH()                    \
  do {                                      \
    if constexpr (Trace) tr.step(ip);       \
    goto *kLabels[ip->op];                  \
  } while (0)
#define H(name) L_##name:
  CAIRN_DISPATCH();
#else
#define CAIRN_DISPATCH() goto dispatch
#define H(name) case name:
dispatch:
  if constexpr (Trace) tr.step(ip);
  switch (ip->op) {
#endif
// A handler of the other kind of program: compiled out of this instantiation.
#define CAIRN_ONLY(cond)         \
  do {                           \
    if constexpr (!(cond)) {     \
      goto bad_op;               \
    }                            \
  } while (0)
#define CAIRN_NEXT() \
  do {               \
    ++ip;            \
    CAIRN_DISPATCH(); \
  } while (0)

  // ---- control ----
  H(kHalt) {
    CAIRN_ONLY(!Module);
    CAIRN_COUNT();
    goto done;
  }
  H(kLoopBeginS) {
    CAIRN_ONLY(!Module);
    CAIRN_COUNT();
    R[ip->d] = 0;
    ip = static_cast<int64_t>(R[ip->a]) > 0 ? ip + 1 : ip + static_cast<int32_t>(ip->c);
    CAIRN_DISPATCH();
  }
  H(kLoopBeginU) {
    CAIRN_ONLY(!Module);
    CAIRN_COUNT();
    R[ip->d] = 0;
    ip = R[ip->a] != 0 ? ip + 1 : ip + static_cast<int32_t>(ip->c);
    CAIRN_DISPATCH();
  }
  // ---- flat graphs: a loop a block of lanes at a time (exec/block.hpp) ----
#include "exec/interp_lanes.inc"
  H(kLoopEnd) {
    CAIRN_ONLY(!Module);
    CAIRN_COUNT();
    // The loop was entered, so the count is positive: compare unsigned.
    Bits i = R[ip->d] + 1;
    R[ip->d] = i;
    ip = i < R[ip->a] ? ip + static_cast<int32_t>(ip->c) : ip + 1;
    CAIRN_DISPATCH();
  }
  H(kMov) {
    R[ip->d] = R[ip->a];
    CAIRN_NEXT();
  }
  H(kAddOff) {
    CAIRN_ONLY(!Module);
    R[ip->d] = R[ip->a] + R[ip->b];
    CAIRN_NEXT();
  }
  H(kCShrink) {
    CAIRN_ONLY(!Module);
    // A negative signed offset is a huge unsigned one, so one test covers
    // both ends.
    const CheckDesc &c = m.p.checks[ip->c];
    Bits off = R[ip->b];
    uint64_t pn = c.parentElems >= 0 ? static_cast<uint64_t>(c.parentElems) : B[c.buf].n;
    if (off > pn || pn - off < c.size) [[unlikely]] {
      m.cshrinkTrap(ip, off, pn);
      goto done;
    }
    R[ip->d] = R[ip->a] + off;
    CAIRN_NEXT();
  }
  H(kBufferDyn) {
    CAIRN_ONLY(!Module);
    if (!m.bufferDyn(ip)) goto done;
    CAIRN_NEXT();
  }
  H(kAnd) {
    R[ip->d] = R[ip->a] & R[ip->b];
    CAIRN_NEXT();
  }
  H(kOr) {
    R[ip->d] = R[ip->a] | R[ip->b];
    CAIRN_NEXT();
  }
  H(kXor) {
    R[ip->d] = R[ip->a] ^ R[ip->b];
    CAIRN_NEXT();
  }
  H(kWhere) {
    R[ip->d] = R[ip->a] ? R[ip->b] : R[ip->c];
    CAIRN_NEXT();
  }

  // ---- modules: frames, loops, views, buffers, the heap ----
  // Calls and returns (exec/machine.hpp, "Calls and returns"): the fast
  // form inline, else the machine's slow path.
#define CAIRN_FRAME_SLOW(call)     \
  do {                             \
    ip = call;                     \
    if (!ip) goto done;            \
    R = m.frameR();                \
    V = m.frameV();                \
    CAIRN_DISPATCH();              \
  } while (0)
  H(kRet) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    if constexpr (Module) {
      if (const Ins *next = m.retHeavy(ip, R, V)) [[likely]] {
        ip = next;
        CAIRN_DISPATCH();
      }
      CAIRN_FRAME_SLOW(m.retSlow(ip, R, V));
    }
    CAIRN_DISPATCH();
  }
  H(kRetL) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    if constexpr (Module) {
      if (const Ins *next = m.retLight(ip, R)) [[likely]] {
        ip = next;
        CAIRN_DISPATCH();
      }
      CAIRN_FRAME_SLOW(m.retSlow(ip, R, V));
    }
    CAIRN_DISPATCH();
  }
  H(kCall) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    if constexpr (Module) {
      if (const Ins *next = m.callHeavy(ip, R, V)) [[likely]] {
        ip = next;
        CAIRN_DISPATCH();
      }
      CAIRN_FRAME_SLOW(m.callSlow(ip, CAIRN_STEPS(), R, V));
    }
    CAIRN_DISPATCH();
  }
  H(kCallL) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    if constexpr (Module) {
      if (const Ins *next = m.callLight(ip, R, rem, !Trace)) [[likely]] {
        ip = next;
        CAIRN_DISPATCH();
      }
      CAIRN_FRAME_SLOW(m.callSlow(ip, CAIRN_STEPS(), R, V));
    }
    CAIRN_DISPATCH();
  }
#undef CAIRN_FRAME_SLOW
  H(kMLoopBegin) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    Bits cnt = R[ip->a];
    R[ip->d] = 0;
    R[ip->d + 1] = 0;
    R[ip->d + 2] = m.stackMark();
    bool any = ip->t ? static_cast<int64_t>(cnt) > 0 : cnt != 0;
    ip = any ? ip + 1 : ip + static_cast<int32_t>(ip->c);
    CAIRN_DISPATCH();
  }
  H(kMLoopEnd) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    if (ip->t) m.release(static_cast<size_t>(R[ip->d + 2]));
    Bits i = R[ip->d] + 1;  // the loop was entered, so the count is positive: compare unsigned
    R[ip->d] = i;
    ip = i < R[ip->a] && !R[ip->d + 1] ? ip + static_cast<int32_t>(ip->c) : ip + 1;
    CAIRN_DISPATCH();
  }
  H(kMLoopBeginN) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    Bits cnt = R[ip->a];
    R[ip->d] = 0;
    bool any = ip->t ? static_cast<int64_t>(cnt) > 0 : cnt != 0;
    ip = any ? ip + 1 : ip + static_cast<int32_t>(ip->c);
    CAIRN_DISPATCH();
  }
  H(kMLoopEndN) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    Bits i = R[ip->d] + 1;  // as kMLoopEnd
    R[ip->d] = i;
    if (i < R[ip->a]) {
      if constexpr (!Trace) {
        if (ip->pad) [[unlikely]] {  // the lane-block tier (exec/module_lanes.hpp)
          const uint64_t k = selfLoopRoom(R, ip->d, ip->a, ip->w, rem);
          const uint64_t ran = m.moduleLanes.run(m.cur->lanePlans[ip->pad - 1u], R, V, m.derefEpoch, i, k,
                                                 m.o.laneBlock);
          R[ip->d] = i + ran;
          rem -= static_cast<int64_t>(ran * ip->w);
        } else if (ip->t) {  // a scan (Compiler::markScans)
          rem = selfLoopScanFor(ip, R, V, rem);
        }
      }
      ip += static_cast<int32_t>(ip->c);
    } else {
      ++ip;
    }
    CAIRN_DISPATCH();
  }
  H(kMov2) {
    R[ip->d] = R[ip->a];
    R[ip->b] = R[ip->c];
    CAIRN_NEXT();
  }
  H(kUntilNotOr) {
    CAIRN_ONLY(Module);
    R[ip->d] |= (R[ip->a] ^ 1) | R[ip->b];
    CAIRN_NEXT();
  }
  H(kUntil) {
    CAIRN_ONLY(Module);
    R[ip->d] |= R[ip->a];
    CAIRN_NEXT();
  }
  H(kGuard) {
    CAIRN_ONLY(Module);
    if (!R[ip->a]) [[unlikely]] {
      m.trap(ip, CAIRN_STEPS(), std::string(m.cur->g->text(m.nodeAt(ip))));
      goto done;
    }
    CAIRN_NEXT();
  }
  H(kPrint) {
    CAIRN_ONLY(Module);
    CAIRN_COUNT();
    m.print(ip, R, V);
    CAIRN_NEXT();
  }
  H(kShrink) {
    CAIRN_ONLY(Module);
    const View pv = V[ip->a];
    uint64_t off = R[ip->b], size = m.cur->sizes[ip->c];
    if (off > pv.n || pv.n - off < size) [[unlikely]] {
      m.indexTrap(ip, CAIRN_STEPS(), off, pv.n, size);
      goto done;
    }
    V[ip->d] = View{pv.p + off * dtypeBytes(static_cast<DType>(ip->t)), size};
    CAIRN_NEXT();
  }
  H(kPart) {
    CAIRN_ONLY(Module);
    const View pv = V[ip->a];
    uint64_t lo = R[ip->b], hi = R[ip->c];
    if (lo > hi || hi > pv.n) [[unlikely]] {
      m.partTrap(ip, CAIRN_STEPS(), lo, hi, pv.n);
      goto done;
    }
    V[ip->d] = View{pv.p + lo * dtypeBytes(static_cast<DType>(ip->t)), hi - lo};
    CAIRN_NEXT();
  }
  H(kLen) {
    CAIRN_ONLY(Module);
    R[ip->d] = V[ip->a].n;
    CAIRN_NEXT();
  }
  H(kBuffer) {
    CAIRN_ONLY(Module);
    if (!m.buffer(ip, CAIRN_STEPS(), R, V)) goto done;
    CAIRN_NEXT();
  }
  H(kAlloc) {
    CAIRN_ONLY(Module);
    if (!m.alloc(ip, CAIRN_STEPS(), R)) goto done;
    CAIRN_NEXT();
  }
  H(kFree) {
    CAIRN_ONLY(Module);
    if (!m.freeObj(ip, CAIRN_STEPS(), R)) goto done;
    CAIRN_NEXT();
  }
  H(kDeref) {
    CAIRN_ONLY(Module);
    if (!m.derefView(ip, CAIRN_STEPS(), R, V[ip->d], 0, ip->b)) goto done;
    CAIRN_NEXT();
  }

  // ---- memory: the offset is checked against the buffer (see compile.cpp) ----
#define CAIRN_H(P, D)                                      \
  H(kLoad_##D) {                                           \
    CAIRN_ONLY(!Module);                                       \
    uint64_t o = R[ip->a];                                 \
    const BufRT &bf = B[ip->b];                            \
    if (o >= bf.n) [[unlikely]] {                          \
      m.oobTrap(ip, o);                                    \
      goto done;                                           \
    }                                                      \
    R[ip->d] = loadElem<DType::D>(bf.p, o);                \
    CAIRN_NEXT();                                          \
  }
  CAIRN_EXEC_DT(CAIRN_H, _)
#undef CAIRN_H
#define CAIRN_H(P, D)                                      \
  H(kStore_##D) {                                          \
    CAIRN_ONLY(!Module);                                       \
    uint64_t o = R[ip->a];                                 \
    const BufRT &bf = B[ip->b];                            \
    if (o >= bf.n) [[unlikely]] {                          \
      m.oobTrap(ip, o);                                    \
      goto done;                                           \
    }                                                      \
    storeElem<DType::D>(bf.p, o, R[ip->c]);                \
    CAIRN_NEXT();                                          \
  }
  CAIRN_EXEC_DT(CAIRN_H, _)
#undef CAIRN_H

  // ---- module memory: views; the C forms check the index ----
#define CAIRN_H(P, D)                                                 \
  H(kVLoad_##D) {                                                     \
    CAIRN_ONLY(Module);                                               \
    R[ip->d] = loadElem<DType::D>(V[ip->a].p, 0);                     \
    CAIRN_NEXT();                                                     \
  }                                                                   \
  H(kVStore_##D) {                                                    \
    CAIRN_ONLY(Module);                                               \
    storeElem<DType::D>(V[ip->a].p, 0, R[ip->b]);                     \
    CAIRN_NEXT();                                                     \
  }                                                                   \
  H(kVLoadAt_##D) {                                                   \
    CAIRN_ONLY(Module);                                               \
    R[ip->d] = loadElem<DType::D>(V[ip->a].p, R[ip->b]);              \
    CAIRN_NEXT();                                                     \
  }                                                                   \
  H(kVLoadAtC_##D) {                                                  \
    CAIRN_ONLY(Module);                                               \
    const View pv = V[ip->a];                                         \
    uint64_t o = R[ip->b];                                            \
    if (o >= pv.n) [[unlikely]] {                                     \
      m.indexTrap(ip, CAIRN_STEPS(), o, pv.n, 1);                     \
      goto done;                                                      \
    }                                                                 \
    R[ip->d] = loadElem<DType::D>(pv.p, o);                           \
    CAIRN_NEXT();                                                     \
  }                                                                   \
  H(kVStoreAt_##D) {                                                  \
    CAIRN_ONLY(Module);                                               \
    storeElem<DType::D>(V[ip->a].p, R[ip->c], R[ip->b]);              \
    CAIRN_NEXT();                                                     \
  }                                                                   \
  H(kVStoreAtC_##D) {                                                 \
    CAIRN_ONLY(Module);                                               \
    const View pv = V[ip->a];                                         \
    uint64_t o = R[ip->c];                                            \
    if (o >= pv.n) [[unlikely]] {                                     \
      m.indexTrap(ip, CAIRN_STEPS(), o, pv.n, 1);                     \
      goto done;                                                      \
    }                                                                 \
    storeElem<DType::D>(pv.p, o, R[ip->b]);                           \
    CAIRN_NEXT();                                                     \
  }
  CAIRN_EXEC_DT(CAIRN_H, _)
#undef CAIRN_H

  // ---- checked arithmetic (modules): overflow and zero divisors trap ----
#define CAIRN_H2(K, O, D)                                                        \
  H(k##O##_##D) {                                                                \
    CAIRN_ONLY(Module);                                                          \
    Bits res = 0;                                                                \
    if (int s = alu::checked<K, DType::D>(R[ip->a], R[ip->b], res)) [[unlikely]] { \
      m.trap(ip, CAIRN_STEPS(), s == 2 ? kDivisionByZero.format : kOverflow.format); \
      goto done;                                                                 \
    }                                                                            \
    R[ip->d] = res;                                                              \
    CAIRN_NEXT();                                                                \
  }
#define CAIRN_H(P, O, K) CAIRN_EXEC_DT(CAIRN_HK_##K, O)
#define CAIRN_HK_0(O, D) CAIRN_H2(0, O, D)
#define CAIRN_HK_1(O, D) CAIRN_H2(1, O, D)
#define CAIRN_HK_2(O, D) CAIRN_H2(2, O, D)
#define CAIRN_HK_3(O, D) CAIRN_H2(3, O, D)
#define CAIRN_HK_4(O, D) CAIRN_H2(4, O, D)
  CAIRN_EXEC_CHK(CAIRN_H, _)
#undef CAIRN_H
#undef CAIRN_H2
#undef CAIRN_HK_0
#undef CAIRN_HK_1
#undef CAIRN_HK_2
#undef CAIRN_HK_3
#undef CAIRN_HK_4

  // ---- ALU: one handler per (op, dtype); idiv/mod trap on a zero divisor ----
#define CAIRN_H2_0(O, D)                                          \
  H(k##O##_##D) {                                                 \
    R[ip->d] = alu::O<DType::D>(R[ip->a], R[ip->b]);              \
    CAIRN_NEXT();                                                 \
  }
#define CAIRN_H2_1(O, D)                                          \
  H(k##O##_##D) {                                                 \
    if (R[ip->b] == 0) [[unlikely]] {                             \
      m.trap(ip, CAIRN_STEPS(), kDivisionByZero.format);          \
      goto done;                                                  \
    }                                                             \
    R[ip->d] = alu::O<DType::D>(R[ip->a], R[ip->b]);              \
    CAIRN_NEXT();                                                 \
  }
#define CAIRN_H(P, O, Z) CAIRN_EXEC_DT(CAIRN_H2_##Z, O)
  CAIRN_EXEC_ALU(CAIRN_H, _)
#undef CAIRN_H
#undef CAIRN_H2_0
#undef CAIRN_H2_1

  // ---- casts: one handler per (from, to) ----
#define CAIRN_H2(F, D)                                            \
  H(kCast_##F##_##D) {                                            \
    R[ip->d] = alu::Cast<DType::F, DType::D>(R[ip->a]);           \
    CAIRN_NEXT();                                                 \
  }
#define CAIRN_H(P, F) CAIRN_EXEC_DT2(CAIRN_H2, F)
  CAIRN_EXEC_DT(CAIRN_H, _)
#undef CAIRN_H
#undef CAIRN_H2

  // ---- checked casts (modules): trap unless the value fits ----
#define CAIRN_H2(F, D)                                                   \
  H(kCCast_##F##_##D) {                                                  \
    CAIRN_ONLY(Module);                                                  \
    if (!alu::CCast<DType::F, DType::D>(R[ip->a], R[ip->d])) [[unlikely]] { \
      m.trap(ip, CAIRN_STEPS(), formatTrap(kNoFit.format, std::string(dtypeName(DType::D)).c_str())); \
      goto done;                                                         \
    }                                                                    \
    CAIRN_NEXT();                                                        \
  }
#define CAIRN_H(P, F) CAIRN_EXEC_DT2(CAIRN_H2, F)
  CAIRN_EXEC_DT(CAIRN_H, _)
#undef CAIRN_H
#undef CAIRN_H2

  // ---- modules: fused instructions (exec/fuse_control.cpp, fuse_access.cpp) ----
#include "exec/interp_module_fused.inc"


#if !CAIRN_EXEC_THREADED
    default:
      goto bad_op;
  }
#endif

bad_op:
  CAIRN_UNREACHABLE("interpret: opcode " << ip->op << " has no handler");

done:
  m.r.steps = m.finalSteps(CAIRN_STEPS());
  if constexpr (Trace)
    if (!m.failed()) tr.end();
#undef H
#undef CAIRN_COUNT
#undef CAIRN_STEPS
#undef CAIRN_NEXT
#undef CAIRN_DISPATCH
#undef CAIRN_ONLY
}

}  // namespace

namespace exec {
void runMachine(Machine &m) {
  if (m.p.fn) interpret<false, true>(m);
  else if (m.o.trace) interpret<true, false>(m);
  else interpret<false, false>(m);
}
}  // namespace exec

RunResult execute(const Program &p, const RunOptions &opts) {
  CAIRN_CHECK(p.traceable || !opts.trace, "execute: --trace of a program compiled without what it prints");
  RunResult r;
  try {
    Machine m(p, opts, r);
    if (!m.prepare()) return r;
    runMachine(m);
    if (!m.failed()) m.collect();
  } catch (const std::bad_alloc &) {
    r = RunResult{};
    r.status = RunResult::Status::Trap;
    r.message = kOutOfMemory.format;
  } catch (const std::length_error &) {  // a size past what a vector can hold (a huge --max-elements)
    r = RunResult{};
    r.status = RunResult::Status::Trap;
    r.message = kOutOfMemory.format;
  }
  return r;
}

RunResult run(const Graph &g, const Facts &facts, const RunOptions &opts) {
  ProgramPtr p = compile(g, facts, opts.priority, opts.trace != nullptr);
  return execute(*p, opts);
}

}  // namespace cairn
