// ir/name_table.hpp's NameTable against std::unordered_map: random names of
// every key form (up to 8 bytes, 9-10 packed, longer hashed), inserted into
// tables that grow from the default size and into tables reserved at sizes
// that are no power of two, then every name looked up, and names never
// inserted missed. Numbered names (prefix + number) likewise, with more
// prefixes than the table keeps arrays for, numbers with leading zeros,
// numbers far past the arrays' budget, and names that went to the hashed
// table before their array grew to cover them. The table reads long names back from the graph, so each
// name is added to a graph as its node.
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/name_table.hpp"

using cairn::Graph;
using cairn::Loc;
using cairn::NodeId;
using cairn::Op;
using cairn::uirnames::NameTable;

namespace {

struct Rng {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint64_t operator()(uint64_t n) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return s % n;
  }
};

// A numbered name, or one that only looks like one: a prefix from a set of
// 20 (some longer than 8), then a number, at times with leading zeros, at
// times far larger than the budget allows.
std::string numberedName(Rng &rng) {
  static const char *kPrefixes[] = {"v", "t", "x", "", "b_", "p.q", "abcdefgh", "abcdefghi", "s", "y", "z",
                                    "k1x", "A", "B", "C", "D", "E", "F", "G", "H"};
  std::string s = kPrefixes[rng(20)];
  uint64_t shape = rng(16);
  uint64_t n = shape == 0 ? rng(4000000000ull) : shape == 1 ? 100000 + rng(900000) : rng(3000);
  if (shape == 2) s += "0";  // a leading zero: not a numbered name
  return s + std::to_string(n);
}

std::string randomName(Rng &rng) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";
  size_t len = 1 + rng(24);
  std::string s;
  for (size_t i = 0; i < len; ++i) s += kChars[rng(64)];
  return s;
}

// Inserts `count` random names (some repeated) into a table reserved for
// `reserve` (0: none), checking each answer against a map.
void agreesWithAMap(size_t count, size_t reserve, uint64_t seed, bool numbered = false) {
  Rng rng{seed};
  Graph g;
  NameTable t(g);
  if (reserve) t.reserve(reserve);
  std::unordered_map<std::string, uint32_t> ref;
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    std::string nm = !names.empty() && rng(8) == 0 ? names[rng(names.size())]
                     : numbered && rng(8) != 0   ? numberedName(rng)
                                                 : randomName(rng);
    NodeId prior = t.insertIfAbsent(nm, NameTable::key(nm), NodeId{g.size()});
    auto it = ref.find(nm);
    if (it == ref.end()) {
      ASSERT_FALSE(prior.valid()) << nm;
      ref.emplace(nm, g.size());
      names.push_back(nm);
    } else {
      ASSERT_EQ(prior.v, it->second) << nm;
    }
    g.addNode(Op::Add, nm, Loc{});  // a node per insert, as the parser adds one per line
  }
  for (const auto &[nm, id] : ref) ASSERT_EQ(t.find(nm, NameTable::key(nm)).v, id) << nm;
  for (int k = 0; k < 1000; ++k) {
    std::string nm = k % 2 ? numberedName(rng) : randomName(rng) + "_absent";
    if (!ref.count(nm)) {
      ASSERT_FALSE(t.find(nm, NameTable::key(nm)).valid()) << nm;
    }
  }
}

TEST(NameTable, GrowsFromTheDefaultSize) { agreesWithAMap(20000, 0, 1); }

TEST(NameTable, ReservedAtSizesThatAreNoPowerOfTwo) {
  for (size_t reserve : {1000u, 1001u, 3333u, 7777u}) agreesWithAMap(reserve, reserve, reserve);
}

TEST(NameTable, ReservedTooSmallStillGrows) { agreesWithAMap(9000, 1500, 7); }

TEST(NameTable, NumberedNames) {
  agreesWithAMap(20000, 0, 11, true);
  agreesWithAMap(30000, 30000, 12, true);
  agreesWithAMap(200000, 200000, 13, true);  // past the budget's floor: some numbers do not fit
}

// A numbered name kept in the hashed table (its number was past the budget)
// is still found, and still a duplicate, once its array has grown past it.
TEST(NameTable, NumberedNameHashedThenCovered) {
  Graph g;
  NameTable t(g);
  auto add = [&](const std::string &nm) {
    NodeId prior = t.insertIfAbsent(nm, NameTable::key(nm), NodeId{g.size()});
    g.addNode(Op::Add, nm, Loc{});
    return prior;
  };
  EXPECT_FALSE(add("v100000").valid());  // past the floor of the budget: hashed
  for (int i = 0; i < 100000; i += 7) EXPECT_FALSE(add("v" + std::to_string(i)).valid());
  t.reserve(1000000);  // a larger budget: the array may now grow past 100000
  for (int i = 100001; i < 200000; i += 7) EXPECT_FALSE(add("v" + std::to_string(i)).valid());
  EXPECT_EQ(t.find("v100000", NameTable::key("v100000")).v, 0u);
  EXPECT_EQ(add("v100000").v, 0u);
  EXPECT_FALSE(t.find("v100001x", NameTable::key("v100001x")).valid());
  EXPECT_FALSE(t.find("v0100000", NameTable::key("v0100000")).valid());
}

}  // namespace

// A name's parts (NameTable::ref: prefix, number, whether it is numbered),
// taken a byte a lane for names of up to 8 characters, against the same
// taken a character at a time (refSlow): every name of 1 to 6 characters
// over an alphabet of digits (0 and 9 among them, for leading zeros and the
// digit range's ends), letters, `_`, `.` and the bytes just outside the
// digits ('/' and ':'), and random names of 7 and 8 characters.
TEST(NameTable, NameParts) {
  const std::string alphabet = "0159v_./:";
  auto same = [](const std::string &name) {
    const uint64_t k = NameTable::key(name);
    const NameTable::Ref a = NameTable::ref(name, k), b = NameTable::refSlow(name, k);
    ASSERT_EQ(a.isNumbered, b.isNumbered) << name;
    if (!a.isNumbered) return;
    ASSERT_EQ(a.number, b.number) << name;
    ASSERT_EQ(a.prefix, b.prefix) << name;
  };
  std::string name;
  for (size_t len = 1; len <= 6; ++len) {
    std::vector<size_t> at(len, 0);
    for (;;) {
      name.clear();
      for (size_t i : at) name += alphabet[i];
      same(name);
      if (::testing::Test::HasFatalFailure()) return;
      size_t i = 0;
      while (i < len && ++at[i] == alphabet.size()) at[i++] = 0;
      if (i == len) break;
    }
  }
  Rng rng;
  const std::string digits = "0123456789", any = "0123456789abz_.AZ";
  for (int k = 0; k < 200000; ++k) {
    const size_t len = 7 + rng(2), cut = rng(len + 1);  // a prefix of cut characters, then digits
    name.clear();
    for (size_t i = 0; i < len; ++i) name += i < cut ? any[rng(any.size())] : digits[rng(10)];
    same(name);
    if (::testing::Test::HasFatalFailure()) return;
  }
}
