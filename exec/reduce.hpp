// The identity each `reduce` op starts from, shared by every engine (the
// flat interpreter, the C emitter and the module interpreter), so that they
// agree bit for bit: 0 (+0.0), 1, the dtype's minimum (-inf), its maximum
// (inf), all ones, 0, 0 for add mul max min and or xor (docs/uir.md).
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "ir/dtype.hpp"
#include "ir/graph.hpp"

namespace cairn {

inline Bits reduceIdentity(Op op, DType t) {
  const bool fl = isFloat(t);
  auto f = [&](double d) -> Bits {
    if (t == DType::F32) return std::bit_cast<uint32_t>(static_cast<float>(d));
    return std::bit_cast<uint64_t>(d);
  };
  const double inf = std::numeric_limits<double>::infinity();
  switch (op) {
    case Op::Add: return fl ? f(0.0) : 0;
    case Op::Mul: return fl ? f(1.0) : 1;
    case Op::Max: return fl ? f(-inf) : static_cast<Bits>(intMin(t));
    case Op::Min: return fl ? f(inf) : normalize(intMaxU(t), t);
    case Op::And: return normalize(~Bits{0}, t);
    default: return 0;  // or, xor
  }
}

// Every loop's reduces, in node order (the order the engines combine them
// in): (range id, reduce id) pairs sorted, so a loop's are found by search.
class ReduceIndex {
 public:
  // Returns nullptr, or what is malformed (for graphs no oracle checked).
  const char *build(const Graph &g) {
    pairs_.clear();
    for (uint32_t i = 0; i < g.size(); ++i) {
      NodeId n{i};
      if (g.op(n) != Op::Reduce) continue;
      auto ops = g.operands(n);
      if (ops.size() != 2 || ops[0].isLit() || g.op(ops[0].node()) != Op::End) return "a malformed reduce";
      auto eops = g.operands(ops[0].node());
      if (eops.empty() || eops[0].isLit()) return "a malformed end";
      pairs_.push_back({eops[0].node().v, i});
    }
    std::sort(pairs_.begin(), pairs_.end());
    return nullptr;
  }
  template <class Fn>
  void forEach(NodeId range, Fn &&fn) const {
    auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::pair<uint32_t, uint32_t>{range.v, 0});
    for (; it != pairs_.end() && it->first == range.v; ++it) fn(NodeId{it->second});
  }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> pairs_;
};

}  // namespace cairn
