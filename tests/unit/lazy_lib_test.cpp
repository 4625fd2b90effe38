// ir/lazy_lib.hpp: a library opened on first use. A function comes back
// callable; a library that cannot be opened and a symbol it lacks come back
// as nullptr with a reason, never a crash, and the reason names the library.
#include "ir/lazy_lib.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

using cairn::LazyLib;

TEST(LazyLib, GivesAFunctionOfTheFirstNameThatOpens) {
  LazyLib m{"libcairn-no-such-library.so.1", "libm.so.6"};
  std::string why;
  auto cosine = m.get<double (*)(double)>("cos", why);
  ASSERT_NE(cosine, nullptr) << why;
  EXPECT_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(why, "");
}

TEST(LazyLib, SaysWhyALibraryOrASymbolIsMissing) {
  LazyLib none{"libcairn-no-such-library.so.1", "libcairn-no-such-library.so"};
  std::string why;
  EXPECT_EQ(none.get<void (*)()>("anything", why), nullptr);
  EXPECT_NE(why.find("cannot load libcairn-no-such-library.so.1"), std::string::npos) << why;
  EXPECT_NE(why.find("libcairn-no-such-library.so:"), std::string::npos) << why;  // each name tried is listed
  LazyLib m{"libm.so.6"};
  why.clear();
  EXPECT_EQ(m.get<void (*)()>("cairn_no_such_symbol", why), nullptr);
  EXPECT_EQ(why, "libm.so.6 has no symbol cairn_no_such_symbol");
}

TEST(LazyLib, OpensOnceFromManyThreads) {
  LazyLib m{"libm.so.6"};
  std::vector<std::thread> ts;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      std::string why;
      auto sq = m.get<double (*)(double)>("sqrt", why);
      ok[t] = sq && sq(16.0) == 4.0;
    });
  for (auto &t : ts) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(ok[t], 1) << t;
}
