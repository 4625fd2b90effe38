// ir/graph.hpp's dims and data rows, kept only for the nodes that have
// them: random graphs where some nodes get dims, some data, some both and
// some neither (the first and last nodes included), checked against what
// was added, after a copy and a move, and through sameAs.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/graph.hpp"
#include "ir/parser.hpp"

using namespace cairn;

namespace {

struct Want {
  std::vector<int64_t> dims;
  std::vector<uint64_t> data;  // magnitudes of Int literals
};

void expectRows(const Graph &g, const std::vector<Want> &want) {
  ASSERT_EQ(g.size(), want.size());
  for (uint32_t i = 0; i < g.size(); ++i) {
    auto d = g.dims(NodeId{i});
    ASSERT_EQ(std::vector<int64_t>(d.begin(), d.end()), want[i].dims) << i;
    auto x = g.data(NodeId{i});
    ASSERT_EQ(x.size(), want[i].data.size()) << i;
    for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(x[k].magnitude, want[i].data[k]) << i;
  }
}

TEST(GraphRows, DimsAndDataBelongToTheirNodesOnly) {
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  auto next = [&] { return rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; };
  for (int round = 0; round < 20; ++round) {
    Graph g;
    std::vector<Want> want;
    uint32_t n = 1 + static_cast<uint32_t>(next() % 300);
    for (uint32_t i = 0; i < n; ++i) {
      NodeId id = g.addNode(Op::Buffer, "b" + std::to_string(i), Loc{i + 1, 1});
      Want w;
      uint64_t shape = next() % 4;
      if (shape & 1)
        for (uint64_t k = 0, c = 1 + next() % 3; k < c; ++k) {
          w.dims.push_back(static_cast<int64_t>(next() % 100));
          g.addDim(id, w.dims.back());
        }
      if (shape & 2)
        for (uint64_t k = 0, c = 1 + next() % 4; k < c; ++k) {
          Literal l;
          l.kind = Literal::Kind::Int;
          l.magnitude = next() % 1000;
          w.data.push_back(l.magnitude);
          g.addData(id, l);
        }
      want.push_back(std::move(w));
    }
    expectRows(g, want);
    Graph copy = g;
    expectRows(copy, want);
    EXPECT_TRUE(copy.sameAs(g));
    Graph moved = std::move(copy);
    expectRows(moved, want);
  }
}

}  // namespace

// Locations are kept as runs (LocRuns): every node's location comes back
// as it was added, whatever the pattern: repeated lines, consecutive lines,
// jumps forward and back, column changes, one-node runs, lines near 2^32
// (where line + step must not wrap into a match), and long regular runs.
TEST(GraphRows, EveryNodeKeepsItsLocation) {
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&] { return rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; };
  for (int round = 0; round < 200; ++round) {
    Graph g;
    std::vector<Loc> want;
    const uint32_t n = 1 + static_cast<uint32_t>(next() % 2000);
    Loc at{round % 7 == 0 ? UINT32_MAX - 3 : 1 + static_cast<uint32_t>(next() % 100), 1};
    for (uint32_t i = 0; i < n; ++i) {
      switch (next() % 8) {
        case 0: break;  // the same line and column
        case 1: case 2: case 3: at.line += 1; break;
        case 4: at.line += 1 + static_cast<uint32_t>(next() % 3); break;
        case 5: at.col = 1 + static_cast<uint32_t>(next() % 4); break;
        case 6: at.line -= static_cast<uint32_t>(next() % 2); break;
        default: at = Loc{static_cast<uint32_t>(next()), static_cast<uint32_t>(next() % 5)}; break;
      }
      want.push_back(at);
      g.addNode(Op::Const, "", at);
    }
    const Graph copy = g;
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(g.loc(NodeId{i}).line, want[i].line) << round << " " << i;
      ASSERT_EQ(g.loc(NodeId{i}).col, want[i].col) << round << " " << i;
      ASSERT_EQ(copy.loc(NodeId{i}).line, want[i].line) << round << " " << i;
    }
  }
  Graph flat;  // one node a line in one column: one run, however long
  for (uint32_t i = 0; i < 100000; ++i) flat.addNode(Op::Const, "", Loc{i + 1, 1});
  EXPECT_EQ(flat.locRuns(), 1u);
  EXPECT_EQ(flat.loc(NodeId{99999}).line, 100000u);
}

// Attribute words (slot=, parallel, the reduce op) and enclosing ranges are
// kept only for the nodes that have them: random graphs of buffers, ranges,
// reduces and other nodes whose words are set in creation order and out of
// it, set twice, or never (a buffer's default slot is -1, every other
// node's word 0), and whose parents are set by buildRegions-like calls,
// read back, also from a copy and after nodes added later.
TEST(GraphRows, AttributeWordsAndParentsBelongToTheirNodesOnly) {
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&] { return rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; };
  const Op ops[] = {Op::Buffer, Op::Range, Op::Reduce, Op::Add, Op::Load};
  for (int round = 0; round < 50; ++round) {
    Graph g;
    std::vector<int32_t> word;
    std::vector<NodeId> parent;
    uint32_t n = 1 + static_cast<uint32_t>(next() % 200);
    for (uint32_t i = 0; i < n; ++i) {
      Op op = ops[next() % 5];
      NodeId id = g.addNode(op, "v" + std::to_string(i), Loc{i + 1, 1});
      word.push_back(op == Op::Buffer ? -1 : 0);
      parent.push_back(NodeId::none());
      if (next() % 2 == 0) {  // set now, as a reader does
        int32_t w = op == Op::Buffer ? static_cast<int32_t>(next() % 1000) : op == Op::Range ? 1 : static_cast<int32_t>(Op::Max);
        if (op == Op::Buffer) g.setSlot(id, w);
        else if (op == Op::Range) g.setParallel(id, true);
        else if (op == Op::Reduce) g.setReduceOp(id, Op::Max);
        if (op == Op::Buffer || op == Op::Range || op == Op::Reduce) word[i] = w;
      }
    }
    for (int k = 0; k < 20; ++k) {  // later, at earlier nodes, some twice
      NodeId id{static_cast<uint32_t>(next() % n)};
      if (g.op(id) == Op::Buffer) {
        word[id.v] = static_cast<int32_t>(next() % 7) - 1;
        g.setSlot(id, word[id.v]);
      }
    }
    bool loops = next() % 3 != 0;
    for (uint32_t i = 0; i < n && loops; ++i) {
      NodeId p = next() % 2 ? NodeId{static_cast<uint32_t>(next() % n)} : NodeId::none();
      g.setParent(NodeId{i}, p);
      parent[i] = p;
    }
    auto check = [&](const Graph &h) {
      for (uint32_t i = 0; i < n; ++i) {
        NodeId id{i};
        if (h.op(id) == Op::Buffer) EXPECT_EQ(h.slot(id), word[i]) << i;
        if (h.op(id) == Op::Range) EXPECT_EQ(h.parallel(id), word[i] != 0) << i;
        if (h.op(id) == Op::Reduce && word[i] != 0) EXPECT_EQ(h.reduceOp(id), Op::Max) << i;
        if (h.op(id) == Op::Add || h.op(id) == Op::Load) EXPECT_EQ(h.slot(id), 0) << i;
        EXPECT_EQ(h.parent(id), parent[i]) << i;
      }
    };
    check(g);
    Graph copy = g;
    check(copy);
    EXPECT_TRUE(copy.sameAs(g));
    NodeId later = copy.addNode(Op::Buffer, "later", Loc{n + 1, 1});
    EXPECT_EQ(copy.parent(later), NodeId::none());
    EXPECT_EQ(copy.slot(later), -1);
    EXPECT_FALSE(copy.sameAs(g));
  }
}

// Operand columns are a byte each, and those past 254 are kept aside: every
// column comes back as added, small, at the edge (254, 255, 256) and large,
// also from a copy; and the reader records them as the text has them.
TEST(GraphRows, OperandColumnsComeBackAtEveryWidth) {
  uint64_t rng = 0xD1B54A32D192ED03ull;
  auto next = [&] { return rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; };
  Graph g;
  std::vector<std::vector<uint32_t>> want;
  const uint32_t edge[] = {0, 1, 253, 254, 255, 256, 65535, 65536, 1000000};
  for (uint32_t i = 0; i < 500; ++i) {
    NodeId n = g.addNode(Op::Add, "v" + std::to_string(i), Loc{i + 1, 1});
    want.emplace_back();
    for (uint64_t k = 0, c = next() % 4; k < c; ++k) {
      uint32_t col = next() % 2 ? edge[next() % 9] : static_cast<uint32_t>(next() % 600);
      g.addOperand(n, Operand::ofNode(NodeId{0}), col);
      want.back().push_back(col);
    }
  }
  Graph copy = g;
  for (const Graph *h : {&g, &copy})
    for (uint32_t i = 0; i < 500; ++i)
      for (size_t k = 0; k < want[i].size(); ++k) EXPECT_EQ(h->operandCol(NodeId{i}, k), want[i][k]) << i << " " << k;
  Graph p;
  Diags d;
  std::string pad(300, ' ');
  ASSERT_TRUE(parseUir("%a = const 1 dtype=i32\n%b = add %a" + pad + "%a\n", p, d));
  EXPECT_EQ(p.operandCol(NodeId{1}, 0), 10u);
  EXPECT_EQ(p.operandCol(NodeId{1}, 1), 312u);
}
