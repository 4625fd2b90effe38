// The superinstructions of flat graphs (exec/fuse_flat.cpp) change nothing a
// run reports. Every flat .uir file of tests/golden, examples and
// bench/kernels, generated graphs (progen: valid programs with every op and
// dtype, loop nests, wrap-around indices) and programs written to exercise
// each form and the mod/idiv by a constant are compiled with and without
// fusion, run both ways and must agree on everything: status, message, trap
// line and column, slot values and the exact step count, unlimited and with
// step limits that trip at many points of the run (the step limit's place
// comes from the instruction layout, which fusion keeps). --trace output
// must agree too. The hand-written programs also check that fusion happened,
// so the comparison is not vacuous.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "exec/interp.hpp"
#include "exec/program.hpp"
#include "ir/module.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/progen.hpp"

namespace cairn {
namespace {

struct Loaded {
  Graph g;
  Facts f;
  bool ok = false;
};

bool load(const std::string &text, Loaded &l) {
  if (looksLikeModule(text)) return false;
  Diags d;
  l.ok = parseUir(text, l.g, d) && validate(l.g, l.f, d);
  return l.ok;
}

RunResult runWith(const Program &p, uint64_t maxSteps, std::ostream *trace = nullptr) {
  RunOptions o;
  o.limits.maxSteps = maxSteps;
  o.limits.maxElements = uint64_t{1} << 22;
  o.trace = trace;
  return execute(p, o);
}

// Compares one run of each; returns the fused run's steps.
uint64_t expectSame(const Program &plain, const Program &fused, uint64_t maxSteps, const std::string &what) {
  RunResult a = runWith(plain, maxSteps), b = runWith(fused, maxSteps);
  std::string ctx = what + " (max steps " + std::to_string(maxSteps) + ")";
  EXPECT_EQ(a.status, b.status) << ctx;
  EXPECT_EQ(a.message, b.message) << ctx;
  EXPECT_EQ(a.loc.line, b.loc.line) << ctx;
  EXPECT_EQ(a.loc.col, b.loc.col) << ctx;
  EXPECT_EQ(a.steps, b.steps) << ctx;
  EXPECT_EQ(a.slots.size(), b.slots.size()) << ctx;
  for (size_t k = 0; k < a.slots.size() && k < b.slots.size(); ++k) {
    EXPECT_EQ(a.slots[k].slot, b.slots[k].slot) << ctx;
    EXPECT_EQ(a.slots[k].values, b.slots[k].values) << ctx << ", slot " << a.slots[k].slot;
  }
  return b.steps;
}

// The number of instructions that got a superinstruction.
size_t fusedCount(const Program &p) {
  size_t n = 0;
  for (size_t k = 0; k < p.plainOp.size(); ++k) n += p.code[k].op != p.plainOp[k];
  return n;
}

// Unlimited, at the first steps, at 13 points across the run and at its
// last steps; and the trace of a short run. Returns the fused instructions.
size_t expectSameEverywhere(const std::string &text, const std::string &what, bool traceToo = true) {
  Loaded l;
  if (!load(text, l)) return 0;
  ProgramPtr plain = exec::compileFlat(l.g, l.f, SchedulePriority::SourceOrder, false);
  ProgramPtr fused = exec::compileFlat(l.g, l.f, SchedulePriority::SourceOrder, true);
  EXPECT_TRUE(plain->plainOp.empty()) << what;
  EXPECT_EQ(plain->code.size(), fused->code.size()) << what;
  uint64_t steps = expectSame(*plain, *fused, 0, what);
  if (steps == 0 || ::testing::Test::HasFailure()) return fusedCount(*fused);
  std::vector<uint64_t> limits = {1, 2, 3, 4, 5, 6, 7, steps - 2, steps - 1, steps};
  for (uint64_t k = 1; k < 14; ++k) limits.push_back(std::max<uint64_t>(1, steps * k / 14 + k % 5));
  for (uint64_t lim : limits)
    if (lim >= 1 && lim <= steps) expectSame(*plain, *fused, lim, what);
  if (traceToo && steps < 20000) {
    std::ostringstream ta, tb;
    runWith(*plain, 0, &ta);
    runWith(*fused, 0, &tb);
    EXPECT_EQ(ta.str(), tb.str()) << what << ": --trace";
  }
  return fusedCount(*fused);
}

std::string slurp(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FlatFuse, FilesAgree) {
  int files = 0;
  size_t fused = 0;
  for (const char *dir : {"tests/golden", "examples", "bench/kernels"}) {
    std::vector<std::filesystem::path> paths;
    for (const auto &e : std::filesystem::recursive_directory_iterator(std::filesystem::path(CAIRN_SOURCE_DIR) / dir))
      if (e.path().extension() == ".uir") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const auto &p : paths) {
      size_t f = expectSameEverywhere(slurp(p), p.string());
      fused += f;
      files += 1;
    }
  }
  EXPECT_GT(files, 100);
  EXPECT_GT(fused, 50u);
}

TEST(FlatFuse, GeneratedValidAgree) {
  size_t fused = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    GenOptions o;
    o.allOps = seed % 2 == 0;
    o.dynamic = seed % 3 == 0;
    o.steps = 8 + static_cast<int>(seed % 24);
    std::string text = generateValid(seed, o).text, what = "generateValid seed " + std::to_string(seed);
    Loaded l;
    ASSERT_TRUE(load(text, l)) << what;
    fused += expectSameEverywhere(text, what, seed % 4 == 0);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(fused, 100u);
}

TEST(FlatFuse, GeneratedNestsAgree) {
  size_t fused = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::string text = generateNested(seed), what = "generateNested seed " + std::to_string(seed);
    Loaded l;
    ASSERT_TRUE(load(text, l)) << what;
    fused += expectSameEverywhere(text, what, seed % 4 == 0);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(fused, 50u);
}

TEST(FlatFuse, GeneratedWrapAgree) {
  int valid = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::string text = generateWrapIndices(seed);
    Loaded l;
    if (!load(text, l)) continue;
    ++valid;
    expectSameEverywhere(text, "generateWrapIndices seed " + std::to_string(seed), seed % 4 == 0);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(valid, 20);
}

// Every form on every dtype: out[i] = op(a[i], b[i]) and its relatives, a
// reduce, index arithmetic, and copies.
std::string formsProgram(const std::string &t, const std::string &op) {
  std::string s = "%a = buffer 5 dtype=" + t + " slot=0 data=[1 0 1 1 0]\n";
  s += "%b = buffer 5 dtype=" + t + " slot=1 data=[0 1 1 0 1]\n";
  s += "%c = buffer 5 dtype=" + t + " slot=2\n%d = buffer 5 dtype=" + t + " slot=3\n";
  s += "%r = buffer 1 dtype=" + t + " slot=4\n";
  s += "%i = range 5 parallel\n  %pa = shrink %a %i shape=[]\n  %pb = shrink %b %i shape=[]\n";
  s += "  %pc = shrink %c %i shape=[]\n  %pd = shrink %d %i shape=[]\n";
  s += "  %x = load %pa\n  %y = load %pb\n  %z = " + op + " %x %y\n  %s = store %pc %z\n";
  s += "  %w = " + op + " %z %x\n  %s2 = store %pd %w\n%e = end %i %s %s2\n";
  s += "%t = reduce " + (op == "sub" ? std::string("add") : op) + " %e %z\n%c1 = after %c %e\n%d1 = after %d %e\n";
  s += "%pr = shrink %r 0 shape=[]\n%sr = store %pr %t\n%r1 = after %r %sr\n";
  return s;
}

TEST(FlatFuse, EveryFormAndDtype) {
  const char *types[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};
  const char *ops[] = {"add", "sub", "mul", "max", "min"};
  int valid = 0;
  for (const char *t : types)
    for (const char *op : ops) {
      std::string text = formsProgram(t, op), what = std::string(op) + " on " + t;
      Loaded l;
      if (!load(text, l)) continue;  // e.g. an op the oracle refuses on bool
      ++valid;
      EXPECT_GT(expectSameEverywhere(text, what), 0u) << what << ": nothing fused";
    }
  EXPECT_EQ(valid, 52);  // all but add, sub and mul on bool
}

// mod and idiv by constants on the four dtypes with a fast path: dividends
// around 0, 2^31 and 2^32 and the extremes, divisors from 2 to 2^32 - 1.
TEST(FlatFuse, DivisionByConstants) {
  struct Case {
    const char *t;
    uint64_t max;  // the largest divisor that fits
    const char *data;
  };
  const Case cases[] = {
      {"i32", 2147483647, "0 1 2 3 5 6 7 99 100 999 1000 12345 2147483647 -2147483648"},
      {"i64", UINT64_MAX, "0 1 2 3 5 6 7 99 100 999 4294967295 4294967296 -1 -4294967296"},
      {"u32", 4294967295, "0 1 2 3 5 6 7 99 100 999 1000 12345 4294967295 4294967294"},
      {"u64", UINT64_MAX, "0 1 2 3 5 6 7 99 100 999 4294967295 4294967296 4294967297 18446744073709551615"},
      {"i16", 32767, "0 1 2 3 5 6 7 99 100 999 1000 12345 32767 -32768"},
      {"u8", 255, "0 1 2 3 5 6 7 99 100 126 127 128 254 255"},
  };
  const uint64_t divisors[] = {2, 3, 7, 10, 255, 1000, 65535, 65536, 2147483647, 4294967295, 1, 4294967296};
  for (const Case &c : cases) {
    const std::string t = c.t;
    std::string s = "%a = buffer 14 dtype=" + t + " slot=0 data=[" + c.data + "]\n", body, stores;
    int k = 0;
    for (uint64_t d : divisors) {
      if (d > c.max) continue;
      for (const char *op : {"mod", "idiv"}) {
        std::string n = std::to_string(k++);
        s += "%o" + n + " = buffer 14 dtype=" + t + " slot=" + std::to_string(k) + "\n";
        body += "  %v" + n + " = " + op + " %x " + std::to_string(d) + "\n  %p" + n + " = shrink %o" + n + " %i shape=[]\n";
        body += "  %s" + n + " = store %p" + n + " %v" + n + "\n";
        stores += " %s" + n;
      }
    }
    s += "%i = range 14 parallel\n  %pa = shrink %a %i shape=[]\n  %x = load %pa\n" + body + "%e = end %i" + stores + "\n";
    for (int j = 0; j < k; ++j) s += "%o" + std::to_string(j) + "x = after %o" + std::to_string(j) + " %e\n";
    Loaded l;
    ASSERT_TRUE(load(s, l)) << s;
    size_t fused = expectSameEverywhere(s, "mod/idiv on " + t);
    if (t != "i16" && t != "u8") {
      EXPECT_GT(fused, 0u) << t;
    }
  }
}

// The same with random dividends (u64 and i64 slot data) and divisors.
TEST(FlatFuse, DivisionByConstantsRandom) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 200; ++round) {
    const bool sgn = round % 2 == 0;
    const std::string t = sgn ? "i64" : (round % 4 == 1 ? "u64" : "u32");
    uint64_t d = 2 + rng() % (round % 3 == 0 ? 0xfffffffeull : 5000);
    std::string s = "%a = buffer 64 dtype=" + t + " slot=0 data=[";
    for (int k = 0; k < 64; ++k) {
      // Every magnitude (the fast path ends at 2^32), below 2^32, and near it.
      uint64_t v = k % 3 == 0 ? rng() >> (rng() % 48) : (k % 3 == 1 ? rng() % 0x100000000ull : 0xffffffffull - rng() % 4);
      if (t == "u32") v &= 0xffffffffull;
      if (sgn && (v >> 63)) s += (k ? " -" : "-") + std::to_string(~v + 1);
      else s += (k ? " " : "") + std::to_string(v);
    }
    s += "]\n%o = buffer 64 dtype=" + t + " slot=1\n%q = buffer 64 dtype=" + t + " slot=2\n";
    s += "%i = range 64 parallel\n  %pa = shrink %a %i shape=[]\n  %x = load %pa\n";
    s += "  %m = mod %x " + std::to_string(d) + "\n  %v = idiv %x " + std::to_string(d) + "\n";
    s += "  %po = shrink %o %i shape=[]\n  %so = store %po %m\n  %pq = shrink %q %i shape=[]\n  %sq = store %pq %v\n";
    s += "%e = end %i %so %sq\n%o1 = after %o %e\n%q1 = after %q %e\n";
    Loaded l;
    ASSERT_TRUE(load(s, l)) << s;
    EXPECT_GT(expectSameEverywhere(s, "random division " + std::to_string(round), false), 0u);
  }
}

}  // namespace
}  // namespace cairn
