// Self-loops (exec/self_loop.hpp): a loop whose whole body is one
// kAddMov2LoopEndN_<T> runs its iterations in machine registers. The runs
// must be the plain engine's exactly: the values, in each fused dtype and
// across the wrap; the step count; and a step limit at every step of a
// short loop, and at many points of long ones (the fast stretch stops
// short of the checkpoint and of the last iteration).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "exec/program.hpp"
#include "tests/unit/module_opt_util.hpp"

namespace cairn {
namespace {

using namespace moduleopt_test;

// How many kAddMov2LoopEndN_<T> of fn's optimized code jump to themselves.
int selfLoops(const Module &m, const ModuleFacts &facts, const char *fn) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  int n = 0;
  for (const exec::Ins &i : ps[static_cast<size_t>(m.find(fn))].code)
    n += i.op >= exec::kAddMov2LoopEndN_I32 && i.op <= exec::kAddMov2LoopEndN_U64 && exec::lo16(i.c) == 0 ? 1 : 0;
  return n;
}

// a and b after `count` rotations t = a + b; a = b; b = t from (a0, b0),
// wrapping at `bits`, as the decimal text println prints for the type.
std::string rotated(uint64_t a, uint64_t b, uint64_t count, int bits, bool isSigned) {
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t t = (a + b) & mask;
    a = b;
    b = t;
  }
  auto text = [&](uint64_t v) {
    if (!isSigned) return std::to_string(v);
    if (bits == 32) return std::to_string(static_cast<int32_t>(static_cast<uint32_t>(v)));
    return std::to_string(static_cast<int64_t>(v));
  };
  return text(a) + " " + text(b) + "\n";
}

struct Type {
  const char *name;
  int bits;
  bool isSigned;
  const char *a0, *b0;  // near the wrap
  uint64_t a0bits, b0bits;
};

TEST(SelfLoop, RotationsAgreeWithThePlainEngineAtEveryStep) {
  const Type types[] = {
      {"u64", 64, false, "18446744073709551000", "7", 18446744073709551000ull, 7},
      {"i64", 64, true, "9223372036854775000", "-3", 9223372036854775000ull, static_cast<uint64_t>(int64_t{-3})},
      {"u32", 32, false, "4294967000", "11", 4294967000ull, 11},
      {"i32", 32, true, "2147483000", "-5", 2147483000ull, 0xfffffffbull},
  };
  // The sum's operands either way round (the mirror shape), the loop alone
  // in a function with its count a parameter, and inside an outer loop.
  const char *sums[] = {"add_wrap(a, b)", "add_wrap(b, a)"};
  const uint64_t counts[] = {0, 1, 2, 3, 4, 7, 300};
  for (const Type &t : types)
    for (const char *sum : sums)
      for (uint64_t count : counts)
        for (int outer : {1, 3}) {
          const std::string T = t.name;
          std::string src = "fn f(n:usize) {\n  let mut a:" + T + " = " + t.a0 + ";\n  let mut b:" + T + " = " + t.b0 +
                            ";\n  for r in 0.." + std::to_string(outer) + " {\n    for i in 0..n {\n      let t = " +
                            sum + ";\n      a = b;\n      b = t;\n    }\n  }\n  println(a, \" \", b);\n}\n"
                            "fn main() -> i32 {\n  f(" + std::to_string(count) + ");\n  return 0;\n}\n";
          Module m;
          ModuleFacts facts;
          ASSERT_TRUE(lowerText(src, m, facts)) << src;
          ASSERT_EQ(selfLoops(m, facts, "f"), 1) << src;
          Outcome r = runOnce(m, facts, true, 0);
          EXPECT_EQ(r.out, rotated(t.a0bits, t.b0bits, count * static_cast<uint64_t>(outer), t.bits, t.isSigned)) << src;
          if (count <= 7) {  // every limit up to the whole run's steps
            const uint64_t steps = expectSame(m, facts, 0, src);
            for (uint64_t l = 1; l <= steps && !HasFailure(); ++l) expectSame(m, facts, l, src);
          } else {
            expectSameAtLimits(m, facts, src);
          }
          if (HasFailure()) return;
        }
}

TEST(SelfLoop, RotationsNearOtherRegistersAgree) {
  // Shapes whose registers may meet the loop's own: the count is a rotated
  // value (read once, as the loop starts), the sum reads the index, a third
  // value rides along, and a rotation long enough to cross many step
  // checkpoints of a limited run.
  const char *bodies[] = {
      "for i in 0..b { let t = add_wrap(a, b); a = b; b = t; }",
      "for i in 0..9 { let t = add_wrap(a, i); a = b; b = t; }",
      "for i in 0..9 { let t = add_wrap(a, b); a = b; b = t; c = add_wrap(c, 1); }",
      "for i in 0..200000 { let t = add_wrap(a, b); a = b; b = t; }",
  };
  for (const char *body : bodies) {
    std::string src = std::string("fn main() -> i32 {\n  let mut a:u64 = 2;\n  let mut b:u64 = 5;\n  let mut c:u64 = 0;\n  ") +
                      body + "\n  println(a, \" \", b, \" \", c);\n  return 0;\n}\n";
    Module m;
    ModuleFacts facts;
    ASSERT_TRUE(lowerText(src, m, facts)) << src;
    expectSameAtLimits(m, facts, src);
    EXPECT_EQ(runOnce(m, facts, true, 0).r.status, RunResult::Status::Ok) << src;
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace cairn
