// ir/column.hpp's Column against std::vector: random sequences of the
// operations the graph uses (push_back; reserve, then pushRoom up to the
// capacity; copies and moves each way, which keep the capacity; back and
// indexing), compared after every step.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ir/column.hpp"

using cairn::Column;

namespace {

std::vector<uint32_t> contents(const Column<uint32_t> &c) { return std::vector<uint32_t>(c.begin(), c.end()); }

TEST(Column, AgreesWithStdVectorOnRandomOperations) {
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&](uint64_t n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng % n;
  };
  for (int run = 0; run < 200; ++run) {
    Column<uint32_t> c;
    if (run % 2) c = Column<uint32_t>(7);  // the graph's CSR starts begin with one element
    std::vector<uint32_t> v(c.begin(), c.end());
    for (int step = 0; step < 80; ++step) {
      switch (next(6)) {
        case 0:
        case 1: {
          uint32_t x = static_cast<uint32_t>(next(1000));
          c.push_back(x);
          v.push_back(x);
          break;
        }
        case 2: {  // reserve, then fill some of the room without the test
          size_t want = c.size() + next(40);
          c.reserve(want);
          ASSERT_GE(c.capacity(), want);
          size_t k = next(want - c.size() + 1);
          for (size_t i = 0; i < k; ++i) {
            c.pushRoom(static_cast<uint32_t>(i * 3));
            v.push_back(static_cast<uint32_t>(i * 3));
          }
          break;
        }
        case 3: {  // copies keep the capacity: pushRoom into the copy's room
          Column<uint32_t> copy(c);
          ASSERT_EQ(copy.capacity(), c.capacity());
          Column<uint32_t> moved(std::move(copy));
          EXPECT_TRUE(copy.empty());
          EXPECT_EQ(copy.capacity(), 0u);
          Column<uint32_t> assigned;
          assigned = moved;
          ASSERT_EQ(assigned.capacity(), c.capacity());
          c = std::move(assigned);
          if (c.size() < c.capacity()) {
            c.pushRoom(5);
            v.push_back(5);
          }
          break;
        }
        case 4:
          if (!v.empty()) {
            uint32_t x = static_cast<uint32_t>(next(1000));
            c.back() += x;
            v.back() += x;
            size_t k = next(v.size());
            c[k] ^= 1;
            v[k] ^= 1;
          }
          break;
        case 5:  // self-assignment changes nothing
          {
            const Column<uint32_t> &same = c;
            c = same;
          }
          break;
      }
      ASSERT_EQ(contents(c), v) << "run " << run << " step " << step;
      ASSERT_EQ(c.size(), v.size());
      ASSERT_EQ(c.empty(), v.empty());
      ASSERT_LE(c.size(), c.capacity());
    }
  }
}

}  // namespace
