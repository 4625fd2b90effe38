// The allocator the build chose (CMakeLists.txt, cairn_malloc) serves the
// program: with mimalloc found, every malloc and new of the process is
// mimalloc's (it overrides the C library's through the dynamic linker, so a
// link that drops it, or loads it after libc, would silently lose it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "tools/allocator.hpp"

namespace {

TEST(Allocator, TheBuildsChoiceServesMallocAndNew) {
#ifdef CAIRN_MIMALLOC
  EXPECT_EQ(cairn::allocatorInUse().rfind("mimalloc ", 0), 0u) << cairn::allocatorInUse();
  auto small = std::make_unique<char[]>(24);
  auto large = std::make_unique<char[]>(size_t{64} << 20);  // mimalloc's huge objects too
  void *c = std::calloc(1000, 8);
  EXPECT_TRUE(mi_is_in_heap_region(small.get()));
  EXPECT_TRUE(mi_is_in_heap_region(large.get()));
  EXPECT_TRUE(mi_is_in_heap_region(c));
  std::free(c);
#else
  EXPECT_EQ(cairn::allocatorInUse(), "the C library's malloc");
#endif
}

}  // namespace
