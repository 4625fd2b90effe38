// gpu/cuda_emu.h against kernels of known results. The same file is
// compiled by nvcc (for sm_90 and sm_75, compile only: no GPU here) and by
// the host C++ compiler, whose build runs it: exit 0 and `ok: N checks`, or
// each failed check on stderr and exit 1.
#include <cstdio>
#include <cstring>
#include <vector>

#include "gpu/cuda_emu.h"

// A grid-stride loop: y[i] = a * x[i] + y[i] for i < n, whatever the grid.
__global__ void saxpy(unsigned n, float a, const float *x, float *y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

// A block's tree reduction in shared memory, then one atomic per block.
__global__ void blockSum(unsigned n, const unsigned *x, unsigned long long *total) {
  __shared__ unsigned long long part[256];
  unsigned long long s = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += x[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

// Every (x, y) of a 2-D grid of 2-D blocks counts itself once.
__global__ void cover(unsigned w, unsigned h, unsigned *count) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) atomicAdd(&count[y * w + x], 1u);
}

// Thread 0 leaves before the barrier the others wait at: undefined in CUDA,
// a failed launch here.
__global__ void diverge(int *out) {
  if (threadIdx.x == 0) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void atomics(int *mn, int *mx, unsigned *cas, unsigned long long *xch, float *fsum, double *dsum) {
  int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicMin(mn, 1000 - t);
  atomicMax(mx, t - 7);
  atomicCAS(cas, 0u, static_cast<unsigned>(t) + 1u);  // exactly one thread wins
  atomicExch(xch, 42ull);
  atomicAdd(fsum, 0.5f);
  atomicAdd(dsum, 0.25);
}

#ifdef __CUDACC__
int main() { return 0; }  // compiled, not run: there is no GPU here
#else
namespace {
int checks = 0, failures = 0;
void check(bool ok, const char *what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "emu_selftest: FAILED: %s\n", what);
  }
}
template <class T> T *dev(const std::vector<T> &h) {
  T *d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
}  // namespace

int main() {
  {  // fewer threads than elements, and more
    const unsigned n = 1000;
    std::vector<float> x(n), y(n);
    for (unsigned i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
    for (unsigned grid : {1u, 3u, 40u}) {
      float *dx = dev(x), *dy = dev(y);
      CAIRN_LAUNCH(saxpy, grid, 64, n, 2.0f, dx, dy);
      std::vector<float> r(n);
      cudaMemcpy(r.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
      bool ok = cudaGetLastError() == cudaSuccess;
      for (unsigned i = 0; i < n; ++i) ok = ok && r[i] == 2.0f * static_cast<float>(i) + 1.0f;
      check(ok, "saxpy over a grid-stride loop");
      cudaFree(dx);
      cudaFree(dy);
    }
  }
  {
    const unsigned n = 100003;
    std::vector<unsigned> x(n);
    unsigned long long want = 0;
    for (unsigned i = 0; i < n; ++i) want += x[i] = i * 2654435761u >> 7;
    unsigned *dx = dev(x);
    unsigned long long *dt = dev(std::vector<unsigned long long>{0});
    CAIRN_LAUNCH(blockSum, 5, 256, n, dx, dt);
    unsigned long long got = 0;
    cudaMemcpy(&got, dt, sizeof got, cudaMemcpyDeviceToHost);
    check(cudaGetLastError() == cudaSuccess && got == want, "a shared-memory tree reduction and an atomic per block");
    cudaFree(dx);
    cudaFree(dt);
  }
  {
    const unsigned w = 37, h = 21;
    unsigned *dc = dev(std::vector<unsigned>(w * h, 0));
    CAIRN_LAUNCH(cover, dim3(5, 3), dim3(8, 8), w, h, dc);
    std::vector<unsigned> c(w * h);
    cudaMemcpy(c.data(), dc, c.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
    bool ok = cudaGetLastError() == cudaSuccess;
    for (unsigned v : c) ok = ok && v == 1;
    check(ok, "a 2-D grid of 2-D blocks covers each element once");
    cudaFree(dc);
  }
  {
    int *d = dev(std::vector<int>(32, 0));
    CAIRN_LAUNCH(diverge, 2, 32, d);
    check(cudaGetLastError() == cudaErrorLaunchFailure, "a barrier not all threads reach fails the launch");
    check(std::strstr(cairn_emu::lastMessage().c_str(), "block (0,0,0)") != nullptr &&
              std::strstr(cairn_emu::lastMessage().c_str(), "__syncthreads number 1") != nullptr,
          "the failure names the block and the barrier");
    check(cudaGetLastError() == cudaSuccess, "cudaGetLastError clears the error");
    cudaFree(d);
  }
  {
    int *mn = dev(std::vector<int>{1 << 30}), *mx = dev(std::vector<int>{-(1 << 30)});
    unsigned *cas = dev(std::vector<unsigned>{0});
    unsigned long long *xch = dev(std::vector<unsigned long long>{0});
    float *fs = dev(std::vector<float>{0});
    double *ds = dev(std::vector<double>{0});
    CAIRN_LAUNCH(atomics, 4, 100, mn, mx, cas, xch, fs, ds);
    int a = 0, b = 0;
    unsigned c = 0;
    unsigned long long e = 0;
    float f = 0;
    double g = 0;
    cudaMemcpy(&a, mn, sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(&b, mx, sizeof b, cudaMemcpyDeviceToHost);
    cudaMemcpy(&c, cas, sizeof c, cudaMemcpyDeviceToHost);
    cudaMemcpy(&e, xch, sizeof e, cudaMemcpyDeviceToHost);
    cudaMemcpy(&f, fs, sizeof f, cudaMemcpyDeviceToHost);
    cudaMemcpy(&g, ds, sizeof g, cudaMemcpyDeviceToHost);
    check(cudaGetLastError() == cudaSuccess, "the atomics kernel runs");
    check(a == 1000 - 399 && b == 399 - 7, "atomicMin and atomicMax");
    check(c >= 1 && c <= 400, "atomicCAS: one thread's value");
    check(e == 42, "atomicExch");
    check(f == 200.0f && g == 100.0, "float and double atomicAdd, exact for dyadic sums");
    for (void *p : std::vector<void *>{mn, mx, cas, xch, fs, ds}) cudaFree(p);
  }
  {
    CAIRN_LAUNCH(saxpy, 1, 2048, 0u, 1.0f, static_cast<const float *>(nullptr), static_cast<float *>(nullptr));
    check(cudaGetLastError() == cudaErrorInvalidValue, "a block of more than 1024 threads is refused");
  }
  if (failures) return 1;
  std::printf("ok: %d checks\n", checks);
  return 0;
}
#endif
