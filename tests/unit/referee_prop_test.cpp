// The oracle against the referee (tools/referee.hpp), a brute-force decider
// that shares none of the oracle's ordering or bounds logic:
//   - generated valid programs (tools/progen, small sizes): both accept;
//   - valid programs broken in one way (breakProgram): the referee finds the
//     broken rule with a witness, and the oracle names it;
//   - arbitrary programs (generateArbitrary: valid or not by chance): they
//     agree, up to the documented conservatism of the oracle's bounds and
//     lane analyses (the oracle may refuse what the referee finds no
//     violation in; never the other way round);
//   - every golden file and example: they agree likewise;
//   - a few hand-written programs pin the referee's own verdicts.
// A failure prints the program, the oracle's diagnostics and the referee's
// findings; replay with RC_PARAMS="reproduce=...".
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/progen.hpp"
#include "tools/referee.hpp"

using namespace cairn;

namespace {

bool oracleNames(const std::string &text, const std::string &rule, bool &valid) {
  Graph g;
  Diags d;
  Facts f;
  valid = parseUir(text, g, d) && validate(g, f, d);
  for (const auto &dg : d.list())
    if (dg.rule == rule) return true;
  return false;
}

GenOptions smallValid() {
  GenOptions o;
  o.buffers = *rc::gen::inRange(1, 4);
  o.steps = *rc::gen::inRange(1, 16);
  o.loops = *rc::gen::arbitrary<bool>();
  o.dynamic = *rc::gen::arbitrary<bool>();
  o.allOps = *rc::gen::arbitrary<bool>();
  return o;
}

void classify(const Agreement &a) {
  RC_CLASSIFY(a.kind == Agreement::Kind::Agree && a.oracleValid, "agree: valid");
  RC_CLASSIFY(a.kind == Agreement::Kind::Agree && !a.oracleValid, "agree: invalid");
  RC_CLASSIFY(a.kind == Agreement::Kind::Conservative, "oracle conservative (bounds/lane)");
  RC_CLASSIFY(a.kind == Agreement::Kind::Skipped, "not judged (structure)");
}

std::string slurp(const std::filesystem::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

}  // namespace

RC_GTEST_PROP(RefereeProps, ValidProgramsAreValidForBoth, ()) {
  auto p = generateValid(*rc::gen::arbitrary<uint64_t>(), smallValid());
  Graph g;
  Diags d;
  RC_ASSERT(parseUir(p.text, g, d));
  RefereeVerdict v = referee(g);
  RC_ASSERT(v.judged());
  if (!v.findings.empty()) RC_FAIL("the referee finds a generated valid program broken:\n" + verdictText(g, v) + p.text);
  Agreement a = compareWithOracle(p.text);
  classify(a);
  if (a.kind != Agreement::Kind::Agree) RC_FAIL("generated valid program:\n" + a.detail);
}

RC_GTEST_PROP(RefereeProps, BrokenProgramsBreakTheRuleForBoth, ()) {
  auto seed = *rc::gen::arbitrary<uint64_t>();
  auto p = generateValid(seed, smallValid());
  auto kind = static_cast<Breakage>(*rc::gen::inRange(0, kNumBreakages));
  std::string broken = breakProgram(p.text, kind, seed);
  RC_PRE(broken != p.text);
  Graph g;
  Diags d;
  RC_ASSERT(parseUir(broken, g, d));
  RefereeVerdict v = referee(g);
  RC_ASSERT(v.judged());
  std::string rule = breakageRule(kind);
  if (!v.violates(rule)) RC_FAIL("the referee does not find " + rule + " broken:\n" + verdictText(g, v) + broken);
  bool valid = true;
  if (!oracleNames(broken, rule, valid)) RC_FAIL("the oracle does not name " + rule + ":\n" + broken);
  Agreement a = compareWithOracle(broken);
  classify(a);
  if (a.kind == Agreement::Kind::Disagree) RC_FAIL(a.detail);
}

RC_GTEST_PROP(RefereeProps, ArbitraryProgramsAgree, ()) {
  ArbitraryOptions o;
  o.buffers = *rc::gen::inRange(1, 4);
  o.steps = *rc::gen::inRange(1, 14);
  o.maxMemOps = *rc::gen::inRange(1, 9);
  o.dynamic = *rc::gen::arbitrary<bool>();
  std::string text = generateArbitrary(*rc::gen::arbitrary<uint64_t>(), o);
  Agreement a = compareWithOracle(text);
  classify(a);
  if (a.kind == Agreement::Kind::Disagree) RC_FAIL(a.detail);
}

TEST(Referee, GoldenFilesAndExamplesAgree) {
  // Not __FILE__: ccache (base_dir) makes it relative to the build folder.
  std::filesystem::path here = std::filesystem::path(CAIRN_SOURCE_DIR) / "tests" / "unit";
  int judged = 0;
  for (auto dir : {here / ".." / "golden", here / ".." / ".." / "examples"}) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto &e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".uir") continue;
      Agreement a = compareWithOracle(slurp(e.path()));
      judged += a.kind != Agreement::Kind::Skipped;
      EXPECT_NE(a.kind, Agreement::Kind::Disagree) << e.path() << "\n" << a.detail;
    }
  }
  EXPECT_GT(judged, 20);
}

TEST(Referee, LessonPrograms) {
  // A load of the old version whose index comes from the new one: it
  // would have to run both before and after the store. No order works.
  auto v = refereeText(
      "%b = buffer 2 dtype=i32 data=[1 2]\n%p = shrink %b 0 shape=[]\n%s = store %p 1\n%b1 = after %b %s\n"
      "%q = shrink %b1 0 shape=[]\n%x = load %q\n%k = and %x 1\n%r = shrink %b %k shape=[]\n%y = load %r\n");
  EXPECT_TRUE(v.violates("old-version-order"));
  EXPECT_EQ(v.findings.size(), 1u);
  // Loading the old version at index 1 after the store into it is fine: the
  // load can run first.
  v = refereeText(
      "%b = buffer 2 dtype=i32 data=[1 2]\n%p = shrink %b 0 shape=[]\n%q = shrink %b 1 shape=[]\n"
      "%x = load %p\n%s = store %q %x\n%b1 = after %b %s\n"
      "%y = load %q\n%p1 = shrink %b1 0 shape=[]\n%t = store %p1 %y\n%b2 = after %b1 %t\n");
  EXPECT_TRUE(v.valid());
  // Reading both before either store: fine.
  v = refereeText(
      "%b = buffer 2 dtype=i32 data=[1 2]\n"
      "%p = shrink %b 0 shape=[]\n%q = shrink %b 1 shape=[]\n"
      "%x = load %p\n%y = load %q\n%s = store %q %x\n%b1 = after %b %s\n"
      "%p1 = shrink %b1 0 shape=[]\n%t = store %p1 %y\n%b2 = after %b1 %t\n");
  EXPECT_TRUE(v.valid()) << v.findings.size();
  // Unsequenced, wrong after, second store.
  v = refereeText("%b = buffer 2 dtype=i32\n%p = shrink %b 0 shape=[]\n%s = store %p 1\n");
  EXPECT_TRUE(v.violates("store-sequenced"));
  v = refereeText("%b = buffer 2 dtype=i32\n%c = buffer 1 dtype=i32\n%p = shrink %b 0 shape=[]\n%s = store %p 1\n%c1 = after %c %s\n");
  EXPECT_TRUE(v.violates("after-version"));
  EXPECT_FALSE(v.violates("store-sequenced"));
  v = refereeText(
      "%b = buffer 2 dtype=i32\n%p = shrink %b 0 shape=[]\n%s = store %p 1\n%b1 = after %b %s\n"
      "%q = shrink %b 1 shape=[]\n%t = store %q 2\n%b2 = after %b %t\n");
  EXPECT_TRUE(v.violates("one-store-per-version"));
}

TEST(Referee, BoundsAreEnumeratedExactly) {
  // A u8 load masked by `and 3` indexes 4 elements: proven, not sampled.
  auto v = refereeText(
      "%a = buffer 1 dtype=u8 data=[9]\n%b = buffer 4 dtype=i32\n%p = shrink %a 0 shape=[]\n%x = load %p\n"
      "%k = and %x 3\n%q = shrink %b %k shape=[]\n%y = load %q\n");
  EXPECT_TRUE(v.valid());
  EXPECT_EQ(v.proven, 2u);
  // `and 4` reaches 4: out of bounds, with a witness.
  v = refereeText(
      "%a = buffer 1 dtype=u8 data=[9]\n%b = buffer 4 dtype=i32\n%p = shrink %a 0 shape=[]\n%x = load %p\n"
      "%k = and %x 4\n%q = shrink %b %k shape=[]\n%y = load %q\n");
  EXPECT_TRUE(v.violates("bounds"));
  // An i64 index masked with max + mod: no violation, but only sampled.
  v = refereeText(
      "%a = buffer 1 dtype=i64\n%b = buffer 4 dtype=i32\n%p = shrink %a 0 shape=[]\n%x = load %p\n"
      "%m = max %x 0\n%k = mod %m 4\n%q = shrink %b %k shape=[]\n%y = load %q\n");
  EXPECT_TRUE(v.findings.empty());
  EXPECT_TRUE(v.undecidedOn("bounds"));
  // A parallel loop storing at i + 1 into a buffer it reads at i: a clash.
  v = refereeText(
      "%b = buffer 5 dtype=i32\n%i = range 4 parallel\n%p = shrink %b %i shape=[]\n%x = load %p\n"
      "%j = add %i 1\n%q = shrink %b %j shape=[]\n%s = store %q %x\n%e = end %i %s\n%b1 = after %b %e\n");
  EXPECT_TRUE(v.violates("lane"));
}

// Found by the referee (cairn fuzz --seed 13769 --count 1 --backend interp),
// reduced by hand: %s has two correct afters and one naming another buffer.
// docs/uir.md: "each store is the event of exactly one after"; the wrong
// after is "this error only" in that the store does not also count as
// *unsequenced* -- but it is still sequenced twice. The oracle reports only
// after-version (order.cpp skips an event named wrongly before counting its
// afters). Enable once the oracle reports store-sequenced here too.
TEST(RefereeFindings, SequencedTwiceAndOnceWrongly) {
  const std::string text =
      "%b = buffer 2 dtype=i32 slot=0\n%c = buffer 1 dtype=i32 slot=1\n%p = shrink %b 0 shape=[]\n%s = store %p 1\n"
      "%b1 = after %b %s\n%b2 = after %b %s\n%c1 = after %c %s\n";
  auto v = refereeText(text);
  EXPECT_TRUE(v.violates("store-sequenced"));
  EXPECT_TRUE(v.violates("after-version"));
  bool valid = true;
  EXPECT_TRUE(oracleNames(text, "store-sequenced", valid));
  EXPECT_EQ(compareWithOracle(text).kind, Agreement::Kind::Agree);
}

// Found by the fuzzer's reducer (an operand replaced by a literal): an `end`
// whose range operand is a literal, listing a version of a loop body,
// crashes the oracle's structure layer (structure.cpp visible(): nm() of
// NodeId::none()). Enable once it reports a `kind` error instead.
TEST(RefereeFindings, EndWithLiteralRangeDoesNotCrash) {
  const std::string text = "%b = buffer 2 dtype=i32\n%i = range 2\n%c = carry %b\n%e = end 0 %c\n";
  bool valid = true;
  oracleNames(text, "kind", valid);
  EXPECT_FALSE(valid);
}
