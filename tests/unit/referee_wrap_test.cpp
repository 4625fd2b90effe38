// The referee (tools/referee.hpp) on index paths through wrap-around: the
// known unsound accepts of the old bounds/lane analysis must be found broken,
// with a witness, and the correct programs it refused must be proven valid
// (every value enumerated, nothing left undecided). Also the referee's
// scalar semantics, pinned against arithmetic done here, independently, on
// 128-bit integers reduced modulo 2^width as docs/uir.md ("Dtypes")
// defines them.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tools/referee.hpp"

using namespace cairn;

namespace {

// A parallel loop over `count` storing into b (of `size` elements) at the
// offset the lines `body` compute into %k from %i.
std::string storeLoop(const std::string &size, const std::string &count, const std::string &body, const std::string &pre = "") {
  return pre + "%b = buffer " + size + " dtype=i32 slot=0\n%i = range " + count + " parallel\n" + body +
         "%p = shrink %b %k shape=[]\n%s = store %p 1\n%e = end %i %s\n%b1 = after %b %e\n";
}

::testing::AssertionResult breaks(const std::string &text, const char *rule) {
  RefereeVerdict v = refereeText(text);
  if (!v.judged()) return ::testing::AssertionFailure() << "not judged:\n" << text;
  if (v.violates(rule)) return ::testing::AssertionSuccess();
  Graph g;
  return ::testing::AssertionFailure() << "expected " << rule << " broken:\n" << verdictText(g, v) << text;
}

::testing::AssertionResult provenValid(const std::string &text) {
  RefereeVerdict v = refereeText(text);
  if (v.valid() && v.proven > 0) return ::testing::AssertionSuccess();
  Graph g;
  return ::testing::AssertionFailure() << "expected proven valid:\n" << verdictText(g, v) << text;
}

}  // namespace

TEST(RefereeWrap, LanesCollideThroughACast) {
  // Lanes 0 and 256 write one element.
  EXPECT_TRUE(breaks(storeLoop("256", "300", "%k = cast %i dtype=u8\n"), "lane"));
  EXPECT_TRUE(breaks(storeLoop("65536", "70000", "%k = cast %i dtype=u16\n"), "lane"));
  EXPECT_TRUE(breaks(storeLoop("256", "%n", "%k = cast %i dtype=u8\n", "%n = const 300 dtype=i32\n"), "lane"));
  EXPECT_TRUE(breaks(storeLoop("256", "2", "%m = mul %i 256\n%c = cast %m dtype=u8\n%k = cast %c dtype=i64\n"), "lane"));
  // A count loaded from a u16 slot: some count collides.
  EXPECT_TRUE(breaks(storeLoop("256", "%n", "%k = cast %i dtype=u8\n",
                               "%a = buffer 1 dtype=u16 slot=1\n%q = shrink %a 0 shape=[]\n%n = load %q\n"),
                     "lane"));
  // Up to the cast's span the same loops are fine, and proven so.
  EXPECT_TRUE(provenValid(storeLoop("256", "256", "%k = cast %i dtype=u8\n")));
  EXPECT_TRUE(provenValid(storeLoop("65536", "65536", "%k = cast %i dtype=u16\n")));
  EXPECT_TRUE(provenValid(storeLoop("256", "%n", "%k = cast %i dtype=u8\n", "%n = const 256 dtype=i32\n")));
}

TEST(RefereeWrap, ALoadReadingAnotherLanesElement) {
  const std::string loadsCast =
      "%b = buffer 300 dtype=i32 slot=0\n%i = range 300 parallel\n%k = cast %i dtype=u8\n%q = shrink %b %k shape=[]\n"
      "%x = load %q\n%p = shrink %b %i shape=[]\n%s = store %p %x\n%e = end %i %s\n%b1 = after %b %e\n";
  EXPECT_TRUE(breaks(loadsCast, "lane"));
  RefereeVerdict v = refereeText(loadsCast);
  ASSERT_FALSE(v.findings.empty());
  EXPECT_NE(v.findings[0].message.find("reads element"), std::string::npos) << v.findings[0].message;
  // 256 lanes: u8(i) is i, so each lane reads its own element.
  std::string fine = loadsCast;
  for (auto at = fine.find("300"); at != std::string::npos; at = fine.find("300")) fine.replace(at, 3, "256");
  EXPECT_TRUE(provenValid(fine));
}

TEST(RefereeWrap, UnsignedSizeMinusOneWraps) {
  const std::string u64 =
      "%n = const 0 dtype=u64\n%b = buffer %n dtype=i32 slot=0\n%m = sub %n 1\n%i = range %m parallel\n"
      "%p = shrink %b %i shape=[]\n%s = store %p 1\n%e = end %i %s\n%b1 = after %b %e\n";
  EXPECT_TRUE(breaks(u64, "bounds"));
  const std::string u32 =
      "%a = buffer 1 dtype=u32 slot=1\n%q = shrink %a 0 shape=[]\n%n = load %q\n%b = buffer %n dtype=i32 slot=0\n"
      "%m = sub %n 1\n%i = range %m parallel\n%p = shrink %b %i shape=[]\n%s = store %p 1\n%e = end %i %s\n%b1 = after %b %e\n";
  EXPECT_TRUE(breaks(u32, "bounds"));
  // A u16 size: every value enumerated; 0 breaks it.
  std::string u16 = u32;
  u16.replace(u16.find("u32"), 3, "u16");
  EXPECT_TRUE(breaks(u16, "bounds"));
  // The same with a size that is never 0 (3): proven.
  std::string three = u64;
  three.replace(three.find("const 0"), 7, "const 3");
  EXPECT_TRUE(provenValid(three));
}

TEST(RefereeWrap, NegativeCoefficientsAreProvenValid) {
  EXPECT_TRUE(provenValid(storeLoop("2", "2", "%k = sub 1 %i\n")));
  EXPECT_TRUE(provenValid(storeLoop("4", "4", "%j = neg %i\n%k = add %j 3\n")));
  EXPECT_TRUE(provenValid(storeLoop("4", "4", "%j = mul %i 2\n%k = idiv %j 2\n")));
  EXPECT_TRUE(provenValid(storeLoop("4", "4", "%c = cast %i dtype=u32\n%j = mul %c 4294967295\n%k = add %j 3\n")));
  // One lane too many: b[-1] (or u32 4294967295).
  EXPECT_TRUE(breaks(storeLoop("2", "3", "%k = sub 1 %i\n"), "bounds"));
  EXPECT_TRUE(breaks(storeLoop("4", "5", "%c = cast %i dtype=u32\n%j = neg %c\n%k = add %j 3\n"), "bounds"));
  // idiv by 2 without the mul: lanes 0 and 1 meet.
  EXPECT_TRUE(breaks(storeLoop("4", "4", "%k = idiv %i 2\n"), "lane"));
}

TEST(RefereeWrap, WindowsAndNestedLoops) {
  // Rows of 2 at cast(mul i 128) to u8: rows 0 and 2 overlap.
  const std::string rows =
      "%b = buffer 256 dtype=i32 slot=0\n%i = range 3 parallel\n%m = mul %i 128\n%c = cast %m dtype=u8\n"
      "%w = shrink %b %c shape=[2]\n%p = shrink %w 1 shape=[]\n%s = store %p 1\n%e = end %i %s\n%b1 = after %b %e\n";
  EXPECT_TRUE(breaks(rows, "lane"));
  // i * 256 + j cast to u16 over 300 rows: rows 0 and 256 meet.
  const std::string nested =
      "%b = buffer 65536 dtype=i32 slot=0\n%i = range 300 parallel\n%r = mul %i 256\n%j = range 4\n%c = carry %b\n"
      "%o = add %r %j\n%k = cast %o dtype=u16\n%p = shrink %c %k shape=[]\n%s = store %p 1\n%bn = after %c %s\n"
      "%ej = end %j %bn\n%e = end %i %ej\n%b1 = after %b %e\n";
  EXPECT_TRUE(breaks(nested, "lane"));
}

// ---- the scalar semantics, against an independent model ----

namespace {

struct Ty {
  const char *name;
  int bits;
  bool sign;
};
const Ty kTypes[] = {{"i8", 8, true},   {"i16", 16, true}, {"i32", 32, true}, {"i64", 64, true},
                     {"u8", 8, false},  {"u16", 16, false}, {"u32", 32, false}, {"u64", 64, false}};

using i128 = __int128;

// v reduced modulo 2^bits into t's range.
i128 wrapTo(i128 v, const Ty &t) {
  i128 m = i128{1} << t.bits;
  v %= m;
  if (v < 0) v += m;
  if (t.sign && v >= m / 2) v -= m;
  return v;
}

std::string text(i128 v) {
  if (v < 0) return "-" + text(-v);
  std::string s;
  do s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10))), v /= 10;
  while (v);
  return s;
}

// The model of docs/uir.md for op on two values of t (b unused for unary ops).
bool model(const std::string &op, const Ty &t, i128 a, i128 b, i128 &r) {
  if (op == "add") r = a + b;
  else if (op == "sub") r = a - b;
  else if (op == "mul") r = static_cast<i128>(static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b));  // mod 2^128
  else if (op == "neg") r = -a;
  else if (op == "idiv" || op == "mod") {
    if (b == 0) return false;
    r = op == "idiv" ? a / b : a % b;  // truncating, like C; MIN / -1 wraps below
  } else if (op == "shl") {
    auto k = static_cast<int>(static_cast<uint64_t>(wrapTo(b, {"", 64, false})) % static_cast<uint64_t>(t.bits));
    r = static_cast<i128>(static_cast<unsigned __int128>(a) << k);  // mod 2^128
  }
  else if (op == "shr") {
    int k = static_cast<int>(static_cast<uint64_t>(wrapTo(b, {"", 64, false})) % static_cast<uint64_t>(t.bits));
    i128 d = i128{1} << k;
    r = a >= 0 ? a / d : -((-a + d - 1) / d);  // floor: arithmetic on signed, and a >= 0 on unsigned
  } else return false;
  r = wrapTo(r, t);
  return true;
}

i128 sample(std::mt19937_64 &rng, const Ty &t) {
  const int64_t edge[] = {0, 1, 2, 3, -1, -2, 127, 128, 255, 256, 32767, 32768, 65535, 65536, INT64_MIN, INT64_MAX};
  i128 v = rng() % 3 ? i128{edge[rng() % 16]} : i128{static_cast<int64_t>(rng())};
  return wrapTo(v, t);
}

// Does the referee compute exactly `want` for `expr` (lines defining %r)?
// %r == want decides whether b[%o] (one element) is in bounds.
bool refereeComputes(const std::string &lines, const Ty &t, i128 want) {
  std::string prog = lines + "%w = const " + text(want) + " dtype=" + t.name + "\n%q = cmpne %r %w\n%o = cast %q dtype=i64\n" +
                     "%b = buffer 1 dtype=i32\n%p = shrink %b %o shape=[]\n%out = load %p\n";
  RefereeVerdict v = refereeText(prog);
  return v.judged() && v.findings.empty() && v.undecided.empty();
}

}  // namespace

TEST(RefereeWrap, ScalarSemanticsMatchTheDocs) {
  std::mt19937_64 rng(7);
  const char *ops[] = {"add", "sub", "mul", "neg", "idiv", "mod", "shl", "shr"};
  int checked = 0;
  for (const Ty &t : kTypes)
    for (const char *op : ops)
      for (int k = 0; k < 12; ++k) {
        i128 a = sample(rng, t), b = sample(rng, t), want;
        if (!model(op, t, a, b, want)) continue;
        std::string T = t.name;
        std::string lines = "%x = const " + text(a) + " dtype=" + T + "\n%y = const " + text(b) + " dtype=" + T + "\n%r = " + op +
                            " %x" + (std::string(op) == "neg" ? "" : " %y") + "\n";
        EXPECT_TRUE(refereeComputes(lines, t, want)) << op << " " << T << " " << text(a) << " " << text(b) << " -> " << text(want);
        ++checked;
      }
  // Casts between every pair of integer dtypes, casts of casts included.
  for (const Ty &from : kTypes)
    for (const Ty &to : kTypes)
      for (int k = 0; k < 6; ++k) {
        i128 a = sample(rng, from);
        std::string lines = "%x = const " + text(a) + " dtype=" + from.name + "\n%r = cast %x dtype=" + to.name + "\n";
        EXPECT_TRUE(refereeComputes(lines, to, wrapTo(a, to))) << from.name << " -> " << to.name << " " << text(a);
        const Ty &mid = kTypes[rng() % 8];
        lines = "%x = const " + text(a) + " dtype=" + from.name + "\n%m = cast %x dtype=" + mid.name + "\n%r = cast %m dtype=" +
                to.name + "\n";
        EXPECT_TRUE(refereeComputes(lines, to, wrapTo(wrapTo(a, mid), to))) << from.name << " -> " << mid.name << " -> " << to.name;
        checked += 2;
      }
  EXPECT_GT(checked, 600);
}
