// Buffers written before they are read: those whose zero fill no run of a
// flat graph can observe, so that the C back end may leave them unzeroed
// (malloc instead of calloc) as a C programmer would.
//
// The rule, a pattern match on the validated graph (anything else keeps
// its zero fill). A `buffer` B qualifies when
//   - it is at the top level, has no slot= and no data=;
//   - a top-level parallel `range` R counts B's own size (the same node, or
//     an equal integer literal);
//   - every use of B itself (its first version) is either
//       * a `shrink B I` of one element whose offset I is R's index, made
//         directly in R's body and used only as the view of `store`s made
//         directly in R's body, or
//       * the `after B E` that makes B's next version, with E R's `end`.
// Why that is enough: a flat graph has no conditional code, so every store
// directly in R's body runs once per iteration, and iteration i writes
// element i; R counts B's size, so every element is written before R ends.
// The zero-filled first version is read by nothing else, and every later
// version exists only after R's end.
//
// Internal to exec/. Assumes a flat graph the oracle validated.
#pragma once
#include <vector>

#include "ir/graph.hpp"
#include "oracle/oracle.hpp"

namespace cairn::exec {

// Indexed by node: true at each `buffer` node the rule above accepts.
std::vector<bool> buffersWrittenFirst(const Graph &g, const Facts &f);

}  // namespace cairn::exec
