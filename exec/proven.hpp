// Checks the graph already proves. Index checks: a `checked_shrink` of one
// element whose offset is the index of a loop that counts at most the
// view's length (`for i in 0..len(xs)` and `for x in xs` over `xs`) cannot
// trap, so both module engines (compile_module.cpp, emit_module_c.cpp)
// access it unchecked. Arithmetic: a checked op or checked cast whose
// operands' values (the oracle's value analysis, oracle/ranges.hpp) cannot
// make it trap; the C back end writes it unchecked, so that a loop of them
// stays simple (strip-mined, vectorized).
//
// Internal to exec/. Assumes a function body the oracle validated.
#pragma once
#include <optional>
#include <vector>

#include "exec/promote.hpp"
#include "oracle/ranges.hpp"
#include "ir/graph.hpp"
#include "oracle/oracle.hpp"

namespace cairn::exec {

// The proofs of one function body (endOf is built once).
class IndexProofs {
 public:
  IndexProofs(const Graph &g, const Facts &f);
  // Is n a one-element `checked_shrink` whose offset is always in bounds?
  // The rule: the offset is a `range`'s index, and the range's count is
  // `len V` or `where (cmplt L 0) 0 (sub L 0)` with L = `len V`, where V is
  // the shrunk view itself or a version of it (through `carry` and `after`:
  // `for i in 0..len(xs) { xs[i] = ... }` on an rw view), or a `deref` of
  // the same handle (an object's
  // columns all have its length, which never changes while it lives). The
  // same handle: one node, or loads of one version (a `carry` that its
  // loop never replaces is the version it carries in), or a load of a
  // version that a store of the cell's one element made and the value it
  // stored (storedValue).
  //
  // Also: V is `part X 0 H` (a read-only array parameter of extent H,
  // lower/func.cpp) and the range counts H, or constants C <= H.
  //
  // Also, for any offset X: the shrink is inside a range that runs at most
  // once (its count a bool: an `if`, a `while`'s test) on `cmplt Y L`, Y
  // unsigned and the same value as X (sameValue; a carry of a range that
  // runs at most once is the version it carries in), L `len` of a view of
  // V's length or the H of V's part: `while j < len(xs) { xs[j] = ... }`.
  //
  // Also: the count is a constant C (`where (cmplt C 0) 0 (sub C 0)` of a
  // literal or `const`) and V is a `deref` of a handle loaded from a cell
  // (exec/promote.hpp: a local that is only loaded and stored) into which
  // every store writes an `alloc` of a constant count of at least C
  // (`let mut v = Buf[u8](n); for i in 0..n { v[i] = ... }` with n a
  // constant), and whose buffer is used only by that first store (a shrink
  // of it) and its `after`: no load can read the cell's zero, a handle
  // whose deref is the empty view.
  bool proven(NodeId n) const;
  // Is n a checked_add, _sub, _mul, _div, _mod or checked_cast that cannot
  // trap? Add, sub, mul and cast: the wrapping op's transfer function is
  // exact on the operands' sets (interval.hpp, I2: each result is the
  // mathematical value, so it fits). Div and mod: the divisor's set holds
  // no 0, and (signed) not both -1 and a dividend's MIN.
  bool cannotTrap(NodeId n) const;
  // The body's cells (exec/promote.hpp), planned at the first use.
  const CellPlan &cells() const;
  // The `end` of range r.
  NodeId endOf(NodeId r) const { return endOf_[r.v]; }

 private:
  NodeId operandNode(NodeId n, size_t k) const;
  bool isZero(Operand o) const;
  NodeId carriedIn(NodeId b) const;
  bool sameVersion(NodeId a, NodeId b) const;
  NodeId storedValue(NodeId n) const;
  bool sameValue(NodeId a, NodeId b) const;
  bool sameLength(NodeId a, NodeId b) const;
  NodeId versionRoot(NodeId v) const;
  std::optional<Operand> countOf(NodeId r) const;
  NodeId countedView(NodeId r) const;
  bool constantCount(NodeId r, uint64_t &c) const;
  bool constantValue(Operand o, uint64_t &v) const;
  bool allocatedAtLeast(NodeId view, uint64_t c) const;
  bool partCovers(NodeId v, NodeId r) const;
  bool atMostOnce(NodeId r) const;
  bool lengthOf(NodeId l, NodeId v) const;
  bool guardedByCompare(NodeId n, NodeId v, NodeId x) const;
  void planAllocs() const;

  const Graph &g_;
  const Facts &f_;
  std::vector<NodeId> endOf_;  // per range: its end
  mutable std::optional<CellPlan> cells_;  // planned at the first question that needs them
  mutable std::vector<uint64_t> minAlloc_;  // per cell (planAllocs), with cells_
  mutable std::optional<ValueRanges> ranges_;  // the same: values of integer scalars, on demand
};

}  // namespace cairn::exec
