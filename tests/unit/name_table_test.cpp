// ir/name_table.hpp's NameTable against std::unordered_map: random names of
// every key form (up to 8 bytes, 9-10 packed, longer hashed), inserted into
// tables that grow from the default size and into tables reserved at sizes
// that are no power of two, then every name looked up, and names never
// inserted missed. The table reads long names back from the graph, so each
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

std::string randomName(Rng &rng) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";
  size_t len = 1 + rng(24);
  std::string s;
  for (size_t i = 0; i < len; ++i) s += kChars[rng(64)];
  return s;
}

// Inserts `count` random names (some repeated) into a table reserved for
// `reserve` (0: none), checking each answer against a map.
void agreesWithAMap(size_t count, size_t reserve, uint64_t seed) {
  Rng rng{seed};
  Graph g;
  NameTable t(g);
  if (reserve) t.reserve(reserve);
  std::unordered_map<std::string, uint32_t> ref;
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    std::string nm = !names.empty() && rng(8) == 0 ? names[rng(names.size())] : randomName(rng);
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
    std::string nm = randomName(rng) + "_absent";
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

}  // namespace
