// Zeroed storage for the buffers and heap objects of a run (Machine:
// exec/machine.cpp, exec/heap.cpp). A large block comes straight from the
// OS (an anonymous mmap: zero pages, each mapped when first touched, and
// given back whole when freed), as glibc's calloc does above its mmap
// threshold and as the emitted C's buffers get theirs. So what a large
// buffer costs does not depend on which allocator serves the process:
// mimalloc (CMakeLists.txt) hands out a block it reused and zeroes it with
// memset, touching every page before the program does.
// "Large" is glibc's own rule: from 1 MiB, and when a mapped block is
// freed, the threshold rises to its size (up to 32 MiB), so a program that
// makes and frees blocks of one size over and over reuses memory through
// calloc instead of mapping and faulting each one in again.
// No block is advised huge pages (unlike the graph's own tables,
// ir/huge_pages.hpp, which are filled densely): how densely a buffer is
// touched is the program's business. A buffer declared as a capacity and
// touched in a small part would fault in, zero and perhaps compact 2 MiB
// for each stretch touched (bench_kernels' transpose at 10^5 ran 1.3x
// slower so, in emitted C), and a compaction can stall a run by a second.
// The emitted C's runtime follows the same policy (runtime/cairn_rt.h).
// Smaller blocks come from calloc. Under AddressSanitizer every block comes
// from calloc, so ASan still sees each buffer's bounds.
//
// Each block has a header just before the pointer returned: its mapping's
// size (0: a calloc block), so zeroedFree needs no size. Blocks are 16-byte
// aligned (mapped ones 64).
#pragma once
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace cairn::exec {

#if defined(__SANITIZE_ADDRESS__)
#define CAIRN_ZEROED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAIRN_ZEROED_ASAN 1
#endif
#endif

#ifdef CAIRN_ZEROED_ASAN
inline constexpr size_t kZeroedMapMin = SIZE_MAX;
#else
inline constexpr size_t kZeroedMapMin = size_t{1} << 20;  // 1 MiB
#endif
inline constexpr size_t kZeroedMapMax = size_t{32} << 20;  // the threshold rises no higher
// The headers of a calloc'ed and of a mapped block (see the top).
inline constexpr size_t kZeroedSmallHeader = 16, kZeroedMapHeader = 64;
// The threshold now (relaxed: a stale value only picks the other path).
inline std::atomic<size_t> zeroedMapThreshold{kZeroedMapMin};

// `bytes` zero bytes (at least one); nullptr when the memory is not there.
inline void *zeroedAlloc(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes >= zeroedMapThreshold.load(std::memory_order_relaxed) && bytes <= SIZE_MAX - kZeroedMapHeader - 4096) {
    const size_t len = bytes + kZeroedMapHeader;
    void *m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    auto *p = static_cast<unsigned char *>(m) + kZeroedMapHeader;
    std::memcpy(p - sizeof len, &len, sizeof len);
    return p;
  }
  if (bytes > SIZE_MAX - kZeroedSmallHeader) return nullptr;
  auto *b = static_cast<unsigned char *>(std::calloc(1, bytes + kZeroedSmallHeader));
  if (!b) return nullptr;
  return b + kZeroedSmallHeader;  // the header's size word is 0 (calloc)
}

// Gives back a block of zeroedAlloc (nullptr: nothing).
inline void zeroedFree(void *q) {
  if (!q) return;
  auto *p = static_cast<unsigned char *>(q);
  size_t len;
  std::memcpy(&len, p - sizeof len, sizeof len);
  if (len == 0) {
    std::free(p - kZeroedSmallHeader);
    return;
  }
  munmap(p - kZeroedMapHeader, len);
  const size_t bytes = len - kZeroedMapHeader;
  if (bytes <= kZeroedMapMax && bytes > zeroedMapThreshold.load(std::memory_order_relaxed))
    zeroedMapThreshold.store(bytes + 1, std::memory_order_relaxed);  // a block this size comes from calloc now
}

}  // namespace cairn::exec
