// The identity each `reduce` op starts from, shared by every engine (the
// flat interpreter, the C emitter and the module interpreter), so that they
// agree bit for bit: 0 (+0.0), 1, the dtype's minimum (-inf), its maximum
// (inf), all ones, 0, 0 for add mul max min and or xor (docs/uir.md).
#pragma once
#include <bit>
#include <cstdint>
#include <limits>

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

}  // namespace cairn
