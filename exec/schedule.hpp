// The scheduler: a linear order of a validated graph's nodes.
//
// The order is its own structure, apart from the graph (like Cranelift's
// Layout). It respects every data edge and every "must come before" edge the
// oracle found (Facts::orderEdges), and keeps each loop contiguous:
// `range`, then its body (recursively scheduled), then its `end`. Among the
// nodes ready at a point, a priority picks one (see the table in
// schedule.cpp); different priorities give different valid orders, which
// the property tests use to show that results do not depend on the order.
#pragma once
#include <vector>

#include "ir/graph.hpp"
#include "oracle/oracle.hpp"

namespace cairn {

enum class SchedulePriority {
  SourceOrder,  // the lowest node id first: the order the program was written in
  Latest,       // the highest node id first: as different from source order as allowed
};

struct Schedule {
  std::vector<NodeId> order;  // every node exactly once; loops contiguous
};

Schedule schedule(const Graph &g, const Facts &facts, SchedulePriority prio = SchedulePriority::SourceOrder);

// Whether schedule() gives the source order itself (SourceOrder, and every
// order edge points forward): a caller may then walk the node ids instead
// of keeping the order, 4 bytes a node.
bool schedulesInSourceOrder(const Graph &g, const Facts &facts, SchedulePriority prio = SchedulePriority::SourceOrder);

// The same by Kahn's algorithm on every graph: schedule() returns the source
// order without it where that is SourceOrder's result. For the tests that
// check the two agree.
Schedule scheduleByKahn(const Graph &g, const Facts &facts, SchedulePriority prio);

}  // namespace cairn
