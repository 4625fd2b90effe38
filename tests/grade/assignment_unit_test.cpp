// Assignment internals checked through the API: ISO 8601 times against the C
// library over many instants and offsets, and malformed times refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>

#include "grade/assignment.hpp"

namespace cairn::grade {
namespace {

TEST(AssignmentTime, AgreesWithGmtimeOverManyInstantsAndOffsets) {
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    time_t t = static_cast<time_t>(x % 8000000000ull);  // 1970 .. 2223
    int offMin = static_cast<int>((x >> 40) % (2 * 14 * 60 + 1)) - 14 * 60;  // -14:00 .. +14:00
    time_t local = t + offMin * 60;
    std::tm tm{};
    ASSERT_NE(gmtime_r(&local, &tm), nullptr);
    char buf[64];
    int a = offMin < 0 ? -offMin : offMin;
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.250000%c%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, offMin < 0 ? '-' : '+', a / 60, a % 60);
    double got = 0;
    ASSERT_TRUE(parseIsoTime(buf, got)) << buf;
    ASSERT_EQ(got, static_cast<double>(t) + 0.25) << buf;
  }
  double z = 0;
  ASSERT_TRUE(parseIsoTime("2026-12-01T23:59:00Z", z));
  EXPECT_EQ(z, 1796169540.0);
}

TEST(AssignmentTime, MalformedTimesAreRefused) {
  double t = 0;
  for (const char *s : {"", "yesterday", "2026-12-01", "2026-12-01T23:59:00", "2026-13-01T00:00:00Z",
                        "2026-12-01T24:00:00Z", "2026-12-01T23:59:00+0800", "2026-12-01T23:59:00.Z",
                        "2026-12-01T23:59:00Zjunk", "2026-12-01T23:59:00+25:00"})
    EXPECT_FALSE(parseIsoTime(s, t)) << s;
}

}  // namespace
}  // namespace cairn::grade
