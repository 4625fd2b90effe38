// The fuzzer's delta reduction (tools/fuzz_reduce.cpp) and program source
// (tools/fuzz_diff.hpp), with predicates that need no C compiler:
//   - a reduced program is still valid and still "fails" (here: still has
//     a line the predicate looks for), and is much smaller;
//   - each candidate the predicate sees is valid (the oracle filters first);
//   - program k of a campaign depends on its seed alone, and is valid.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tools/fuzz_diff.hpp"

using namespace cairn;

namespace {

size_t lines(const std::string &t) { return static_cast<size_t>(std::count(t.begin(), t.end(), '\n')); }

}  // namespace

TEST(FuzzReduce, KeepsValidityAndTheFailure) {
  for (uint64_t seed : {3u, 7u, 11u, 19u}) {
    std::string prog = fuzzProgram(seed);
    ASSERT_TRUE(oracleAccepts(prog)) << prog;
    // "Fails" while some store is still sequenced by an after.
    auto fails = [](const std::string &t) { return t.find(" = store ") != std::string::npos && t.find(" = after ") != std::string::npos; };
    if (!fails(prog)) continue;
    size_t seen = 0;
    BatchPredicate pred = [&](const std::vector<std::string> &ts) {
      std::vector<bool> r;
      for (const auto &t : ts) {
        EXPECT_TRUE(oracleAccepts(t)) << t;
        ++seen;
        r.push_back(fails(t));
      }
      return r;
    };
    std::string small = reduceProgram(prog, pred);
    EXPECT_TRUE(oracleAccepts(small)) << small;
    EXPECT_TRUE(fails(small)) << small;
    EXPECT_LT(lines(small), lines(prog));
    // A buffer, a view, a store and its after -- or, when every store is in
    // a loop, that loop around them (line deletion cannot move a store out).
    EXPECT_LE(lines(small), 8u) << small;
    EXPECT_GT(seen, 0u);
  }
}

TEST(FuzzReduce, ReturnsTheProgramWhenItDoesNotFail) {
  std::string prog = fuzzProgram(5);
  std::string same = reduceProgram(prog, [](const std::vector<std::string> &ts) { return std::vector<bool>(ts.size(), false); });
  EXPECT_EQ(same, prog);
}

TEST(FuzzPrograms, DependOnTheSeedAloneAndAreValid) {
  for (uint64_t seed = 100; seed < 140; ++seed) {
    EXPECT_EQ(fuzzProgram(seed), fuzzProgram(seed));
    EXPECT_TRUE(oracleAccepts(fuzzProgram(seed))) << seed;
  }
  EXPECT_NE(fuzzProgram(1), fuzzProgram(2));
}
