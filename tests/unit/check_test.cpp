// CAIRN_CHECK and CAIRN_UNREACHABLE (ir/check.hpp) in the build that throws:
// a failed check is a cairn::InternalError (a std::logic_error) that carries
// the message, the file relative to the source tree and the line; a check
// that holds does nothing and does not evaluate its message. In the
// sanitizer and fuzz builds (CAIRN_CHECK_ABORTS) a failed check aborts, so
// the throwing tests are skipped there and a death test runs instead.
#include <gtest/gtest.h>

#include <string>

#include "ir/check.hpp"

namespace cairn {
namespace {

int failingLine = 0;

void failsWith(int value) {
  failingLine = __LINE__ + 1;
  CAIRN_CHECK(value == 0, "value is " << value << ", not 0");
}

TEST(Check, FailedCheckThrowsInternalErrorWithFileAndLine) {
  if (kCheckAborts) GTEST_SKIP() << "built with CAIRN_CHECK_ABORTS: a failed check aborts";
  try {
    failsWith(7);
    FAIL() << "CAIRN_CHECK(false) did not throw";
  } catch (const InternalError &e) {
    EXPECT_STREQ(e.what(), "value is 7, not 0");
    EXPECT_EQ(e.file(), "tests/unit/check_test.cpp");
    EXPECT_EQ(e.line(), failingLine);
  }
  EXPECT_THROW(failsWith(1), std::logic_error);  // what the CLI's catch of std::exception also sees
}

TEST(Check, UnreachableThrowsAStringMessage) {
  if (kCheckAborts) GTEST_SKIP() << "built with CAIRN_CHECK_ABORTS: a failed check aborts";
  std::string why = "a loop is not closed";
  int line = __LINE__ + 2;
  try {
    CAIRN_UNREACHABLE(why);
  } catch (const InternalError &e) {
    EXPECT_EQ(std::string(e.what()), why);
    EXPECT_EQ(e.line(), line);
  }
}

TEST(Check, PassingCheckDoesNotEvaluateItsMessage) {
  int evaluated = 0;
  auto touch = [&] { return ++evaluated; };
  CAIRN_CHECK(1 + 1 == 2, "never printed " << touch());
  EXPECT_EQ(evaluated, 0);
}

TEST(Check, FileNamesAreRelativeToTheTree) {
  EXPECT_EQ(checkFileName("../exec/compile.cpp"), "exec/compile.cpp");
  EXPECT_EQ(checkFileName("./ir/graph.cpp"), "ir/graph.cpp");
  EXPECT_EQ(checkFileName(CAIRN_SOURCE_DIR "/lower/check/flow.cpp"), "lower/check/flow.cpp");
}

TEST(CheckDeathTest, FailedCheckAbortsWithTheMessage) {
  if (!kCheckAborts) GTEST_SKIP() << "built without CAIRN_CHECK_ABORTS: a failed check throws";
  EXPECT_DEATH(failsWith(3), "internal error: value is 3, not 0 \\(tests/unit/check_test.cpp:[0-9]+\\)");
}

}  // namespace
}  // namespace cairn
