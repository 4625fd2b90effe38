// oracle/oracle.hpp's ElemCounts: element counts in 4 bytes a node, the
// counts that do not fit kept aside. Every count comes back as it was set,
// when a node's count moves between the two forms in either direction; and
// the oracle keeps a buffer's count of 2^31 elements and more exactly,
// which its bounds rules then read (the last element in bounds, the next
// one not).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

using namespace cairn;

TEST(ElemCounts, EveryCountComesBackInEitherForm) {
  const std::vector<int64_t> values = {0,         1,          -1,        INT32_MAX,     int64_t{INT32_MAX} + 1,
                                       INT32_MIN + 1, INT32_MIN, INT64_MAX, int64_t{1} << 40, -(int64_t{1} << 40)};
  ElemCounts c;
  c.assign(values.size() * values.size(), 0);
  std::vector<int64_t> want(c.size(), 0);
  size_t k = 0;
  for (int64_t first : values)
    for (int64_t then : values) {  // each pair of forms, in each order, at its own node
      c.set(k, first);
      EXPECT_EQ(c[k], first);
      c.set(k, then);
      want[k++] = then;
    }
  for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], want[i]) << i;
}

TEST(ElemCounts, TheOracleKeepsHugeBufferCounts) {
  for (int64_t n : {int64_t{INT32_MAX}, int64_t{INT32_MAX} + 1, int64_t{5000000000}, int64_t{1} << 40}) {
    for (int64_t at : {n - 1, n}) {
      const std::string text = "%b = buffer " + std::to_string(n) + " dtype=u8\n%p = shrink %b " +
                               std::to_string(at) + " shape=[]\n%x = load %p\n";
      Graph g;
      Diags d;
      ASSERT_TRUE(parseUir(text, g, d)) << text;
      Facts f;
      const bool ok = validate(g, f, d);
      EXPECT_EQ(ok, at < n) << text;
      if (ok) {
        EXPECT_EQ(f.elems[0], n);
        EXPECT_EQ(f.elems[1], 1);
      }
    }
  }
}
