// The value analysis under the bounds and lane rules (oracle/bounds.cpp,
// oracle/lanes.cpp): for each integer scalar, the set of values it can take
// (a wrapped interval, oracle/interval.hpp), whether its op computed the
// mathematical result (no wrap-around), and a symbolic upper bound.
//
// Symbolic bounds. A value x may have `x <= %s + k`, a fact about the
// values themselves (each in its own dtype), derived only where it holds on
// every execution:
//   - the index of `range %n` is at most %n - 1 (it is below %n);
//   - `mod %a %n` is at most %n - 1 when %n >= 1; `min %a %b` at most %a;
//   - `add`, `sub` and `checked_add`/`checked_sub` of a bounded value shift
//     its bound, and a `cast` keeps it, but only when the op cannot wrap for
//     any of its operands' values (`exact`): `sub %n 1` in u64 wraps at
//     %n = 0, so it has no bound;
//   - `sub %n c` (c >= 0) in a *signed* dtype may wrap only when %n is very
//     negative; it keeps the bound `%n - c` as `ifNonNeg`, used only against
//     a buffer whose size is %n (a signed size is >= 0 wherever its buffer
//     exists: a negative size traps when the buffer is made). For unsigned
//     dtypes there is no such bound: %n = 0 makes %n - 1 the largest value.
// Values are computed on demand (only what feeds an offset, a size or a
// bound is analysed), with an explicit stack instead of recursion.
#pragma once
#include <unordered_map>
#include <vector>

#include "oracle/interval.hpp"
#include "oracle/oracle.hpp"

namespace cairn {

struct Sym {
  NodeId sym;  // none: no symbolic bound
  i128 k = 0;
};

struct ValueInfo {
  IntType type;
  ISet set;            // every value the node can take
  bool exact = false;  // its op computes the mathematical result (interval.hpp, I2)
  Sym sym;             // x <= sym + k
  Sym ifNonNeg;        // x <= sym + k whenever sym >= 0 (signed dtypes only)
};

class ValueRanges {
 public:
  ValueRanges(const Graph &g, const Facts &f) : g_(g), f_(f) {}

  // Is x an integer or bool scalar that the analysis follows?
  bool analysed(NodeId x) const;
  bool follows(NodeId x) const;  // computed from its operands (else: any value)
  const ValueInfo &of(NodeId x) const;
  // Operand k of n: its type, its set (a literal takes `asType`, the type
  // it is read as), its symbolic bound (its own, or the operand itself).
  IntType operandType(NodeId n, size_t k, IntType asType) const;
  ISet operandSet(NodeId n, size_t k, IntType asType) const;
  Sym operandSym(NodeId n, size_t k) const;
  // Is `b + extra <= size`, following the chain of symbolic bounds from b?
  bool symAtMost(Sym b, i128 extra, NodeId size) const;
  // Why the value of x may differ from its op's mathematical result, or ""
  // when it cannot (or x's op has no mathematical result to differ from).
  std::string wrapReason(NodeId x) const;
  // The first node of x's operand cone (following range bounds too) whose
  // op may wrap, nearest x first; none when there is none within `limit`.
  NodeId firstWrap(NodeId x, size_t limit = 256) const;

 private:
  void compute(NodeId n) const;
  void symbolic(NodeId n, ValueInfo &out) const;

  const Graph &g_;
  const Facts &f_;
  mutable std::unordered_map<uint32_t, ValueInfo> v_;  // a cache, filled on demand
};

// B2, the lane rule, for one parallel loop (oracle/lanes.cpp).
void checkLanes(const Graph &g, const Facts &f, const ValueRanges &vr, Diags &d, NodeId loop);

// Words for a set of values: "is 3", "is in [0, 255]", "is in [250, 255] or [0, 4] (it wraps)".
std::string describeSet(IntType t, ISet s);

}  // namespace cairn
