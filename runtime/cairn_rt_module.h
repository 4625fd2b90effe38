/* cairn_rt_module.h: the module half of the runtime of emitted C.
 *
 * Part of runtime/cairn_rt.h, which includes it at its end (the emitter
 * pastes it there). It mirrors the module interpreter (exec/module_interp.cpp)
 * bit for bit and word for word:
 *   - views: a pointer to the first element and an element count;
 *   - buffers: `--max-elements` counts live buffer and heap elements, with
 *     the interpreter's out-of-memory message; a frame buffer (a small one
 *     of literal size) is a C array and not counted, as in the
 *     interpreter; the others are calloc'ed on a stack of allocations
 *     released to a mark when their region ends (a loop iteration, a
 *     function);
 *   - the heap: handles `generation << 32 | index + 1`, a LIFO free list of
 *     indices, `free` deep through `own` columns with an explicit work list,
 *     the leak count when main returns;
 *   - checked arithmetic and conversions (`arithmetic overflow`, `division
 *     by zero`, `value does not fit T`), `part`, `checked_shrink`, guards;
 *   - the call depth (`stack overflow (call depth N)`), counted at each
 *     call; a module whose calls can recurse runs main on a thread with a
 *     large stack, so that depth is reached before the native stack is
 *     (cairn_m_run says when main runs on the calling thread);
 *   - print: integers in decimal, floats shortest round-trip, bool as
 *     true/false; u8 views as bytes;
 *   - the driver: `PROG [--max-elements N]` runs main and exits with its
 *     value, 101 after a trap, 70 after an internal error (a leak, a double
 *     free, a released handle). Everything is static, as in cairn_rt.h. */
#ifndef CAIRN_RT_H
#error "include cairn_rt.h, not cairn_rt_module.h"
#endif

#include <pthread.h>
#include <sys/resource.h>

typedef struct {
  uint8_t *p;
  uint64_t n;
} cairn_view;

typedef struct {
  uint32_t gen;
  int live;
  uint64_t n;
  uint32_t ncols;
  const int8_t *codes; /* per column: a dtype, or CAIRN_OWN */
  uint8_t **cols;
} cairn_mobj;

#define CAIRN_OWN (-1)

typedef struct cairn_mstate {
  void **bufs; /* calloc'ed buffers, innermost region last */
  uint64_t *bufn;
  size_t nbufs, capbufs;
  cairn_mobj *objs;
  uint32_t nobjs, capobjs;
  uint32_t *freeobjs;
  uint32_t nfree, capfree;
} cairn_mstate;

typedef struct {
  const char *src;            /* FILE of internal errors: the input's name */
  const cairn_msite *sites;
  int32_t (*entry)(cairn_rt *rt);
  /* The bytes of C stack main's calls can take, by the emitter's generous
   * estimate (exec/emit_module_c_unit.cpp, stackEstimate); 0: none (a call can
   * recurse, or an extern is called). */
  uint64_t stack;
} cairn_mmod;

/* ---- failures --------------------------------------------------------------- */

static _Noreturn CAIRN_RT_COLD void cairn_m_internal(cairn_rt *rt, const char *fmt, ...) {
  va_list ap;
  fprintf(rt->err, "%s: error: internal error: ", rt->msrc);
  va_start(ap, fmt);
  vfprintf(rt->err, fmt, ap);
  va_end(ap);
  fputc('\n', rt->err);
  rt->status = CAIRN_MINTERNAL;
  longjmp(rt->jb, 1);
}

static _Noreturn CAIRN_RT_COLD void cairn_m_oom(cairn_rt *rt, uint32_t site, uint64_t elems) {
  cairn_rt_trap(rt, site, 0, "out of memory: %llu more elements would pass the limit of %llu live elements (%llu in use)",
                (unsigned long long)elems, (unsigned long long)rt->limit, (unsigned long long)rt->total);
}

CAIRN_RT_INLINE void cairn_m_reserve(cairn_rt *rt, uint32_t site, uint64_t elems) {
  if (elems > rt->limit || rt->total > rt->limit - elems) cairn_m_oom(rt, site, elems);
  rt->total += elems;
}

static CAIRN_RT_COLD void *cairn_m_grow(void *p, size_t *cap, size_t need, size_t size) {
  size_t c = *cap ? *cap * 2 : 64;
  void *q;
  while (c < need) c *= 2;
  q = realloc(p, c * size);
  if (!q) return NULL;
  *cap = c;
  return q;
}

/* ---- buffers ------------------------------------------------------------------ */

/* A frame buffer (exec/emit_module_c.hpp isFrameBuffer): a C array of the
 * function, zeroed by its declaration, not counted against the limit. */
CAIRN_RT_INLINE cairn_view cairn_m_frame(void *p, uint64_t n) {
  cairn_view v;
  v.p = (uint8_t *)p;
  v.n = n;
  return v;
}

/* A calloc'ed buffer: `n` elements of `esize` bytes (negative: a signed size
 * below zero), optional initial data; counted against the limit unless
 * `counted` is 0 (a frame buffer too large for the C stack:
 * exec/emit_module_c.cpp kStackFrameBytes). */
static CAIRN_RT_UNUSED cairn_view cairn_m_buffer_k(cairn_rt *rt, uint32_t site, uint64_t n, int negative, size_t esize,
                                                   const void *data, int counted) {
  cairn_mstate *m = rt->m;
  cairn_view v;
  const uint64_t c = counted ? n : 0;
  if (negative) cairn_rt_trap(rt, site, 0, "buffer size %lld is negative", (long long)(int64_t)n);
  if (counted) cairn_m_reserve(rt, site, n);
  if (n > (SIZE_MAX - 8) / esize) {
    rt->total -= c;
    cairn_rt_trap(rt, site, 0, "out of memory");
  }
  if (m->nbufs == m->capbufs) {
    size_t cap = m->capbufs;
    void **b = (void **)cairn_m_grow(m->bufs, &cap, m->nbufs + 1, sizeof *b);
    uint64_t *bn;
    if (b) m->bufs = b;
    bn = b ? (uint64_t *)realloc(m->bufn, cap * sizeof *bn) : NULL;
    if (!b || !bn) {
      rt->total -= c;
      cairn_rt_trap(rt, site, 0, "out of memory");
    }
    m->bufn = bn;
    m->capbufs = cap;
  }
  v.p = (uint8_t *)calloc(n ? n : 1, esize);
  if (!v.p) {
    rt->total -= c;
    cairn_rt_trap(rt, site, 0, "out of memory");
  }
  if (data) memcpy(v.p, data, (size_t)n * esize);
  v.n = n;
  m->bufs[m->nbufs] = v.p;
  m->bufn[m->nbufs++] = c;  /* what the release gives back */
  return v;
}
static CAIRN_RT_UNUSED cairn_view cairn_m_buffer(cairn_rt *rt, uint32_t site, uint64_t n, int negative, size_t esize,
                                                 const void *data) {
  return cairn_m_buffer_k(rt, site, n, negative, esize, data, 1);
}
static CAIRN_RT_UNUSED cairn_view cairn_m_frame_heap(cairn_rt *rt, uint32_t site, uint64_t n, size_t esize, const void *data) {
  return cairn_m_buffer_k(rt, site, n, 0, esize, data, 0);
}

/* Releases the calloc'ed buffers made since `mark`. */
CAIRN_RT_INLINE void cairn_m_release(cairn_rt *rt, size_t mark) {
  cairn_mstate *m = rt->m;
  while (m->nbufs > mark) {
    --m->nbufs;
    free(m->bufs[m->nbufs]);
    rt->total -= m->bufn[m->nbufs];
  }
}

/* ---- views -------------------------------------------------------------------- */

/* shrink (proven in bounds) and checked_shrink: `size` elements at `off`. */
CAIRN_RT_INLINE cairn_view cairn_m_sub(cairn_view v, uint64_t off, uint64_t size, size_t esize) {
  cairn_view r;
  r.p = v.p + off * esize;
  r.n = size;
  return r;
}
CAIRN_RT_INLINE cairn_view cairn_m_csub(cairn_rt *rt, uint32_t site, cairn_view v, uint64_t off, int sgn, uint64_t size,
                                        size_t esize) {
  if (off > v.n || v.n - off < size) cairn_rt_cshrink_trap(rt, site, 0, off, sgn, size, v.n);
  return cairn_m_sub(v, off, size, esize);
}
/* An element index, checked (a checked_shrink of one element fused with its
 * access, or any access under checkAccesses). */
CAIRN_RT_INLINE uint64_t cairn_m_index(cairn_rt *rt, uint32_t site, cairn_view v, uint64_t off, int sgn) {
  if (off >= v.n) cairn_rt_cshrink_trap(rt, site, 0, off, sgn, 1, v.n);
  return off;
}

static _Noreturn CAIRN_RT_COLD void cairn_m_part_trap(cairn_rt *rt, uint32_t site, uint64_t lo, uint64_t hi, uint64_t n) {
  cairn_rt_trap(rt, site, 0, "part [%llu, %llu) out of range for a view of %llu elements", (unsigned long long)lo,
                (unsigned long long)hi, (unsigned long long)n);
}
CAIRN_RT_INLINE cairn_view cairn_m_part(cairn_rt *rt, uint32_t site, cairn_view v, uint64_t lo, uint64_t hi, size_t esize) {
  if (lo > hi || hi > v.n) cairn_m_part_trap(rt, site, lo, hi, v.n);
  return cairn_m_sub(v, lo, hi - lo, esize);
}

/* ---- the heap ------------------------------------------------------------------ */

/* Puts a released object's index on the free list. */
static CAIRN_RT_COLD int cairn_m_push_free(cairn_mstate *m, uint32_t idx) {
  if (m->nfree == m->capfree) {
    size_t cap = m->capfree;
    uint32_t *f = (uint32_t *)cairn_m_grow(m->freeobjs, &cap, (size_t)m->nfree + 1, sizeof *f);
    if (!f) return 0;
    m->freeobjs = f;
    m->capfree = (uint32_t)cap;
  }
  m->freeobjs[m->nfree++] = idx;
  return 1;
}

static CAIRN_RT_UNUSED uint64_t cairn_m_alloc(cairn_rt *rt, uint32_t site, uint64_t n, const int8_t *codes, uint32_t ncols) {
  cairn_mstate *m = rt->m;
  uint64_t total;
  uint32_t idx, c;
  cairn_mobj *ob;
  if (__builtin_mul_overflow(n, (uint64_t)ncols, &total)) cairn_m_oom(rt, site, total ? total : n);
  if (total > rt->limit || rt->total > rt->limit - total) cairn_m_oom(rt, site, total ? total : n);
  rt->total += total;
  if (m->nfree) {
    idx = m->freeobjs[--m->nfree];
  } else {
    if (m->nobjs >= UINT32_MAX - 1) {
      rt->total -= total;
      cairn_rt_trap(rt, site, 0, "out of memory: too many heap objects");
    }
    if (m->nobjs == m->capobjs) {
      size_t cap = m->capobjs;
      cairn_mobj *o = (cairn_mobj *)cairn_m_grow(m->objs, &cap, (size_t)m->nobjs + 1, sizeof *o);
      if (!o) {
        rt->total -= total;
        cairn_rt_trap(rt, site, 0, "out of memory");
      }
      m->objs = o;
      m->capobjs = (uint32_t)cap;
    }
    memset(&m->objs[m->nobjs], 0, sizeof m->objs[0]);
    m->objs[m->nobjs].gen = 1;
    idx = m->nobjs++;
  }
  ob = &m->objs[idx];
  ob->n = n;
  ob->ncols = ncols;
  ob->codes = codes;
  ob->cols = (uint8_t **)calloc(ncols ? ncols : 1, sizeof *ob->cols);
  for (c = 0; ob->cols && c < ncols; ++c) {
    size_t es = codes[c] == CAIRN_OWN ? 8 : cairn_rt_esize(codes[c]);
    ob->cols[c] = n > (SIZE_MAX - 8) / es ? NULL : (uint8_t *)calloc(n ? n : 1, es);
    if (!ob->cols[c]) break;
  }
  if (!ob->cols || c < ncols) {
    uint32_t k;
    for (k = 0; ob->cols && k < c; ++k) free(ob->cols[k]);
    free(ob->cols);
    ob->cols = NULL;
    rt->total -= total;
    if (!cairn_m_push_free(m, idx)) cairn_m_internal(rt, "out of memory in alloc");
    cairn_rt_trap(rt, site, 0, "out of memory");
  }
  ob->live = 1;
  return ((uint64_t)ob->gen << 32) | (uint64_t)(idx + 1);
}

CAIRN_RT_INLINE cairn_mobj *cairn_m_object(cairn_rt *rt, uint64_t h) {
  uint64_t idx = h & 0xffffffffu;
  cairn_mobj *ob;
  if (idx == 0 || idx > rt->m->nobjs) return NULL;
  ob = &rt->m->objs[idx - 1];
  return ob->live && ob->gen == (uint32_t)(h >> 32) ? ob : NULL;
}

/* Deep free with an explicit work list, in the interpreter's order (the
 * last pushed first; children in element order). */
static CAIRN_RT_UNUSED void cairn_m_free(cairn_rt *rt, uint64_t h) {
  cairn_mstate *m = rt->m;
  uint64_t *work = NULL;
  size_t nwork = 0, capwork = 0;
  if (h == 0) return;
  work = (uint64_t *)cairn_m_grow(NULL, &capwork, 1, sizeof *work);
  if (!work) cairn_m_internal(rt, "out of memory in free");
  work[nwork++] = h;
  while (nwork) {
    uint64_t x = work[--nwork], k;
    uint32_t c, idx;
    cairn_mobj *ob;
    if (x == 0) continue;
    ob = cairn_m_object(rt, x);
    if (!ob) {
      free(work);
      cairn_m_internal(rt, "double free: heap object %llu was already released", (unsigned long long)x);
    }
    for (c = 0; c < ob->ncols; ++c) {
      if (ob->codes[c] == CAIRN_OWN)
        for (k = 0; k < ob->n; ++k) {
          uint64_t child;
          memcpy(&child, ob->cols[c] + k * 8, 8);
          if (!child) continue;
          if (nwork == capwork) {
            uint64_t *w = (uint64_t *)cairn_m_grow(work, &capwork, nwork + 1, sizeof *w);
            if (!w) {
              free(work);
              cairn_m_internal(rt, "out of memory in free");
            }
            work = w;
          }
          work[nwork++] = child;
        }
      free(ob->cols[c]);
    }
    free(ob->cols);
    ob->cols = NULL;
    rt->total -= ob->n * ob->ncols;
    ob->live = 0;
    ++ob->gen;
    idx = (uint32_t)((x & 0xffffffffu) - 1);
    if (!cairn_m_push_free(m, idx)) {
      free(work);
      cairn_m_internal(rt, "out of memory in free");
    }
  }
  free(work);
}

/* Column `col` of object h as a view of dtype t (handle 0: an empty view). */
CAIRN_RT_INLINE cairn_view cairn_m_deref(cairn_rt *rt, uint64_t h, uint32_t col, int t) {
  cairn_view v;
  cairn_mobj *ob;
  v.p = NULL;
  v.n = 0;
  if (h == 0) return v;
  ob = cairn_m_object(rt, h);
  if (!ob) cairn_m_internal(rt, "use of a released heap object");
  if (col >= ob->ncols || (ob->codes[col] == CAIRN_OWN ? t != CAIRN_U64 : ob->codes[col] != t))
    cairn_m_internal(rt, "deref of a column the object does not have");
  v.p = ob->cols[col];
  v.n = ob->n;
  return v;
}

/* ---- calls, guards, print ------------------------------------------------------ */

/* Frames on the call stack, main included (ModuleRunOptions::maxCallDepth).
 * Each function takes its depth as a parameter; a call at the limit traps. */
#define CAIRN_M_MAX_DEPTH 10000u
static _Noreturn CAIRN_RT_COLD void cairn_m_overflow(cairn_rt *rt, uint32_t site) {
  cairn_rt_trap(rt, site, 0, "stack overflow (call depth %u)", (unsigned)CAIRN_M_MAX_DEPTH);
}

/* A guard's message is bytes (it may hold a NUL: msg="a\x00b"). */
static _Noreturn CAIRN_RT_COLD void cairn_m_guard_fail(cairn_rt *rt, uint32_t site, const char *msg, size_t len) {
  cairn_rt_trap_begin(rt, site, 0);
  fwrite(msg, 1, len, rt->err);
  cairn_rt_trap_end(rt, site);
}

static CAIRN_RT_UNUSED void cairn_m_print(cairn_rt *rt, int t, const void *p) {
  char text[128];
  if (t == CAIRN_BOOL) {
    fputs(*(const uint8_t *)p ? "true" : "false", rt->out);
    return;
  }
  cairn_rt_value_text(t, p, 0, 0, text);
  fputs(text, rt->out);
}
CAIRN_RT_INLINE void cairn_m_print_bytes(cairn_rt *rt, cairn_view v) {
  if (v.n) fwrite(v.p, 1, (size_t)v.n, rt->out);
}

/* ---- checked arithmetic and conversions ------------------------------------------ */

static _Noreturn CAIRN_RT_COLD void cairn_m_arith(cairn_rt *rt, uint32_t site, int zero) {
  cairn_rt_trap(rt, site, 0, zero ? "division by zero" : "arithmetic overflow");
}
#define CAIRN_RT_CHECKED(S, T, SGN, TMIN)                                                                  \
  CAIRN_RT_INLINE T cairn_cadd_##S(cairn_rt *rt, uint32_t site, T a, T b) {                                \
    T r;                                                                                                 \
    if (__builtin_add_overflow(a, b, &r)) cairn_m_arith(rt, site, 0);                                    \
    return r;                                                                                            \
  }                                                                                                      \
  CAIRN_RT_INLINE T cairn_csub_##S(cairn_rt *rt, uint32_t site, T a, T b) {                                \
    T r;                                                                                                 \
    if (__builtin_sub_overflow(a, b, &r)) cairn_m_arith(rt, site, 0);                                    \
    return r;                                                                                            \
  }                                                                                                      \
  CAIRN_RT_INLINE T cairn_cmul_##S(cairn_rt *rt, uint32_t site, T a, T b) {                                \
    T r;                                                                                                 \
    if (__builtin_mul_overflow(a, b, &r)) cairn_m_arith(rt, site, 0);                                    \
    return r;                                                                                            \
  }                                                                                                      \
  CAIRN_RT_INLINE T cairn_cdiv_##S(cairn_rt *rt, uint32_t site, T a, T b) {                                \
    if (b == 0) cairn_m_arith(rt, site, 1);                                                              \
    if (SGN && a == TMIN && b == (T)-1) cairn_m_arith(rt, site, 0);                                      \
    return (T)(a / b);                                                                                   \
  }                                                                                                      \
  CAIRN_RT_INLINE T cairn_cmod_##S(cairn_rt *rt, uint32_t site, T a, T b) {                                \
    if (b == 0) cairn_m_arith(rt, site, 1);                                                              \
    if (SGN && a == TMIN && b == (T)-1) cairn_m_arith(rt, site, 0);                                      \
    return (T)(a % b);                                                                                   \
  }
CAIRN_RT_CHECKED(i8, int8_t, 1, INT8_MIN)
CAIRN_RT_CHECKED(i16, int16_t, 1, INT16_MIN)
CAIRN_RT_CHECKED(i32, int32_t, 1, INT32_MIN)
CAIRN_RT_CHECKED(i64, int64_t, 1, INT64_MIN)
CAIRN_RT_CHECKED(u8, uint8_t, 0, 0)
CAIRN_RT_CHECKED(u16, uint16_t, 0, 0)
CAIRN_RT_CHECKED(u32, uint32_t, 0, 0)
CAIRN_RT_CHECKED(u64, uint64_t, 0, 0)
#undef CAIRN_RT_CHECKED

static _Noreturn CAIRN_RT_COLD void cairn_m_nofit(cairn_rt *rt, uint32_t site, const char *to) {
  cairn_rt_trap(rt, site, 0, "value does not fit %s", to);
}
/* checked_cast from an integer (or bool): v the value (signed sources
 * sign-extended), lo/hi the target's range. */
CAIRN_RT_INLINE int64_t cairn_m_fit_s(cairn_rt *rt, uint32_t site, int64_t v, int64_t lo, uint64_t hi, const char *to) {
  if (v < lo || (v > 0 && (uint64_t)v > hi)) cairn_m_nofit(rt, site, to);
  return v;
}
CAIRN_RT_INLINE uint64_t cairn_m_fit_u(cairn_rt *rt, uint32_t site, uint64_t v, uint64_t hi, const char *to) {
  if (v > hi) cairn_m_nofit(rt, site, to);
  return v;
}
/* From a float: truncated toward zero; NaN and infinities never fit. The
 * range is [lo, hi) with lo, hi powers of two (exact as doubles). */
CAIRN_RT_INLINE double cairn_m_fit_f(cairn_rt *rt, uint32_t site, double v, double lo, double hi, const char *to) {
  double t;
  if (v != v) cairn_m_nofit(rt, site, to);
  t = trunc(v);
  if (!(t >= lo && t < hi)) cairn_m_nofit(rt, site, to);
  return t;
}

/* ---- the driver ---------------------------------------------------------------- */

typedef struct {
  const cairn_mmod *mod;
  cairn_rt *rt;
  int32_t value;
  int status;
} cairn_m_job;

static void *cairn_m_thread(void *arg) {
  cairn_m_job *j = (cairn_m_job *)arg;
  if (setjmp(j->rt->jb)) {
    j->status = j->rt->status;
    return NULL;
  }
  j->value = j->mod->entry(j->rt);
  j->status = CAIRN_OK;
  return NULL;
}

/* Whether `need` bytes of stack fit the calling thread: a quarter of its
 * limit or less (the rest is the caller's and the C library's). */
static int cairn_m_stack_fits(uint64_t need) {
  struct rlimit rl;
  if (need == 0 || getrlimit(RLIMIT_STACK, &rl) != 0) return 0;
  return rl.rlim_cur == RLIM_INFINITY || need <= (uint64_t)rl.rlim_cur / 4;
}

static void cairn_m_cleanup(cairn_mstate *m) {
  uint32_t i, c;
  while (m->nbufs) free(m->bufs[--m->nbufs]);
  for (i = 0; i < m->nobjs; ++i)
    if (m->objs[i].live) {
      for (c = 0; c < m->objs[i].ncols; ++c) free(m->objs[i].cols[c]);
      free(m->objs[i].cols);
    }
  free(m->bufs);
  free(m->bufn);
  free(m->objs);
  free(m->freeobjs);
}

/* Runs main of one module: args are the options (no program name). Returns
 * the exit status; the program's output goes to out, diagnostics to err. */
static CAIRN_RT_UNUSED int cairn_m_run(const cairn_mmod *mod, int nargs, char **args, FILE *out, FILE *err) {
  cairn_rt rt;
  cairn_mstate m;
  cairn_m_job job;
  pthread_t th;
  pthread_attr_t attr;
  int i, status;
  uint32_t k, leaked = 0;
  memset(&rt, 0, sizeof rt);
  memset(&m, 0, sizeof m);
  rt.out = out;
  rt.err = err;
  rt.limit = (uint64_t)1 << 28;
  rt.msites = mod->sites;
  rt.msrc = mod->src;
  rt.m = &m;
  for (i = 0; i < nargs; ++i) {
    char *e;
    if (!strcmp(args[i], "--max-elements") && i + 1 < nargs) {
      errno = 0;
      rt.limit = strtoull(args[++i], &e, 10);
      if (*e || errno || args[i][0] == '-' || !args[i][0]) {
        fprintf(err, "cairn: error: --max-elements %s: not a count\n", args[i]);
        return CAIRN_USAGE;
      }
    } else {
      fprintf(err, "cairn: error: unknown option %s (PROG [--max-elements N])\n", args[i]);
      return CAIRN_USAGE;
    }
  }
  job.mod = mod;
  job.rt = &rt;
  job.value = 0;
  job.status = CAIRN_USAGE;
  /* A module whose stack the emitter estimates, within what this thread
   * has, runs here. Any other runs on a thread of its own: 10000 frames of the
   * largest functions fit in its 1 GiB of address space (reserved, touched
   * only as deep as the program goes). The thread is not free: a run of
   * bench/cairn/checksum.cairn (10 ms) took about 1 ms longer with it. */
  if (cairn_m_stack_fits(mod->stack)) {
    cairn_m_thread(&job);
  } else {
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)1 << 30);
    if (pthread_create(&th, &attr, cairn_m_thread, &job) == 0)
      pthread_join(th, NULL);
    else
      cairn_m_thread(&job);
    pthread_attr_destroy(&attr);
  }
  fflush(out);
  status = job.status;
  if (status == CAIRN_OK) {
    for (k = 0; k < m.nobjs; ++k) leaked += m.objs[k].live ? 1u : 0u;
    if (leaked) {
      fprintf(err, "%s: error: internal error: %u heap object(s) were never released (a bug in the lowering)\n", mod->src,
              (unsigned)leaked);
      status = CAIRN_MINTERNAL;
    } else {
      status = (int)((uint32_t)job.value & 255u);
    }
  }
  cairn_m_cleanup(&m);
  fflush(err);
  return status;
}

/* Many modules in one executable (emitModuleCBatch): cairn_rt_batch. */
static CAIRN_RT_UNUSED int cairn_m_run_k(const void *mods, uint32_t k, int argc, char **argv, FILE *out, FILE *err) {
  return cairn_m_run(((const cairn_mmod *const *)mods)[k], argc, argv, out, err);
}

static CAIRN_RT_UNUSED int cairn_m_batch_main(const cairn_mmod *const *mods, uint32_t n, int argc, char **argv) {
  return cairn_rt_batch((const void *)mods, n, cairn_m_run_k, "--max-elements N", argc, argv);
}
