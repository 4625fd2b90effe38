/* cairn_rt.h: the run-time support of the C that `cairn emit c` writes.
 *
 * This file is the single source of the runtime. The emitter (exec/emit_c.cpp)
 * pastes its text into every translation unit it writes, so an emitted .c
 * file includes nothing but standard headers and compiles alone:
 * `cc -O2 -std=c11 prog.c -lm`. It is C11 and assumes two's complement
 * integers whose narrowing conversions wrap (every C compiler cairn targets:
 * GCC, Clang) and IEEE-754 float/double evaluated at their own precision
 * (FLT_EVAL_METHOD 0, no FMA contraction: -std=c11 turns GCC's off, the
 * pragma below Clang's).
 *
 * It provides, mirroring the interpreter bit for bit (exec/alu.hpp,
 * exec/machine.cpp):
 *   - scalar helpers cairn_<op>_<dtype> with the .uir semantics (docs/uir.md:
 *     wrapping integers, idiv/mod trapping on zero, shifts modulo the width,
 *     float max/min NaN and signed-zero rules, saturating float->int casts);
 *   - traps: a message `FILE:LINE:COL: error: trap: MESSAGE` on the error
 *     stream, then a longjmp back to the driver (never exit(), so many
 *     programs can share one process);
 *   - buffers: the element limit (--max-elements), allocation, initial data,
 *     --slot data, optional guard zones (every access checked before it
 *     happens, the zones themselves after the run);
 *   - the driver (cairn_rt_driver.h, included at the end): argument
 *     parsing, --slot values, and the output of `cairn run` (text and
 *     --json, floats shortest round-trip as ir/dtype.cpp bitsText prints
 *     them).
 * Everything is `static`: one copy per translation unit, nothing exported. */
#ifndef CAIRN_RT_H
#define CAIRN_RT_H

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CAIRN_RT_COLD __attribute__((cold, noinline))
#define CAIRN_RT_UNUSED __attribute__((unused))
/* Hides a value from the optimiser, so libm calls on constants run at run
 * time (as the interpreter's do) instead of being folded with a different
 * rounding. */
#if defined(__CUDA_ARCH__) /* device code (gpu/cairn_cu.h): no memory operands in PTX asm */
#define CAIRN_RT_OPAQUE(x) ((void)0)
#else
#define CAIRN_RT_OPAQUE(x) __asm__("" : "+m"(x))
#endif
#else
#define CAIRN_RT_COLD
#define CAIRN_RT_UNUSED
#define CAIRN_RT_OPAQUE(x) ((void)0)
#endif
/* Unrolls the loop after it by 4 (GCC 8 and later, Clang; nothing
 * elsewhere): the C back end's `while` loops (exec/emit_module_c.cpp),
 * whose counter then is tested once per four iterations. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define CAIRN_RT_UNROLL4 _Pragma("GCC unroll 4")
#else
#define CAIRN_RT_UNROLL4
#endif
/* Helpers a program may not use: no unused-function warnings (Clang warns
 * about unused static inline functions in a .c file). */
#define CAIRN_RT_INLINE static inline CAIRN_RT_UNUSED
/* The scalar helpers, which the CUDA back end (gpu/cairn_cu.h) also calls
 * in device code: host and device functions under nvcc. */
#if defined(__CUDACC__)
#define CAIRN_RT_SCALAR static inline CAIRN_RT_UNUSED __host__ __device__
#else
#define CAIRN_RT_SCALAR CAIRN_RT_INLINE
#endif

/* The dtypes, in the order of ir/dtype.hpp. */
enum { CAIRN_BOOL, CAIRN_I8, CAIRN_I16, CAIRN_I32, CAIRN_I64, CAIRN_U8, CAIRN_U16, CAIRN_U32, CAIRN_U64, CAIRN_F32, CAIRN_F64 };

/* Exit statuses of a program run: those of `cairn run`, plus one for an
 * access out of bounds found with guard zones (a store or load outside its
 * buffer, or a guard zone found overwritten). */
enum { CAIRN_OK = 0, CAIRN_TRAP = 1, CAIRN_USAGE = 2, CAIRN_GUARD = 3 };

/* A buffer as the emitter describes it (one per `buffer` node, in node order). */
typedef struct {
  const char *name;   /* "%b" */
  uint32_t line, col; /* of the `buffer` node */
  int dtype;
  int64_t slot;       /* -1: none */
  int dynamic;        /* its size is a value, known when the node runs */
  int negative;       /* a literal negative size (traps before the run) */
  uint64_t size;      /* static size */
  const void *data;   /* data=[...] in storage layout, or NULL (zeros) */
  int written_first;  /* every element is written before any is read (exec/first_write.hpp): not zeroed */
} cairn_rt_bufdesc;

struct cairn_rt;
typedef struct {
  const char *src;                /* FILE of trap messages */
  uint32_t nbufs;
  const cairn_rt_bufdesc *bufs;
  const uint32_t *slot_order;     /* buffer indices of slot buffers, by slot */
  uint32_t nslots;
  uint32_t guard;                 /* guard zone bytes on each side; 0: none */
  void (*entry)(struct cairn_rt *rt);
} cairn_rt_prog;

/* A buffer at run time. */
typedef struct {
  unsigned char *block; /* what malloc returned (guard zone included) */
  void *p;
  uint64_t n;
  void *init;           /* --slot data in storage layout, or NULL */
  uint64_t init_n;
} cairn_rt_buf;

typedef struct cairn_rt {
  jmp_buf jb;
  const cairn_rt_prog *prog;
  cairn_rt_buf *bufs;
  FILE *out, *err;
  uint64_t limit, total; /* elements: the limit, and all live buffers */
  int status;
  int nargs, json;
  char **args;           /* the driver's options (no program name) */
  void *scratch[2];      /* the driver's temporaries, freed after the run (also after a longjmp) */
  /* Modules (cairn_rt_module.h); unused by flat programs. With msites set,
   * a trap's `line` is an index into it (and `col` is 0). */
  const struct cairn_msite *msites;
  const char *msrc;      /* FILE of internal errors */
  struct cairn_mstate *m;
} cairn_rt;

static size_t cairn_rt_esize(int t) {
  static const unsigned char sz[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
  return t >= 0 && t <= CAIRN_F64 ? sz[t] : 1;
}
static const char *cairn_rt_dtype_name(int t) {
  static const char *const nm[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};
  return t >= 0 && t <= CAIRN_F64 ? nm[t] : "?";
}

/* ---- traps and errors --------------------------------------------------- */

/* A module's trap site: where the node came from, and its function. */
typedef struct cairn_msite {
  const char *file;
  uint32_t line, col;
  const char *fn;
} cairn_msite;

/* A module's trap exits 101, as `cairn run` of a module does. */
enum { CAIRN_MTRAP = 101, CAIRN_MINTERNAL = 70 };

/* A trap's report: `FILE:LINE:COL: error: trap: `, the message, then (a
 * module's site) ` (in FN)`; then the run ends. */
static CAIRN_RT_COLD void cairn_rt_trap_begin(cairn_rt *rt, uint32_t line, uint32_t col) {
  const cairn_msite *s = rt->msites ? &rt->msites[line] : NULL;
  if (s) fprintf(rt->err, "%s:%u:%u: error: trap: ", s->file, (unsigned)s->line, (unsigned)s->col);
  else fprintf(rt->err, "%s:%u:%u: error: trap: ", rt->prog->src, (unsigned)line, (unsigned)col);
}
static _Noreturn CAIRN_RT_COLD void cairn_rt_trap_end(cairn_rt *rt, uint32_t line) {
  const cairn_msite *s = rt->msites ? &rt->msites[line] : NULL;
  if (s) fprintf(rt->err, " (in %s)", s->fn);
  fputc('\n', rt->err);
  rt->status = s ? CAIRN_MTRAP : CAIRN_TRAP;
  longjmp(rt->jb, 1);
}
static _Noreturn CAIRN_RT_COLD void cairn_rt_trap(cairn_rt *rt, uint32_t line, uint32_t col, const char *fmt, ...) {
  va_list ap;
  cairn_rt_trap_begin(rt, line, col);
  va_start(ap, fmt);
  vfprintf(rt->err, fmt, ap);
  va_end(ap);
  cairn_rt_trap_end(rt, line);
}

static _Noreturn CAIRN_RT_COLD void cairn_rt_usage(cairn_rt *rt, const char *fmt, ...) {
  va_list ap;
  fputs("cairn: error: ", rt->err);
  va_start(ap, fmt);
  vfprintf(rt->err, fmt, ap);
  va_end(ap);
  fputc('\n', rt->err);
  rt->status = CAIRN_USAGE;
  longjmp(rt->jb, 1);
}

static _Noreturn CAIRN_RT_COLD void cairn_rt_trap_div(cairn_rt *rt, uint32_t line, uint32_t col) {
  cairn_rt_trap(rt, line, col, "division by zero");
}

/* checked_shrink: the new view's offset into its parent, or a trap. A
 * negative signed offset is a huge unsigned one, so one test covers both
 * ends (exec/interp.cpp kCShrink). */
static CAIRN_RT_COLD void cairn_rt_cshrink_trap(cairn_rt *rt, uint32_t line, uint32_t col, uint64_t off, int sgn,
                                                uint64_t size, uint64_t pn) {
  char at[32];
  if (sgn) snprintf(at, sizeof at, "%lld", (long long)(int64_t)off);
  else snprintf(at, sizeof at, "%llu", (unsigned long long)off);
  if (size == 1)
    cairn_rt_trap(rt, line, col, "index %s out of bounds for a view of %llu elements", at, (unsigned long long)pn);
  cairn_rt_trap(rt, line, col, "a view of %llu elements at offset %s is out of bounds for a view of %llu elements",
                (unsigned long long)size, at, (unsigned long long)pn);
}
CAIRN_RT_INLINE int64_t cairn_rt_cshrink(cairn_rt *rt, uint32_t line, uint32_t col, uint64_t off, int sgn, uint64_t size,
                                       uint64_t pn) {
  if (off > pn || pn - off < size) cairn_rt_cshrink_trap(rt, line, col, off, sgn, size, pn);
  return (int64_t)off;
}

/* EmitOptions::checkAccesses: the interpreter's check of every load/store. */
static CAIRN_RT_COLD void cairn_rt_oob_trap(cairn_rt *rt, uint32_t line, uint32_t col, uint32_t bi, int64_t off) {
  cairn_rt_trap(rt, line, col, "index %lld out of bounds for buffer %s of %llu elements", (long long)off,
                rt->prog->bufs[bi].name, (unsigned long long)rt->bufs[bi].n);
}
CAIRN_RT_INLINE int64_t cairn_rt_access(cairn_rt *rt, uint32_t line, uint32_t col, uint32_t bi, int64_t off) {
  if ((uint64_t)off >= rt->bufs[bi].n) cairn_rt_oob_trap(rt, line, col, bi, off);
  return off;
}

/* EmitOptions::guardZones: every load and store offset is checked against
 * its buffer's element count n before memory is touched, so no access can
 * land outside a buffer however far off it is (a negative offset is a huge
 * unsigned one: one comparison covers both ends). The oracle proves every
 * access in bounds, so a failed check is a bug in cairn; it is reported at
 * once, as a trap is (the run stops, nothing goes to stdout), but with exit
 * status 3 (CAIRN_GUARD), at the buffer's line, with a note at the access:
 *   FILE:L:C: error: out-of-bounds write: offset -1 is outside buffer %b of 4 elements
 *   FILE:L:C: note: the store that writes there
 * Only the first bad access is reported. The guard zones themselves are
 * still checked after the run (cairn_rt_check_guards). */
static _Noreturn CAIRN_RT_COLD void cairn_rt_guard_fail(cairn_rt *rt, uint32_t line, uint32_t col, uint32_t bi,
                                                        int64_t off, int write) {
  const cairn_rt_bufdesc *d = &rt->prog->bufs[bi];
  fprintf(rt->err, "%s:%u:%u: error: out-of-bounds %s: offset %lld is outside buffer %s of %llu elements\n",
          rt->prog->src, (unsigned)d->line, (unsigned)d->col, write ? "write" : "read", (long long)off, d->name,
          (unsigned long long)rt->bufs[bi].n);
  fprintf(rt->err, "%s:%u:%u: note: the %s\n", rt->prog->src, (unsigned)line, (unsigned)col,
          write ? "store that writes there" : "load that reads there");
  rt->status = CAIRN_GUARD;
  longjmp(rt->jb, 1);
}
CAIRN_RT_INLINE int64_t cairn_rt_guard_rd(cairn_rt *rt, uint32_t line, uint32_t col, uint32_t bi, int64_t off,
                                          uint64_t n) {
  if ((uint64_t)off >= n) cairn_rt_guard_fail(rt, line, col, bi, off, 0);
  return off;
}
CAIRN_RT_INLINE int64_t cairn_rt_guard_wr(cairn_rt *rt, uint32_t line, uint32_t col, uint32_t bi, int64_t off,
                                          uint64_t n) {
  if ((uint64_t)off >= n) cairn_rt_guard_fail(rt, line, col, bi, off, 1);
  return off;
}

/* ---- scalar semantics (exec/alu.hpp) ------------------------------------- */
/* Integer arithmetic runs in an unsigned type of at least int's width (no
 * promotion to a signed int that could overflow), then narrows: wrapping. */
#define CAIRN_RT_INT(S, T, U, W, SGN, SHR)                                                                        \
  CAIRN_RT_SCALAR T cairn_add_##S(T a, T b) { return (T)((U)a + (U)b); }                                        \
  CAIRN_RT_SCALAR T cairn_sub_##S(T a, T b) { return (T)((U)a - (U)b); }                                        \
  CAIRN_RT_SCALAR T cairn_mul_##S(T a, T b) { return (T)((U)a * (U)b); }                                        \
  CAIRN_RT_SCALAR T cairn_neg_##S(T a) { return (T)((U)0 - (U)a); }                                             \
  CAIRN_RT_SCALAR T cairn_max_##S(T a, T b) { return a < b ? b : a; }                                           \
  CAIRN_RT_SCALAR T cairn_min_##S(T a, T b) { return b < a ? b : a; }                                           \
  CAIRN_RT_SCALAR T cairn_shl_##S(T a, T b) { return (T)((U)a << ((U)b & (W - 1))); }                            \
  CAIRN_RT_SCALAR T cairn_shr_##S(T a, T b) {                                                                    \
    unsigned s = (unsigned)((U)b & (W - 1));                                                                   \
    return SHR;                                                                                                \
  }                                                                                                            \
  /* b != 0 (the callers check): */                                                                             \
  CAIRN_RT_SCALAR T cairn_idivnz_##S(T a, T b) {                                                                \
    if (SGN && b == (T)-1) return cairn_neg_##S(a); /* MIN / -1 wraps to MIN */                                \
    return (T)(a / b);                                                                                         \
  }                                                                                                            \
  CAIRN_RT_SCALAR T cairn_modnz_##S(T a, T b) {                                                                 \
    if (SGN && b == (T)-1) return 0; /* MIN % -1 is 0 */                                                       \
    return (T)(a % b);                                                                                         \
  }                                                                                                            \
  CAIRN_RT_INLINE T cairn_idiv_##S(cairn_rt *rt, uint32_t l, uint32_t c, T a, T b) {                             \
    if (b == 0) cairn_rt_trap_div(rt, l, c);                                                                   \
    return cairn_idivnz_##S(a, b);                                                                             \
  }                                                                                                            \
  CAIRN_RT_INLINE T cairn_mod_##S(cairn_rt *rt, uint32_t l, uint32_t c, T a, T b) {                              \
    if (b == 0) cairn_rt_trap_div(rt, l, c);                                                                   \
    return cairn_modnz_##S(a, b);                                                                              \
  }
/* shr: arithmetic for signed types, written without the implementation-
 * defined >> of a negative value; logical for unsigned ones. */
#define CAIRN_RT_SHR_S(T) (a < 0 ? (T) ~(~a >> s) : (T)(a >> s))
#define CAIRN_RT_SHR_U(T) ((T)(a >> s))
CAIRN_RT_INT(i8, int8_t, uint32_t, 8, 1, CAIRN_RT_SHR_S(int8_t))
CAIRN_RT_INT(i16, int16_t, uint32_t, 16, 1, CAIRN_RT_SHR_S(int16_t))
CAIRN_RT_INT(i32, int32_t, uint32_t, 32, 1, CAIRN_RT_SHR_S(int32_t))
CAIRN_RT_INT(i64, int64_t, uint64_t, 64, 1, CAIRN_RT_SHR_S(int64_t))
CAIRN_RT_INT(u8, uint8_t, uint32_t, 8, 0, CAIRN_RT_SHR_U(uint8_t))
CAIRN_RT_INT(u16, uint16_t, uint32_t, 16, 0, CAIRN_RT_SHR_U(uint16_t))
CAIRN_RT_INT(u32, uint32_t, uint32_t, 32, 0, CAIRN_RT_SHR_U(uint32_t))
CAIRN_RT_INT(u64, uint64_t, uint64_t, 64, 0, CAIRN_RT_SHR_U(uint64_t))
#undef CAIRN_RT_INT
#undef CAIRN_RT_SHR_S
#undef CAIRN_RT_SHR_U

/* bool is a 1-bit unsigned integer held as 0/1: add/sub are xor, mul is and. */
typedef uint8_t cairn_bool;
CAIRN_RT_SCALAR cairn_bool cairn_add_bool(cairn_bool a, cairn_bool b) { return a ^ b; }
CAIRN_RT_SCALAR cairn_bool cairn_sub_bool(cairn_bool a, cairn_bool b) { return a ^ b; }
CAIRN_RT_SCALAR cairn_bool cairn_mul_bool(cairn_bool a, cairn_bool b) { return a & b; }
CAIRN_RT_SCALAR cairn_bool cairn_neg_bool(cairn_bool a) { return a ^ 1; }
CAIRN_RT_SCALAR cairn_bool cairn_max_bool(cairn_bool a, cairn_bool b) { return a < b ? b : a; }
CAIRN_RT_SCALAR cairn_bool cairn_min_bool(cairn_bool a, cairn_bool b) { return b < a ? b : a; }
CAIRN_RT_SCALAR cairn_bool cairn_shl_bool(cairn_bool a, cairn_bool b) { (void)b; return a; }
CAIRN_RT_SCALAR cairn_bool cairn_shr_bool(cairn_bool a, cairn_bool b) { (void)b; return a; }
CAIRN_RT_SCALAR cairn_bool cairn_idivnz_bool(cairn_bool a, cairn_bool b) { (void)b; return a; }
CAIRN_RT_SCALAR cairn_bool cairn_modnz_bool(cairn_bool a, cairn_bool b) { (void)a; (void)b; return 0; }
CAIRN_RT_INLINE cairn_bool cairn_idiv_bool(cairn_rt *rt, uint32_t l, uint32_t c, cairn_bool a, cairn_bool b) {
  if (b == 0) cairn_rt_trap_div(rt, l, c);
  return a;
}
CAIRN_RT_INLINE cairn_bool cairn_mod_bool(cairn_rt *rt, uint32_t l, uint32_t c, cairn_bool a, cairn_bool b) {
  (void)a;
  if (b == 0) cairn_rt_trap_div(rt, l, c);
  return 0;
}

/* Floats: max/min propagate NaN and order -0 < +0; sin, exp2 and log2 see
 * an opaque argument so the compiler cannot fold them at compile time. */
#define CAIRN_RT_FLOAT(S, T, SUF)                                                         \
  CAIRN_RT_SCALAR T cairn_add_##S(T a, T b) { return a + b; }                               \
  CAIRN_RT_SCALAR T cairn_sub_##S(T a, T b) { return a - b; }                               \
  CAIRN_RT_SCALAR T cairn_mul_##S(T a, T b) { return a * b; }                               \
  CAIRN_RT_SCALAR T cairn_neg_##S(T a) { return -a; }                                       \
  CAIRN_RT_SCALAR T cairn_fdiv_##S(T a, T b) { return a / b; }                              \
  CAIRN_RT_SCALAR T cairn_recip_##S(T a) { return (T)1 / a; }                               \
  CAIRN_RT_SCALAR T cairn_sqrt_##S(T a) { return sqrt##SUF(a); }                            \
  CAIRN_RT_SCALAR T cairn_trunc_##S(T a) { return trunc##SUF(a); }                          \
  CAIRN_RT_SCALAR T cairn_exp2_##S(T a) { CAIRN_RT_OPAQUE(a); return exp2##SUF(a); }        \
  CAIRN_RT_SCALAR T cairn_log2_##S(T a) { CAIRN_RT_OPAQUE(a); return log2##SUF(a); }        \
  CAIRN_RT_SCALAR T cairn_sin_##S(T a) { CAIRN_RT_OPAQUE(a); return sin##SUF(a); }         \
  CAIRN_RT_SCALAR T cairn_max_##S(T a, T b) {                                               \
    if (a != a) return a;                                                                 \
    if (b != b) return b;                                                                 \
    if (a == b) return signbit(a) ? b : a;                                                \
    return a < b ? b : a;                                                                 \
  }                                                                                       \
  CAIRN_RT_SCALAR T cairn_min_##S(T a, T b) {                                               \
    if (a != a) return a;                                                                 \
    if (b != b) return b;                                                                 \
    if (a == b) return signbit(a) ? a : b;                                                \
    return b < a ? b : a;                                                                 \
  }
CAIRN_RT_FLOAT(f32, float, f)
CAIRN_RT_FLOAT(f64, double, )
#undef CAIRN_RT_FLOAT

/* Float to integer: truncate toward zero, saturate, NaN -> 0. A float
 * argument converts to double exactly. */
#define CAIRN_RT_F2I(S, T, LO, HI, TMIN, TMAX)          \
  CAIRN_RT_SCALAR T cairn_f2i_##S(double v) {            \
    double t;                                          \
    if (v != v) return 0;                              \
    t = trunc(v);                                      \
    if (t < LO) return TMIN;                           \
    if (t >= HI) return TMAX;                          \
    return (T)t;                                       \
  }
CAIRN_RT_F2I(i8, int8_t, -128.0, 128.0, INT8_MIN, INT8_MAX)
CAIRN_RT_F2I(i16, int16_t, -32768.0, 32768.0, INT16_MIN, INT16_MAX)
CAIRN_RT_F2I(i32, int32_t, -2147483648.0, 2147483648.0, INT32_MIN, INT32_MAX)
CAIRN_RT_F2I(i64, int64_t, -9223372036854775808.0, 9223372036854775808.0, INT64_MIN, INT64_MAX)
CAIRN_RT_F2I(u8, uint8_t, 0.0, 256.0, 0, UINT8_MAX)
CAIRN_RT_F2I(u16, uint16_t, 0.0, 65536.0, 0, UINT16_MAX)
CAIRN_RT_F2I(u32, uint32_t, 0.0, 4294967296.0, 0, UINT32_MAX)
CAIRN_RT_F2I(u64, uint64_t, 0.0, 18446744073709551616.0, 0, UINT64_MAX)
#undef CAIRN_RT_F2I

CAIRN_RT_SCALAR float cairn_f32_of_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}
CAIRN_RT_SCALAR double cairn_f64_of_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

/* ---- buffers ---------------------------------------------------------------- */

#define CAIRN_RT_GUARD_BYTE 0xA5
#define CAIRN_RT_POISON_BYTE 0x5A

/* Buffers come from malloc/calloc with the system's default page policy, as
 * a C programmer's would, and as the interpreter's do (exec/zeroed.hpp): no
 * huge-page advice. A program's buffer is often declared larger than the part
 * it touches (a capacity), and an advised 2 MiB page is faulted in, zeroed
 * and perhaps compacted for the first byte touched in it. */

/* Counts `count` more elements against the limit (exec/machine.cpp allocate). */
static void cairn_rt_account(cairn_rt *rt, uint32_t bi, uint64_t count) {
  const cairn_rt_bufdesc *d = &rt->prog->bufs[bi];
  uint64_t limit = rt->limit;
  rt->total -= rt->bufs[bi].n; /* a buffer that runs again replaces its storage */
  if (count > limit || rt->total > limit - count) {
    if (count <= limit)
      cairn_rt_trap(rt, d->line, d->col,
                    "buffer of %llu elements exceeds the limit of %llu elements (--max-elements) with the %llu "
                    "elements already allocated",
                    (unsigned long long)count, (unsigned long long)limit, (unsigned long long)rt->total);
    cairn_rt_trap(rt, d->line, d->col, "buffer of %llu elements exceeds the limit of %llu elements (--max-elements)",
                  (unsigned long long)count, (unsigned long long)limit);
  }
  if (count > (SIZE_MAX - 8) / cairn_rt_esize(d->dtype)) cairn_rt_trap(rt, d->line, d->col, "out of memory");
  rt->bufs[bi].n = count;
  rt->total += count;
}

/* Storage for buffer bi (already accounted): zeroed, then its --slot data or
 * its data=[...]; guard zones around it when the program has them. A buffer
 * written before it is read (written_first) is not zeroed: malloc, as a C
 * programmer would write it. With guard zones it is filled with
 * CAIRN_RT_POISON_BYTE instead, so that a wrong proof of written_first reads
 * poison, which the differential tests (run with guard zones) would catch. */
static void *cairn_rt_storage(cairn_rt *rt, uint32_t bi) {
  const cairn_rt_bufdesc *d = &rt->prog->bufs[bi];
  cairn_rt_buf *b = &rt->bufs[bi];
  size_t guard = rt->prog->guard, bytes = (size_t)b->n * cairn_rt_esize(d->dtype);
  if (bytes > SIZE_MAX - 2 * (size_t)guard - 8) cairn_rt_trap(rt, 0, 0, "out of memory");
  free(b->block);
  b->block = NULL;
  if (guard) {
    b->block = (unsigned char *)malloc(bytes + 2 * (size_t)guard);
    if (b->block) {
      memset(b->block, CAIRN_RT_GUARD_BYTE, guard);
      memset(b->block + guard, d->written_first ? CAIRN_RT_POISON_BYTE : 0, bytes);
      memset(b->block + guard + bytes, CAIRN_RT_GUARD_BYTE, guard);
    }
  } else {
    b->block = (unsigned char *)(d->written_first ? malloc(bytes ? bytes : 1) : calloc(bytes ? bytes : 1, 1));
  }
  if (!b->block) cairn_rt_trap(rt, 0, 0, "out of memory");
  b->p = b->block + guard;
  if (b->init) {
    if (b->init_n != b->n)
      cairn_rt_usage(rt, "slot %lld has %llu elements, --slot gave %llu", (long long)d->slot,
                     (unsigned long long)b->n, (unsigned long long)b->init_n);
    if (bytes) memcpy(b->p, b->init, bytes);
  } else if (d->data && bytes) {
    memcpy(b->p, d->data, bytes);
  }
  return b->p;
}

/* A static buffer that is not a slot: allocated when the kernel starts. */
static CAIRN_RT_UNUSED void *cairn_rt_alloc(cairn_rt *rt, uint32_t bi) { return cairn_rt_storage(rt, bi); }

/* A buffer of dynamic size, when its node runs. */
static CAIRN_RT_UNUSED void *cairn_rt_alloc_dyn(cairn_rt *rt, uint32_t bi, uint64_t count, int negative) {
  const cairn_rt_bufdesc *d = &rt->prog->bufs[bi];
  if (negative) cairn_rt_trap(rt, d->line, d->col, "buffer size %lld is negative", (long long)(int64_t)count);
  cairn_rt_account(rt, bi, count);
  return cairn_rt_storage(rt, bi);
}

/* After the run: 0, or reports the first overwritten guard zone. */
static int cairn_rt_check_guards(cairn_rt *rt) {
  uint32_t bi;
  size_t guard = rt->prog->guard, k;
  if (!guard) return 0;
  for (bi = 0; bi < rt->prog->nbufs; ++bi) {
    const cairn_rt_bufdesc *d = &rt->prog->bufs[bi];
    const cairn_rt_buf *b = &rt->bufs[bi];
    size_t bytes = (size_t)b->n * cairn_rt_esize(d->dtype);
    if (!b->block) continue;
    for (k = 0; k < 2 * guard; ++k) {
      size_t at = k < guard ? k : guard + bytes + (k - guard);
      if (b->block[at] != CAIRN_RT_GUARD_BYTE) {
        fprintf(rt->err, "%s:%u:%u: error: out-of-bounds write: the guard zone %s buffer %s was overwritten\n",
                rt->prog->src, (unsigned)d->line, (unsigned)d->col, k < guard ? "before" : "after", d->name);
        return 1;
      }
    }
  }
  return 0;
}

/* The driver: --slot values, value text, main. A separate file only to keep
 * each under ~600 lines; the emitter pastes it here (see CMakeLists.txt). */
#include "cairn_rt_driver.h"

/* Modules: views, the heap, calls, print and their driver
 * (exec/emit_module_c.hpp); pasted here the same way. */
#include "cairn_rt_module.h"

#endif /* CAIRN_RT_H */
