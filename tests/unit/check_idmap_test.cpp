// check::IdMap (lower/check/facts.hpp), the id-keyed map of the typing
// facts: it must behave as the hash map it replaced, whatever the order of
// the ids, however far apart they lie, and across erases.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>

#include "lower/check/facts.hpp"

namespace {

using cairn::check::IdMap;

// Applies the same random operations to an IdMap and to a hash map, and
// compares every id touched after each step.
// reserveWindow: the map first reserves a window of that size where the
// ids fall (IdMap::reserve, as FnFacts::reserve does), or 0 for none.
void compareWithHashMap(uint32_t seed, uint32_t spread, int steps, uint32_t reserveWindow = 0) {
  std::mt19937 rng(seed);
  IdMap<std::string> m;
  if (reserveWindow != 0) m.reserve(1000000 + spread / 4, 1000000 + spread / 4 + reserveWindow, reserveWindow / 8);
  std::unordered_map<uint32_t, std::string> ref;
  std::vector<uint32_t> touched;
  for (int i = 0; i < steps; ++i) {
    uint32_t id = 1000000 + rng() % spread;
    if (rng() % 50 == 0) id = rng();  // now and then, an id far from the rest
    if (id == UINT32_MAX) id = 7;
    touched.push_back(id);
    if (rng() % 5 == 0) {
      m.erase(id);
      ref.erase(id);
    } else {
      std::string v = "v" + std::to_string(i);
      m[id] = v;
      ref[id] = v;
    }
    for (uint32_t t : touched) {
      const std::string *got = m.find(t);
      auto want = ref.find(t);
      ASSERT_EQ(got != nullptr, want != ref.end()) << "seed " << seed << " step " << i << " id " << t;
      if (got) {
        ASSERT_EQ(*got, want->second);
      }
    }
  }
}

TEST(CheckIdMap, MatchesAHashMapOnNearbyIds) {
  for (uint32_t seed = 1; seed <= 20; ++seed) compareWithHashMap(seed, 300, 300);
}

TEST(CheckIdMap, MatchesAHashMapOnSpreadIds) {
  for (uint32_t seed = 1; seed <= 10; ++seed) compareWithHashMap(seed, 1u << 20, 200);
}

// A reserved window that holds some of the ids, all of them, or few: the
// ids outside it must still go in, as without the reserve.
TEST(CheckIdMap, MatchesAHashMapAfterAReserve) {
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    compareWithHashMap(seed, 300, 300, 100);
    compareWithHashMap(seed, 300, 300, 1000);
    compareWithHashMap(seed, 1u << 20, 200, 64);
  }
}

TEST(CheckIdMap, DescendingIdsAndDefaults) {
  IdMap<uint32_t> m;
  for (uint32_t id = 5000; id-- > 0;) m[id] = id * 3;
  for (uint32_t id = 0; id < 5000; ++id) {
    ASSERT_NE(m.find(id), nullptr);
    EXPECT_EQ(*m.find(id), id * 3);
  }
  EXPECT_EQ(m.find(5000), nullptr);
  EXPECT_EQ(m[6000], 0u);  // operator[] makes a default fact, as the hash map did
  ASSERT_NE(m.find(6000), nullptr);
}

}  // namespace
