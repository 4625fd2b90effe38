// lower/decimal_counter.hpp against std::to_string: every count from 0 to
// 2,000,000 (each carry through up to six nines), then the steps around
// every larger power of ten a u64 holds.
#include <gtest/gtest.h>

#include <string>

#include "lower/decimal_counter.hpp"

using cairn::lower::DecimalCounter;

TEST(DecimalCounter, AgreesWithToStringOnEveryCountToTwoMillion) {
  DecimalCounter c;
  for (uint64_t k = 0; k <= 2000000; ++k) {
    ASSERT_EQ(c.text(), std::to_string(k)) << k;
    c.next();
  }
}

TEST(DecimalCounter, CarriesThroughEveryPowerOfTen) {
  // 10^d - 3 ... 10^d + 2 for every d up to 19 (10^19 fits a u64), started
  // there rather than stepped to.
  uint64_t p = 10;
  for (int d = 1; d <= 19; ++d, p *= 10) {
    DecimalCounter c(p - 3);
    for (uint64_t k = p - 3; k < p + 3; ++k, c.next()) ASSERT_EQ(c.text(), std::to_string(k)) << d;
  }
}
