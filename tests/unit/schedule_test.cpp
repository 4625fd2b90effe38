// Tests of the scheduler (exec/schedule.cpp): every node once, loops
// contiguous, data and order edges respected, the two priorities differing
// where the graph allows, and no recursion or quadratic cost on deep or long
// graphs. The graphs are parsed (so regions are built) and the order edges
// set by hand: the scheduler reads nothing else from the facts.
#include <gtest/gtest.h>

#include <string>

#include "exec/schedule.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/progen.hpp"

namespace cairn {
namespace {

Graph parse(const std::string &text) {
  Graph g;
  Diags d;
  EXPECT_TRUE(parseUir(text, g, d)) << (d.empty() ? "" : d.list()[0].message);
  return g;
}

NodeId byName(const Graph &g, std::string_view n) {
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.name(NodeId{i}) == n) return NodeId{i};
  ADD_FAILURE() << "no node %" << n;
  return NodeId::none();
}

// Checks the schedule's invariants; returns each node's position.
std::vector<size_t> checkValid(const Graph &g, const Facts &f, const Schedule &s) {
  std::vector<size_t> pos(g.size(), SIZE_MAX);
  EXPECT_EQ(s.order.size(), g.size());
  for (size_t k = 0; k < s.order.size(); ++k) {
    NodeId n = s.order[k];
    EXPECT_TRUE(n.v < g.size());
    if (n.v >= g.size()) continue;
    EXPECT_EQ(pos[n.v], SIZE_MAX) << "node scheduled twice";
    pos[n.v] = k;
  }
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    for (Operand o : g.operands(n))
      if (!o.isLit()) {
        // A body node may use its loop's index: the range comes first.
        EXPECT_LT(pos[o.node().v], pos[i]) << g.name(o.node()) << " before " << g.name(n);
      }
  }
  // Loops contiguous, in linear time: each node lies strictly between its
  // enclosing range and that range's end (so, by induction, every node of
  // the body does), and exactly as many nodes lie between them as the body
  // has (its ids are the span between range and end), so nothing else does.
  std::vector<uint32_t> endOf(g.size(), UINT32_MAX);
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::End) endOf[g.operands(NodeId{i})[0].node().v] = i;
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId p = g.parent(NodeId{i});
    if (!p.valid()) continue;
    EXPECT_GT(pos[i], pos[p.v]) << g.name(NodeId{i});
    EXPECT_LT(pos[i], pos[endOf[p.v]]) << g.name(NodeId{i});
  }
  for (uint32_t r = 0; r < g.size(); ++r)
    if (endOf[r] != UINT32_MAX) EXPECT_EQ(pos[endOf[r]] - pos[r], endOf[r] - r) << "loop " << g.name(NodeId{r});
  for (auto [a, b] : f.orderEdges) EXPECT_LT(pos[a.v], pos[b.v]);
  return pos;
}

Facts noFacts() { return Facts{}; }

TEST(Schedule, StraightLineSourceOrderIsIdentity) {
  Graph g = parse(
      "%a = const 1 dtype=i32\n"
      "%b = const 2 dtype=i32\n"
      "%c = add %a %b\n"
      "%d = mul %c %a\n");
  Facts f = noFacts();
  Schedule s = schedule(g, f, SchedulePriority::SourceOrder);
  checkValid(g, f, s);
  for (uint32_t i = 0; i < g.size(); ++i) EXPECT_EQ(s.order[i].v, i);
}

TEST(Schedule, LatestRunsIndependentNodesLate) {
  Graph g = parse(
      "%a = const 1 dtype=i32\n"
      "%b = const 2 dtype=i32\n"
      "%c = add %a %a\n"
      "%d = mul %b %b\n");
  Facts f = noFacts();
  Schedule s = schedule(g, f, SchedulePriority::Latest);
  checkValid(g, f, s);
  // Largest ready first: b (then d), then a, c.
  std::vector<uint32_t> want{1, 3, 0, 2};
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(s.order[k].v, want[k]);
}

TEST(Schedule, OrderEdgesAreRespected) {
  // The load of the old version comes after the store in the text; the
  // order edge (load before store) must win under both priorities.
  Graph g = parse(
      "%b = buffer 2 dtype=i32 slot=0\n"
      "%e = shrink %b 0 shape=[]\n"
      "%s = store %e 1\n"
      "%b1 = after %b %s\n"
      "%x = load %e\n");
  Facts f;
  f.orderEdges.push_back({byName(g, "x"), byName(g, "s")});
  for (auto prio : {SchedulePriority::SourceOrder, SchedulePriority::Latest}) {
    auto pos = checkValid(g, f, schedule(g, f, prio));
    EXPECT_LT(pos[byName(g, "x").v], pos[byName(g, "s").v]);
  }
}

TEST(Schedule, OrderEdgeFromInsideALoopLiftsToTheLoop) {
  // An edge from a load in a loop body to a store after the loop orders the
  // whole loop before the store.
  Graph g = parse(
      "%b = buffer 4 dtype=i32 slot=0\n"
      "%o = buffer 1 dtype=i32 slot=1\n"
      "%i = range 4 parallel\n"
      "  %p = shrink %b %i shape=[]\n"
      "  %x = load %p\n"
      "%e = end %i\n"
      "%t = reduce add %e %x\n"
      "%q = shrink %b 0 shape=[]\n"
      "%s = store %q 7\n"
      "%b1 = after %b %s\n"
      "%r = shrink %o 0 shape=[]\n"
      "%u = store %r %t\n"
      "%o1 = after %o %u\n");
  Facts f;
  f.orderEdges.push_back({byName(g, "i"), byName(g, "s")});
  for (auto prio : {SchedulePriority::SourceOrder, SchedulePriority::Latest}) {
    auto pos = checkValid(g, f, schedule(g, f, prio));
    EXPECT_LT(pos[byName(g, "e").v], pos[byName(g, "s").v]);
  }
}

TEST(Schedule, NestedLoopsStayContiguous) {
  Graph g = parse(
      "%b = buffer 16 dtype=i32 slot=0\n"
      "%c = const 5 dtype=i32\n"
      "%i = range 4\n"
      "  %bc = carry %b\n"
      "  %k = mul %i 4\n"
      "  %j = range 4 parallel\n"
      "    %o = add %k %j\n"
      "    %p = shrink %bc %o shape=[]\n"
      "    %s = store %p %c\n"
      "  %e2 = end %j %s\n"
      "  %bn = after %bc %e2\n"
      "  %z = const 1 dtype=i32\n"
      "%e = end %i %bn\n"
      "%b1 = after %b %e\n"
      "%w = const 2 dtype=i32\n");
  Facts f = noFacts();
  for (auto prio : {SchedulePriority::SourceOrder, SchedulePriority::Latest}) checkValid(g, f, schedule(g, f, prio));
  // Latest hoists the independent const %w before the loop.
  Schedule s = schedule(g, f, SchedulePriority::Latest);
  EXPECT_EQ(s.order[0].v, byName(g, "w").v);
}

TEST(Schedule, EmptyGraphAndEmptyLoop) {
  Graph empty;
  Facts f;
  EXPECT_TRUE(schedule(empty, f).order.empty());
  Graph g = parse("%i = range 3\n%e = end %i\n");
  checkValid(g, f, schedule(g, f, SchedulePriority::Latest));
}

TEST(Schedule, DeepNestingUsesNoRecursion) {
  // 100000 nested loops: a recursive scheduler would overflow the stack.
  const int depth = 100000;
  std::string text;
  text.reserve(static_cast<size_t>(depth) * 40);
  for (int k = 0; k < depth; ++k) text += "%i" + std::to_string(k) + " = range 1\n";
  text += "%c = const 1 dtype=i32\n";
  for (int k = depth - 1; k >= 0; --k) text += "%e" + std::to_string(k) + " = end %i" + std::to_string(k) + "\n";
  Graph g = parse(text);
  Facts f;
  Schedule a = schedule(g, f, SchedulePriority::SourceOrder);
  Schedule b = schedule(g, f, SchedulePriority::Latest);
  ASSERT_EQ(a.order.size(), g.size());
  ASSERT_EQ(b.order.size(), g.size());
  for (uint32_t i = 0; i < g.size(); ++i) EXPECT_EQ(a.order[i].v, i);
}

TEST(Schedule, DeepNestingWithOuterOperandsIsLinear) {
  // Every level uses a top-level value: lifting each such edge by walking up
  // the nesting would be quadratic.
  const int depth = 50000;
  std::string text = "%n = const 1 dtype=i64\n";
  for (int k = 0; k < depth; ++k) text += "%i" + std::to_string(k) + " = range %n\n";
  for (int k = depth - 1; k >= 0; --k) text += "%e" + std::to_string(k) + " = end %i" + std::to_string(k) + "\n";
  Graph g = parse(text);
  Facts f;
  Schedule s = schedule(g, f, SchedulePriority::Latest);
  checkValid(g, f, s);
}

TEST(Schedule, LongChainInSourceOrder) {
  const int n = 1000000;
  std::string text = "%v0 = const 1 dtype=i32\n";
  for (int k = 1; k < n; ++k) text += "%v" + std::to_string(k) + " = add %v" + std::to_string(k - 1) + " 1\n";
  Graph g = parse(text);
  Facts f;
  Schedule s = schedule(g, f, SchedulePriority::Latest);
  ASSERT_EQ(s.order.size(), g.size());
  for (uint32_t i = 0; i < g.size(); ++i) EXPECT_EQ(s.order[i].v, i);
}

TEST(Schedule, ManyReadyNodesLatestIsReverse) {
  // 200000 independent consts: Latest is exactly the reverse of the text.
  const int n = 200000;
  std::string text;
  for (int k = 0; k < n; ++k) text += "%c" + std::to_string(k) + " = const 1 dtype=i32\n";
  Graph g = parse(text);
  Facts f;
  Schedule s = schedule(g, f, SchedulePriority::Latest);
  ASSERT_EQ(s.order.size(), g.size());
  for (uint32_t k = 0; k < g.size(); ++k) EXPECT_EQ(s.order[k].v, g.size() - 1 - k);
}

// SourceOrder's schedule is the source order itself when no order edge
// runs backwards (schedule() then skips Kahn's algorithm): on generated
// valid programs and loop nests, with their real order edges, it equals
// Kahn's result, and programs whose edges do run backwards still get Kahn's.
// schedulesInSourceOrder answers whether it is the source order.
TEST(Schedule, SourceOrderShortcutAgreesWithKahn) {
  int backwards = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (const std::string &text : {generateValid(seed).text, generateNested(seed)}) {
      Graph g;
      Facts f;
      Diags d;
      ASSERT_TRUE(parseUir(text, g, d) && validate(g, f, d)) << text;
      Schedule fast = schedule(g, f, SchedulePriority::SourceOrder);
      Schedule kahn = scheduleByKahn(g, f, SchedulePriority::SourceOrder);
      ASSERT_EQ(fast.order, kahn.order) << text;
      bool identity = true;
      for (size_t k = 0; k < fast.order.size(); ++k) identity = identity && fast.order[k].v == k;
      backwards += identity ? 0 : 1;
      // compile() walks the node ids instead of the order exactly when
      // schedulesInSourceOrder says the order is the ids.
      EXPECT_EQ(schedulesInSourceOrder(g, f, SchedulePriority::SourceOrder), identity) << text;
      EXPECT_FALSE(schedulesInSourceOrder(g, f, SchedulePriority::Latest)) << text;
    }
  }
  EXPECT_GT(backwards, 0) << "no generated program needs a reordering: the test shows nothing";
}

}  // namespace
}  // namespace cairn
