// The machine's trap texts (exec/trap_text.hpp) against the C runtime's:
// every entry the runtime prints too must appear in runtime/cairn_rt.h or
// runtime/cairn_rt_module.h (as embedded in cRuntimeText()) as the same
// printf format, so the interpreter and the compiled C trap with the same
// words. Adjacent C string literals ("..." "...") are joined first.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "exec/emit_c.hpp"
#include "exec/trap_text.hpp"

namespace {

std::string joinedRuntime() {
  static const std::regex kJoin("\"\\s*\"");
  return std::regex_replace(std::string(cairn::cRuntimeText()), kJoin, "");
}

TEST(TrapText, EveryShared) {
  const std::string rt = joinedRuntime();
  int shared = 0;
  for (const cairn::exec::TrapText *t : cairn::exec::kTrapTexts) {
    if (!t->inC) continue;
    ++shared;
    EXPECT_NE(rt.find(std::string("\"") + t->format + "\""), std::string::npos) << t->format;
  }
  EXPECT_GE(shared, 15);
}

TEST(TrapText, Format) {
  using namespace cairn::exec;
  EXPECT_EQ(formatTrap(kViewIndex.format, "-1", ull(4)), "index -1 out of bounds for a view of 4 elements");
  EXPECT_EQ(formatTrap(kStepLimit.format, ull(1000)), "exceeded the step limit of 1000");
  EXPECT_EQ(formatTrap(kOutOfMemory.format), "out of memory");
}

}  // namespace
