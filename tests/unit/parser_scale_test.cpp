// The reader's name table and compact graph storage at their edges: names
// at the 10-character boundary of the table's exact keys (longer ones are
// hashed and compared), duplicate and undefined long names, references to
// random earlier nodes on a graph large enough to grow every table, operand
// columns past 16 bits, and pooled small literals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "oracle/oracle.hpp"

using namespace cairn;

namespace {

struct Parsed {
  Graph g;
  Diags d;
  bool ok = false;
};

Parsed parse(std::string_view text) {
  Parsed p;
  p.ok = parseUir(text, p.g, p.d);
  return p;
}

std::string messages(const Diags &d) {
  std::string out;
  for (const Diagnostic &x : d.list())
    out += std::to_string(x.loc.line) + ":" + std::to_string(x.loc.col) + ": " + x.message + " [" + x.rule + "]\n";
  return out;
}

// The names the operands of node `from` and after refer to, one "a b" per node.
std::vector<std::string> operandNames(const Graph &g, uint32_t from) {
  std::vector<std::string> out;
  for (uint32_t n = from; n < g.size(); ++n) {
    std::string s;
    for (Operand o : g.operands(NodeId{n})) s += (s.empty() ? "" : " ") + std::string(g.name(o.node()));
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST(ParserScale, NamesAtTheExactKeyBoundary) {
  // 10 characters (an exact key), 11 and 12 (hashed), differing only at the end.
  std::string text =
      "%abcdefghij = const 1 dtype=i32\n"
      "%abcdefghijk = const 2 dtype=i32\n"
      "%abcdefghijl = const 3 dtype=i32\n"
      "%abcdefghijkl = const 4 dtype=i32\n"
      "%abcdefghi = const 5 dtype=i32\n"
      "%s = add %abcdefghijl %abcdefghij\n"
      "%t = add %abcdefghijkl %abcdefghi\n"
      "%u = add %abcdefghijk %s\n";
  Parsed p = parse(text);
  ASSERT_TRUE(p.ok) << messages(p.d);
  EXPECT_EQ(operandNames(p.g, 5),
            (std::vector<std::string>{"abcdefghijl abcdefghij", "abcdefghijkl abcdefghi", "abcdefghijk s"}));
}

TEST(ParserScale, NamesAtTheBytesKeyBoundaryAndTheTextEnd) {
  // Up to 8 characters a name's key is its bytes: one 8-byte load where the
  // text has 8 bytes from the name on, else byte by byte (the last names
  // here, at the text's end without a newline), and both give the same key.
  std::string text =
      "%abcdefg = const 1 dtype=i32\n"
      "%abcdefgh = const 2 dtype=i32\n"
      "%abcdefgi = const 3 dtype=i32\n"
      "%abcdefghi = const 4 dtype=i32\n"
      "%x = add %abcdefgi %abcdefg\n"
      "%y = add %abcdefgh %abcdefghi\n"
      "%z = add %x %abcdefg";
  Parsed p = parse(text);
  ASSERT_TRUE(p.ok) << messages(p.d);
  EXPECT_EQ(operandNames(p.g, 4), (std::vector<std::string>{"abcdefgi abcdefg", "abcdefgh abcdefghi", "x abcdefg"}));
  Parsed q = parse("%a = add %abcdefgh %b");  // undefined at the end: reported with the byte-by-byte key
  EXPECT_EQ(messages(q.d), "1:10: %abcdefgh is not defined [name]\n1:20: %b is not defined [name]\n");
}

TEST(ParserScale, LongNamesDuplicateAndUndefined) {
  std::string longName(300, 'q');
  std::string text = "%" + longName + " = const 1 dtype=i32\n" + "%" + longName + " = const 2 dtype=i32\n" + "%a = add %" +
                     longName + "x %" + longName + "\n" + "%b = add %" + longName.substr(1) + " %a\n";
  Parsed p = parse(text);
  EXPECT_FALSE(p.ok);
  std::string shown = "%" + longName;
  EXPECT_EQ(messages(p.d), "2:1: " + shown + " is defined twice [name]\n3:10: " + shown + "x is not defined [name]\n4:10: %" +
                               longName.substr(1) + " is not defined [name]\n");
  ASSERT_EQ(p.d.list()[0].notes.size(), 1u);
  EXPECT_EQ(p.d.list()[0].notes[0].loc.line, 1u);
  // The second operand of %a names the first definition.
  EXPECT_EQ(p.g.operands(NodeId{2})[1].node().v, 0u);
}

TEST(ParserScale, UseBeforeDefinitionAndSelfUse) {
  Parsed p = parse("%a = add %b %a\n%b = const 1 dtype=i32\n%c = add %b %b\n");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(messages(p.d), "1:10: %b is used before it is defined [name]\n1:13: %a is used in its own definition [name]\n");
}

// The reader's first pass counts newlines sixteen bytes at a time (SSE2),
// then a word at a time, in runs of 255 vectors or words: every length
// around the vector, word and run boundaries, texts of nothing
// but newlines (every lane at its limit), and random bytes, against a plain
// count.
TEST(ParserScale, CountNewlinesAgreesWithAPlainCount) {
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&] { return rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; };
  for (size_t len : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 23u, 24u, 25u, 31u, 32u, 33u, 2039u, 2040u, 2041u, 2048u, 4079u, 4080u,
                     4081u, 4088u, 4089u, 4095u, 4096u, 8159u, 8160u, 8161u, 8168u, 8169u, 10000u}) {
    for (int fill = 0; fill < 3; ++fill) {
      std::string t(len, '\n');
      if (fill > 0)
        for (char &c : t) c = fill == 1 ? static_cast<char>(next()) : (next() % 4 == 0 ? '\n' : static_cast<char>(next() | 0x80));
      EXPECT_EQ(countNewlines(t), static_cast<size_t>(std::count(t.begin(), t.end(), '\n'))) << len << " " << fill;
    }
  }
}

// The reader resolves references a few dozen names after reading them (so
// it can prefetch their slots); a reference to a name defined any distance
// later, inside or past that window, is still "used before it is defined",
// and one to an earlier name still resolves.
TEST(ParserScale, ForwardReferencesAtEveryDistance) {
  const int n = 400;
  std::string text, want;
  for (int k = 0; k < n; ++k) {
    if (k % 3 != 0 || k == 0) {
      text += "%v" + std::to_string(k) + " = const 1 dtype=i64\n";
      continue;
    }
    int later = k + (k / 3) % 120 + 1;
    text += "%v" + std::to_string(k) + " = add %v" + std::to_string(k - 1) + " %v" + std::to_string(later) + "\n";
    std::string col = std::to_string(std::to_string(k).size() + std::to_string(k - 1).size() + 13);
    want += std::to_string(k + 1) + ":" + col + ": %v" + std::to_string(later) +
            (later < n ? " is used before it is defined [name]\n" : " is not defined [name]\n");
  }
  Parsed p = parse(text);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(messages(p.d), want);
  for (int k = 3; k < n; k += 3) EXPECT_EQ(p.g.operands(NodeId{static_cast<uint32_t>(k)})[0].node().v, static_cast<uint32_t>(k - 1));
}

// A wide graph: each value combines the previous one and a pseudo-random
// earlier one; every reference must name exactly the node written.
TEST(ParserScale, RandomReferencesResolveOnALargeGraph) {
  const int n = 200000;
  // Names of 2 to 18 characters, so both kinds of key mix.
  auto name = [](uint64_t k) { return "%v" + std::string(k % 12, 'x') + std::to_string(k); };
  std::string text = name(0) + " = const 1 dtype=i64\n";
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  std::vector<uint32_t> want;
  for (int k = 1; k < n; ++k) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    uint32_t other = static_cast<uint32_t>(rng % static_cast<uint64_t>(k));
    text += name(k) + " = xor " + name(k - 1) + " " + name(other) + "\n";
    want.push_back(other);
  }
  Parsed p = parse(text);
  ASSERT_TRUE(p.ok) << messages(p.d);
  ASSERT_EQ(p.g.size(), static_cast<uint32_t>(n));
  for (int k = 1; k < n; ++k) {
    auto ops = p.g.operands(NodeId{static_cast<uint32_t>(k)});
    ASSERT_EQ(ops[0].node().v, static_cast<uint32_t>(k - 1));
    ASSERT_EQ(ops[1].node().v, want[static_cast<size_t>(k - 1)]);
  }
  Facts f;
  Diags d;
  EXPECT_TRUE(validate(p.g, f, d)) << messages(d);
}

TEST(ParserScale, LongNamesOnALargeGraph) {
  const int n = 20000;
  std::string prefix = "a_long_common_prefix_";
  std::string text = "%" + prefix + "0 = const 1 dtype=i64\n";
  for (int k = 1; k < n; ++k)
    text += "%" + prefix + std::to_string(k) + " = add %" + prefix + std::to_string(k - 1) + " %" + prefix + std::to_string(k / 2) + "\n";
  text += "%" + prefix + "7 = const 1 dtype=i64\n";
  Parsed p = parse(text);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(messages(p.d), std::to_string(n + 1) + ":1: %" + prefix + "7 is defined twice [name]\n");
  for (int k = 1; k < n; ++k) {
    auto ops = p.g.operands(NodeId{static_cast<uint32_t>(k)});
    ASSERT_EQ(ops[1].node().v, static_cast<uint32_t>(k / 2));
  }
}

TEST(ParserScale, OperandColumnsPastSixteenBits) {
  std::string spaces(70000, ' ');
  std::string text = "%a = const 1 dtype=i32\n%b = add %a" + spaces + "%a\n%c = add %a" + spaces + "%zz\n";
  Parsed p = parse(text);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(messages(p.d), "3:70012: %zz is not defined [name]\n");
  EXPECT_EQ(p.g.operandCol(NodeId{1}, 0), 10u);
  EXPECT_EQ(p.g.operandCol(NodeId{1}, 1), 70012u);
}

TEST(ParserScale, PooledSmallLiteralsKeepTheirValues) {
  std::string text =
      "%a = const 0 dtype=i64\n%b = add %a 1\n%c = add %b 1\n%d = add %c -1\n%e = add %d 63\n%f = add %e 64\n"
      "%g = add %f -63\n%h = add %g 18446744073709551615\n%i = add %h 0\n%j = const -0 dtype=i64\n"
      "%x = const 1.5 dtype=f64\n%y = add %x 1.0\n%z = add %y 1\n";
  Parsed p = parse(text);
  ASSERT_TRUE(p.ok) << messages(p.d);
  std::string printed = printUir(p.g);
  Parsed q = parse(printed);
  ASSERT_TRUE(q.ok) << messages(q.d);
  EXPECT_TRUE(p.g.sameAs(q.g));
  EXPECT_EQ(printUir(q.g), printed);
  auto lit = [&](uint32_t n, size_t k) { return literalText(p.g.literal(p.g.operands(NodeId{n})[k].lit())); };
  EXPECT_EQ(lit(0, 0), "0");
  EXPECT_EQ(lit(1, 1), "1");
  EXPECT_EQ(lit(2, 1), "1");
  EXPECT_EQ(lit(3, 1), "-1");
  EXPECT_EQ(lit(4, 1), "63");
  EXPECT_EQ(lit(5, 1), "64");
  EXPECT_EQ(lit(6, 1), "-63");
  EXPECT_EQ(lit(7, 1), "18446744073709551615");
  EXPECT_EQ(lit(8, 1), "0");
  EXPECT_EQ(lit(9, 0), literalText(*parseLiteral("-0")));
  EXPECT_EQ(lit(11, 1), literalText(*parseLiteral("1.0")));
  EXPECT_EQ(lit(12, 1), "1");
}
