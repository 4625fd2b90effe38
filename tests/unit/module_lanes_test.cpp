// The lane-block tier of modules (exec/module_lanes.hpp) changes no
// result: loops whose bodies it runs a block of iterations at a time, in
// every element dtype, with traps (overflow, checked casts, zero divisors,
// indices out of bounds) at iterations on both sides of block boundaries,
// with views that overlap in the ways a block must refuse or may keep, run
// with the tier at blocks of 1, 3, 64 and 256 iterations and without any
// optimization, and agree on everything a run reports, under step limits
// across the whole run (module_opt_util.hpp). Each program also states how
// many loops of main the tier plans, so a test cannot pass by planning
// nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/module_opt_util.hpp"

namespace cairn {
namespace {

using namespace moduleopt_test;

size_t plannedLoops(const Module &m, const ModuleFacts &facts, const char *fn) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  return ps[static_cast<size_t>(m.find(fn))].lanePlans.size();
}
// The same for the program src (0, and a failure, when it does not lower).
size_t plannedLoops(const std::string &src, const char *fn) {
  Module m;
  ModuleFacts facts;
  if (!lowerText(src, m, facts)) {
    ADD_FAILURE() << "does not lower:\n" << src;
    return 0;
  }
  return plannedLoops(m, facts, fn);
}

// Lowers src, checks that `planned` loops of main are planned (-1: any
// number), and compares the engines at every lane block.
void check(const std::string &src, int planned) {
  Module m;
  ModuleFacts facts;
  ASSERT_TRUE(lowerText(src, m, facts)) << src;
  if (planned >= 0) EXPECT_EQ(plannedLoops(m, facts, "main"), static_cast<size_t>(planned)) << src;
  for (uint32_t lanes : {1u, 3u, 64u, 256u}) {
    expectSameAtLimits(m, facts, src, lanes);
    if (::testing::Test::HasFailure()) return;
  }
}

std::string program(const std::string &decls, const std::string &loop, const std::string &after) {
  return "fn main() -> i32 {\n  let n:usize = 700;\n" + decls + "  " + loop + "\n" + after + "  return 0;\n}\n";
}

TEST(ModuleLanes, MapsInEveryDtype) {
  // A value of i in each dtype, stored through a deref (Buf) and through a
  // rw parameter, then every element printed as a sum.
  struct T {
    const char *t, *expr;
  };
  const T types[] = {{"u8", "u8(i % 256) * 3 + 1"},        {"i8", "i8(i % 100) - 50"},
                     {"u16", "u16(i) * 90"},               {"i16", "i16(i) - 300"},
                     {"u32", "u32(i) * 6151 + 3"},         {"i32", "i32(i) * 3 - 7"},
                     {"u64", "u64(i * 7 + 3) % 251"},      {"i64", "i64(i) * -5 + 2"},
                     {"f32", "f32(i) * 0.5 - 3.25"},       {"f64", "f64(i) / 3.0"},
                     {"bool", "i % 3 == 1"}};
  for (const T &t : types) {
    std::string sum = std::string(t.t) == "bool" ? "if v[i] { s = s + 1; }" : "s = s + f64(v[i]);";
    std::string src = "fn fill(n:usize, w:rw<" + std::string(t.t) + ">[n]) { for i in 0..n { w[i] = " + t.expr +
                      "; } }\n" +
                      program("  let mut v = Buf[" + std::string(t.t) + "](n);\n",
                              "for i in 0..n { v[i] = " + std::string(t.expr) + "; }",
                              "  let mut s:f64 = 0.0;\n  for i in 0..n { " + sum + " }\n  println(s);\n"
                              "  fill(v);\n  let mut r:f64 = 0.0;\n  for i in 0..n { " +
                                  (std::string(t.t) == "bool" ? "if v[i] { r = r + 1.0; }" : "r = r + f64(v[i]);") +
                                  " }\n  println(r);\n");
    check(src, -1);
    EXPECT_GE(plannedLoops(src, "main"), 1u) << src;
    EXPECT_EQ(plannedLoops(src, "fill"), 1u) << src;
    if (HasFailure()) return;
  }
}

TEST(ModuleLanes, TrapsAtEveryIterationAroundABlock) {
  // Each body traps first at iteration k: an overflow, a checked cast, a
  // zero divisor, an index out of bounds, a shift count out of range.
  for (int k : {1, 2, 3, 4, 63, 64, 65, 255, 256, 257, 258, 511, 699}) {
    const std::string K = std::to_string(k);
    const std::vector<std::string> bodies = {
        "for i in 0..n { v[i] = u64(u32(4294967296 - " + K + ") + u32(i)); }",
        "for i in 0..n { v[i] = u64(u8(i + 256 - " + K + ")); }",
        "for i in 0..n { v[i] = u64(1000 / (" + K + " - i)); }",
        "for i in 0..n { v[i] = w[i + 700 - " + K + "] + 1; }",
        "for i in 0..n { v[i] = u64(1) << u64(i + 64 - " + K + "); }",
    };
    for (const std::string &b : bodies) {
      std::string src = program("  let mut v = Buf[u64](n);\n  let w = Buf[u64](n);\n", b, "  println(v[3]);\n");
      check(src, 1);
      if (HasFailure()) return;
    }
  }
}

TEST(ModuleLanes, OverlappingViewsRunAsBefore) {
  // Loads of elements another iteration stores (refused at run time), a
  // load of the element just stored (refused when planned), the element
  // about to be stored (kept), and stores at the counter plus an offset.
  const char *loops[] = {
      "for i in 1..n { v[i] = v[i - 1] + u64(i); }",
      "for i in 0..n - 1 { v[i] = v[i + 1] * 2 + 1; }",
      "for i in 0..n { v[i] = v[i] * 3 + u64(i); }",
      "for i in 0..n { v[i] = u64(i); let x = v[i]; w[i] = x + 1; }",
      "for i in 5..n { v[i] = v[i] + w[i - 5]; w[i - 5] = v[i]; }",
      "for i in 0..n { v[i] = w[n - 1 - i] + 7; }",
      "for i in 0..n { v[i] = v[n - 1 - i] + 7; }",
  };
  for (const char *l : loops) {
    std::string src = program("  let mut v = Buf[u64](n);\n  let mut w = Buf[u64](n);\n"
                              "  for i in 0..n { v[i] = u64(i) * 11; w[i] = u64(i) + 4; }\n",
                              l,
                              "  let mut s:u64 = 0;\n  for i in 0..n { s = add_wrap(s, mul_wrap(v[i], u64(i) + 1)); "
                              "s = add_wrap(s, w[i]); }\n  println(s);\n");
    check(src, -1);
    if (HasFailure()) return;
  }
}

TEST(ModuleLanes, PartsOfOneBufferAsTwoArguments) {
  // A function's ro and rw arrays are parts of one buffer: disjoint (the
  // tier runs) or the same part (read before the store: kept).
  std::string src =
      "fn step(n:usize, dst:rw<u32>[n], src:ro<u32>[n]) { for i in 0..n { dst[i] = src[i] * 3 + 1; } }\n"
      "fn same(n:usize, xs:rw<u32>[n]) { for i in 0..n { xs[i] = xs[i] * 5 + u32(i); } }\n"
      "fn main() -> i32 {\n  let mut b = Buf[u32](1000);\n  for i in 0..1000 { b[i] = u32(i); }\n"
      "  step(b[500..1000], b[0..500]);\n  same(b[100..900]);\n"
      "  let mut s:u32 = 0;\n  for i in 0..1000 { s = add_wrap(s, mul_wrap(b[i], u32(i))); }\n"
      "  println(s);\n  return 0;\n}\n";
  check(src, -1);
  EXPECT_EQ(plannedLoops(src, "step"), 1u);
  EXPECT_EQ(plannedLoops(src, "same"), 1u);
}

TEST(ModuleLanes, LoopsAcrossCallsAndFrees) {
  // The same loop in many calls with fresh buffers (the deref cache and the
  // refusal memo must not carry over), and a buffer freed and reallocated.
  std::string src =
      "fn fillsum(n:usize, k:u64) -> u64 {\n  let mut v = Buf[u64](n);\n"
      "  for i in 0..n { v[i] = u64(i) * k + 1; }\n  let mut s:u64 = 0;\n"
      "  for i in 0..n { s = add_wrap(s, v[i]); }\n  return s;\n}\n"
      "fn main() -> i32 {\n  let mut t:u64 = 0;\n  for r in 0..40 { t = add_wrap(t, fillsum(usize(r * 37 % 300), u64(r))); }\n"
      "  println(t);\n  return 0;\n}\n";
  check(src, -1);
  EXPECT_GE(plannedLoops(src, "fillsum"), 1u);
}

}  // namespace
}  // namespace cairn
