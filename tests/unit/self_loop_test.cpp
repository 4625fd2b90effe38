// Self-loops (exec/self_loop.hpp): a loop whose whole body is one
// kAddMov2LoopEndN_<T>, or a kVLoad2At_<T> and the kMulAddLoopEndN_<T>
// after it (a dot product), a strided fill or a scan that ends in a
// kCAddWhileEndN_<T>, and a scan that ends in a kMLoopEndN, runs its
// iterations in machine registers. The runs
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

// Short runs (`every`): the engines agree at every step limit up to the
// whole run's steps (`sparse`: past 60 steps, at every 7th); long runs: at
// the many points of expectSameAtLimits.
void expectSameAtEveryLimit(const Module &m, const ModuleFacts &facts, const std::string &src, bool every,
                            bool sparse = false) {
  if (!every) return expectSameAtLimits(m, facts, src);
  const uint64_t steps = expectSame(m, facts, 0, src);
  for (uint64_t l = 1; l <= steps && !::testing::Test::HasFailure(); l += (sparse && l >= 60 ? 7 : 1))
    expectSame(m, facts, l, src);
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
          expectSameAtEveryLimit(m, facts, src, count <= 7);
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

// How many kMulAddLoopEndN_<T> of fn's optimized code jump back to the
// kVLoad2At_<T> just before them (selfLoopDot's shape).
int dotLoops(const Module &m, const ModuleFacts &facts, const char *fn) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  const auto &code = ps[static_cast<size_t>(m.find(fn))].code;
  int n = 0;
  for (size_t k = 1; k < code.size(); ++k) {
    const int i = static_cast<int>(code[k].op) - static_cast<int>(exec::kMulAddLoopEndN_I32);
    if (i < 0 || i > 3 || code[k].c != ~0u) continue;
    const DType fused[] = {DType::I32, DType::I64, DType::U32, DType::U64};
    n += code[k - 1].op == exec::vidxOpc(exec::kVLoad2AtW, fused[i]) ? 1 : 0;
  }
  return n;
}

// The dot product that dotSource's program prints: a[i] = a0 + 3i and
// b[i] = b0 - 5i (wrapping), summed as a[i] * b[i] (or a[i] * a[i]).
std::string dotOf(const Type &t, uint64_t count, bool square) {
  const uint64_t mask = t.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits) - 1;
  uint64_t s = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t a = (t.a0bits + 3 * i) & mask, b = (t.b0bits - 5 * i) & mask;
    s = (s + a * (square ? a : b)) & mask;
  }
  if (!t.isSigned) return std::to_string(s) + "\n";
  if (t.bits == 32) return std::to_string(static_cast<int32_t>(static_cast<uint32_t>(s))) + "\n";
  return std::to_string(static_cast<int64_t>(s)) + "\n";
}

std::string dotSource(const Type &t, const std::string &body, uint64_t count) {
  const std::string T = t.name, n = std::to_string(count);
  return "fn dot(n:usize, a:ro<" + T + ">[n], b:ro<" + T + ">[n]) -> " + T + " {\n  let mut s:" + T +
         " = 0;\n  " + body + "\n  return s;\n}\n"
         "fn main() -> i32 {\n  let mut a = Buf[" + T + "](" + n + ");\n  let mut b = Buf[" + T + "](" + n + ");\n"
         "  let mut x:" + T + " = " + t.a0 + ";\n  let mut y:" + T + " = " + t.b0 + ";\n"
         "  for i in 0.." + n + " { a[i] = x; b[i] = y; x = add_wrap(x, 3); y = sub_wrap(y, 5); }\n"
         "  println(dot(a[0.." + n + "], b[0.." + n + "]));\n  return 0;\n}\n";
}

const Type kTypes[] = {
    {"u64", 64, false, "18446744073709551000", "7", 18446744073709551000ull, 7},
    {"i64", 64, true, "9223372036854775000", "-3", 9223372036854775000ull, static_cast<uint64_t>(int64_t{-3})},
    {"u32", 32, false, "4294967000", "11", 4294967000ull, 11},
    {"i32", 32, true, "2147483000", "-5", 2147483000ull, 0xfffffffbull},
};

TEST(SelfLoop, DotProductsAgreeWithThePlainEngineAtEveryStep) {
  // The product and the sum either way round, and one array read twice
  // (two registers loaded from one view); counts from 0 through 7 at every
  // step limit, and 300 at many.
  const char *bodies[] = {
      "for i in 0..n { s = add_wrap(s, mul_wrap(a[i], b[i])); }",
      "for i in 0..n { s = add_wrap(mul_wrap(b[i], a[i]), s); }",
      "for i in 0..n { s = add_wrap(s, mul_wrap(a[i], a[i])); }",
  };
  const uint64_t counts[] = {0, 1, 2, 3, 4, 7, 300};
  for (const Type &t : kTypes)
    for (const char *body : bodies)
      for (uint64_t count : counts) {
        const std::string src = dotSource(t, body, count);
        Module m;
        ModuleFacts facts;
        ASSERT_TRUE(lowerText(src, m, facts)) << src;
        ASSERT_EQ(dotLoops(m, facts, "dot"), 1) << src;
        Outcome r = runOnce(m, facts, true, 0);
        EXPECT_EQ(r.out, dotOf(t, count, std::string(body).find("a[i], a[i]") != std::string::npos)) << src;
        expectSameAtEveryLimit(m, facts, src, count <= 7);
        if (HasFailure()) return;
      }
}

TEST(SelfLoop, DotShapesThatMustNotRunFastAgree) {
  // A count past the arrays' extent keeps its checks (the loads trap at
  // index n, in the same place in both engines); an index that is not the
  // counter, a sum that is not the product's, and a long dot product
  // across many checkpoints of a limited run.
  const Type &t = kTypes[0];
  const char *bodies[] = {
      "for i in 0..n + 1 { s = add_wrap(s, mul_wrap(a[i], b[i])); }",
      "for i in 0..n { s = add_wrap(s, mul_wrap(a[n - 1 - i], b[i])); }",
      "for i in 0..n { s = add_wrap(a[i], mul_wrap(a[i], b[i])); }",
  };
  for (const char *body : bodies) {
    const std::string src = dotSource(t, body, 9);
    Module m;
    ModuleFacts facts;
    ASSERT_TRUE(lowerText(src, m, facts)) << src;
    EXPECT_EQ(dotLoops(m, facts, "dot"), 0) << src;
    expectSameAtLimits(m, facts, src);
    const bool past = std::string(body).find("n + 1") != std::string::npos;
    EXPECT_EQ(runOnce(m, facts, true, 0).r.status, past ? RunResult::Status::Trap : RunResult::Status::Ok) << src;
    if (HasFailure()) return;
  }
  const std::string src = dotSource(t, "for i in 0..n { s = add_wrap(s, mul_wrap(a[i], b[i])); }", 200000);
  Module m;
  ModuleFacts facts;
  ASSERT_TRUE(lowerText(src, m, facts)) << src;
  ASSERT_EQ(dotLoops(m, facts, "dot"), 1);
  expectSameAtLimits(m, facts, src);
  EXPECT_EQ(runOnce(m, facts, true, 0).out, dotOf(t, 200000, false));
}

// How many kMulAddLoopEndN_<T> of fn's optimized code jump back to a
// kVLoadAt_<any> just before them (selfLoopSum's shape).
int sumLoops(const Module &m, const ModuleFacts &facts, const char *fn) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  const auto &code = ps[static_cast<size_t>(m.find(fn))].code;
  int n = 0;
  for (size_t k = 1; k < code.size(); ++k)
    n += code[k].op >= exec::kMulAddLoopEndN_I32 && code[k].op <= exec::kMulAddLoopEndN_U64 && code[k].c == ~0u &&
                 code[k - 1].op >= exec::kVLoadAt_Bool && code[k - 1].op <= exec::kVLoadAt_F64
             ? 1
             : 0;
  return n;
}

TEST(SelfLoop, SumsOfOneLoadAgreeWithThePlainEngine) {
  // s = s + T(xs[i]) (a load of a narrower dtype whose cast keeps the
  // bits), and s = s + xs[i] * c with c a parameter, either way round;
  // values from a C++ recomputation, every step limit of short runs.
  struct Shape {
    const char *elem, *acc, *term;
    uint64_t (*val)(uint64_t i, uint64_t c);  // the term at i, wrapped by the caller
    const char *fill;  // xs[i] from i
  };
  const Shape shapes[] = {
      {"u8", "u32", "u32(xs[i])", [](uint64_t i, uint64_t) { return (i * 37 + 200) & 0xff; }, "u8((i * 37 + 200) % 256)"},
      {"i8", "i32", "i32(xs[i])", [](uint64_t i, uint64_t) { return static_cast<uint64_t>(static_cast<int64_t>(i % 200) - 100); },
       "i8(i64(i % 200) - 100)"},
      {"u16", "u64", "u64(xs[i])", [](uint64_t i, uint64_t) { return (65530 + i) & 0xffff; }, "u16((65530 + i) % 65536)"},
      {"i16", "i64", "i64(xs[i])", [](uint64_t i, uint64_t) { return static_cast<uint64_t>(int64_t{-7} * static_cast<int64_t>(i)); }, "i16(-7 * i64(i))"},
      {"u64", "u64", "mul_wrap(xs[i], c)", [](uint64_t i, uint64_t c) { return (i * 2654435761u + 1) * c; }, "add_wrap(mul_wrap(u64(i), 2654435761), 1)"},
      {"u32", "u32", "mul_wrap(c, xs[i])", [](uint64_t i, uint64_t c) { return (4294967000u + i) * c; }, "add_wrap(4294967000, u32(i))"},
  };
  for (const Shape &sh : shapes)
    for (uint64_t count : {0, 1, 2, 5, 200}) {
      const std::string E = sh.elem, A = sh.acc, n = std::to_string(count);
      const std::string src = "fn f(n:usize, xs:ro<" + E + ">[n], c:" + A + ") -> " + A + " {\n  let mut s:" + A +
                              " = 0;\n  for i in 0..n { s = add_wrap(s, " + sh.term + "); }\n  return s;\n}\n"
                              "fn main() -> i32 {\n  let mut xs = Buf[" + E + "](" + n + ");\n  for i in 0.." + n +
                              " { xs[i] = " + sh.fill + "; }\n  println(f(xs[0.." + n + "], 2147483629));\n  return 0;\n}\n";
      Module m;
      ModuleFacts facts;
      ASSERT_TRUE(lowerText(src, m, facts)) << src;
      ASSERT_EQ(sumLoops(m, facts, "f"), 1) << src;
      const bool wide = A == "u64" || A == "i64";
      const uint64_t mask = wide ? ~uint64_t{0} : 0xffffffffull;
      uint64_t sum = 0;
      for (uint64_t i = 0; i < count; ++i) sum = (sum + sh.val(i, 2147483629ull)) & mask;
      std::string want = std::to_string(sum);
      if (A == "i32") want = std::to_string(static_cast<int32_t>(static_cast<uint32_t>(sum)));
      if (A == "i64") want = std::to_string(static_cast<int64_t>(sum));
      EXPECT_EQ(runOnce(m, facts, true, 0).out, want + "\n") << src;
      expectSameAtEveryLimit(m, facts, src, count <= 5);
      if (HasFailure()) return;
    }
}

TEST(SelfLoop, CheckedReductionsStopBeforeTheIterationThatTraps) {
  // s += a[i] * b[i], s += a[i] and s += a[I] * b[J] with checked indices
  // (checked arithmetic: kCMulAddLoopEndN_<T>) over
  // arrays of one value c: no overflow, the add overflowing at some
  // iteration, or the multiply overflowing at the first; the self-loop
  // must stop before that iteration so that its handler traps at the same
  // step as the plain engine (every step limit of short runs).
  struct Case {
    const char *t;
    int bits;
    bool sgn;
    const char *c;
  };
  const Case cases[] = {{"u64", 64, false, "3"},          {"u64", 64, false, "2147483648"}, {"u64", 64, false, "4294967296"},
                        {"i64", 64, true, "-3"},          {"i64", 64, true, "2147483648"},  {"i64", 64, true, "-3037000500"},
                        {"u32", 32, false, "5"},          {"u32", 32, false, "40000"},      {"u32", 32, false, "65536"},
                        {"i32", 32, true, "-5"},          {"i32", 32, true, "20000"},       {"i32", 32, true, "-46341"}};
  const char *bodies[] = {"for i in 0..n { s += a[i] * b[i]; }", "for x in a { s += x; }",
                          "for k in 0..n { s += a[k * 1 + 0] * b[0 + k]; }"};  // checked indices: selfLoopProduct
  for (const Case &c : cases)
    for (const char *body : bodies)
      for (uint64_t count : {0, 1, 3, 7, 40}) {
        const std::string T = c.t, n = std::to_string(count);
        const std::string src = "fn f(n:usize, a:ro<" + T + ">[n], b:ro<" + T + ">[n]) -> " + T + " {\n  let mut s:" + T +
                                " = 0;\n  " + body + "\n  return s;\n}\nfn main() -> i32 {\n  let mut a = Buf[" + T + "](" +
                                n + ");\n  let mut b = Buf[" + T + "](" + n + ");\n  for i in 0.." + n + " { a[i] = " + c.c +
                                "; b[i] = " + c.c + "; }\n  println(f(a[0.." + n + "], b[0.." + n + "]));\n  return 0;\n}\n";
        Module m;
        ModuleFacts facts;
        ASSERT_TRUE(lowerText(src, m, facts)) << src;
        ASSERT_EQ(countOps(m, facts, "f", [](uint32_t op) { return op >= exec::kCMulAddLoopEndN_I32 && op <= exec::kCMulAddLoopEndN_U64; }), 1)
            << src;
        // The expected outcome, in exact arithmetic.
        const __int128 v = std::stoll(c.c);
        const __int128 lo = c.sgn ? -(static_cast<__int128>(1) << (c.bits - 1)) : 0;
        const __int128 hi = c.sgn ? (static_cast<__int128>(1) << (c.bits - 1)) - 1 : (static_cast<__int128>(1) << c.bits) - 1;
        const bool dot = std::string(body).find('*') != std::string::npos;
        __int128 sum = 0;
        bool trap = false;
        for (uint64_t i = 0; i < count && !trap; ++i) {
          const __int128 term = dot ? v * v : v;
          trap = term < lo || term > hi || sum + term < lo || sum + term > hi;
          sum += term;
        }
        Outcome r = runOnce(m, facts, true, 0);
        EXPECT_EQ(r.r.status, trap ? RunResult::Status::Trap : RunResult::Status::Ok) << src << r.r.message;
        if (!trap) {
          EXPECT_EQ(r.out, (c.sgn ? std::to_string(static_cast<int64_t>(sum)) : std::to_string(static_cast<uint64_t>(sum))) + "\n")
              << src;
        }
        expectSameAtEveryLimit(m, facts, src, count <= 7);
        if (HasFailure()) return;
      }
}

// How many kMulAddLoopEndN_<T> of fn's optimized code jump back two
// instructions (selfLoopProduct's shape: two loads and the multiply-add).
int productLoops(const Module &m, const ModuleFacts &facts, const char *fn) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  int n = 0;
  for (const exec::Ins &i : ps[static_cast<size_t>(m.find(fn))].code)
    n += i.op >= exec::kMulAddLoopEndN_I32 && i.op <= exec::kMulAddLoopEndN_U64 && i.c == ~1u ? 1 : 0;
  return n;
}

// One index expression of the product tests: its CAIRN text and its
// value at k (false: a trap, an overflow of u64).
struct IndexForm {
  const char *text;
  bool (*at)(uint64_t k, uint64_t st, uint64_t off, uint64_t &idx);
};

bool mulAdd(uint64_t a, uint64_t b, uint64_t c, uint64_t &r) {
  uint64_t p = 0;
  return !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(p, c, &r);
}

const IndexForm kForms[] = {
    {"k * st + off", [](uint64_t k, uint64_t st, uint64_t off, uint64_t &r) { return mulAdd(k, st, off, r); }},
    {"off + k", [](uint64_t k, uint64_t, uint64_t off, uint64_t &r) { return !__builtin_add_overflow(off, k, &r); }},
    {"st * k + k", [](uint64_t k, uint64_t st, uint64_t, uint64_t &r) { return mulAdd(st, k, k, r); }},
    {"off * st + k", [](uint64_t k, uint64_t st, uint64_t off, uint64_t &r) { return mulAdd(off, st, k, r); }},
    {"k * k + off", [](uint64_t k, uint64_t, uint64_t off, uint64_t &r) { return mulAdd(k, k, off, r); }},
    {"k", [](uint64_t k, uint64_t, uint64_t, uint64_t &r) { return r = k, true; }},
};

TEST(SelfLoop, ProductsOfIndexedLoadsAgreeWithThePlainEngine) {
  // s = s + a[I] * b[J] over k in 0..n, for pairs of index forms (checked
  // multiply-adds and adds of the counter, one affine in it with a stride
  // st + 1, one not affine, a plain checked index), with counts, strides
  // and offsets that stay in bounds, run past the end at some k, or
  // overflow u64 in the index; each against a C++ recomputation (the value,
  // or a trap) and the plain engine under step limits.
  struct Run {
    uint64_t n, st, off;
  };
  const Run runs[] = {{0, 1, 0},  {1, 3, 2},  {6, 3, 1},  {9, 2, 0},  {7, 5, 4},
                      {40, 1, 0}, {3, 0, 20}, {5, 1, 60}, {4, 4611686018427387904ull, 1},
                      {2, 9223372036854775808ull, 2}, {30, 2, 1}};
  const uint64_t len = 64;
  for (const Type &t : kTypes)
    for (size_t f1 = 0; f1 < std::size(kForms); ++f1)
      for (size_t f2 = 0; f2 < std::size(kForms); ++f2) {
        if ((f1 + f2 + static_cast<size_t>(t.bits)) % 3 != 0 && t.name != std::string("u64")) continue;  // a third of the pairs in the other dtypes
        const std::string T = t.name;
        for (const Run &run : runs) {
          const std::string src =
              "fn f(len:usize, a:ro<" + T + ">[len], b:ro<" + T + ">[len], n:usize, st:usize, off:usize) -> " + T +
              " {\n  let mut s:" + T + " = 0;\n  for k in 0..n { s = add_wrap(s, mul_wrap(a[" + kForms[f1].text + "], b[" +
              kForms[f2].text + "])); }\n  return s;\n}\n"
              "fn main() -> i32 {\n  let mut a = Buf[" + T + "](" + std::to_string(len) + ");\n  let mut b = Buf[" + T + "](" +
              std::to_string(len) + ");\n  let mut x:" + T + " = " + t.a0 + ";\n  let mut y:" + T + " = " + t.b0 + ";\n"
              "  for i in 0.." + std::to_string(len) + " { a[i] = x; b[i] = y; x = add_wrap(x, 3); y = sub_wrap(y, 5); }\n"
              "  println(f(" + std::to_string(len) + ", a[0.." + std::to_string(len) + "], b[0.." + std::to_string(len) + "], " +
              std::to_string(run.n) + ", " + std::to_string(run.st) + ", " + std::to_string(run.off) + "));\n  return 0;\n}\n";
          Module m;
          ModuleFacts facts;
          ASSERT_TRUE(lowerText(src, m, facts)) << src;
          ASSERT_EQ(productLoops(m, facts, "f"), 1) << src;
          const uint64_t mask = t.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits) - 1;
          uint64_t sum = 0;
          bool trap = false;
          for (uint64_t k = 0; k < run.n && !trap; ++k) {
            uint64_t i1 = 0, i2 = 0;
            trap = !kForms[f1].at(k, run.st, run.off, i1) || i1 >= len || !kForms[f2].at(k, run.st, run.off, i2) || i2 >= len;
            if (!trap) sum = (sum + ((t.a0bits + 3 * i1) & mask) * ((t.b0bits - 5 * i2) & mask)) & mask;
          }
          Outcome r = runOnce(m, facts, true, 0);
          EXPECT_EQ(r.r.status, trap ? RunResult::Status::Trap : RunResult::Status::Ok) << src << r.r.message;
          if (!trap) {
            std::string want = std::to_string(sum);
            if (t.isSigned) want = std::to_string(t.bits == 32 ? int64_t{static_cast<int32_t>(static_cast<uint32_t>(sum))}
                                                                : static_cast<int64_t>(sum));
            EXPECT_EQ(r.out, want + "\n") << src;
          }
          expectSameAtEveryLimit(m, facts, src, run.n <= 9, true);
          if (HasFailure()) return;
        }
      }
}

}  // namespace
}  // namespace cairn

namespace cairn {
namespace {

using namespace moduleopt_test;

// How many strided fills of fn run as self-loops: a kCAddWhileEndN_<T>
// jumping back over a kVStoreAt_<T> to a kIfCmplt_U64.
int strideFills(const Module &m, const ModuleFacts &facts, const char *fn) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  const std::vector<exec::Ins> &code = ps[static_cast<size_t>(m.find(fn))].code;
  int n = 0;
  for (size_t k = 2; k < code.size(); ++k) {
    const uint32_t op = code[k].op, st = code[k - 1].op;
    n += op >= exec::kCAddWhileEndN_I32 && op <= exec::kCAddWhileEndN_U64 && static_cast<int32_t>(code[k].c) == -2 &&
                 code[k - 2].op == exec::cmpIfOpc(0, DType::U64) && st >= exec::vmemOpc(exec::kVStoreAtW, DType::Bool) &&
                 st <= exec::vmemOpc(exec::kVStoreAtW, DType::F64)
             ? 1
             : 0;
  }
  return n;
}

TEST(SelfLoop, StridedFillsAgreeWithThePlainEngineAtEveryStep) {
  // `while j < n { xs[j] = v; j += inc; }` in the sieve's shape, over each
  // element dtype, from several starts and strides (an empty fill, one
  // iteration, a stride past the end at once, and one whose add overflows
  // on the way: a trap at its step), with a step limit at every step.
  struct Fill {
    const char *type, *value;
  };
  const Fill fills[] = {{"u8", "1"}, {"i32", "-7"}, {"u64", "18446744073709551615"}, {"f64", "2.5"}, {"bool", "true"}};
  const char *strides[] = {"1", "2", "7", "40", "18446744073709551610"};
  for (const Fill &f : fills)
    for (const char *inc : strides)
      for (int start : {0, 3, 39, 40}) {
        std::string src = std::string("fn fill(n:usize, xs:rw<") + f.type + ">[n], start:usize, inc:usize) {\n"
                          "  let mut j:usize = start;\n  while j < n {\n    xs[j] = " + f.value + ";\n    j += inc;\n  }\n}\n"
                          "fn main() -> i32 {\n  let mut b = Buf[" + f.type + "](40);\n  fill(b, " + std::to_string(start) +
                          ", " + inc + ");\n  let mut c:u64 = 0;\n  for i in 0..40 { if b[i] == " + f.value +
                          " { c = c * 3 + u64(i) + 1; } }\n  println(c);\n  return 0;\n}\n";
        Module m;
        ModuleFacts facts;
        ASSERT_TRUE(lowerText(src, m, facts)) << src;
        ASSERT_EQ(strideFills(m, facts, "fill"), 1) << src;
        expectSameAtEveryLimit(m, facts, src, true);
        if (HasFailure()) return;
      }
}


// How many loop ends of fn are marked as scans (Compiler::markScans): a
// `while`'s kCAddWhileEndN_U64, a `for`'s kMLoopEndN (t 1), a `for` that
// may leave early's kWhileEnd(N) (pad 1).
int scans(const Module &m, const ModuleFacts &facts, const char *fn) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  int n = 0;
  for (const exec::Ins &i : ps[static_cast<size_t>(m.find(fn))].code)
    n += ((i.op == exec::kCAddWhileEndN_U64 || i.op == exec::kMLoopEndN) && i.t == 1) ||
                 ((i.op == exec::kWhileEnd || i.op == exec::kWhileEndN) && i.pad == 1)
             ? 1
             : 0;
  return n;
}

// Lowers src, requires its `scan` to have one loop end marked as a scan
// when `fuses`, and compares it with the plain engine at every step limit.
void expectScanAgrees(const std::string &src, bool fuses) {
  Module m;
  ModuleFacts facts;
  ASSERT_TRUE(lowerText(src, m, facts)) << src;
  if (fuses) { ASSERT_EQ(scans(m, facts, "scan"), 1) << src; }
  expectSameAtEveryLimit(m, facts, src, true, true);
}

TEST(SelfLoop, ScansAgreeWithThePlainEngineAtEveryStep) {
  // `while j < n { if xs[j] OP v { ... } j += inc; }`, in the sieve's shape,
  // over element dtypes, each compare (the element on either side of `<`),
  // from several starts and strides (an empty scan, one past the end at
  // once, and a stride whose add overflows on the way: a trap at its
  // step), with a step limit at every step. The elements run 0, 1, 2, 3, 4,
  // 0, ... so the if is taken now and then, and the scan stops there.
  struct Elem {
    const char *type, *value, *v;  // the element i, as an expression of i; the compared value
  };
  const Elem elems[] = {{"u8", "u8(i % 5)", "3"},        {"i32", "i32(i % 5) - 2", "1"},
                        {"u64", "u64(i % 5)", "4"},      {"i64", "i64(i % 5) - 9", "-9"},
                        {"f64", "f64(i % 5) * 0.5", "1.5"}, {"bool", "i % 5 == 0", "true"}};
  struct Cmp {
    const char *text;  // `e` the element, `v` the value
    bool fuses;        // lowers to a compare the scan takes
  };
  const Cmp cmps[] = {{"e == v", true}, {"e != v", true}, {"e < v", true}, {"v < e", true}, {"e >= v", false}};
  const char *strides[] = {"1", "3", "40", "18446744073709551610"};
  for (const Elem &el : elems)
    for (const Cmp &cmp : cmps)
      for (const char *inc : strides)
        for (int start : {0, 4, 40}) {
          const bool ordered = std::string(el.type) != "bool";
          if (!ordered && cmp.text[2] != '=' && cmp.text[2] != '!') continue;  // no `<` of bools
          std::string test = cmp.text;
          test.replace(test.find('e'), 1, "xs[j]");
          test.replace(test.find('v'), 1, "v");
          std::string src = std::string("fn scan(n:usize, xs:ro<") + el.type + ">[n], start:usize, inc:usize, v:" + el.type +
                            ") -> u64 {\n  let mut c:u64 = 0;\n  let mut j:usize = start;\n  while j < n {\n    if " + test +
                            " { c = c * 3 + u64(j) + 1; }\n    j += inc;\n  }\n  return c;\n}\n"
                            "fn main() -> i32 {\n  let mut b = Buf[" + el.type + "](40);\n  for i in 0..40 { b[i] = " + el.value +
                            "; }\n  println(scan(b, " + std::to_string(start) + ", " + inc + ", " + el.v +
                            "));\n  return 0;\n}\n";
          expectScanAgrees(src, cmp.fuses);
          if (HasFailure()) return;
        }
}

TEST(SelfLoop, ScansThatMayLeaveEarlyAgreeWithThePlainEngineAtEveryStep) {
  // A `for` that returns from inside its `if` (`for i in 0..n { if xs[i] OP
  // v { return ...; } }`, and over the elements, `for x in xs`), which
  // CAIRN lowers to a `while` over a cell's index, and one that breaks;
  // one whose body also counts (`k += 1`: no scan; compared only). Element
  // dtypes, each compare, the
  // first m elements (the last iteration is the handler's), a step limit
  // at every step.
  struct Elem {
    const char *type, *value, *v;
  };
  const Elem elems[] = {{"u8", "u8(i % 7)", "5"}, {"i64", "i64(i % 9) - 4", "3"}, {"u32", "u32(i % 4)", "2"},
                        {"f64", "f64(i % 6) * 0.5", "2.0"}, {"bool", "i % 8 == 7", "true"}};
  const char *cmps[] = {"e == v", "e != v", "e < v", "v < e"};
  struct Form {
    const char *body;  // E: the element's test
    bool fuses;
  } forms[] = {
      {"  for i in 0..n { if E { return u64(i) + 1; } }\n  return 0;\n", true},
      {"  let mut k:u64 = 0;\n  for x in xs { if E { return k + 100; } k += 1; }\n  return 0;\n", false},
      {"  let mut at:u64 = 0;\n  for i in 0..n { if E { at = u64(i) + 1; break; } }\n  return at;\n", true},
  };
  for (const Form &form : forms)
    for (const Elem &el : elems)
      for (const char *cmp : cmps)
        for (int len : {0, 1, 5, 40}) {
          if (std::string(el.type) == "bool" && cmp[2] == '<') continue;  // no `<` of bools
          const bool each = std::string(form.body).find("for x in") != std::string::npos;
          std::string test = cmp;
          test.replace(test.find('e'), 1, each ? "x" : "xs[i]");
          std::string body = form.body;
          body.replace(body.find('E'), 1, test);
          std::string src = std::string("fn scan(n:usize, xs:ro<") + el.type + ">[n], v:" + el.type + ") -> u64 {\n" + body +
                            "}\nfn main() -> i32 {\n  let mut b = Buf[" + el.type + "](40);\n  for i in 0..40 { b[i] = " +
                            el.value + "; }\n  println(scan(b[0.." + std::to_string(len) + "], " + el.v +
                            "));\n  return 0;\n}\n";
          expectScanAgrees(src, form.fuses);
          if (HasFailure()) return;
        }
}

TEST(SelfLoop, CountedScansAgreeWithThePlainEngineAtEveryStep) {
  // `for i in 0..n { if xs[i] OP v { ... } }` over element dtypes and each
  // compare, on the first m elements (none, one, a few, all 40: the last
  // iteration is the handler's), the if's body overflowing on some (3^k
  // grows past u64: a trap at its step), with a step limit at every step.
  struct Elem {
    const char *type, *value, *v;
  };
  const Elem elems[] = {{"u8", "u8(i % 5)", "3"}, {"i32", "i32(i % 5) - 2", "1"}, {"u64", "u64(i % 3)", "2"},
                        {"f32", "f32(i % 5) * 0.25", "0.5"}, {"bool", "i % 5 == 0", "true"}};
  const char *cmps[] = {"e == v", "e != v", "e < v", "v < e"};
  for (const Elem &el : elems)
    for (const char *cmp : cmps)
      for (int len : {0, 1, 4, 40}) {
        if (std::string(el.type) == "bool" && cmp[2] == '<') continue;  // no `<` of bools
        std::string test = cmp;
        test.replace(test.find('e'), 1, "xs[i]");
        std::string src = std::string("fn scan(n:usize, xs:ro<") + el.type + ">[n], v:" + el.type +
                          ") -> u64 {\n  let mut c:u64 = 0;\n  for i in 0..n {\n    if " + test +
                          " { c = c * 3 + u64(i) + 1; }\n  }\n  return c;\n}\n"
                          "fn main() -> i32 {\n  let mut b = Buf[" + el.type + "](40);\n  for i in 0..40 { b[i] = " + el.value +
                          "; }\n  println(scan(b[0.." + std::to_string(len) + "], " + el.v + "));\n  return 0;\n}\n";
        expectScanAgrees(src, true);
        if (HasFailure()) return;
      }
}

}  // namespace
}  // namespace cairn
