// The dispatch loop: one indirect jump per instruction.
//
// With GCC or Clang the loop is threaded with computed gotos (`goto *label`),
// so each handler ends in its own indirect jump, which predicts better than
// one shared switch; elsewhere (or with -DCAIRN_EXEC_SWITCH) it is a plain
// switch. Every handler is generated from the X-macros of exec/program.hpp,
// in the opcode enum's order, and does its whole job without looking at a
// dtype at run time.
//
// Hot state (ip, register file, buffer table, step count, next checkpoint)
// lives in locals. Steps are added only at loop control and at the halt
// (each instruction carries its straight-line stretch's weight), and one
// compare against `checkpoint` covers both the step limit and the next time
// check. Tracing is a second instantiation of the same loop.
#include <ostream>

#include <stdexcept>

#include "exec/alu.hpp"
#include "exec/interp.hpp"
#include "exec/machine.hpp"
#include "exec/program.hpp"
#include "ir/check.hpp"

#if (defined(__GNUC__) || defined(__clang__)) && !defined(CAIRN_EXEC_SWITCH)
#define CAIRN_EXEC_THREADED 1
#else
#define CAIRN_EXEC_THREADED 0
#endif

namespace cairn {

namespace {

using namespace exec;

template <bool Trace>
void interpret(Machine &m) {
  const Ins *const code = m.p.code.data();
  const CheckDesc *const checks = m.p.checks.data();
  Bits *const R = m.regs.data();
  BufRT *const B = m.bt.data();
  const Ins *ip = code;
  uint64_t steps = 0;
  uint64_t checkpoint = m.firstCheckpoint();
  Tracer tr(m, m.o.trace);

// Adds this control instruction's weight; past the checkpoint, asks the
// machine whether a limit was hit.
#define CAIRN_COUNT()                          \
  steps += ip->c;                              \
  if (steps >= checkpoint) [[unlikely]] {      \
    checkpoint = m.limits(ip, steps);          \
    if (m.failed()) goto done;                 \
  }

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
#define CAIRN_NEXT() \
  do {               \
    ++ip;            \
    CAIRN_DISPATCH(); \
  } while (0)

  // ---- control ----
  H(kHalt) {
    CAIRN_COUNT();
    goto done;
  }
  H(kLoopBeginS) {
    CAIRN_COUNT();
    R[ip->d] = 0;
    ip = static_cast<int64_t>(R[ip->a]) > 0 ? ip + 1 : code + ip->b;
    CAIRN_DISPATCH();
  }
  H(kLoopBeginU) {
    CAIRN_COUNT();
    R[ip->d] = 0;
    ip = R[ip->a] != 0 ? ip + 1 : code + ip->b;
    CAIRN_DISPATCH();
  }
  H(kLoopEnd) {
    CAIRN_COUNT();
    // The loop was entered, so the count is positive: compare unsigned.
    Bits i = R[ip->d] + 1;
    R[ip->d] = i;
    ip = i < R[ip->a] ? code + ip->b : ip + 1;
    CAIRN_DISPATCH();
  }
  H(kMov) {
    R[ip->d] = R[ip->a];
    CAIRN_NEXT();
  }
  H(kAddOff) {
    R[ip->d] = R[ip->a] + R[ip->b];
    CAIRN_NEXT();
  }
  H(kCShrink) {
    // A negative signed offset is a huge unsigned one, so one test covers
    // both ends.
    const CheckDesc &c = checks[ip->c];
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

  // ---- memory: the offset is checked against the buffer (see compile.cpp) ----
#define CAIRN_H(P, D)                                      \
  H(kLoad_##D) {                                           \
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

  // ---- ALU: one handler per (op, dtype); idiv/mod trap on a zero divisor ----
#define CAIRN_H2_0(O, D)                                          \
  H(k##O##_##D) {                                                 \
    R[ip->d] = alu::O<DType::D>(R[ip->a], R[ip->b]);              \
    CAIRN_NEXT();                                                 \
  }
#define CAIRN_H2_1(O, D)                                          \
  H(k##O##_##D) {                                                 \
    if (R[ip->b] == 0) [[unlikely]] {                             \
      m.trapAt(ip, "division by zero");                           \
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

#if !CAIRN_EXEC_THREADED
    default:
      CAIRN_UNREACHABLE("interpret: opcode " << ip->op << " has no handler");
  }
#endif

done:
  m.r.steps = steps;
  if constexpr (Trace)
    if (!m.failed()) tr.end();
#undef H
#undef CAIRN_COUNT
#undef CAIRN_NEXT
#undef CAIRN_DISPATCH
}

}  // namespace

RunResult execute(const Program &p, const RunOptions &opts) {
  RunResult r;
  try {
    Machine m(p, opts, r);
    if (!m.prepare()) return r;
    if (opts.trace) interpret<true>(m);
    else interpret<false>(m);
    if (!m.failed()) m.collect();
  } catch (const std::bad_alloc &) {
    r = RunResult{};
    r.status = RunResult::Status::Trap;
    r.message = "out of memory";
  } catch (const std::length_error &) {  // a size past what a vector can hold (a huge --max-elements)
    r = RunResult{};
    r.status = RunResult::Status::Trap;
    r.message = "out of memory";
  }
  return r;
}

RunResult run(const Graph &g, const Facts &facts, const RunOptions &opts) {
  ProgramPtr p = compile(g, facts, opts.priority);
  return execute(*p, opts);
}

}  // namespace cairn
