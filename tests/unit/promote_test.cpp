// The module compiler's optimizations (ModuleRunOptions::optimize: scalar
// promotion of cells, exec/promote.hpp; identity casts; plain loops, copy
// pairs, fused multiply-adds, branches and while loops (fuse_control.cpp)
// and index arithmetic fused into accesses (fuse_access.cpp)) change no
// result. Every CAIRN program of
// tests/cairn/run, bench/cairn's kernels, generated modules and programs
// that trap inside fused instructions run both ways and must agree on
// everything a run reports (status, message, value, output, the trap's
// function and place, and the exact step count), unlimited and with step
// limits that trip at many points of the run, so the steps of ops that
// emit nothing, or share an instruction, are placed exactly.
#include <gtest/gtest.h>

#include "exec/alu.hpp"
#include "exec/proven.hpp"
#include "tests/unit/module_opt_util.hpp"
#include "tools/progen_module.hpp"

namespace cairn {
namespace {

using namespace moduleopt_test;

TEST(ModuleOpt, TrapsInsideFusedMultiplyAdds) {
  // x = x * K + y overflows at the multiply or at the add, in each fused
  // dtype, with a mutable local read (a step with no instruction) between
  // the two; the last line uses wrapping ops (never traps).
  const char *types[] = {"u64", "i64", "u32", "i32"};
  const char *bodies[] = {
      "x = x * 3 + y;",            // the multiply overflows first
      "x = x * 1 + y; y = y * 2;", // the add overflows
      "let p = x * 2; x = p + y; y = y + 1;",
      "x = add_wrap(mul_wrap(x, 7), y);",
  };
  for (const char *t : types)
    for (const char *b : bodies) {
      std::string src = std::string("fn main() -> i32 {\n  let mut x:") + t + " = 1;\n  let mut y:" + t +
                        " = 5;\n  for i in 0..200 {\n    " + b + "\n  }\n  println(x);\n  return 0;\n}\n";
      Module m;
      ModuleFacts facts;
      ASSERT_TRUE(lowerText(src, m, facts)) << src;
      expectSameAtLimits(m, facts, src);
      Outcome r = runOnce(m, facts, true, 0);
      if (std::string(b).find("wrap") == std::string::npos) {
        EXPECT_EQ(r.r.status, RunResult::Status::Trap) << src;
      }
      if (HasFailure()) return;
    }
}

TEST(ModuleOpt, TrapsInsideFusedIndexAccesses) {
  // A load or a store at xs[i * k + j] or xs[i + j] (one instruction with
  // its index arithmetic, exec/fuse_access.cpp) whose multiply, add or
  // bounds check traps at iteration 100 or 150, or never, in four element
  // dtypes; `off` is a cell, so its read is a step with no instruction. (A
  // Buf's own elements are read through a deref between the index and the
  // access: not fused; here the view is a parameter.)
  const char *types[] = {"u8", "i32", "f64", "bool"};
  const char *indices[] = {
      "(i / 100 * 2) * 9223372036854775808 + i",  // the multiply overflows
      "(i / 100) * 18446744073709551615 + i",     // the add overflows
      "i * 2 + off",                              // out of bounds from i = 150
      "i + off",                                  // the add overflows at 150 (CA)
      "i * 1 + 3",                                // never traps
  };
  for (const char *t : types)
    for (const char *idx : indices)
      for (bool load : {true, false}) {
        bool bad = std::string(idx).find("off") != std::string::npos;
        std::string body = load ? std::string("s = xs[") + idx + "];" : std::string("xs[") + idx + "] = s;";
        std::string src = std::string("fn f(n:usize, xs:rw<") + t + ">[n]) -> " + t + " {\n  let mut s:" + t +
                          " = xs[0];\n  let mut off:u64 = 0;\n  for i in 0..200 {\n    if i == 150 { off = " +
                          (std::string(idx) == "i + off" ? "18446744073709551615" : "0") + "; }\n    " + body +
                          "\n  }\n  return s;\n}\nfn main() -> i32 {\n  let mut xs = Buf[" + t +
                          "](400);\n  println(f(len(xs), xs));\n  return 0;\n}\n";
        if (bad && std::string(idx) == "i * 2 + off") src.replace(src.find("= 0; }"), 6, "= 200; }");
        Checked c = lowerAndCompare(src, "f", [](uint32_t op) {
          return op >= exec::kVLoadCMA_Bool && op < exec::kVLoadCMA_Bool + 4 * kNumDTypes;
        });
        EXPECT_EQ(c.fused, 1) << src;
        EXPECT_EQ(c.status, std::string(idx) == "i * 1 + 3" ? RunResult::Status::Ok : RunResult::Status::Trap) << src;
        if (HasFailure()) return;
      }
}

TEST(ModuleOpt, TrapsInsideFusedDerefAccesses) {
  // A Buf's elements loaded and stored in a loop of main (each access one
  // instruction with its deref, exec/fuse_access.cpp), several per
  // iteration through versions of the view; v[i + 1] is out of bounds at
  // the last iteration of 0..40 (and never in 0..39), in four dtypes.
  const char *types[] = {"u8", "i64", "f32", "bool"};
  for (const char *t : types)
    for (const char *count : {"40", "39"}) {
      std::string src = std::string("fn main() -> i32 {\n  let mut v = Buf[") + t + "](40);\n  let mut s:" + t +
                        " = v[0];\n  for i in 0.." + count + " {\n    v[i] = s;\n    s = v[i + 1];\n    v[i + 1] = v[i];\n"
                        "    s = v[39 - i];\n  }\n  println(s);\n  println(v[3]);\n  return 0;\n}\n";
      Checked c = lowerAndCompare(src, "main", [](uint32_t op) {
        return op >= exec::vidxOpc(4, DType::Bool) && op < exec::vidxOpc(8, DType::Bool);
      });
      EXPECT_GE(c.fused, 4) << src;
      EXPECT_EQ(c.status, std::string(count) == "40" ? RunResult::Status::Trap : RunResult::Status::Ok) << src;
      if (HasFailure()) return;
    }
}

TEST(ModuleOpt, ModAndDivByConstantsAgree) {
  // `x % D` and `x / D` by constants D in [2, 2^32) (kModC/kDivC: a
  // reciprocal below 2^32, a division above) against the plain engine's
  // division, for x across the whole range of each dtype (600 values at a
  // stride), the 600 values up to 2^32 + 300, and -300 .. 300.
  struct Case {
    const char *t;
    std::vector<const char *> divisors;
    const char *stride;
  };
  const Case cases[] = {
      {"i32", {"2", "3", "7", "251", "65537", "2147483647"}, "7158278"},
      {"u32", {"2", "3", "7", "251", "65537", "2147483648", "4294967295"}, "7158278"},
      {"i64", {"2", "3", "10", "251", "65537", "2147483648", "4294967295"}, "30744573456182584"},
      {"u64", {"2", "3", "10", "251", "65537", "2147483648", "4294967295"}, "30744573456182584"},
  };
  for (const Case &c : cases)
    for (const char *d : c.divisors) {
      const std::string t = c.t;
      const bool wide = t == "i64" || t == "u64";
      std::string body;
      int k = 0;
      for (std::pair<std::string, std::string> so : {std::pair<std::string, std::string>{c.stride, "0"}, {"1", "4294966996"}, {"1", "-300"}}) {
        if ((so.second == "-300" && t[0] == 'u') || (so.second == "4294966996" && !wide)) continue;
        const std::string s = "s" + std::to_string(k), o = "o" + std::to_string(k), x = "x" + std::to_string(k++);
        body += "  let " + s + ":" + t + " = " + so.first + ";\n  let " + o + ":" + t + " = " + so.second +
                ";\n  for i in 0..600 {\n    let " + x + ":" + t + " = add_wrap(mul_wrap(" + t + "(i), " + s + "), " + o +
                ");\n    println(" + x + " % " + d + ", \" \", " + x + " / " + d + ");\n  }\n";
      }
      std::string src = "fn main() -> i32 {\n" + body + "  return 0;\n}\n";
      Module m;
      ModuleFacts facts;
      if (!lowerText(src, m, facts)) {
        ADD_FAILURE() << src;
        return;
      }
      EXPECT_GE(countOps(m, facts, "main", [](uint32_t op) { return op >= exec::kModC_I32 && op <= exec::kDivC_U64; }), 2)
          << src;
      expectSame(m, facts, 0, src);
      if (HasFailure()) return;
    }
}

TEST(ModuleOpt, ControlFusionsApply) {
  // The shapes exec/fuse_control.cpp fuses appear where expected (the
  // programs of tests/cairn/run check their results): a while loop ends in
  // one kWhileEnd, its condition and `if n % 3 == 0` are compare-branches,
  // the `if !returned` after it is a kIfNot, and loop ends take the copies
  // before them.
  const char *src =
      "fn f(n:u64) -> u64 {\n  let mut i:u64 = 0;\n  let mut k:u64 = 0;\n  while i < n {\n"
      "    if i % 3 == 0 { k += 1; }\n    if k == 5 { return i; }\n    i += 1;\n  }\n  return k;\n}\n"
      "fn main() -> i32 {\n  println(f(4));\n  println(f(100));\n  return 0;\n}\n";
  Module m;
  ModuleFacts facts;
  ASSERT_TRUE(lowerText(src, m, facts));
  EXPECT_EQ(countOps(m, facts, "f", [](uint32_t op) { return op == exec::kWhileEnd; }), 1);
  EXPECT_EQ(countOps(m, facts, "f", [](uint32_t op) { return exec::isCmpIf(op); }), 3);
  EXPECT_GE(countOps(m, facts, "f", [](uint32_t op) { return op == exec::kIfNot; }), 1);
  expectSameAtLimits(m, facts, src);
  Outcome r = runOnce(m, facts, true, 0);
  EXPECT_EQ(r.out, "2\n12\n");
  // A while with no `return` in it reads `returned` as the local's first
  // version, which is zero: its end is a kWhileEndN (both loops of a
  // sieve, each with the `+=` before it: kCAddWhileEndN); f's, which may
  // return from inside, stays a kWhileEnd.
  const char *sieve =
      "fn s(n:usize) -> u64 {\n  let mut c = Buf[u8](n);\n  let mut k:u64 = 0;\n  let mut i:usize = 2;\n"
      "  while i < n {\n    if c[i] == 0 {\n      k += 1;\n      let mut j:usize = i * i;\n"
      "      while j < n {\n        c[j] = 1;\n        j += i;\n      }\n    }\n    i += 1;\n  }\n  return k;\n}\n"
      "fn main() -> i32 {\n  println(s(100), \" \", s(2));\n  return 0;\n}\n";
  Module m3;
  ModuleFacts f3;
  ASSERT_TRUE(lowerText(sieve, m3, f3)) << sieve;
  EXPECT_EQ(countOps(m3, f3, "s", [](uint32_t op) {
              return op == exec::kWhileEndN || (op >= exec::kCAddWhileEndN_I32 && op <= exec::kCAddWhileEndN_U64);
            }),
            2);
  EXPECT_EQ(countOps(m, facts, "f", [](uint32_t op) { return op == exec::kWhileEndN; }), 0);
  expectSameAtLimits(m3, f3, sieve);
  EXPECT_EQ(runOnce(m3, f3, true, 0).out, "25 0\n");
  // Loop ends joined with the copies before them (the file's results are
  // checked on every engine by its test: run expectations).
  Module m2;
  ModuleFacts f2;
  ASSERT_TRUE(lowerFile(std::string(CAIRN_SOURCE_DIR) + "/tests/cairn/run/fused_loop_copies.cairn", m2, f2));
  EXPECT_EQ(countOps(m2, f2, "main", [](uint32_t op) { return op == exec::kMov2LoopEndN; }), 3);
  EXPECT_EQ(countOps(m2, f2, "main", [](uint32_t op) { return op == exec::kMovLoopEndN; }), 1);
}

TEST(ModuleOpt, IfEndsJumpPastAKIfNotOnlyWhenTheirCountIsKnownTrue) {
  // `if c { ...; return x; } rest`: rest runs under a kIfNot on c, which the
  // if's end (c known true there) jumps past itself (kIfEndJ, kMovIfEndJ);
  // ifs that end together jump past the inner ends, and an end before a
  // return returns. Not when the end cannot know c: the if began with a
  // kIfNot (c false in its body; golden module run_if_not_twice_on_one_
  // compare), the count is a local the body writes, or the body's last copy
  // writes it. Each program agrees with the unoptimized engine at every
  // step limit, and prints what it should.
  auto jumps = [](uint32_t op) { return op == exec::kIfEndJ || op == exec::kMovIfEndJ; };
  struct Case {
    const char *fn;
    const char *want;  // main's output for f(0), f(1), f(7)
    bool fused;
  } cases[] = {
      {"fn f(n:u64) -> u64 {\n  if n < 2 { return n; }\n  return f(n - 1) + f(n - 2);\n}\n", "0 1 13\n", true},
      {"fn f(n:u64) -> u64 {\n  let mut x:u64 = 5;\n  if n > 3 { x = n; }\n  if n > 3 { return x; }\n  return x + 100;\n}\n",
       "105 105 7\n", true},
      {"fn f(n:u64) -> u64 {\n  let mut x:u64 = 1;\n  if n > 0 {\n    if n > 5 { x = 7; }\n  }\n  return x;\n}\n", "1 1 7\n", true},
      {"fn f(n:u64) -> u64 {\n  let mut x:u64 = 0;\n  if !(n > 0) { x = 1; }\n  if !(n > 0) { x = x + 10; }\n  return x;\n}\n",
       "11 0 0\n", false},
      {"fn f(n:u64) -> u64 {\n  let mut c:bool = n < 5;\n  let mut x:u64 = 0;\n  if c { c = false; }\n"
       "  if !c { x = 3; }\n  return x;\n}\n",
       "3 3 3\n", false},
  };
  for (const Case &c : cases) {
    const std::string src = std::string(c.fn) + "fn main() -> i32 {\n  println(f(0), \" \", f(1), \" \", f(7));\n  return 0;\n}\n";
    Module m;
    ModuleFacts facts;
    ASSERT_TRUE(lowerText(src, m, facts)) << src;
    if (c.fused) {
      EXPECT_GE(countOps(m, facts, "f", jumps), 1) << src;
    }
    const uint64_t steps = expectSame(m, facts, 0, src);
    for (uint64_t l = 1; l <= steps && !HasFailure(); ++l) expectSame(m, facts, l, src);
    EXPECT_EQ(runOnce(m, facts, true, 0).out, c.want) << src;
    EXPECT_EQ(runOnce(m, facts, false, 0).out, c.want) << src;
    if (HasFailure()) return;
  }
}

TEST(ModuleOpt, LessOrEqualIsOneCompareBranch) {
  // `a <= b` and `a >= b` lower to or(cmplt, cmpeq); as the condition of an
  // `if` or a `while` the three become one kIfCmple_<T> (Compiler::fuseLe),
  // which agrees with them on every dtype, NaN included, at every step
  // limit.
  const char *src =
      "fn f(a:f64, b:f64) -> u32 {\n  let mut k:u32 = 0;\n  if a <= b { k += 1; }\n  if a >= b { k += 2; }\n"
      "  return k;\n}\n"
      "fn g(n:u8) -> u32 {\n  let mut i:u8 = 0;\n  let mut s:u32 = 0;\n  while i <= n {\n    s += u32(i);\n"
      "    if i >= 250 { return s; }\n    i += 1;\n  }\n  return s;\n}\n"
      "fn main() -> i32 {\n  let z:f64 = 0.0;\n  let nan = z / z;\n"
      "  println(f(1.0, 2.0), \" \", f(2.0, 2.0), \" \", f(3.0, 2.0), \" \", f(nan, 1.0), \" \", f(1.0, nan));\n"
      "  println(g(0), \" \", g(10), \" \", g(255));\n  return 0;\n}\n";
  Module m;
  ModuleFacts facts;
  ASSERT_TRUE(lowerText(src, m, facts)) << src;
  auto le = [](uint32_t op) { return op >= exec::cmpIfOpc(3, DType::Bool) && op <= exec::cmpIfOpc(3, DType::F64); };
  EXPECT_EQ(countOps(m, facts, "f", le), 2);
  EXPECT_EQ(countOps(m, facts, "g", le), 2);
  const uint64_t steps = expectSame(m, facts, 0, src);
  for (uint64_t l = 1; l <= steps && l < 4000 && !HasFailure(); ++l) expectSame(m, facts, l, src);
  expectSameAtLimits(m, facts, src);
  EXPECT_EQ(runOnce(m, facts, true, 0).out, "1 3 2 0 0\n0 55 31375\n");
}

TEST(ModuleOpt, CalleesLeadingIfsAreDecidedAtTheCall) {
  // A light function whose first instruction is an `if` on its parameters
  // and constants has it decided at each call (Machine::callLight): the
  // frame starts at the branch taken (past the kIfNot of `if c { return
  // x; } rest`), and a true branch that returns a parameter or constant
  // makes no frame. Each program agrees with the unoptimized engine (which
  // has no such first instruction) at every step limit, or at many for
  // long runs, and prints what it should: the compare on either side, each
  // compare op, signed and narrow dtypes, a leaf returning the other
  // parameter or a constant, each integer compare of a parameter with a
  // constant (Lead::fast: lt, le, eq, ne, the constant on either side, at
  // the ends of its dtype's range), a true branch that is no leaf, a trap in the
  // caller after leaves, and recursion at the call-depth limit (10000
  // frames: down(9998) reaches it with its leaf, down(9999) traps there).
  auto leads = [](const Module &m, const ModuleFacts &facts, const char *fn) {
    std::vector<Program> ps = exec::compileModule(m, facts, true);
    return exec::isCmpIf(ps[static_cast<size_t>(m.find(fn))].code[0].op);
  };
  struct Case {
    const char *src, *want;
    bool every;  // a short run: every step limit
  } cases[] = {
      {"fn f(n:u64) -> u64 {\n  if n < 2 { return n; }\n  return f(n - 1) + f(n - 2);\n}\n"
       "fn main() -> i32 {\n  println(f(0), \" \", f(1), \" \", f(9));\n  return 0;\n}\n",
       "0 1 34\n", true},
      {"fn f(n:i32) -> i32 {\n  if 2 < n { return f(n - 1) + f(n - 3); }\n  return n;\n}\n"
       "fn main() -> i32 {\n  println(f(-4), \" \", f(2), \" \", f(11));\n  return 0;\n}\n",
       "-4 2 47\n", true},
      {"fn f(n:u8) -> u8 {\n  if n == 0 { return 1; }\n  return f(n - 1) * 2;\n}\n"
       "fn main() -> i32 {\n  println(f(0), \" \", f(7));\n  println(f(8));\n  return 0;\n}\n",
       "1 128\n", true},
      {"fn g(a:u64, b:u64) -> u64 {\n  if b == 0 { return a; }\n  return g(b, a % b);\n}\n"
       "fn main() -> i32 {\n  println(g(1071, 462), \" \", g(0, 5), \" \", g(17, 0));\n  return 0;\n}\n",
       "21 5 17\n", true},
      {"fn m(a:i64, b:i64) -> i64 {\n  if a < b { return b; }\n  return m(a - 3, b + 1);\n}\n"
       "fn main() -> i32 {\n  println(m(40, -5), \" \", m(-1, 0));\n  return 0;\n}\n",
       "7 0\n", true},
      {"fn k(n:u32) -> u32 {\n  if n != 0 {\n    let t = n * 5;\n    return t + k(n - 1);\n  }\n  return 7;\n}\n"
       "fn main() -> i32 {\n  println(k(0), \" \", k(6));\n  return 0;\n}\n",
       "7 112\n", true},
      {"fn f(n:u64, b:u64) -> u64 {\n  if n < 3 { return b; }\n  return f(n - 1, b + 1) + f(n - 3, 1);\n}\n"
       "fn main() -> i32 {\n  println(f(0, 4), \" \", f(2, 9), \" \", f(9, 0));\n  return 0;\n}\n",
       "4 9 36\n", true},
      {"fn f(n:u64) -> u64 {\n  if 3 < n { return f(n - 1) + f(n - 4); }\n  if n < 2 { return 1; }\n  return n;\n}\n"
       "fn main() -> i32 {\n  println(f(0), \" \", f(3), \" \", f(12));\n  return 0;\n}\n",
       "1 3 50\n", true},
      {"fn f(n:i8) -> i8 {\n  if n <= -3 { return n; }\n  return f(n - 2) + 1;\n}\n"
       "fn main() -> i32 {\n  println(f(100), \" \", f(-3), \" \", f(0));\n  return 0;\n}\n",
       "48 -3 -2\n", true},
      {"fn g(n:u16) -> u16 {\n  if 65535 <= n { return 7; }\n  if n == 0 { return 1; }\n  return g(n - 1) + 1;\n}\n"
       "fn main() -> i32 {\n  println(g(65535), \" \", g(3));\n  return 0;\n}\n",
       "7 4\n", true},
      {"fn k(n:u32) -> u32 {\n  if 0 < n { return k(n - 1) + 2; }\n  return 5;\n}\n"
       "fn main() -> i32 {\n  println(k(0), \" \", k(4));\n  return 0;\n}\n",
       "5 13\n", true},
      {"fn m(n:i64) -> i64 {\n  if n >= 3 { return m(n - 1) + m(n - 3); }\n  return n;\n}\n"
       "fn main() -> i32 {\n  println(m(-2), \" \", m(10));\n  return 0;\n}\n",
       "-2 32\n", true},
      {"fn down(n:u64) -> u64 {\n  if n == 0 { return 0; }\n  return add_wrap(down(n - 1), 1);\n}\n"
       "fn main() -> i32 {\n  println(down(9997), \" \", down(9998));\n  println(down(9999));\n  return 0;\n}\n",
       "9997 9998\n", false},
  };
  for (const Case &c : cases) {
    Module m;
    ModuleFacts facts;
    ASSERT_TRUE(lowerText(c.src, m, facts)) << c.src;
    const char *fn = m.find("f") >= 0 ? "f" : m.find("g") >= 0 ? "g" : m.find("m") >= 0 ? "m" : m.find("k") >= 0 ? "k" : "down";
    EXPECT_TRUE(leads(m, facts, fn)) << c.src;
    if (c.every) {
      const uint64_t steps = expectSame(m, facts, 0, c.src);
      for (uint64_t l = 1; l <= steps && !HasFailure(); ++l) expectSame(m, facts, l, c.src);
    } else {
      expectSameAtLimits(m, facts, c.src);
    }
    EXPECT_EQ(runOnce(m, facts, true, 0).out, c.want) << c.src;
    if (HasFailure()) return;
  }
}

TEST(ModuleOpt, MultiplyAddLoopEndsFuse) {
  // A loop whose body ends in a wrapping multiply-add or add ends in one
  // kMulAddLoopEndN_<T>, in each fused dtype: a body of the multiply-add
  // alone (the fused instruction jumps to itself), one where an `if`'s
  // jump lands on it, one ending in an add, and a dot product of two
  // views; results and steps agree with the plain engine under step limits.
  const char *types[] = {"u64", "i64", "u32", "i32"};
  for (const char *t : types) {
    const std::string T = t;
    std::string src = "fn dot(n:usize, a:ro<" + T + ">[n], b:ro<" + T + ">[n]) -> " + T + " {\n  let mut s:" + T +
                      " = 0;\n  for i in 0..n { s = add_wrap(s, mul_wrap(a[i], b[i])); }\n  return s;\n}\n"
                      "fn main() -> i32 {\n  let mut h:" + T + " = 1;\n  let mut k:" + T + " = 2;\n"
                      "  for i in 0..100 { h = add_wrap(mul_wrap(h, 31), k); }\n"
                      "  for i in 0..100 {\n    if i % 3 == 0 { k = add_wrap(k, 5); }\n    h = add_wrap(mul_wrap(k, h), 7);\n  }\n"
                      "  let mut a = Buf[" + T + "](50);\n  let mut b = Buf[" + T + "](50);\n"
                      "  for i in 0..50 { a[i] = h; b[i] = k; h = add_wrap(h, 3); }\n"
                      "  println(h);\n  println(dot(a[0..50], b[0..50]));\n  return 0;\n}\n";
    Module m;
    ModuleFacts facts;
    ASSERT_TRUE(lowerText(src, m, facts)) << src;
    auto fused = [](uint32_t op) { return op >= exec::kMulAddLoopEndN_I32 && op <= exec::kMulAddLoopEndN_U64; };
    EXPECT_EQ(countOps(m, facts, "main", fused), 3) << src;
    EXPECT_EQ(countOps(m, facts, "dot", fused), 1) << src;
    expectSameAtLimits(m, facts, src);
    EXPECT_EQ(runOnce(m, facts, true, 0).r.status, RunResult::Status::Ok) << src;
    if (HasFailure()) return;
  }
}

TEST(ModuleOpt, RotatedSumsFuseWithTheirCopies) {
  // `t = add_wrap(a, b); a = b; b = t;` at a loop's end is one
  // kAddMov2LoopEndN_<T> (t kept out of the frame), in each fused dtype;
  // not when t is read again (c = t) or when it is the only instruction
  // before the copies' end in another order (b = t; a = b reads the new
  // b). Results and steps agree with the plain engine under step limits.
  const char *types[] = {"u64", "i64", "u32", "i32"};
  const char *bodies[] = {"let t = add_wrap(a, b);\n    a = b;\n    b = t;",
                          "let t = add_wrap(a, b);\n    a = b;\n    b = t;\n    c = add_wrap(c, t);",
                          "let t = add_wrap(a, b);\n    b = t;\n    a = b;"};
  for (const char *t : types)
    for (int k = 0; k < 3; ++k) {
      const std::string T = t;
      std::string src = "fn main() -> i32 {\n  let mut a:" + T + " = 0;\n  let mut b:" + T + " = 1;\n  let mut c:" + T +
                        " = 0;\n  for i in 0..300 {\n    " + bodies[k] + "\n  }\n  println(a, \" \", b, \" \", c);\n"
                        "  return 0;\n}\n";
      Checked r = lowerAndCompare(src, "main", [](uint32_t op) {
        return op >= exec::kAddMov2LoopEndN_I32 && op <= exec::kAddMov2LoopEndN_U64;
      });
      EXPECT_EQ(r.fused, k == 0 ? 1 : 0) << src;
      EXPECT_EQ(r.status, RunResult::Status::Ok) << src;
      if (HasFailure()) return;
    }
}

TEST(ModuleOpt, CheckedCastsOfSmallRemaindersAreFree) {
  // checked_cast of an unsigned remainder by a constant whose remainders
  // all fit (u8(x % 251), i8(x % 128)) cannot fail: no instruction. Those
  // that can (x % 257 into u8, x % 129 into i8, a signed remainder) stay
  // checked and trap where the plain engine does.
  struct Case {
    const char *expr;
    bool free, traps;
  };
  const Case cases[] = {
      {"u8(x % 251)", true, false},  {"i8(x % 128)", true, false}, {"u16(x % 65536)", true, false},
      {"u8(x % 257)", false, true},  {"i8(x % 129)", false, true}, {"i8(y % 200)", false, true},
  };
  for (const Case &c : cases) {
    // (i64 of the small dtype widens: free too.)
    std::string src = std::string("fn main() -> i32 {\n  let mut s:i64 = 0;\n  let mut y:i64 = -150;\n"
                                  "  for i in 0..300 {\n    let x:u64 = i * 7 + 3;\n    s += i64(") +
                      c.expr + ");\n    y += 1;\n  }\n  println(s);\n  return 0;\n}\n";
    Checked r = lowerAndCompare(src, "main", [](uint32_t op) {
      return op >= exec::kCCast_Bool_Bool && op < exec::kCCast_Bool_Bool + kNumDTypes * kNumDTypes;
    });
    EXPECT_EQ(r.fused == 0, c.free) << src;
    EXPECT_EQ(r.status, c.traps ? RunResult::Status::Trap : RunResult::Status::Ok) << src;
    if (HasFailure()) return;
  }
}

// Cast<F, T> of exec/alu.hpp for run-time dtypes.
Bits castBits(Bits v, DType from, DType to) {
  using CastFn = Bits (*)(Bits);
#define CAIRN_E2(F, D) &exec::alu::Cast<DType::F, DType::D>,
#define CAIRN_E(P, F) {CAIRN_EXEC_DT2(CAIRN_E2, F)},
  static const CastFn kCasts[kNumDTypes][kNumDTypes] = {CAIRN_EXEC_DT(CAIRN_E, _)};
#undef CAIRN_E
#undef CAIRN_E2
  return kCasts[static_cast<int>(from)][static_cast<int>(to)](v);
}

// How many checked_shrinks of function fn that indexProven proves, of how many.
std::pair<int, int> provenShrinks(const std::string &src, const char *fn = "main") {
  Module m;
  ModuleFacts facts;
  if (!lowerText(src, m, facts)) return {-1, -1};
  int k = m.find(fn), proven = 0, all = 0;
  const Graph &g = m.funcs[static_cast<size_t>(k)].body;
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::CShrink) {
      ++all;
      proven += exec::IndexProofs(g, facts.funcs[static_cast<size_t>(k)]).proven(NodeId{i}) ? 1 : 0;
    }
  return {proven, all};
}

TEST(ModuleOpt, IndexProofsCoverOnlyTheLoopOverTheView) {
  const std::string head = "fn main() -> i32 {\n  let n:usize = 10;\n  let mut v = Buf[u32](n);\n  let mut s:u32 = 0;\n";
  const std::string tail = "  println(s);\n  return 0;\n}\n";
  // for x in v, and for i in 0..len(v): the index is the loop's over v.
  EXPECT_EQ(provenShrinks(head + "  for x in v { s = add_wrap(s, x); }\n" + tail), std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks(head + "  for i in 0..len(v) { s = add_wrap(s, v[i]); }\n" + tail), std::make_pair(1, 1));
  // A constant count no larger than every constant count v's cell was
  // allocated with (n is a `const`).
  EXPECT_EQ(provenShrinks(head + "  for i in 0..n { s = add_wrap(s, v[i]); }\n" + tail), std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks(head + "  for i in 0..7 { s = add_wrap(s, v[i]); }\n" + tail), std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks(head + "  v = Buf[u32](12);\n  for i in 0..10 { s = add_wrap(s, v[i]); }\n" + tail),
            std::make_pair(1, 1));
  // Not proven: a count past the allocation, a cell also given a smaller
  // object (before or inside the loop), an allocation of a count that is not
  // a constant, a cell given away (take), a count from a variable.
  EXPECT_EQ(provenShrinks(head + "  for i in 0..11 { s = add_wrap(s, v[i]); }\n" + tail), std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  v = Buf[u32](9);\n  for i in 0..n { s = add_wrap(s, v[i]); }\n" + tail),
            std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  for i in 0..n { s = add_wrap(s, v[i]); if i == 3 { v = Buf[u32](4); } }\n" + tail),
            std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks("fn main() -> i32 {\n  let n:usize = 10;\n  let mut v = Buf[u32](n + len(\"ab\"));\n"
                          "  let mut s:u32 = 0;\n  for i in 0..n { s = add_wrap(s, v[i]); }\n" + tail),
            std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  let w = take(v);\n  for i in 0..n { s = add_wrap(s, v[i]); }\n" + tail),
            std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  let mut k:usize = 5;\n  if s == 0 { k = 11; }\n  for i in 0..k { s = add_wrap(s, v[i]); }\n" + tail),
            std::make_pair(0, 1));
  // Proven since the lowering forwards a stored value to the reads of its
  // version (lower/build.cpp, Storage::stored): the object taken from v is
  // the only one w's cell is given, and k's read is the constant 5.
  EXPECT_EQ(provenShrinks(head + "  let w = take(v);\n  for i in 0..n { s = add_wrap(s, w[i]); }\n" + tail),
            std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks(head + "  let mut k:usize = 5;\n  for i in 0..k { s = add_wrap(s, v[i]); }\n" + tail),
            std::make_pair(1, 1));
  // Not proven: an index past the loop's, a loop from 1, a view of another
  // buffer of the same length.
  EXPECT_EQ(provenShrinks(head + "  for i in 0..len(v) { if i + 1 < len(v) { s = add_wrap(s, v[i + 1]); } }\n" + tail),
            std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  for i in 1..len(v) { s = add_wrap(s, v[i]); }\n" + tail), std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  let mut w = Buf[u32](n);\n  for i in 0..len(w) { s = add_wrap(s, v[i]); }\n" + tail),
            std::make_pair(0, 1));
  // Stores into an rw view go through versions of it (carry, after): still
  // its length; another view's length proves nothing.
  const std::string callMain = "fn main() -> i32 {\n  let mut v = Buf[u32](9);\n  let mut w = Buf[u32](9);\n"
                               "  f(len(v), v, len(w), w);\n  return 0;\n}\n";
  EXPECT_EQ(provenShrinks("fn f(n:usize, xs:rw<u32>[n], m:usize, ys:rw<u32>[m]) {\n  for i in 0..len(xs) { xs[i] = u32(i); }\n}\n" +
                              callMain, "f"),
            std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks("fn f(n:usize, xs:rw<u32>[n], m:usize, ys:rw<u32>[m]) {\n  for i in 0..len(xs) { ys[i] = u32(i); }\n}\n" +
                              callMain, "f"),
            std::make_pair(0, 1));
}

TEST(ModuleOpt, WhileEndsTakeTheCheckedAddBeforeThem) {
  // `while i < L { ...; i += K; }` with no return inside: the add and the
  // loop's end are one kCAddWhileEndN_<T>, in each fused dtype; a jump of
  // an `if` before the add lands on it. Values, traps (the add overflows
  // at its own step) and steps are the plain engine's at every step limit.
  struct Case {
    const char *t, *start, *limit;
    bool traps;
  };
  const Case cases[] = {
      {"u64", "0", "10", false},  {"u64", "18446744073709551603", "18446744073709551615", true},
      {"i64", "-7", "10", false}, {"i64", "9223372036854775795", "9223372036854775807", true},
      {"u32", "0", "10", false},  {"u32", "4294967283", "4294967295", true},
      {"i32", "-7", "10", false}, {"i32", "2147483635", "2147483647", true},
  };
  const char *bodies[] = {"s = add_wrap(s, i);", "if i % 2 == 0 { s = add_wrap(s, i); }"};
  for (const Case &c : cases)
    for (const char *body : bodies) {
      const std::string T = c.t;
      const std::string src = "fn main() -> i32 {\n  let mut i:" + T + " = " + c.start + ";\n  let mut s:" + T +
                              " = 0;\n  while i < " + c.limit + " {\n    " + body + "\n    i += 5;\n  }\n"
                              "  println(s, \" \", i);\n  return 0;\n}\n";
      Module m;
      ModuleFacts facts;
      ASSERT_TRUE(lowerText(src, m, facts)) << src;
      EXPECT_EQ(countOps(m, facts, "main", [](uint32_t op) { return op >= exec::kCAddWhileEndN_I32 && op <= exec::kCAddWhileEndN_U64; }), 1)
          << src;
      const uint64_t steps = expectSame(m, facts, 0, src);
      for (uint64_t l = 1; l <= steps && !HasFailure(); ++l) expectSame(m, facts, l, src);
      Outcome r = runOnce(m, facts, true, 0);
      EXPECT_EQ(r.r.status, c.traps ? RunResult::Status::Trap : RunResult::Status::Ok) << src << r.r.message;
      if (HasFailure()) return;
    }
  // The sieve: two of them, the outer one's add after the inner if's end.
  const std::string sieve = "fn sieve(n:usize, composite:rw<u8>[n]) -> u64 {\n  let mut count:u64 = 0;\n  let mut i:usize = 2;\n"
                            "  while i < n {\n    if composite[i] == 0 {\n      count += 1;\n      let mut j:usize = i * i;\n"
                            "      while j < n {\n        composite[j] = 1;\n        j += i;\n      }\n    }\n    i += 1;\n  }\n"
                            "  return count;\n}\nfn main() -> i32 {\n  let mut c = Buf[u8](60);\n  println(sieve(len(c), c));\n"
                            "  return 0;\n}\n";
  Checked k = lowerAndCompare(sieve, "sieve", [](uint32_t op) { return op >= exec::kCAddWhileEndN_I32 && op <= exec::kCAddWhileEndN_U64; });
  EXPECT_EQ(k.fused, 2);
  EXPECT_EQ(k.status, RunResult::Status::Ok);
}

TEST(ModuleOpt, ShiftsByALiteralCountBelowTheWidthHaveNoGuard) {
  // `x >> 8` needs no run-time check of its count; a count from a
  // parameter, or a literal of the width, keeps its guard.
  auto guards = [](const std::string &shift) {
    Module m;
    ModuleFacts facts;
    const std::string src = "fn f(x:u32, k:u32) -> u32 = " + shift + ";\nfn main() -> i32 {\n  println(f(7, 3));\n  return 0;\n}\n";
    if (!lowerText(src, m, facts)) return -1;
    const Graph &g = m.funcs[static_cast<size_t>(m.find("f"))].body;
    int n = 0;
    for (uint32_t i = 0; i < g.size(); ++i) n += g.op(NodeId{i}) == Op::Guard ? 1 : 0;
    return n;
  };
  EXPECT_EQ(guards("x >> 8"), 0);
  EXPECT_EQ(guards("x << 31"), 0);
  EXPECT_EQ(guards("x >> k"), 1);
  EXPECT_EQ(guards("x << 32"), 1);
}

TEST(ModuleOpt, CheckedArithmeticThatCannotTrapRunsWrapping) {
  // i * 7 + 3 and u8(... % 251) over i < 1000 cannot trap (the value
  // analysis): no checked instruction is left; over i < n (n a parameter)
  // the multiply and the add may overflow and keep their checks, as does
  // an access's index (it fuses with the access, checked). Values and steps
  // are the plain engine's, under step limits, and a checked op that does
  // trap still traps.
  auto checkedOps = [](uint32_t op) {
    return (op >= exec::kCheckedAdd_Bool && op < exec::kCheckedAdd_Bool + 5 * kNumDTypes) ||
           (op >= exec::kCMulAdd_I32 && op <= exec::kCMulAdd_U64) ||
           (op >= exec::kCCast_Bool_Bool && op < exec::kCCast_Bool_Bool + kNumDTypes * kNumDTypes);
  };
  const std::string f = "fn f(n:usize) -> u32 {\n  let mut s:u32 = 0;\n  for i in 0..";
  const std::string g = " { s = add_wrap(s, u32(u8((i * 7 + 3) % 251))); s = add_wrap(s, u32(i32(i) + 5)); }\n  return s;\n}\n"
                        "fn main() -> i32 {\n  println(f(1000));\n  return 0;\n}\n";
  Checked c = lowerAndCompare(f + "1000" + g, "f", checkedOps);
  EXPECT_EQ(c.fused, 0);
  EXPECT_EQ(c.status, RunResult::Status::Ok);
  c = lowerAndCompare(f + "n" + g, "f", checkedOps);
  EXPECT_GE(c.fused, 2);
  EXPECT_EQ(c.status, RunResult::Status::Ok);
  // The cast to u32 of i32(i) - 5 traps at i = 0 when the loop counts from 0.
  c = lowerAndCompare("fn main() -> i32 {\n  let mut s:u32 = 0;\n  for i in 0..10 { s = add_wrap(s, u32(i32(i) - 5)); }\n"
                      "  println(s);\n  return 0;\n}\n", "main", checkedOps);
  EXPECT_GE(c.fused, 1);
  EXPECT_EQ(c.status, RunResult::Status::Trap);
}

TEST(ModuleOpt, IndexProofsCoverAccessesGuardedByACompare) {
  // An access inside `if i < len(v)` or `while i < len(v)` (a range that
  // runs at most once, on cmplt) at the compared index is proven, also
  // when the index is a local read again inside (the same version) and
  // when the length is a read-only array's extent.
  const std::string head = "fn main() -> i32 {\n  let mut v = Buf[u32](10);\n  let mut s:u32 = 0;\n  let mut i:usize = 0;\n";
  const std::string tail = "  println(s);\n  return 0;\n}\n";
  EXPECT_EQ(provenShrinks(head + "  while i < len(v) { s = add_wrap(s, v[i]); i += 1; }\n" + tail), std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks(head + "  i = 9;\n  if i < len(v) { v[i] = 4; }\n" + tail), std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks(head + "  while i < len(v) { if i % 2 == 0 { v[i] = 1; } i += 1; }\n" + tail), std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks("fn f(n:usize, a:ro<u32>[n]) -> u32 {\n  let mut s:u32 = 0;\n  let mut j:usize = 0;\n"
                          "  while j < n { s = add_wrap(s, a[j]); j += 2; }\n  return s;\n}\nfn main() -> i32 {\n"
                          "  let mut v = Buf[u32](9);\n  println(f(v[0..9]));\n  return 0;\n}\n", "f"),
            std::make_pair(1, 1));
  // Not proven: another index than the compared one, the index changed
  // inside before the access, a compare with <=, another view's length.
  EXPECT_EQ(provenShrinks(head + "  while i < len(v) { if i + 1 < len(v) { s = add_wrap(s, v[i + 1]); } i += 1; }\n" + tail),
            std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  while i < len(v) { i += 1; s = add_wrap(s, v[i]); }\n" + tail), std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  while i <= len(v) { s = add_wrap(s, v[i]); i += 1; }\n" + tail), std::make_pair(0, 1));
  EXPECT_EQ(provenShrinks(head + "  let mut w = Buf[u32](20);\n  while i < len(w) { s = add_wrap(s, v[i]); i += 1; }\n" + tail),
            std::make_pair(0, 1));
  // The checked ones trap where the plain engine traps.
  for (const char *body : {"  while i < len(v) { i += 1; s = add_wrap(s, v[i]); }\n",
                           "  let mut w = Buf[u32](20);\n  while i < len(w) { s = add_wrap(s, v[i]); i += 1; }\n"}) {
    Checked c = lowerAndCompare(head + body + tail, "main", [](uint32_t) { return false; });
    EXPECT_EQ(c.status, RunResult::Status::Trap) << body;
  }
}

TEST(ModuleOpt, IndexProofsCoverArraysOfTheLoopsExtent) {
  // A read-only array parameter of extent n is read through `part V 0 n`
  // (its caller checked len(V) == n): `for i in 0..n` over every array of
  // that extent is proven, as is a literal extent covering a constant count
  // and `for x in xs` (its length is the part's).
  const std::string callMain = "fn main() -> i32 {\n  let mut v = Buf[u32](9);\n  let mut w = Buf[u32](9);\n"
                               "  println(f(v[0..9], w[0..9]));\n  return 0;\n}\n";
  auto f = [&](const std::string &body) {
    return provenShrinks("fn f(n:usize, a:ro<u32>[n], b:ro<u32>[n]) -> u32 {\n  let mut s:u32 = 0;\n  " + body +
                             "\n  return s;\n}\n" + callMain, "f");
  };
  EXPECT_EQ(f("for i in 0..n { s = add_wrap(s, mul_wrap(a[i], b[i])); }"), std::make_pair(2, 2));
  EXPECT_EQ(f("for x in b { s = add_wrap(s, x); }"), std::make_pair(1, 1));
  EXPECT_EQ(f("for i in 0..len(a) { s = add_wrap(s, b[i]); }"), std::make_pair(0, 1));
  // Not proven: a count past the extent, an index past the loop's, a count
  // from a variable.
  EXPECT_EQ(f("for i in 0..n + 1 { s = add_wrap(s, a[i]); }"), std::make_pair(0, 1));
  EXPECT_EQ(f("for i in 0..n { if i > 0 { s = add_wrap(s, a[i - 1]); } }"), std::make_pair(0, 1));
  EXPECT_EQ(f("let mut k:usize = n;\n  if s == 0 { k += 1; }\n  for i in 0..k { s = add_wrap(s, a[i]); }"), std::make_pair(0, 1));
  // Proven: k's read is n itself (the lowering forwards the stored value).
  EXPECT_EQ(f("let mut k:usize = n;\n  for i in 0..k { s = add_wrap(s, a[i]); }"), std::make_pair(1, 1));
  // A read-write array of extent n makes n its `len` in the body: its
  // accesses are proven, and so are those of read-only arrays of that
  // extent, before or after it among the parameters. A second read-write
  // array of the extent keeps its checks (a known limit: only one array's
  // length can be n's value).
  auto rw = [&](const std::string &params, const std::string &body) {
    return provenShrinks("fn h(n:usize, " + params + ") {\n  " + body + "\n}\nfn main() -> i32 {\n"
                         "  let mut v = Buf[u32](9);\n  let mut w = Buf[u32](9);\n  h(v[0..9], w[0..9]);\n  return 0;\n}\n", "h");
  };
  EXPECT_EQ(rw("xs:rw<u32>[n], ys:ro<u32>[n]", "for i in 0..n { xs[i] = ys[i]; }"), std::make_pair(2, 2));
  EXPECT_EQ(rw("ys:ro<u32>[n], xs:rw<u32>[n]", "for i in 0..n { xs[i] = add_wrap(ys[i], xs[i]); }"), std::make_pair(3, 3));
  EXPECT_EQ(rw("xs:rw<u32>[n], ys:rw<u32>[n]", "for i in 0..n { xs[i] = ys[i]; }"), std::make_pair(1, 2));
  EXPECT_EQ(rw("xs:rw<u32>[n], ys:ro<u32>[n]", "for i in 0..n + 1 { xs[i] = ys[i]; }"), std::make_pair(0, 2));
  const std::string lit = "fn main() -> i32 {\n  let mut v = Buf[u8](4);\n  println(g(v[0..4]));\n  return 0;\n}\n";
  EXPECT_EQ(provenShrinks("fn g(a:ro<u8>[4]) -> u8 {\n  let mut s:u8 = 0;\n  for i in 0..3 { s = add_wrap(s, a[i]); }\n"
                          "  return s;\n}\n" + lit, "g"),
            std::make_pair(1, 1));
  EXPECT_EQ(provenShrinks("fn g(a:ro<u8>[4]) -> u8 {\n  let mut s:u8 = 0;\n  for i in 0..5 { s = add_wrap(s, a[i]); }\n"
                          "  return s;\n}\n" + lit, "g"),
            std::make_pair(0, 1));
}

// A hand-written module may read a cell before its first store: the handle
// is then 0, whose deref is the empty view, so the index keeps its check
// (and traps in both engines) even though every store writes a large enough
// alloc. With the store first, the same loop is proven.
const char *const kZeroHandle = R"(func main() -> i32
  %var = buffer 1 dtype=u64
  %c = const 4 dtype=u64
  %r = range %c
    %carry = carry %var
    %at = shrink %carry 0 shape=[]
    %ld = load %at
    %heap = deref %ld 0 dtype=u8
    %at2 = checked_shrink %heap %r shape=[]
    %one = const 1 dtype=u8
    %st = store %at2 %one
    %v = after %heap %st
  %end = end %r %carry
  %v2 = after %var %end
  %buf = alloc %c cols=[u8]
  %at3 = shrink %v2 0 shape=[]
  %st3 = store %at3 %buf
  %v3 = after %v2 %st3
  %at4 = shrink %v3 0 shape=[]
  %ld4 = load %at4
  %fr = free %ld4
  %z = const 0 dtype=i32
  %ret = ret %z
)";
const char *const kStoredFirst = R"(func main() -> i32
  %var = buffer 1 dtype=u64
  %c = const 4 dtype=u64
  %buf = alloc %c cols=[u8]
  %at3 = shrink %var 0 shape=[]
  %st3 = store %at3 %buf
  %v2 = after %var %st3
  %r = range %c
    %carry = carry %v2
    %at = shrink %carry 0 shape=[]
    %ld = load %at
    %heap = deref %ld 0 dtype=u8
    %at2 = checked_shrink %heap %r shape=[]
    %one = const 1 dtype=u8
    %st = store %at2 %one
    %v = after %heap %st
  %end = end %r %carry
  %v3 = after %v2 %end
  %at4 = shrink %v3 0 shape=[]
  %ld4 = load %at4
  %fr = free %ld4
  %z = const 0 dtype=i32
  %ret = ret %z
)";

TEST(ModuleOpt, AHandleThatMayBeZeroKeepsItsIndexCheck) {
  for (const char *text : {kZeroHandle, kStoredFirst}) {
    Module m;
    ModuleFacts facts;
    Diags d;
    ASSERT_TRUE(parseModule(text, m, d) && validateModule(m, facts, d)) << text;
    const Graph &g = m.funcs[0].body;
    exec::IndexProofs proofs(g, facts.funcs[0]);
    int proven = 0;
    for (uint32_t i = 0; i < g.size(); ++i)
      if (g.op(NodeId{i}) == Op::CShrink) proven += proofs.proven(NodeId{i});
    EXPECT_EQ(proven, text == kStoredFirst ? 1 : 0);
    Outcome a = runOnce(m, facts, false, 0), b = runOnce(m, facts, true, 0);
    EXPECT_EQ(a.r.status, text == kStoredFirst ? RunResult::Status::Ok : RunResult::Status::Trap) << a.r.message;
    EXPECT_EQ(b.r.status, a.r.status) << b.r.message;
    EXPECT_EQ(b.r.message, a.r.message);
  }
}

TEST(ModuleOpt, IdentityCastsKeepTheBits) {
  // identityCast(F, T) promises Cast<F, T> returns its operand unchanged:
  // checked on every 8- and 16-bit value and on the edges of wider ones.
  for (int f = 0; f < kNumDTypes; ++f)
    for (int t = 0; t < kNumDTypes; ++t) {
      DType from = static_cast<DType>(f), to = static_cast<DType>(t);
      if (!exec::identityCast(from, to)) continue;
      ASSERT_TRUE(isInteger(to) || from == to);
      std::vector<int64_t> vals;
      for (int64_t v = -70000; v <= 70000; ++v) vals.push_back(v);
      for (int64_t e : {int64_t{INT32_MIN}, int64_t{INT32_MAX}, INT64_MIN, INT64_MAX}) vals.push_back(e);
      vals.push_back(int64_t{UINT32_MAX});
      for (int64_t v : vals) {
        Literal l;
        l.kind = Literal::Kind::Int;
        l.negative = v < 0;
        l.magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
        auto bits = literalBits(l, from);
        if (!bits || from == DType::Bool) continue;
        ASSERT_EQ(castBits(*bits, from, to), *bits) << dtypeName(from) << " -> " << dtypeName(to) << " " << v;
      }
      if (from == DType::Bool) {
        for (Bits b : {Bits{0}, Bits{1}}) ASSERT_EQ(castBits(b, from, to), b) << dtypeName(to);
      }
    }
}

TEST(ModuleOpt, CairnRunProgramsAgreeWithAndWithoutPromotion) {
  int ran = 0;
  for (const auto &p : cairnFiles("tests/cairn/run")) {
    Module m;
    ModuleFacts facts;
    if (!lowerFile(p, m, facts)) continue;  // a file that expects a refusal
    // Externs write to the process's stdout, past the captured stream.
    if (std::any_of(m.funcs.begin(), m.funcs.end(), [](const Function &f) { return f.external; })) continue;
    expectSameAtLimits(m, facts, p.filename().string());
    ++ran;
    if (HasFailure()) break;
  }
  EXPECT_GT(ran, 200);
}

TEST(ModuleOpt, BenchKernelsAgreeUnderStepLimits) {
  // The bench kernels run 10^7..10^8 steps: compare them at limits only.
  for (const auto &p : cairnFiles("bench/cairn")) {
    Module m;
    ModuleFacts facts;
    ASSERT_TRUE(lowerFile(p, m, facts)) << p;
    for (uint64_t l : {1ull, 17ull, 1000ull, 12345ull, 250001ull}) expectSame(m, facts, l, p.filename().string());
  }
}

TEST(ModuleOpt, GeneratedModulesAgree) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::string text = generateModule(seed);
    Module m;
    Diags d;
    ASSERT_TRUE(parseModule(text, m, d)) << text;
    ModuleFacts facts;
    Diags od;
    ASSERT_TRUE(validateModule(m, facts, od)) << text;
    expectSameAtLimits(m, facts, "seed " + std::to_string(seed));
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace cairn
