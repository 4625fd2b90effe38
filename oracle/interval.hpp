// Value sets of the bounds analysis: wrapped intervals over an integer type,
// and one transfer function per op.
//
// Every integer op of .uir is arithmetic modulo 2^bits (docs/uir.md,
// "Dtypes"). A set of values is kept as a *wrapped interval*: the values
// wrap(x) for the mathematical integers lo <= x <= hi, where wrap reduces
// modulo 2^bits into the type's range. While lo..hi lies inside the range
// the set is an ordinary interval; when it runs past the top it wraps once
// (an interval that crosses the wrap point: [lo, max] and [min, hi - 2^bits]).
// Wrap-around is a ring homomorphism, so add, sub, mul, neg and shl are exact
// on such sets (compute on the mathematical representative, then reduce),
// and a result that crosses the wrap point once keeps its exact set instead
// of widening to the whole type. Ops that are not homomorphic (idiv, mod,
// shr, max, min, and, or, xor, comparisons, widening casts) work on the
// set's hull: the least ordinary interval holding it.
//
// Invariants (each transfer function is proven against them exhaustively on
// small types by tests/unit/interval_exhaustive_test.cpp):
//   I1  soundness: transfer(op, ...).set holds the result of op for every
//       choice of one value from each operand set (results that trap, such
//       as a division by 0 or a checked op's overflow, are not results);
//   I2  exactness: when transfer(...).exact, each such result equals the
//       op's mathematical value (a + b, a - b, a * b, -a, a * 2^s, trunc(a/b),
//       floor(a / 2^s), the cast's operand) with no wrap-around; the lane
//       rule follows an affine form only through exact ops;
//   I3  canonical form: every ISet is empty (lo > hi), or has
//       min <= lo <= max and 0 <= hi - lo < 2^bits.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "ir/dtype.hpp"
#include "ir/graph.hpp"

namespace cairn {

using i128 = __int128;

// An integer type: `bits` wide (1 for bool; 8, 16, 32, 64 for the dtypes;
// any width from 1 to 64 in tests), two's complement when signed.
struct IntType {
  int bits = 64;
  bool isSigned = true;

  i128 min() const { return isSigned ? -(i128{1} << (bits - 1)) : 0; }
  i128 max() const { return isSigned ? (i128{1} << (bits - 1)) - 1 : (i128{1} << bits) - 1; }
  i128 modulus() const { return i128{1} << bits; }
  bool isBool() const { return bits == 1 && !isSigned; }
  // The value of x modulo 2^bits, in [min, max].
  i128 wrap(i128 x) const;
  bool holds(i128 x) const { return x >= min() && x <= max(); }
  static IntType of(DType t);  // t: an integer dtype or bool
  bool operator==(const IntType &) const = default;
};

// A set of values of one IntType (the type is not stored: every function
// takes it). See the top of this file for the meaning of lo and hi.
struct ISet {
  i128 lo = 1, hi = 0;  // default: empty

  static ISet empty() { return {}; }
  static ISet point(i128 v) { return {v, v}; }
  static ISet full(IntType t) { return {t.min(), t.max()}; }
  // The canonical set of wrap(x), lo <= x <= hi (the whole type when the
  // interval has 2^bits values or more; empty when lo > hi).
  static ISet wrapped(IntType t, i128 lo, i128 hi);
  // The values of [lo, hi] that the type holds (no wrapping: a clamp).
  static ISet clamped(IntType t, i128 lo, i128 hi);

  bool isEmpty() const { return lo > hi; }
  bool isFull(IntType t) const { return !isEmpty() && hi - lo + 1 >= t.modulus(); }
  bool crosses(IntType t) const { return !isEmpty() && hi > t.max(); }
  bool contains(IntType t, i128 v) const;  // v in [t.min(), t.max()]
  // The least ordinary interval holding the set: itself, or the whole type
  // when it crosses the wrap point. Never wraps.
  ISet hull(IntType t) const { return crosses(t) ? full(t) : *this; }
  bool isPoint() const { return lo == hi; }
  bool operator==(const ISet &) const = default;
};

// The least wrapped interval holding both sets.
ISet join(IntType t, ISet a, ISet b);

std::string str(i128 v);
// floor(a / d) for d > 0 (C++'s `/` truncates toward zero).
inline i128 floorDiv(i128 a, i128 d) {
  i128 q = a / d;
  return q * d > a ? q - 1 : q;
}
std::string str(IntType t, ISet s);  // "[0, 255]", "{3}", "[250, 255] and [0, 4]", "empty"

struct Transfer {
  ISet set;            // I1: holds every result
  bool exact = false;  // I2: every result is the op's mathematical value
};

// The transfer function of `op` (a scalar op of ir/ops.def, or `range`: the
// set of its index) with result type `t`. `types[k]` and `sets[k]` describe
// operand k (for `cast`, types[0] is the source type; for comparisons the
// operands' type, `t` being bool; for `where`, operand 0 is the bool
// condition). Ops with no transfer function here (load, reduce, param,
// call, len, float ops) give the whole type, not exact. An empty operand
// set (a value that is never computed, as in a loop that never runs) gives
// an empty result.
Transfer transfer(Op op, IntType t, std::span<const IntType> types, std::span<const ISet> sets);

}  // namespace cairn
