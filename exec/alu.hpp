// Scalar semantics of .uir, one template per op over the dtype.
//
// Internal to exec/. Every function takes and returns `Bits` in the normal
// form of ir/dtype.hpp (integers sign- or zero-extended from their width,
// bool 0/1, f32 in the low 32 bits) and keeps it. The rules are those of
// docs/uir.md: integers wrap (two's complement; C++20 makes the narrowing
// conversions modular), idiv/mod truncate like C with MIN/-1 = MIN and
// MIN%-1 = 0 (the caller traps a zero divisor first), shifts take the amount
// modulo the width, float max/min propagate NaN and order -0 < +0, casts
// from float to integer truncate and saturate with NaN -> 0. Combinations
// the oracle rejects (idiv on floats, sqrt on ints) still compile, returning
// 0, because the dispatch table has a slot for every (op, dtype) pair.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ir/dtype.hpp"

namespace cairn::exec {

template <DType D> struct Ty;
template <> struct Ty<DType::Bool> { using T = bool; using S = uint8_t; };
template <> struct Ty<DType::I8> { using T = int8_t; using S = T; };
template <> struct Ty<DType::I16> { using T = int16_t; using S = T; };
template <> struct Ty<DType::I32> { using T = int32_t; using S = T; };
template <> struct Ty<DType::I64> { using T = int64_t; using S = T; };
template <> struct Ty<DType::U8> { using T = uint8_t; using S = T; };
template <> struct Ty<DType::U16> { using T = uint16_t; using S = T; };
template <> struct Ty<DType::U32> { using T = uint32_t; using S = T; };
template <> struct Ty<DType::U64> { using T = uint64_t; using S = T; };
template <> struct Ty<DType::F32> { using T = float; using S = T; };
template <> struct Ty<DType::F64> { using T = double; using S = T; };
template <DType D> using T_ = typename Ty<D>::T;   // the C++ value type
template <DType D> using S_ = typename Ty<D>::S;   // the element type in storage

template <DType D> constexpr bool kFloat = D == DType::F32 || D == DType::F64;
template <DType D> constexpr bool kSigned = D >= DType::I8 && D <= DType::I64;
template <DType D> constexpr int kWidth = D == DType::Bool ? 1 : static_cast<int>(sizeof(T_<D>)) * 8;

template <DType D> inline T_<D> dec(Bits b) {
  if constexpr (D == DType::F32) return std::bit_cast<float>(static_cast<uint32_t>(b));
  else if constexpr (D == DType::F64) return std::bit_cast<double>(b);
  else if constexpr (D == DType::Bool) return b != 0;
  else return static_cast<T_<D>>(b);
}

template <DType D> inline Bits enc(T_<D> v) {
  if constexpr (D == DType::F32) return std::bit_cast<uint32_t>(v);
  else if constexpr (D == DType::F64) return std::bit_cast<uint64_t>(v);
  else if constexpr (D == DType::Bool) return v ? 1 : 0;
  else if constexpr (kSigned<D>) return static_cast<Bits>(static_cast<int64_t>(v));
  else return static_cast<Bits>(v);
}

// Integer result of a wrapping 64-bit computation, narrowed to D.
template <DType D> inline Bits wrap(Bits raw) { return enc<D>(static_cast<T_<D>>(raw)); }

// ---- memory: elements are stored in their natural width, bool as a byte ----
template <DType D> inline Bits loadElem(const uint8_t *base, uint64_t i) {
  S_<D> v;
  std::memcpy(&v, base + i * sizeof(S_<D>), sizeof v);
  if constexpr (D == DType::Bool) return v != 0;
  else return enc<D>(v);
}
template <DType D> inline void storeElem(uint8_t *base, uint64_t i, Bits b) {
  S_<D> v;
  if constexpr (D == DType::Bool) v = static_cast<uint8_t>(b != 0);
  else v = dec<D>(b);
  std::memcpy(base + i * sizeof(S_<D>), &v, sizeof v);
}

namespace alu {

// Bool is a 1-bit unsigned integer for arithmetic: add/sub are xor, mul is and.
template <DType D> inline Bits Add(Bits a, Bits b) {
  if constexpr (D == DType::Bool) return a ^ b;
  else if constexpr (kFloat<D>) return enc<D>(dec<D>(a) + dec<D>(b));
  else return wrap<D>(a + b);
}
template <DType D> inline Bits Sub(Bits a, Bits b) {
  if constexpr (D == DType::Bool) return a ^ b;
  else if constexpr (kFloat<D>) return enc<D>(dec<D>(a) - dec<D>(b));
  else return wrap<D>(a - b);
}
template <DType D> inline Bits Mul(Bits a, Bits b) {
  if constexpr (D == DType::Bool) return a & b;
  else if constexpr (kFloat<D>) return enc<D>(dec<D>(a) * dec<D>(b));
  else return wrap<D>(a * b);  // low bits of the product do not depend on signedness
}
// b != 0 (checked by the caller).
template <DType D> inline Bits Idiv(Bits a, Bits b) {
  if constexpr (kFloat<D>) return 0;
  else if constexpr (D == DType::Bool) return a;
  else if constexpr (kSigned<D>) {
    auto x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    if (y == -1) return wrap<D>(Bits{0} - a);  // MIN / -1 wraps to MIN
    return wrap<D>(static_cast<Bits>(x / y));
  } else return wrap<D>(a / b);
}
template <DType D> inline Bits Mod(Bits a, Bits b) {
  if constexpr (kFloat<D> || D == DType::Bool) return 0;
  else if constexpr (kSigned<D>) {
    auto x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    if (y == -1) return 0;  // MIN % -1 is 0 (and x % -1 is always 0)
    return wrap<D>(static_cast<Bits>(x % y));
  } else return wrap<D>(a % b);
}
template <DType D> inline Bits Max(Bits a, Bits b) {
  auto x = dec<D>(a), y = dec<D>(b);
  if constexpr (kFloat<D>) {
    if (x != x) return a;
    if (y != y) return b;
    if (x == y) return std::signbit(x) ? b : a;  // max(-0, +0) = +0
  }
  return x < y ? b : a;
}
template <DType D> inline Bits Min(Bits a, Bits b) {
  auto x = dec<D>(a), y = dec<D>(b);
  if constexpr (kFloat<D>) {
    if (x != x) return a;
    if (y != y) return b;
    if (x == y) return std::signbit(x) ? a : b;  // min(-0, +0) = -0
  }
  return y < x ? b : a;
}
template <DType D> inline Bits Neg(Bits a, Bits) {
  if constexpr (D == DType::Bool) return a ^ 1;  // logical not
  else if constexpr (kFloat<D>) return enc<D>(-dec<D>(a));
  else return wrap<D>(Bits{0} - a);
}
template <DType D> inline Bits Cmplt(Bits a, Bits b) { return dec<D>(a) < dec<D>(b); }
template <DType D> inline Bits Cmpne(Bits a, Bits b) { return dec<D>(a) != dec<D>(b); }
template <DType D> inline Bits Cmpeq(Bits a, Bits b) { return dec<D>(a) == dec<D>(b); }
// Only fused (kIfCmple_<T>): or(Cmplt, Cmpeq), which it equals for every
// dtype (a NaN makes both false).
template <DType D> inline Bits Cmple(Bits a, Bits b) { return dec<D>(a) <= dec<D>(b); }
template <DType D> inline Bits Shl(Bits a, Bits b) {
  if constexpr (kFloat<D> || D == DType::Bool) return a;  // bool: the amount mod 1 is 0
  else return wrap<D>(a << (b & (kWidth<D> - 1)));
}
template <DType D> inline Bits Shr(Bits a, Bits b) {
  if constexpr (kFloat<D> || D == DType::Bool) return a;
  else return enc<D>(static_cast<T_<D>>(dec<D>(a) >> (b & (kWidth<D> - 1))));  // signed: arithmetic
}
template <DType D> inline Bits Fdiv(Bits a, Bits b) {
  if constexpr (kFloat<D>) return enc<D>(dec<D>(a) / dec<D>(b));
  else return 0;
}
#define CAIRN_EXEC_FUNARY(Name, expr)                 \
  template <DType D> inline Bits Name(Bits a, Bits) { \
    if constexpr (kFloat<D>) {                        \
      auto x = dec<D>(a);                             \
      return enc<D>(expr);                            \
    } else {                                          \
      return 0;                                       \
    }                                                 \
  }
CAIRN_EXEC_FUNARY(Recip, T_<D>(1) / x)
CAIRN_EXEC_FUNARY(Sqrt, std::sqrt(x))
CAIRN_EXEC_FUNARY(Exp2, std::exp2(x))
CAIRN_EXEC_FUNARY(Log2, std::log2(x))
CAIRN_EXEC_FUNARY(Sin, std::sin(x))
CAIRN_EXEC_FUNARY(Trunc, std::trunc(x))
#undef CAIRN_EXEC_FUNARY

// x % b and x / b for a constant b in [2, 2^32) whose reciprocal
// floor(2^64 / b) + 1 is c: Lemire's exact forms when x < 2^32, the plain
// ones otherwise (kModC_<T>, kDivC_<T>).
template <DType D> inline Bits ModC(Bits x, Bits b, Bits c) {
  return x <= 0xffffffffu ? static_cast<Bits>((static_cast<unsigned __int128>(c * x) * b) >> 64) : Mod<D>(x, b);
}
template <DType D> inline Bits DivC(Bits x, Bits b, Bits c) {
  return x <= 0xffffffffu ? static_cast<Bits>((static_cast<unsigned __int128>(c) * x) >> 64) : Idiv<D>(x, b);
}

// Float to integer: truncate toward zero, saturate, NaN -> 0.
template <DType D, class F> inline Bits floatToInt(F v) {
  if (v != v) return 0;
  double t = std::trunc(static_cast<double>(v));  // exact for f32 too
  if constexpr (kSigned<D>) {
    const double lo = -std::ldexp(1.0, kWidth<D> - 1);  // -2^(w-1), exact
    if (t < lo) return enc<D>(std::numeric_limits<T_<D>>::min());
    if (t >= -lo) return enc<D>(std::numeric_limits<T_<D>>::max());
    return enc<D>(static_cast<T_<D>>(static_cast<int64_t>(t)));
  } else {
    if (t < 0) return 0;  // t is an integer, so it is <= -1 here
    if (t >= std::ldexp(1.0, kWidth<D>)) return enc<D>(std::numeric_limits<T_<D>>::max());
    return enc<D>(static_cast<T_<D>>(static_cast<uint64_t>(t)));
  }
}

template <DType F, DType D> inline Bits Cast(Bits a) {
  if constexpr (D == DType::Bool) {
    if constexpr (kFloat<F>) return dec<F>(a) != 0;  // NaN != 0 is true
    else return a != 0;
  } else if constexpr (kFloat<D>) {
    return enc<D>(static_cast<T_<D>>(dec<F>(a)));  // ints round to nearest
  } else if constexpr (kFloat<F>) {
    return floatToInt<D>(dec<F>(a));
  } else {
    return wrap<D>(a);  // int/bool to int: the low bits of the extended value
  }
}

// The checked arithmetic of modules: 0 ok (r set), 1 overflow, 2 a zero
// divisor; K: 0 add, 1 sub, 2 mul, 3 div, 4 mod. Only integers reach it.
template <DType D> constexpr bool kInt = kSigned<D> || (D >= DType::U8 && D <= DType::U64);
template <int K, DType D> inline int checked(Bits a, Bits b, Bits &r) {
  if constexpr (!kInt<D>) {
    (void)a, (void)b, (void)r;
    return 0;
  } else {
    using T = T_<D>;
    T x = dec<D>(a), y = dec<D>(b), z{};
    if constexpr (K == 0) {
      if (__builtin_add_overflow(x, y, &z)) return 1;
    } else if constexpr (K == 1) {
      if (__builtin_sub_overflow(x, y, &z)) return 1;
    } else if constexpr (K == 2) {
      if (__builtin_mul_overflow(x, y, &z)) return 1;
    } else {
      if (y == 0) return 2;
      if constexpr (kSigned<D>)
        if (x == std::numeric_limits<T>::min() && y == T(-1)) return 1;
      z = static_cast<T>(K == 3 ? x / y : x % y);
    }
    r = enc<D>(z);
    return 0;
  }
}

// checked_cast: true (r set) when the value fits D exactly: integers by
// value; floats truncated toward zero first (NaN and infinities never fit).
template <DType F, DType D> inline bool CCast(Bits a, Bits &r) {
  if constexpr (!kInt<D>) {
    (void)a, (void)r;
    return false;
  } else if constexpr (kFloat<F>) {
    auto v = dec<F>(a);
    if (v != v) return false;
    double t = std::trunc(static_cast<double>(v));
    if constexpr (kSigned<D>) {
      const double lo = -std::ldexp(1.0, kWidth<D> - 1);
      if (!(t >= lo && t < -lo)) return false;
      r = enc<D>(static_cast<T_<D>>(static_cast<int64_t>(t)));
    } else {
      if (!(t >= 0 && t < std::ldexp(1.0, kWidth<D>))) return false;
      r = enc<D>(static_cast<T_<D>>(static_cast<uint64_t>(t)));
    }
    return true;
  } else {
    __int128 v = kSigned<F> ? static_cast<__int128>(static_cast<int64_t>(a)) : static_cast<__int128>(a);
    __int128 lo = kSigned<D> ? static_cast<__int128>(std::numeric_limits<T_<D>>::min()) : 0;
    __int128 hi = static_cast<__int128>(std::numeric_limits<T_<D>>::max());
    if (v < lo || v > hi) return false;
    r = wrap<D>(a);
    return true;
  }
}

}  // namespace alu
}  // namespace cairn::exec
