// exec/ins_nodes.hpp: each instruction's node kept as runs, or as a plain
// column once runs stop paying. Random sequences of appends (consecutive
// ids, repeats, jumps back, none), removals of the last entry and
// replacements of it, checked entry by entry against a plain vector, in
// both forms; and the forms a wide graph and a scattered order take.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "exec/ins_nodes.hpp"

using namespace cairn;
using cairn::exec::InsNodes;

namespace {

void expectSame(const InsNodes &s, const std::vector<NodeId> &want) {
  ASSERT_EQ(s.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(s[k], want[k]) << k;
  if (!want.empty()) EXPECT_EQ(s.back(), want.back());
}

TEST(InsNodes, MatchesAPlainColumn) {
  uint64_t rng = 0x853C49E6748FEA9Bull;
  auto next = [&] { return rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; };
  int dense = 0, runs = 0;
  for (int round = 0; round < 300; ++round) {
    InsNodes s;
    std::vector<NodeId> want;
    uint32_t node = static_cast<uint32_t>(next() % 10);
    const uint64_t scatter = next() % 8;  // how often a new id does not follow on
    for (int step = 0, steps = 1 + static_cast<int>(next() % 1500); step < steps; ++step) {
      uint64_t r = next() % 100;
      NodeId x;
      if (r < 5) x = NodeId::none();
      else if (next() % 8 < scatter) x = NodeId{node = static_cast<uint32_t>(next() % 5000)};
      else x = NodeId{++node};
      if (r >= 95 && !want.empty()) {
        s.pop_back();
        want.pop_back();
      } else if (r >= 90 && !want.empty()) {
        s.setBack(x);
        want.back() = x;
      } else {
        s.push_back(x);
        want.push_back(x);
      }
      if (step % 97 == 0) expectSame(s, want);
    }
    expectSame(s, want);
    (s.runs() == 0 ? dense : runs) += 1;
  }
  EXPECT_GT(dense, 10) << "no sequence turned into a column: the test shows little";
  EXPECT_GT(runs, 10);
}

TEST(InsNodes, AWideGraphIsOneRunAScatteredOrderAColumn) {
  InsNodes wide, scattered;
  for (uint32_t k = 0; k < 100000; ++k) wide.push_back(NodeId{k + 7});
  wide.push_back(NodeId::none());  // the halt
  EXPECT_EQ(wide.runs(), 2u);
  EXPECT_EQ(wide[99999], NodeId{100006});
  EXPECT_EQ(wide[100000], NodeId::none());
  for (uint32_t k = 0; k < 100000; ++k) scattered.push_back(NodeId{100000 - k});
  EXPECT_EQ(scattered.runs(), 0u);
  EXPECT_EQ(scattered[5], NodeId{99995});
}

}  // namespace
