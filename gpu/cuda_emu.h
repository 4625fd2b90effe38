/* gpu/cuda_emu.h: CUDA C++ on the CPU, for machines without a GPU.
 *
 * A .cu file that includes this header compiles with nvcc as ordinary CUDA
 * and, with any C++20 host compiler, as plain C++ whose kernels run on the
 * CPU. It checks a CUDA emitter's index arithmetic and synchronization --
 * which element each thread touches, that every thread of a block reaches
 * the same barriers -- not the GPU: memory is the host's, there are no
 * warps, no memory model beyond the C++ one, and nothing is timed.
 *
 * What it provides, without nvcc (`__CUDACC__` undefined):
 *   - `__global__ __device__ __host__ __forceinline__ __restrict__` as
 *     nothing (or their C++ meaning); `__shared__` as `static`: the blocks of
 *     a launch run one after the other, so a block's threads share it and
 *     no two blocks hold it at once. Dynamic shared memory
 *     (`extern __shared__`) is not supported.
 *   - `threadIdx blockIdx blockDim gridDim` (each thread's own), `dim3`,
 *     `uint3`.
 *   - `__syncthreads()`: a real barrier. Each block's threads are real
 *     threads that wait there. A block whose threads do not all reach the
 *     same sequence of barriers (some return while others wait, the
 *     undefined behaviour of CUDA) fails the launch: `cudaGetLastError()`
 *     is `cudaErrorLaunchFailure` and `cairn_emu::lastMessage()` says which
 *     block and barrier. `__threadfence()` is a sequentially consistent
 *     fence.
 *   - atomicAdd, atomicSub, atomicMin, atomicMax, atomicExch, atomicCAS on
 *     int, unsigned, unsigned long long (atomicAdd and atomicExch also on
 *     float and double), all sequentially consistent.
 *   - cudaMalloc, cudaFree, cudaMemcpy, cudaMemset, cudaDeviceSynchronize,
 *     cudaGetLastError, cudaPeekAtLastError, cudaGetErrorString,
 *     cudaGetDeviceCount (one device), cudaMemcpyToSymbol and
 *     cudaMemcpyFromSymbol, over host memory.
 *   - CAIRN_LAUNCH(kernel, grid, block, args...): `kernel<<<grid, block>>>
 *     (args...)` with nvcc, a run of every block here (the `<<< >>>` syntax
 *     is not C++). Launches are synchronous. Here each thread evaluates the
 *     arguments itself, so they must have no side effects.
 * Warp operations (__shfl_*, __ballot_sync, ...) are not provided: code
 * that is to run here must not use them.
 */
#ifndef CAIRN_CUDA_EMU_H
#define CAIRN_CUDA_EMU_H

#ifdef __CUDACC__

#define CAIRN_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)

#else /* the CPU */

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#ifndef __restrict__
#define __restrict__ __restrict
#endif

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorLaunchFailure = 719 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

namespace cairn_emu {

// The last launch's failure, as cudaGetLastError reports it (and clears).
inline cudaError_t &lastError() {
  static cudaError_t e = cudaSuccess;
  return e;
}
inline std::string &lastMessage() {
  static std::string m;
  return m;
}

// Unwinds a thread of a block whose barrier was broken.
struct BarrierBroken {};

// One block's barrier. Each arrival names its kind: a __syncthreads (by its
// ordinal in the thread's run) or the end of the block. All threads of a
// phase must arrive with the same kind; otherwise the block diverged, the
// barrier breaks, and every waiting thread unwinds.
class BlockBarrier {
 public:
  explicit BlockBarrier(unsigned threads) : expected_(threads) {}
  // kind: 0 for the end of the block, k >= 1 for the k-th __syncthreads.
  void arrive(uint64_t kind) {
    std::unique_lock<std::mutex> lock(m_);
    if (broken_) throw BarrierBroken{};
    if (arrived_ == 0) kind_ = kind;
    if (kind != kind_) {
      why_ = describe(kind_) + " and " + describe(kind);
      broken_ = true;
      cv_.notify_all();
      throw BarrierBroken{};
    }
    const uint64_t gen = generation_;
    if (++arrived_ == expected_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != gen || broken_; });
    if (generation_ == gen) throw BarrierBroken{};
  }
  void breakFor(const std::string &why) {
    std::lock_guard<std::mutex> lock(m_);
    if (!broken_) why_ = why;
    broken_ = true;
    cv_.notify_all();
  }
  bool broken() {
    std::lock_guard<std::mutex> lock(m_);
    return broken_;
  }
  std::string why() {
    std::lock_guard<std::mutex> lock(m_);
    return why_;
  }

 private:
  static std::string describe(uint64_t kind) {
    return kind == 0 ? std::string("the end of the kernel") : "__syncthreads number " + std::to_string(kind);
  }
  std::mutex m_;
  std::condition_variable cv_;
  const unsigned expected_;
  unsigned arrived_ = 0;
  uint64_t kind_ = 0, generation_ = 0;
  bool broken_ = false;
  std::string why_;
};

// The barrier of the block the calling thread runs, and its count of the
// __syncthreads it passed in this block.
inline thread_local BlockBarrier *tBarrier = nullptr;
inline thread_local uint64_t tSyncs = 0;

inline uint3 linearTo(uint64_t k, dim3 d) {
  uint3 r;
  r.x = static_cast<unsigned>(k % d.x);
  r.y = static_cast<unsigned>(k / d.x % d.y);
  r.z = static_cast<unsigned>(k / d.x / d.y);
  return r;
}

// Runs every block of the grid, in order (x fastest), each with all its
// threads at once; a thread runs all blocks, meeting the others at the end
// of each (so __shared__ data is never used by two blocks at a time).
// One copy of this machinery serves every kernel (the kernel comes in as a
// plain function and a context), so a unit of many kernels compiles fast.
inline void launchErased(dim3 grid, dim3 block, void (*call)(const void *), const void *ctx) {
  const uint64_t threads = uint64_t{block.x} * block.y * block.z, blocks = uint64_t{grid.x} * grid.y * grid.z;
  if (threads == 0 || threads > 1024 || blocks == 0 || block.z > 64 || grid.y > 65535 || grid.z > 65535) {
    lastError() = cudaErrorInvalidValue;
    lastMessage() = "invalid launch configuration";
    return;
  }
  BlockBarrier barrier(static_cast<unsigned>(threads));
  std::mutex failMu;
  std::string failure;
  auto body = [&](uint64_t t) {
    threadIdx = linearTo(t, block);
    blockDim = block;
    gridDim = grid;
    tBarrier = &barrier;
    for (uint64_t b = 0; b < blocks; ++b) {
      blockIdx = linearTo(b, grid);
      tSyncs = 0;
      try {
        call(ctx);
        barrier.arrive(0);
      } catch (const BarrierBroken &) {
        std::lock_guard<std::mutex> lock(failMu);
        if (failure.empty())
          failure = "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," +
                    std::to_string(blockIdx.z) + "): its threads reached different barriers: " + barrier.why();
        break;
      }
    }
    tBarrier = nullptr;
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads - 1));
  for (uint64_t t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto &th : pool) th.join();
  if (!failure.empty()) {
    lastError() = cudaErrorLaunchFailure;
    lastMessage() = failure;
  }
}

// A launch of `f` (a call of the kernel with its arguments) on every thread.
template <class F> void launch(dim3 grid, dim3 block, const F &f) {
  launchErased(grid, block, [](const void *p) { (*static_cast<const F *>(p))(); }, &f);
}

template <class T> constexpr bool kAtomicInt = std::is_same_v<T, int> || std::is_same_v<T, unsigned> ||
                                               std::is_same_v<T, unsigned long long>;

template <class T, class F> T casLoop(T *p, F f) {
  T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &old, f(old), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}

template <class T> T casLoopFloat(T *p, T v) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  U *q = reinterpret_cast<U *>(p);
  U old = __atomic_load_n(q, __ATOMIC_SEQ_CST), next;
  T x;
  do {
    std::memcpy(&x, &old, sizeof x);
    x += v;
    std::memcpy(&next, &x, sizeof x);
  } while (!__atomic_compare_exchange_n(q, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  std::memcpy(&x, &old, sizeof x);
  return x;
}

}  // namespace cairn_emu

#define CAIRN_LAUNCH(kernel, grid, block, ...) \
  cairn_emu::launch(dim3(grid), dim3(block), [&]() { kernel(__VA_ARGS__); })

inline void __syncthreads() {
  if (!cairn_emu::tBarrier) return;  // called outside a kernel: nothing to wait for
  cairn_emu::tBarrier->arrive(++cairn_emu::tSyncs);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <class T> T atomicAdd(T *p, T v) {
  if constexpr (std::is_floating_point_v<T>) return cairn_emu::casLoopFloat(p, v);
  else {
    static_assert(cairn_emu::kAtomicInt<T>, "atomicAdd: int, unsigned, unsigned long long, float or double");
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
  }
}
template <class T> T atomicSub(T *p, T v) {
  static_assert(cairn_emu::kAtomicInt<T>, "atomicSub: int, unsigned or unsigned long long");
  return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
}
template <class T> T atomicMin(T *p, T v) {
  static_assert(cairn_emu::kAtomicInt<T>, "atomicMin: int, unsigned or unsigned long long");
  return cairn_emu::casLoop(p, [v](T o) { return v < o ? v : o; });
}
template <class T> T atomicMax(T *p, T v) {
  static_assert(cairn_emu::kAtomicInt<T>, "atomicMax: int, unsigned or unsigned long long");
  return cairn_emu::casLoop(p, [v](T o) { return v > o ? v : o; });
}
template <class T> T atomicExch(T *p, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    U bits, old;
    std::memcpy(&bits, &v, sizeof v);
    old = __atomic_exchange_n(reinterpret_cast<U *>(p), bits, __ATOMIC_SEQ_CST);
    T r;
    std::memcpy(&r, &old, sizeof r);
    return r;
  } else {
    static_assert(cairn_emu::kAtomicInt<T>, "atomicExch: int, unsigned, unsigned long long, float or double");
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
  }
}
template <class T> T atomicCAS(T *p, T compare, T v) {
  static_assert(cairn_emu::kAtomicInt<T>, "atomicCAS: int, unsigned or unsigned long long");
  __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;  // the old value, whether or not it was replaced
}

inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = std::calloc(n ? n : 1, 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc(reinterpret_cast<void **>(p), n); }
inline cudaError_t cudaFree(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind) {
  if (n) std::memmove(dst, src, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *p, int v, size_t n) {
  std::memset(p, v, n);
  return cudaSuccess;
}
template <class T> cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t n, size_t offset = 0,
                                                  cudaMemcpyKind = cudaMemcpyHostToDevice) {
  std::memmove(reinterpret_cast<char *>(&symbol) + offset, src, n);
  return cudaSuccess;
}
template <class T> cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t n, size_t offset = 0,
                                                    cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  std::memmove(dst, reinterpret_cast<const char *>(&symbol) + offset, n);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cairn_emu::lastError(); }
inline cudaError_t cudaPeekAtLastError() { return cairn_emu::lastError(); }
inline cudaError_t cudaGetLastError() {
  cudaError_t e = cairn_emu::lastError();
  cairn_emu::lastError() = cudaSuccess;
  return e;
}
inline cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
  }
  return "unknown error";
}

#endif /* __CUDACC__ */
#endif /* CAIRN_CUDA_EMU_H */
