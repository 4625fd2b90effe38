/* gpu/cairn_cu.h: the run-time support of the CUDA C++ that `cairn emit cuda`
 * writes (gpu/emit_cuda.cpp). Pasted into every .cu it writes, after
 * gpu/cuda_emu.h (the CPU stand-in for nvcc's CUDA, unused under nvcc) and
 * runtime/cairn_rt.h (the C back end's runtime: scalar helpers, buffers,
 * --slot, the driver and its output, all host code here), so an emitted .cu
 * compiles alone: `nvcc -O2 -std=c++17 --fmad=false prog.cu`, or without a
 * GPU `c++ -O1 -std=c++20 -pthread -x c++ prog.cu`.
 *
 * What it adds:
 *   - the launch shape: CAIRN_CU_BLOCK threads per block (a power of two,
 *     for the block reductions), at most CAIRN_CU_GRID_MAX blocks (kernels
 *     loop over the rest, grid-stride). On the CPU both are small (8 and 3),
 *     so the golden programs exercise several blocks and the grid-stride
 *     loop even at a few dozen elements;
 *   - device traps: a trapping op (idiv, mod, checked_shrink) on the device
 *     records its site and operands in one cairn_cu_trap in device memory
 *     and makes its lane stop (the emitted code jumps to the lane's end).
 *     Of all traps the record keeps the first in the interpreter's order:
 *     the lowest launch number, and within a launch the lowest lane (the
 *     index of the kernel's parallel range; a one-thread kernel is lane 0).
 *     Every launch after a trapped one returns at once, and the host reads
 *     the record before it uses any value from the device, every 64
 *     iterations of a host loop and at the end, and then reports the trap
 *     as the C runtime does;
 *   - the spill: device scalars that one kernel computes and another (or
 *     the host) uses, as 64-bit cells;
 *   - host glue: device memory for every buffer (copied in before the run,
 *     the slot buffers copied back after it), launches, errors.
 * CUDA errors are internal errors (exit 70, "internal error"), except an
 * allocation that fails (exit 2, "out of device memory"), and no device at
 * all (exit 2, "no CUDA device"). After a trap, device memory is not freed
 * (the process ends). */
#ifndef CAIRN_CU_H
#define CAIRN_CU_H

#ifndef CAIRN_CU_BLOCK
#ifdef __CUDACC__
#define CAIRN_CU_BLOCK 256
#else
#define CAIRN_CU_BLOCK 8
#endif
#endif
#ifndef CAIRN_CU_GRID_MAX
#ifdef __CUDACC__
#define CAIRN_CU_GRID_MAX 8192
#else
#define CAIRN_CU_GRID_MAX 3
#endif
#endif

typedef unsigned long long cairn_cu_u64;

/* The first trap of a run, in device memory. seq = ~0: none yet. */
typedef struct {
  cairn_cu_u64 seq, lane;
  unsigned lock, kind, line, col;
  cairn_cu_u64 a[4];
} cairn_cu_trap;
enum { CAIRN_CU_TRAP_DIV = 1, CAIRN_CU_TRAP_CSHRINK = 2 };

/* A lane's view of the trap record: its launch and lane, and whether it hit
 * a trap (then the emitted code leaves the lane). */
typedef struct {
  cairn_cu_trap *t;
  cairn_cu_u64 seq, lane;
  int hit;
} cairn_cu_lane;

/* Records a trap unless an earlier one (launch, lane) is there already. */
static __device__ void cairn_cu_raise(cairn_cu_lane *cx, unsigned kind, uint32_t line, uint32_t col, cairn_cu_u64 a0,
                                      cairn_cu_u64 a1, cairn_cu_u64 a2, cairn_cu_u64 a3) {
  volatile cairn_cu_trap *v = cx->t;
  cx->hit = 1;
  while (atomicCAS(&cx->t->lock, 0u, 1u) != 0u) {
  }
  __threadfence();
  if (cx->seq < v->seq || (cx->seq == v->seq && cx->lane < v->lane)) {
    v->kind = kind;
    v->line = line;
    v->col = col;
    v->a[0] = a0;
    v->a[1] = a1;
    v->a[2] = a2;
    v->a[3] = a3;
    v->lane = cx->lane;
    v->seq = cx->seq;
  }
  __threadfence();
  atomicExch(&cx->t->lock, 0u);
}

/* Whether an earlier launch trapped: then this one does nothing. The same
 * answer for every thread of a launch (earlier launches have finished). */
static __device__ __forceinline__ int cairn_cu_stale(const cairn_cu_trap *t, cairn_cu_u64 seq) {
  return ((const volatile cairn_cu_trap *)t)->seq < seq;
}

/* Whether a lane below `lane` of launch seq (or an earlier launch) has
 * trapped: then no later lane of this thread can be the first trap. */
static __device__ __forceinline__ int cairn_cu_passed(const cairn_cu_trap *t, cairn_cu_u64 seq, cairn_cu_u64 lane) {
  const volatile cairn_cu_trap *v = (const volatile cairn_cu_trap *)t;
  cairn_cu_u64 s = v->seq;
  return s < seq || (s == seq && v->lane < lane);
}

/* The trapping helpers on the device: the C runtime's names and operands,
 * the lane record in place of `rt`; after a trap they return 0 and the
 * caller leaves the lane. */
static __device__ __forceinline__ int64_t cairn_rt_cshrink(cairn_cu_lane *cx, uint32_t line, uint32_t col, uint64_t off,
                                                           int sgn, uint64_t size, uint64_t pn) {
  if (off > pn || pn - off < size) {
    cairn_cu_raise(cx, CAIRN_CU_TRAP_CSHRINK, line, col, off, (cairn_cu_u64)sgn, size, pn);
    return 0;
  }
  return (int64_t)off;
}
#define CAIRN_CU_DIV(S, T)                                                                                    \
  static __device__ __forceinline__ T cairn_idiv_##S(cairn_cu_lane *cx, uint32_t l, uint32_t c, T a, T b) {   \
    if (b == 0) {                                                                                             \
      cairn_cu_raise(cx, CAIRN_CU_TRAP_DIV, l, c, 0, 0, 0, 0);                                                \
      return 0;                                                                                               \
    }                                                                                                         \
    return cairn_idivnz_##S(a, b);                                                                            \
  }                                                                                                           \
  static __device__ __forceinline__ T cairn_mod_##S(cairn_cu_lane *cx, uint32_t l, uint32_t c, T a, T b) {    \
    if (b == 0) {                                                                                             \
      cairn_cu_raise(cx, CAIRN_CU_TRAP_DIV, l, c, 0, 0, 0, 0);                                                \
      return 0;                                                                                               \
    }                                                                                                         \
    return cairn_modnz_##S(a, b);                                                                             \
  }
CAIRN_CU_DIV(bool, cairn_bool)
CAIRN_CU_DIV(i8, int8_t)
CAIRN_CU_DIV(i16, int16_t)
CAIRN_CU_DIV(i32, int32_t)
CAIRN_CU_DIV(i64, int64_t)
CAIRN_CU_DIV(u8, uint8_t)
CAIRN_CU_DIV(u16, uint16_t)
CAIRN_CU_DIV(u32, uint32_t)
CAIRN_CU_DIV(u64, uint64_t)
#undef CAIRN_CU_DIV

/* Spill cells: a scalar's bits in the low bytes of a 64-bit cell. */
template <class T> static __device__ __forceinline__ T cairn_cu_get(const cairn_cu_u64 *sp, unsigned k) {
  T v;
  memcpy(&v, &sp[k], sizeof v);
  return v;
}
template <class T> static __device__ __forceinline__ void cairn_cu_put(cairn_cu_u64 *sp, unsigned k, T v) {
  cairn_cu_u64 b = 0;
  memcpy(&b, &v, sizeof v);
  sp[k] = b;
}

/* ---- the host side ---------------------------------------------------------- */

/* One run's device state. */
typedef struct {
  cairn_rt *rt;
  cairn_cu_trap *trap;
  cairn_cu_u64 *spill;
  cairn_cu_u64 seq;   /* the launch number of the last launch */
  cairn_cu_u64 iters; /* host loop iterations run (a trap is looked for every 64) */
  void **allocs;    /* every device allocation, freed at the end of a run that did not trap */
  size_t nallocs, cap;
} cairn_cu_host;

static _Noreturn CAIRN_RT_COLD void cairn_cu_fail(cairn_cu_host *h, cudaError_t e, const char *what) {
  cairn_rt *rt = h->rt;
  if (e == cudaErrorMemoryAllocation) {
    fprintf(rt->err, "cairn: error: out of device memory (%s)\n", what);
    rt->status = CAIRN_USAGE;
  } else {
#ifdef __CUDACC__
    fprintf(rt->err, "cairn: error: internal error: CUDA: %s: %s\n", what, cudaGetErrorString(e));
#else
    fprintf(rt->err, "cairn: error: internal error: CUDA (emulated): %s: %s%s%s\n", what, cudaGetErrorString(e),
            cairn_emu::lastMessage().empty() ? "" : ": ", cairn_emu::lastMessage().c_str());
#endif
    rt->status = CAIRN_MINTERNAL;
  }
  longjmp(rt->jb, 1);
}
static void cairn_cu_ok(cairn_cu_host *h, cudaError_t e, const char *what) {
  if (e != cudaSuccess) cairn_cu_fail(h, e, what);
}

/* Device memory of n bytes (zeroed), remembered for cairn_cu_end. */
static void *cairn_cu_alloc(cairn_cu_host *h, size_t n) {
  void *p = NULL;
  if (h->nallocs == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    void **a = (void **)realloc(h->allocs, cap * sizeof *a);
    if (!a) cairn_cu_fail(h, cudaErrorMemoryAllocation, "host bookkeeping");
    h->allocs = a;
    h->cap = cap;
  }
  cairn_cu_ok(h, cudaMalloc(&p, n ? n : 1), "cudaMalloc");
  h->allocs[h->nallocs++] = p;
  cairn_cu_ok(h, cudaMemset(p, 0, n ? n : 1), "cudaMemset");
  return p;
}
/* n elements of `size` bytes: out of device memory when the bytes do not
 * fit a size_t. */
static void *cairn_cu_alloc_n(cairn_cu_host *h, cairn_cu_u64 n, size_t size) {
  if (n > (SIZE_MAX - 8) / size) cairn_cu_fail(h, cudaErrorMemoryAllocation, "a scratch array");
  return cairn_cu_alloc(h, (size_t)n * size);
}
/* A device copy of n bytes of host memory. */
static void *cairn_cu_mirror(cairn_cu_host *h, const void *host, size_t n) {
  void *p = cairn_cu_alloc(h, n);
  if (n) cairn_cu_ok(h, cudaMemcpy(p, host, n, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  return p;
}

static void cairn_cu_begin(cairn_cu_host *h, cairn_rt *rt, unsigned nspill) {
  cairn_cu_trap t;
  int n = 0;
  memset(h, 0, sizeof *h);
  h->rt = rt;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    fprintf(rt->err, "cairn: error: no CUDA device\n");
    rt->status = CAIRN_USAGE;
    longjmp(rt->jb, 1);
  }
  memset(&t, 0, sizeof t);
  t.seq = t.lane = ~0ull;
  h->trap = (cairn_cu_trap *)cairn_cu_mirror(h, &t, sizeof t);
  h->spill = (cairn_cu_u64 *)cairn_cu_alloc(h, (size_t)nspill * sizeof(cairn_cu_u64));
}

/* Reports the device's trap, if there is one (as the C runtime would have). */
static void cairn_cu_check(cairn_cu_host *h) {
  cairn_cu_trap t;
  cairn_cu_ok(h, cudaDeviceSynchronize(), "a kernel");
  cairn_cu_ok(h, cudaMemcpy(&t, h->trap, sizeof t, cudaMemcpyDeviceToHost), "cudaMemcpy of the trap record");
  if (t.seq == ~0ull) return;
  if (t.kind == CAIRN_CU_TRAP_DIV) cairn_rt_trap_div(h->rt, t.line, t.col);
  cairn_rt_cshrink_trap(h->rt, t.line, t.col, t.a[0], (int)t.a[1], t.a[2], t.a[3]);
  cairn_rt_trap(h->rt, t.line, t.col, "unknown device trap");
}

/* A spill cell's value on the host, once every earlier launch is done (and
 * none trapped). */
template <class T> static T cairn_cu_read(cairn_cu_host *h, unsigned k) {
  cairn_cu_u64 b = 0;
  T v;
  cairn_cu_check(h);
  cairn_cu_ok(h, cudaMemcpy(&b, h->spill + k, sizeof b, cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
  memcpy(&v, &b, sizeof v);
  return v;
}
template <class T> static void cairn_cu_write(cairn_cu_host *h, unsigned k, T v) {
  cairn_cu_u64 b = 0;
  memcpy(&b, &v, sizeof v);
  cairn_cu_ok(h, cudaMemcpy(h->spill + k, &b, sizeof b, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

/* Blocks for n lanes. */
static unsigned cairn_cu_grid(cairn_cu_u64 n) {
  cairn_cu_u64 b = (n + CAIRN_CU_BLOCK - 1) / CAIRN_CU_BLOCK;
  return (unsigned)(b < CAIRN_CU_GRID_MAX ? b : CAIRN_CU_GRID_MAX);
}
static void cairn_cu_launched(cairn_cu_host *h) { cairn_cu_ok(h, cudaGetLastError(), "a kernel launch"); }

/* The end of a run: the last trap check, buffer bi's device copy back into
 * its host storage (slot buffers, which the driver prints), and device
 * memory freed. */
static void cairn_cu_copy_back(cairn_cu_host *h, uint32_t bi, const void *dev) {
  cairn_rt *rt = h->rt;
  size_t n = (size_t)rt->bufs[bi].n * cairn_rt_esize(rt->prog->bufs[bi].dtype);
  if (n) cairn_cu_ok(h, cudaMemcpy(rt->bufs[bi].p, dev, n, cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
}
/* Frees one allocation before the end (a per-launch scratch array). */
static void cairn_cu_release(cairn_cu_host *h, void *p) {
  size_t k;
  for (k = 0; k < h->nallocs; ++k)
    if (h->allocs[k] == p) {
      cudaFree(p);
      h->allocs[k] = h->allocs[--h->nallocs];
      return;
    }
}
static void cairn_cu_end(cairn_cu_host *h) {
  size_t k;
  for (k = 0; k < h->nallocs; ++k) cudaFree(h->allocs[k]);
  free(h->allocs);
  h->allocs = NULL;
  h->nallocs = h->cap = 0;
}

#endif /* CAIRN_CU_H */
