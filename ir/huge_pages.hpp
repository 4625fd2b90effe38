// Transparent huge pages for the large id-indexed arrays.
//
// A 10^7-node graph's tables are hundreds of MiB; with 4 KiB pages every
// access far from the last one misses the TLB (the name table's lookups are
// random by design), and first touches fault once per 4 KiB. Linux backs a
// region with 2 MiB pages when it is marked MADV_HUGEPAGE (the setting here
// is `madvise`), which removes most of both. The memory still comes from
// ::operator new, so whoever counts allocations still sees it; only the
// 2 MiB-aligned interior of a block can become huge pages, so the advice is
// worth giving only to blocks of several MiB. Elsewhere, and on failure, it
// does nothing: it is a hint.
#pragma once
#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cairn {

inline constexpr size_t kHugeAdviceMin = size_t{4} << 20;  // smaller blocks gain little

// Advises huge pages for the whole pages inside [p, p + bytes).
inline void adviseHugePages(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugeAdviceMin) return;
  constexpr uintptr_t kPage = 4096;
  uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (e > b) (void)madvise(reinterpret_cast<void *>(b), e - b, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

// v.assign(n, x), with huge pages advised for a new block before its first
// touch (assign alone would fault every 4 KiB of it in as it fills it).
template <class Vec, class T>
void assignHuge(Vec &v, size_t n, const T &x) {
  if (v.capacity() < n && n * sizeof(v[0]) >= kHugeAdviceMin) {
    Vec().swap(v);
    v.reserve(n);
    adviseHugePages(v.data(), n * sizeof(v[0]));
  }
  v.assign(n, x);
}

}  // namespace cairn
