// The referee's scalar semantics and sample values (see referee_eval.hpp).
#include "tools/referee_eval.hpp"

#include <bit>
#include <cmath>
#include <set>

#include "exec/alu.hpp"

namespace cairn::ref {

namespace {

template <DType D> Bits binT(Op op, Bits a, Bits b) {
  using namespace exec::alu;
  switch (op) {
    case Op::Add: return Add<D>(a, b);
    case Op::Sub: return Sub<D>(a, b);
    case Op::Mul: return Mul<D>(a, b);
    case Op::Idiv: return Idiv<D>(a, b);
    case Op::Mod: return Mod<D>(a, b);
    case Op::Max: return Max<D>(a, b);
    case Op::Min: return Min<D>(a, b);
    case Op::Neg: return Neg<D>(a, b);
    case Op::Cmplt: return Cmplt<D>(a, b);
    case Op::Cmpne: return Cmpne<D>(a, b);
    case Op::Cmpeq: return Cmpeq<D>(a, b);
    case Op::Shl: return Shl<D>(a, b);
    case Op::Shr: return Shr<D>(a, b);
    case Op::Fdiv: return Fdiv<D>(a, b);
    case Op::Recip: return Recip<D>(a, b);
    case Op::Sqrt: return Sqrt<D>(a, b);
    case Op::Exp2: return Exp2<D>(a, b);
    case Op::Log2: return Log2<D>(a, b);
    case Op::Sin: return Sin<D>(a, b);
    case Op::Trunc: return Trunc<D>(a, b);
    case Op::And: return a & b;  // bitwise ops keep the normal form
    case Op::Or: return a | b;
    case Op::Xor: return a ^ b;
    default: return 0;
  }
}

}  // namespace

Bits evalBinary(Op op, DType t, Bits a, Bits b) {
  switch (t) {
#define X(e, s, w) \
  case DType::e: return binT<DType::e>(op, a, b);
    CAIRN_DTYPES(X)
#undef X
    default: return 0;
  }
}

namespace {

template <DType F> Bits castFrom(DType to, Bits a) {
  switch (to) {
#define X(e, s, w) \
  case DType::e: return exec::alu::Cast<F, DType::e>(a);
    CAIRN_DTYPES(X)
#undef X
    default: return 0;
  }
}

}  // namespace

Bits evalCast(DType from, DType to, Bits a) {
  switch (from) {
#define X(e, s, w) \
  case DType::e: return castFrom<DType::e>(to, a);
    CAIRN_DTYPES(X)
#undef X
    default: return 0;
  }
}



// Edge values of a wide dtype, in normal form.
namespace {

std::vector<Bits> makeEdgeValues(DType t) {
  std::vector<Bits> v;
  if (isFloat(t)) {
    const double d[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.0, 3.0, 7.0, 255.0, 256.0, 1e9, -1e9, 2147483648.0,
                        -2147483649.0, 9.3e18, -9.3e18, 1.9e19, 1e300, -1e300, INFINITY, -INFINITY, NAN, -NAN, 5e-324};
    for (double x : d)
      v.push_back(t == DType::F32 ? Bits{std::bit_cast<uint32_t>(static_cast<float>(x))} : std::bit_cast<uint64_t>(x));
    return v;
  }
  std::set<Bits> s;
  const int64_t k[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 63, 64, 100, 127, 128, 255, 256, 1000, 65535, 65536,
                       -1, -2, -3, -4, -5, -8, -9, -128, -129, -256, -65536, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1};
  for (int64_t x : k) s.insert(normalize(static_cast<Bits>(x), t));
  for (int p : {7, 8, 15, 16, 31, 32, 62, 63})
    for (int64_t d : {-1, 0, 1}) {
      Bits x = (Bits{1} << p) + static_cast<Bits>(d);
      s.insert(normalize(x, t));
      s.insert(normalize(Bits{0} - x, t));
    }
  s.insert(intMaxU(t) & ~Bits{0});
  s.insert(normalize(static_cast<Bits>(intMin(t)), t));
  s.insert(normalize(static_cast<Bits>(intMin(t)) + 1, t));
  s.insert(normalize(intMaxU(t) - 1, t));
  return {s.begin(), s.end()};
}

}  // namespace

const std::vector<Bits> &edgeValues(DType t) {
  static const auto table = [] {
    std::vector<std::vector<Bits>> v;
    for (int k = 0; k < kNumDTypes; ++k) v.push_back(makeEdgeValues(static_cast<DType>(k)));
    return v;
  }();
  return table[static_cast<size_t>(t)];
}

std::vector<i128> sampledIterations(i128 n, i128 cap) {
  std::set<i128> s;
  for (i128 i = 0; i < cap / 2 && i < n; ++i) s.insert(i), s.insert(n - 1 - i);
  s.insert(n / 2);
  for (int p : {7, 8, 15, 16, 31, 32, 63})
    for (i128 m = 1; m <= 2; ++m)
      for (int d = -2; d <= 2; ++d) {
        i128 i = (i128{1} << p) * m + d;
        if (i >= 0 && i < n) s.insert(i);
      }
  return {s.begin(), s.end()};
}

}  // namespace cairn::ref
