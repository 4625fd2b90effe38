// The lane-block tier of the flat interpreter (exec/block.hpp) against the
// same interpreter one lane at a time (RunOptions::laneBlock = 0): status,
// message, location, steps and every slot must be the same, on generated
// programs of every op and dtype, at step limits that stop a loop in the
// middle of a block, with blocks of 1, 2, 3, 7 and 256 lanes, and where a
// lane traps in the middle of a block. Each test also checks that the tier
// took the loops it is about, so none of them can pass by never running it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "exec/interp.hpp"
#include "exec/program.hpp"
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
  Diags d;
  l.ok = parseUir(text, l.g, d) && validate(l.g, l.f, d);
  return l.ok;
}

// Every field a user or a test can see.
::testing::AssertionResult same(const RunResult &a, const RunResult &b) {
  if (a.status != b.status || a.message != b.message || a.loc.line != b.loc.line || a.loc.col != b.loc.col ||
      a.steps != b.steps || a.slots.size() != b.slots.size())
    return ::testing::AssertionFailure() << "lane at a time: " << a.message << " line " << a.loc.line << " steps "
                                         << a.steps << "; blocks: " << b.message << " line " << b.loc.line
                                         << " steps " << b.steps;
  for (size_t k = 0; k < a.slots.size(); ++k)
    if (a.slots[k].values != b.slots[k].values) return ::testing::AssertionFailure() << "slot " << a.slots[k].slot;
  return ::testing::AssertionSuccess();
}

// Runs l one lane at a time and with each block size, under opts; the
// number of loops the tier runs.
size_t compare(const Loaded &l, RunOptions opts, const std::string &what) {
  opts.laneBlock = 0;
  const RunResult base = run(l.g, l.f, opts);
  for (uint32_t lanes : {1u, 2u, 3u, 7u, 256u}) {
    opts.laneBlock = lanes;
    EXPECT_TRUE(same(base, run(l.g, l.f, opts))) << what << ", " << lanes << " lanes a block";
  }
  return compile(l.g, l.f)->blocks.size();
}

// Steps limits: every one up to `upTo`, then a spread up to the run's steps.
std::vector<uint64_t> limits(uint64_t steps, uint64_t upTo) {
  std::vector<uint64_t> v;
  for (uint64_t s = 1; s <= upTo && s <= steps + 1; ++s) v.push_back(s);
  for (uint64_t s = upTo; s <= steps + 1; s += 1 + steps / 37) v.push_back(s);
  v.push_back(steps);
  v.push_back(steps + 1);
  return v;
}

// compare() at each step limit of `at`.
void compareAt(const Loaded &l, const std::vector<uint64_t> &at, const std::string &what) {
  RunOptions o;
  for (uint64_t s : at) {
    o.limits.maxSteps = s;
    compare(l, o, what + ", --max-steps " + std::to_string(s));
  }
}

// The steps of a run, one lane at a time (under a limit: 0, none).
uint64_t stepsOf(const Loaded &l, uint64_t limit = 0) {
  RunOptions o;
  o.laneBlock = 0;
  o.limits.maxSteps = limit;
  return run(l.g, l.f, o).steps;
}

// Runs program `text` if the oracle accepts it; true when the tier ran in it.
bool compareGenerated(const std::string &text, const std::string &what, size_t &programs) {
  Loaded l;
  if (!load(text, l)) return false;
  ++programs;
  // Some run for billions of steps: they stop at a step limit, the same way.
  RunOptions o;
  o.limits.maxSteps = 1000000;
  if (compare(l, o, what) == 0) return false;
  const uint64_t steps = stepsOf(l, 1000000);
  if (steps <= 100000) compareAt(l, limits(steps, 40), what);
  return true;
}

TEST(BlockTier, SameAsOneLaneAtATimeOnGeneratedPrograms) {
  GenOptions go;
  go.allOps = true;
  go.dynamic = true;
  ArbitraryOptions wrap;
  wrap.wrapIndices = true;
  struct Source {
    const char *name;
    std::string (*gen)(uint64_t, const GenOptions &, const ArbitraryOptions &);
    uint64_t seeds;  // the arbitrary ones are valid by chance, about 1 in 15
    size_t programs = 0, tiered = 0;
  } sources[] = {
      {"generateValid", [](uint64_t s, const GenOptions &g, const ArbitraryOptions &) { return generateValid(s, g).text; }, 300},
      {"generateArbitrary", [](uint64_t s, const GenOptions &, const ArbitraryOptions &) { return generateArbitrary(s); }, 3000},
      {"generateWrapIndices", [](uint64_t s, const GenOptions &, const ArbitraryOptions &a) { return generateArbitrary(s, a); }, 3000},
      {"generateNested", [](uint64_t s, const GenOptions &, const ArbitraryOptions &) { return generateNested(s); }, 300},
  };
  for (Source &src : sources) {
    for (uint64_t seed = 0; seed < src.seeds; ++seed)
      src.tiered += compareGenerated(src.gen(seed, go, wrap), std::string(src.name) + " seed " + std::to_string(seed),
                                     src.programs);
    EXPECT_GT(src.programs, 100u) << src.name;
    EXPECT_GT(src.tiered, src.programs / 10) << src.name << ": the tier ran in too few programs to test it";
    std::printf("%s: %zu valid programs, the tier ran in %zu\n", src.name, src.programs, src.tiered);
  }
}

// Float sums over 1000 lanes (of 1 / (h + 1): the harmonic number rounds
// differently in any other order), and a
// lane's loads and store of the same buffer (y = 2.5 x + y).
const char *kSaxpySum = R"(%x = buffer 1000 dtype=f32
%y = buffer 1000 dtype=f32 slot=1
%o = buffer 2 dtype=f32 slot=0
%i0 = range 1000 parallel
  %k = mod %i0 97
  %f = cast %k dtype=f32
  %g = mul %f 0.1
  %px = shrink %x %i0 shape=[]
  %sx = store %px %g
  %py = shrink %y %i0 shape=[]
  %sy = store %py %f
%e0 = end %i0 %sx %sy
%x1 = after %x %e0
%y1 = after %y %e0
%i = range 1000 parallel
  %qx = shrink %x1 %i shape=[]
  %qy = shrink %y1 %i shape=[]
  %u = load %qx
  %w = load %qy
  %t = mul %u 2.5
  %z = add %t %w
  %s = store %qy %z
%e = end %i %s
%y2 = after %y1 %e
%j = range 1000 parallel
  %qz = shrink %y2 %j shape=[]
  %v = load %qz
%ej = end %j
%sum = reduce add %ej %v
%h = range 1000 parallel
  %h1 = add %h 1
  %hf = cast %h1 dtype=f32
  %hr = recip %hf
%eh = end %h
%hsum = reduce add %eh %hr
%qo = shrink %o 0 shape=[]
%so = store %qo %sum
%o1 = after %o %so
%qh = shrink %o1 1 shape=[]
%sh = store %qh %hsum
%o2 = after %o1 %sh
)";

TEST(BlockTier, FloatSumAndInPlaceUpdateAtEveryStepLimitNearTheEdges) {
  Loaded l;
  ASSERT_TRUE(load(kSaxpySum, l));
  EXPECT_EQ(compare(l, {}, "saxpy+sum"), 4u);
  compareAt(l, limits(stepsOf(l), 300), "saxpy+sum");
}

// A checked_shrink that goes out of bounds at lane 700 of 1000, after
// stores of earlier lanes and with a sum running: the block holding lane
// 700 must change nothing, and the loop trap there with lanes 0..699 done.
const char *kTrapMidBlock = R"(%a = buffer 1400 dtype=i64 slot=1
%b = buffer 1000 dtype=i64 slot=2
%i = range 1000 parallel
  %k = mul %i 2
  %p = checked_shrink %a %k shape=[]
  %v = load %p
  %w = add %v %i
  %q = shrink %b %i shape=[]
  %s = store %q %w
%e = end %i %s
%t = reduce add %e %w
%b1 = after %b %e
)";

TEST(BlockTier, ALaneThatTrapsMidBlockTrapsAsOneLaneAtATime) {
  Loaded l;
  ASSERT_TRUE(load(kTrapMidBlock, l));
  EXPECT_EQ(compare(l, {}, "trap mid-block"), 1u);
  RunOptions o;
  o.laneBlock = 256;
  const RunResult r = run(l.g, l.f, o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_EQ(r.loc.line, 5u);
  compareAt(l, {1, 100, 2000, 4899, 4900, 4901, 4907, 4908, 5000, 6000}, "trap mid-block");
}

// Loops the tier must leave alone: serial ones that store (they may pass
// values through memory), a divisor the body computes, and a loop with a
// loop in it (the inner one, straight-line, is the tier's); a serial loop
// that only loads is the tier's, and a divisor from outside the body is
// checked once, at the start.
TEST(BlockTier, TakesOnlyTheLoopsItCanRunInBlocks) {
  const char *kSerial = R"(%a = buffer 8 dtype=i32 slot=0
%i = range 8
  %p = shrink %a %i shape=[]
  %v = load %p
%e = end %i
%t = reduce add %e %v
)";
  const char *kSerialStores = R"(%a = buffer 8 dtype=i64 slot=0 data=[1 2 3 4 5 6 7 8]
%i = range 7
  %ac = carry %a
  %p = shrink %ac %i shape=[]
  %v = load %p
  %j = add %i 1
  %q = shrink %ac %j shape=[]
  %w = load %q
  %x = add %v %w
  %s = store %q %x
  %ac1 = after %ac %s
%e = end %i %ac1
%a1 = after %a %e
)";
  const char *kDivisorInBody = R"(%a = buffer 8 dtype=i64 slot=1
%i = range 8 parallel
  %d = add %i 1
  %q = idiv 100 %d
  %p = shrink %a %i shape=[]
  %s = store %p %q
%e = end %i %s
%a1 = after %a %e
)";
  const char *kDivisor = R"(%d = buffer 1 dtype=i64 slot=0 data=[3]
%dp = shrink %d 0 shape=[]
%dv = load %dp
%a = buffer 8 dtype=i64 slot=1
%i = range 8 parallel
  %q = idiv %i %dv
  %p = shrink %a %i shape=[]
  %s = store %p %q
%e = end %i %s
%a1 = after %a %e
)";
  const char *kNested = R"(%a = buffer 64 dtype=i64 slot=0
%i = range 8 parallel
  %r = mul %i 8
  %j = range 8 parallel
    %k = add %r %j
    %p = shrink %a %k shape=[]
    %s = store %p %k
  %ej = end %j %s
%ei = end %i %ej
%a1 = after %a %ei
)";
  struct Case {
    const char *text;
    size_t loops;
  } cases[] = {{kSerial, 1}, {kSerialStores, 0}, {kDivisorInBody, 0}, {kDivisor, 1}, {kNested, 1}};
  for (const Case &c : cases) {
    Loaded l;
    ASSERT_TRUE(load(c.text, l)) << c.text;
    EXPECT_EQ(compare(l, {}, c.text), c.loops) << c.text;
  }
  // A divisor of 0 from outside the body: lane 0 traps, one lane at a time.
  Loaded l;
  ASSERT_TRUE(load(kDivisor, l));
  RunOptions o;
  o.slotData[0] = {*parseLiteral("0")};
  compare(l, o, "divisor 0");
  o.laneBlock = 256;
  EXPECT_EQ(run(l.g, l.f, o).message, "division by zero");
}

}  // namespace
}  // namespace cairn
