// lower/small_vec.hpp against std::vector: random sequences of the
// operations the lowerer uses (push_back, including of its own element
// while it grows past the inline ones; insert anywhere; assign; copy and
// move, inline and on the heap; clear, pop_back, truncate), compared after
// every step.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "lower/small_vec.hpp"

using cairn::lower::SmallVec;

namespace {

template <class V>
std::vector<uint32_t> contents(const V &v) {
  return std::vector<uint32_t>(v.begin(), v.end());
}

TEST(SmallVec, AgreesWithStdVectorOnRandomOperations) {
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&](uint64_t n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng % n;
  };
  for (int run = 0; run < 200; ++run) {
    SmallVec<uint32_t, 3> s;
    std::vector<uint32_t> v;
    for (int step = 0; step < 60; ++step) {
      switch (next(9)) {
        case 0:
        case 1: {
          uint32_t x = static_cast<uint32_t>(next(1000));
          s.push_back(x);
          v.push_back(x);
          break;
        }
        case 2:  // an element of its own, maybe while it grows
          if (!v.empty()) {
            size_t k = next(v.size());
            s.push_back(s[k]);
            v.push_back(v[k]);
          }
          break;
        case 3: {
          std::vector<uint32_t> src(next(6), static_cast<uint32_t>(next(1000)));
          size_t at = next(v.size() + 1);
          s.insert(s.begin() + at, src.data(), src.data() + src.size());
          v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), src.begin(), src.end());
          break;
        }
        case 4: {  // copies and moves, each way
          SmallVec<uint32_t, 3> c(s);
          SmallVec<uint32_t, 3> m(std::move(c));
          EXPECT_TRUE(c.empty());
          SmallVec<uint32_t, 3> a;
          a = m;
          s = std::move(a);
          break;
        }
        case 5: {
          std::vector<uint32_t> src(next(8), 7);
          s.assign(src.data(), src.data() + src.size());
          v = src;
          break;
        }
        case 6:
          if (next(4) == 0) s.clear(), v.clear();
          break;
        case 7:
          if (!v.empty()) s.pop_back(), v.pop_back();
          break;
        case 8: {
          size_t n = next(v.size() + 2);  // past the end: no change
          s.truncate(n);
          if (n < v.size()) v.resize(n);
          break;
        }
      }
      ASSERT_EQ(contents(s), v) << "run " << run << " step " << step;
      ASSERT_EQ(s.size(), v.size());
    }
  }
}

}  // namespace
