// exec/zeroed.hpp: the run-time buffers' storage. Every block is zero and
// writable to its last byte, small ones from calloc, large ones mapped, and
// glibc's rule moves the threshold: a freed mapped block of up to 32 MiB
// sends blocks of its size to calloc from then on. No block is advised huge
// pages: a buffer keeps the system's page policy, as a C program's does.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "exec/zeroed.hpp"

namespace {

using cairn::exec::kZeroedMapMin;
using cairn::exec::zeroedAlloc;
using cairn::exec::zeroedFree;
using cairn::exec::zeroedMapThreshold;

// Whether the n bytes at p are zero; then fills them (a write to every byte).
bool zeroThenFill(void *p, size_t n) {
  auto *b = static_cast<unsigned char *>(p);
  for (size_t i = 0; i < n; i += 509)
    if (b[i] != 0) return false;
  if (b[n - 1] != 0) return false;
  std::memset(b, 0x5a, n);
  return true;
}

// The size word before a block: 0 for a calloc block, else its mapping's length.
size_t header(const void *p) {
  size_t len;
  std::memcpy(&len, static_cast<const unsigned char *>(p) - sizeof len, sizeof len);
  return len;
}

struct ThresholdGuard {
  size_t saved = zeroedMapThreshold.load();
  ~ThresholdGuard() { zeroedMapThreshold.store(saved); }
};

TEST(Zeroed, SmallBlocksAreZeroAlignedAndFromCalloc) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}, size_t{100000}}) {
    void *p = zeroedAlloc(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
    EXPECT_EQ(header(p), 0u);
    EXPECT_TRUE(zeroThenFill(p, n ? n : 1));
    zeroedFree(p);
  }
  zeroedFree(nullptr);  // nothing
}

TEST(Zeroed, LargeBlocksAreMappedAndRaiseTheThreshold) {
  if (kZeroedMapMin == SIZE_MAX) GTEST_SKIP() << "AddressSanitizer build: every block comes from calloc";
  ThresholdGuard guard;
  zeroedMapThreshold.store(kZeroedMapMin);
  const size_t n = size_t{3} << 20;
  void *p = zeroedAlloc(n);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_GE(header(p), n);
  EXPECT_TRUE(zeroThenFill(p, n));
  zeroedFree(p);
  EXPECT_EQ(zeroedMapThreshold.load(), n + 1);
  void *q = zeroedAlloc(n);  // the same size again: calloc, zero though the last one was filled
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(header(q), 0u);
  EXPECT_TRUE(zeroThenFill(q, n));
  zeroedFree(q);
  void *r = zeroedAlloc(n + 2);  // above the threshold: mapped
  EXPECT_NE(header(r), 0u);
  zeroedFree(r);
  EXPECT_EQ(zeroedMapThreshold.load(), n + 3);
}

TEST(Zeroed, TheThresholdStopsAt32MiB) {
  if (kZeroedMapMin == SIZE_MAX) GTEST_SKIP() << "AddressSanitizer build: every block comes from calloc";
  ThresholdGuard guard;
  zeroedMapThreshold.store(kZeroedMapMin);
  const size_t n = size_t{40} << 20;
  void *p = zeroedAlloc(n);
  ASSERT_NE(p, nullptr);
  EXPECT_NE(header(p), 0u);
  EXPECT_TRUE(zeroThenFill(p, n));
  zeroedFree(p);
  EXPECT_EQ(zeroedMapThreshold.load(), kZeroedMapMin);
}

// The THPeligible line of the mapping that holds address a
// (/proc/self/smaps), or -1 when there is none.
int thpEligible(const void *a) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto at = reinterpret_cast<uintptr_t>(a);
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

TEST(Zeroed, LargeMappedBlocksAreNotAdvisedHugePages) {
  if (kZeroedMapMin == SIZE_MAX) GTEST_SKIP() << "AddressSanitizer build: every block comes from calloc";
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream text;
  text << mode.rdbuf();
  // Only where huge pages come on advice alone does eligibility tell whether a block was advised.
  if (text.str().find("[madvise]") == std::string::npos) GTEST_SKIP() << "transparent huge pages are not in madvise mode";
  ThresholdGuard guard;
  zeroedMapThreshold.store(kZeroedMapMin);
  const size_t big = size_t{8} << 20;
  void *p = zeroedAlloc(big);
  ASSERT_NE(header(p), 0u);  // mapped
  EXPECT_EQ(thpEligible(static_cast<char *>(p) + big / 2), 0);
  EXPECT_TRUE(zeroThenFill(p, big));
  zeroedFree(p);
}

}  // namespace
