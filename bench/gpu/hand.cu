// bench/gpu/hand.cu: the benchmark's jobs written by hand, the yardstick for
// the emitted kernels (README.md). Ordinary good practice for a bandwidth
// kernel, nothing exotic: float4 loads and stores, one vector per thread
// for the streams, a grid-stride loop with warp shuffles for the dot
// product, 32 x 32 shared-memory tiles for the transpose (coalesced reads
// AND writes, which the emitted code cannot do: see README.md). Inputs are
// filled exactly as the .uir init loops fill them (bench/gpu/gen_uir.sh),
// so the check values are the same numbers. Float arithmetic uses __fmul_rn
// and __fadd_rn (never contracted, whatever the flags), as the emitted code
// does under --fmad=false.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "bench.h"

namespace {

constexpr int kBlock = 256;

bool ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "hand: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}
unsigned blocksFor(long long n, int per) { return (unsigned)((n + (long long)per - 1) / per); }

// ---- init (not timed): the .uir init loops, element for element ------------
__global__ void initLow24(float *a, long long n) {  // a[i] = i & 0xFFFFFF (copy, transpose)
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    a[i] = (float)(i & 16777215);
}
__global__ void initTriad(float *b, float *c, long long n) {  // b = i & 1023, c = (i >> 10) & 1023
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    b[i] = (float)(i & 1023);
    c[i] = (float)((i >> 10) & 1023);
  }
}
__global__ void initDot(float *a, float *b, long long n) {  // a = i & 3, b = 2 - 3 * ((i >> 2) & 1)
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    a[i] = (float)(i & 3);
    b[i] = (float)(2 - 3 * ((i >> 2) & 1));
  }
}

// ---- the jobs (timed) ---------------------------------------------------------
__global__ void copy4(const float4 *__restrict__ a, float4 *__restrict__ b, long long n4) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n4) b[i] = a[i];
}

__global__ void triad4(float4 *__restrict__ a, const float4 *__restrict__ b, const float4 *__restrict__ c, float s,
                       long long n4) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 x = b[i], y = c[i];
    a[i] = make_float4(__fadd_rn(x.x, __fmul_rn(s, y.x)), __fadd_rn(x.y, __fmul_rn(s, y.y)),
                       __fadd_rn(x.z, __fmul_rn(s, y.z)), __fadd_rn(x.w, __fmul_rn(s, y.w)));
  }
}

// A block's sum of v (every thread's), in thread 0: warp shuffles, then the
// warps' sums through shared memory.
__device__ float blockSum(float v) {
  __shared__ float warp[32];
  for (int o = 16; o > 0; o >>= 1) v = __fadd_rn(v, __shfl_down_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0) warp[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x >> 5) ? warp[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1) v = __fadd_rn(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}
// Pass 1: each block's partial sum of a*b (grid-stride over float4s).
__global__ void dotPartial(const float4 *__restrict__ a, const float4 *__restrict__ b, long long n4,
                           float *__restrict__ part) {
  float acc = 0.0f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    const float4 x = a[i], y = b[i];
    acc = __fadd_rn(acc, __fadd_rn(__fadd_rn(__fmul_rn(x.x, y.x), __fmul_rn(x.y, y.y)),
                                   __fadd_rn(__fmul_rn(x.z, y.z), __fmul_rn(x.w, y.w))));
  }
  acc = blockSum(acc);
  if (threadIdx.x == 0) part[blockIdx.x] = acc;
}
// Pass 2: one block of 1024 threads sums the partials.
__global__ void dotFinal(const float *__restrict__ part, int nb, float *__restrict__ out) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < nb; i += blockDim.x) acc = __fadd_rn(acc, part[i]);
  acc = blockSum(acc);
  if (threadIdx.x == 0) *out = acc;
}

// out (C x R) = in (R x C) transposed; 32 x 32 tiles, 32 x 8 threads, the
// tile padded to 33 columns against shared-memory bank conflicts.
constexpr int kTile = 32, kRowsPerPass = 8;
__global__ void transposeTiled(const float *__restrict__ in, float *__restrict__ out, long long R, long long C) {
  __shared__ float t[kTile][kTile + 1];
  long long col = blockIdx.x * (long long)kTile + threadIdx.x, row = blockIdx.y * (long long)kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kRowsPerPass) t[threadIdx.y + k][threadIdx.x] = in[(row + k) * C + col];
  __syncthreads();
  col = blockIdx.y * (long long)kTile + threadIdx.x;  // a column of out: a row of in
  row = blockIdx.x * (long long)kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kRowsPerPass) out[(row + k) * R + col] = t[threadIdx.x][threadIdx.y + k];
}

// ---- the state of the current job ------------------------------------------
enum Job { None, Copy, Triad, Dot, Transpose };
Job g_job = None;
float *g_a, *g_b, *g_c, *g_part, *g_sum;  // copy: a -> b; triad: a = b + s c; dot: a, b; transpose: a -> b
unsigned g_dotBlocks;

}  // namespace

bool hand_setup(const char *job) {
  const size_t bytes = (size_t)kN * sizeof(float);
  static_assert(kN % 4 == 0 && kRows % kTile == 0, "the hand kernels want N % 4 == 0 and R % 32 == 0");
  g_job = !std::strcmp(job, "copy") ? Copy : !std::strcmp(job, "triad") ? Triad : !std::strcmp(job, "dot") ? Dot
          : !std::strcmp(job, "transpose") ? Transpose : None;
  if (g_job == None) return std::fprintf(stderr, "hand: no job `%s`\n", job), false;
  int dev = 0, sms = 0;
  if (!ok(cudaGetDevice(&dev), "cudaGetDevice") ||
      !ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute"))
    return false;
  // Dot: 16 blocks of 256 per SM (two full loads of 2048 threads); an even
  // float4 stride keeps each thread on one parity of the .uir's data, so every
  // partial sum is an exact float.
  g_dotBlocks = (unsigned)(16 * sms);
  if (!ok(cudaMalloc(&g_a, bytes), "cudaMalloc") || !ok(cudaMalloc(&g_b, bytes), "cudaMalloc")) return false;
  if (g_job == Triad && !ok(cudaMalloc(&g_c, bytes), "cudaMalloc")) return false;
  if (!ok(cudaMalloc(&g_part, g_dotBlocks * sizeof(float)), "cudaMalloc") ||
      !ok(cudaMalloc(&g_sum, sizeof(float)), "cudaMalloc"))
    return false;
  const unsigned grid = (unsigned)(64 * sms);
  switch (g_job) {
    case Copy:
    case Transpose: initLow24<<<grid, kBlock>>>(g_a, kN); break;
    case Triad: initTriad<<<grid, kBlock>>>(g_b, g_c, kN); break;
    case Dot: initDot<<<grid, kBlock>>>(g_a, g_b, kN); break;
    case None: break;
  }
  return ok(cudaGetLastError(), "init launch") && ok(cudaDeviceSynchronize(), "init");
}

bool hand_run() {
  const long long n4 = kN / 4;
  switch (g_job) {
    case Copy: copy4<<<blocksFor(n4, kBlock), kBlock>>>((const float4 *)g_a, (float4 *)g_b, n4); break;
    case Triad:
      triad4<<<blocksFor(n4, kBlock), kBlock>>>((float4 *)g_a, (const float4 *)g_b, (const float4 *)g_c, 3.0f, n4);
      break;
    case Dot:
      dotPartial<<<g_dotBlocks, kBlock>>>((const float4 *)g_a, (const float4 *)g_b, n4, g_part);
      dotFinal<<<1, 1024>>>(g_part, (int)g_dotBlocks, g_sum);
      break;
    case Transpose:
      transposeTiled<<<dim3((unsigned)(kRows / kTile), (unsigned)(kRows / kTile)), dim3(kTile, kRowsPerPass)>>>(
          g_a, g_b, kRows, kRows);
      break;
    case None: return false;
  }
  return ok(cudaGetLastError(), "launch");
}

bool hand_check(float out[4]) {
  if (!ok(cudaDeviceSynchronize(), "the job")) return false;
  if (g_job == Dot) {
    out[1] = out[2] = out[3] = 0.0f;
    return ok(cudaMemcpy(out, g_sum, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  const float *res = g_job == Triad ? g_a : g_b;
  for (int k = 0; k < 4; ++k)
    if (!ok(cudaMemcpy(&out[k], res + checkPos(k), sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy")) return false;
  return true;
}

void hand_teardown() {
  for (float **p : {&g_a, &g_b, &g_c, &g_part, &g_sum}) {
    if (*p) cudaFree(*p);
    *p = nullptr;
  }
  g_job = None;
}
