// Transfer functions of the bounds analysis over wrapped intervals (see
// oracle/interval.hpp for the representation and the invariants I1-I3).
//
// Homomorphic ops (add, sub, mul, neg, shl, narrowing casts) compute on the
// sets' mathematical representatives and reduce the result modulo 2^bits;
// the rest compute on hulls, where the usual monotonicity arguments of
// interval arithmetic hold. Bounds are 128-bit: a representative lies within
// +-2^65, so sums never overflow; products are checked (mul128) and shifts
// reduce modulo 2^bits before they scale.
#include "oracle/interval.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <tuple>
#include <utility>

namespace cairn {

i128 IntType::wrap(i128 x) const {
  i128 m = modulus();
  i128 r = x % m;
  if (r < 0) r += m;  // r in [0, 2^bits)
  return isSigned && r > max() ? r - m : r;
}

IntType IntType::of(DType t) {
  if (t == DType::Bool) return {1, false};
  return {dtypeBits(t), ::cairn::isSigned(t)};
}

ISet ISet::wrapped(IntType t, i128 lo, i128 hi) {
  if (lo > hi) return empty();
  if (hi - lo + 1 >= t.modulus()) return full(t);
  i128 l = t.wrap(lo);
  return {l, l + (hi - lo)};
}

ISet ISet::clamped(IntType t, i128 lo, i128 hi) {
  lo = std::max(lo, t.min());
  hi = std::min(hi, t.max());
  return lo > hi ? empty() : ISet{lo, hi};
}

bool ISet::contains(IntType t, i128 v) const {
  if (isEmpty()) return false;
  if (v >= lo && v <= hi) return true;
  return crosses(t) && v + t.modulus() <= hi;
}

ISet join(IntType t, ISet a, ISet b) {
  if (a.isEmpty()) return b;
  if (b.isEmpty()) return a;
  i128 m = t.modulus();
  // The least arc holding both starts where one of them starts.
  auto from = [&](ISet s, ISet o) {
    i128 d = (o.lo - s.lo) % m;
    if (d < 0) d += m;
    i128 end = std::max(s.hi, s.lo + d + (o.hi - o.lo));
    return ISet::wrapped(t, s.lo, end);
  };
  ISet x = from(a, b), y = from(b, a);
  return x.hi - x.lo <= y.hi - y.lo ? x : y;
}

std::string str(i128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) s += static_cast<char>('0' + static_cast<int>(u % 10)), u /= 10;
  if (neg) s += '-';
  return {s.rbegin(), s.rend()};
}

std::string str(IntType t, ISet s) {
  if (s.isEmpty()) return "empty";
  if (s.isPoint()) return "{" + str(s.lo) + "}";
  if (!s.crosses(t)) return "[" + str(s.lo) + ", " + str(s.hi) + "]";
  return "[" + str(s.lo) + ", " + str(t.max()) + "] and [" + str(t.min()) + ", " + str(s.hi - t.modulus()) + "]";
}

namespace {

// The candidate representatives of a set: lo..hi, and, when it crosses the
// wrap point, the same values one modulus lower (which straddle the minimum;
// for unsigned types, 0). Products are tightest on the one nearest zero.
struct Reps {
  ISet r[2];
  int n = 1;
};
Reps reps(IntType t, ISet s) {
  Reps out;
  out.r[0] = s;
  if (s.crosses(t)) out.r[out.n++] = {s.lo - t.modulus(), s.hi - t.modulus()};
  return out;
}

// The result of a math interval: its canonical set, exact when it fits the
// type and the operands were ordinary intervals (so their representatives
// are their values).
Transfer fromMath(IntType t, i128 lo, i128 hi, bool plainOperands) {
  return {ISet::wrapped(t, lo, hi), plainOperands && lo >= t.min() && hi <= t.max()};
}

// a * b, or nullopt when the product does not fit 128 bits (so neither
// the type nor a reduction modulo 2^bits can be read off it).
std::optional<i128> mul128(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
// The least and greatest product of x and y (corners suffice); a product
// past 128 bits saturates at +-2^126, far beyond every type.
std::pair<i128, i128> mulCorners(ISet x, ISet y, bool &overflow) {
  constexpr i128 kSat = i128{1} << 126;
  i128 c[4];
  int k = 0;
  for (i128 p : {x.lo, x.hi})
    for (i128 q : {y.lo, y.hi}) {
      auto r = mul128(p, q);
      overflow = overflow || !r;
      c[k++] = r ? *r : ((p < 0) != (q < 0) ? -kSat : kSat);
    }
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

Transfer mulT(IntType t, ISet a, ISet b) {
  Reps ra = reps(t, a), rb = reps(t, b);
  ISet best = ISet::full(t);
  bool exact = false;
  for (int i = 0; i < ra.n; ++i)
    for (int j = 0; j < rb.n; ++j) {
      bool overflow = false;
      auto [lo, hi] = mulCorners(ra.r[i], rb.r[j], overflow);
      // Products near +-2^127 can be 2^128 apart (no 128-bit size); a span of
      // 2^bits or more is the whole type, which `best` starts as.
      i128 span;
      if (overflow || __builtin_sub_overflow(hi, lo, &span) || span >= t.modulus()) continue;
      Transfer r = fromMath(t, lo, hi, i == 0 && j == 0 && !a.crosses(t) && !b.crosses(t));
      if (i == 0 && j == 0) exact = r.exact;
      if (r.set.hi - r.set.lo < best.hi - best.lo) best = r.set;
    }
  return {best, exact};
}

// The shift amounts b mod bits of the values of b, as [lo, hi] in [0, bits).
ISet shiftAmounts(IntType t, ISet b) {
  ISet h = b.hull(t);
  if (h.hi - h.lo + 1 >= t.bits) return {0, t.bits - 1};
  i128 lo = h.lo % t.bits;
  if (lo < 0) lo += t.bits;
  i128 hi = lo + (h.hi - h.lo);
  return hi < t.bits ? ISet{lo, hi} : ISet{0, t.bits - 1};
}

// a * 2^k for each amount k, reduced modulo 2^bits before it is scaled
// (so no bound exceeds 2^127); exact where a*2^k stays inside the type.
Transfer shlT(IntType t, ISet a, ISet b) {
  ISet s = shiftAmounts(t, b);
  ISet acc = ISet::empty();
  bool exact = !a.crosses(t);
  i128 m = t.modulus();
  for (i128 k = s.lo; k <= s.hi; ++k) {
    int sh = static_cast<int>(k);
    exact = exact && a.hi <= (t.max() >> sh) && a.lo >= (t.min() >> sh);
    if (a.hi - a.lo >= (m >> sh)) return {ISet::full(t), false};
    i128 lo = a.lo % m;
    if (lo < 0) lo += m;
    lo = (lo << sh) % m;
    acc = join(t, acc, ISet::wrapped(t, lo, lo + ((a.hi - a.lo) << sh)));
  }
  return {acc, exact};
}

Transfer shrT(IntType t, ISet a, ISet b) {
  ISet h = a.hull(t), s = shiftAmounts(t, b);
  // floor(x / 2^k) is monotone in x, and in k towards 0 from both sides.
  i128 lo = std::min(floorDiv(h.lo, i128{1} << static_cast<int>(s.lo)), floorDiv(h.lo, i128{1} << static_cast<int>(s.hi)));
  i128 hi = std::max(floorDiv(h.hi, i128{1} << static_cast<int>(s.lo)), floorDiv(h.hi, i128{1} << static_cast<int>(s.hi)));
  return {ISet{lo, hi}, true};
}

// a / b over the divisors of b other than 0, truncated; MIN / -1 gives
// 2^(bits-1), which wraps to MIN (so `checked` drops it instead).
Transfer divT(IntType t, ISet a, ISet b, bool checked) {
  ISet x = a.hull(t), y = b.hull(t);
  ISet acc = ISet::empty();
  bool exact = !a.crosses(t) && !b.crosses(t);
  for (ISet part : {ISet{y.lo, std::min<i128>(y.hi, -1)}, ISet{std::max<i128>(y.lo, 1), y.hi}}) {
    if (part.isEmpty()) continue;
    i128 c[4] = {x.lo / part.lo, x.lo / part.hi, x.hi / part.lo, x.hi / part.hi};
    i128 lo = *std::min_element(c, c + 4), hi = *std::max_element(c, c + 4);
    if (checked) {
      acc = join(t, acc, ISet::clamped(t, lo, hi));
      continue;
    }
    Transfer r = fromMath(t, lo, hi, true);
    exact = exact && r.exact;
    acc = join(t, acc, r.set);
  }
  return {acc, checked || exact};
}

Transfer modT(IntType t, ISet a, ISet b) {
  ISet x = a.hull(t), y = b.hull(t);
  i128 big = 0, small = -1;  // the largest and the least |b| over b != 0
  for (ISet part : {ISet{y.lo, std::min<i128>(y.hi, -1)}, ISet{std::max<i128>(y.lo, 1), y.hi}}) {
    if (part.isEmpty()) continue;
    i128 lo = part.lo < 0 ? -part.hi : part.lo, hi = part.lo < 0 ? -part.lo : part.hi;
    big = std::max(big, hi);
    small = small < 0 ? lo : std::min(small, lo);
  }
  if (small < 0) return {ISet::empty(), true};  // b is always 0: always traps
  if (x.lo > -small && x.hi < small) return {x, true};  // |a| < |b|: a itself
  i128 m = big - 1;
  i128 lo = x.lo >= 0 ? 0 : std::max(x.lo, -m), hi = x.hi <= 0 ? 0 : std::min(x.hi, m);
  return {ISet{lo, hi}, true};
}

Transfer bitT(Op op, IntType t, ISet a, ISet b) {
  ISet x = a.hull(t), y = b.hull(t);
  if (t.isBool() || (x.lo >= 0 && y.lo >= 0)) {
    i128 m = std::max(x.hi, y.hi), p = 1;
    while (p <= m) p <<= 1;
    if (op == Op::And) return {ISet{0, std::min(x.hi, y.hi)}, true};
    if (op == Op::Or) return {ISet{std::max(x.lo, y.lo), p - 1}, true};
    return {ISet{0, p - 1}, true};
  }
  if (op == Op::And && (x.lo >= 0 || y.lo >= 0)) return {ISet{0, x.lo >= 0 ? x.hi : y.hi}, true};
  return {ISet::full(t), true};
}

Transfer cmpT(Op op, IntType st, ISet a, ISet b) {
  ISet x = a.hull(st), y = b.hull(st);
  bool canTrue = true, canFalse = true;
  if (op == Op::Cmplt) {
    canTrue = x.lo < y.hi;
    canFalse = x.hi >= y.lo;
  } else {
    bool disjoint = x.hi < y.lo || y.hi < x.lo;
    bool same = x.isPoint() && y.isPoint() && x.lo == y.lo;
    bool eqTrue = !disjoint, eqFalse = !same;
    canTrue = op == Op::Cmpeq ? eqTrue : eqFalse;
    canFalse = op == Op::Cmpeq ? eqFalse : eqTrue;
  }
  return {ISet{canFalse ? 0 : 1, canTrue ? 1 : 0}, true};
}

// An integer cast from type s to type t.
Transfer castT(IntType t, IntType s, ISet a, bool checked) {
  if (t.isBool()) {
    bool zero = a.contains(s, 0), nonzero = !(a.isPoint() && a.lo == 0);
    return {ISet{zero ? 0 : 1, nonzero ? 1 : 0}, false};
  }
  if (checked) {  // the values of a that t holds (a may be two pieces)
    if (!a.crosses(s)) return {ISet::clamped(t, a.lo, a.hi), true};
    return {join(t, ISet::clamped(t, a.lo, s.max()), ISet::clamped(t, s.min(), a.hi - s.modulus())), true};
  }
  if (t.bits <= s.bits) return fromMath(t, a.lo, a.hi, !a.crosses(s));  // 2^t.bits divides 2^s.bits
  // Widening: the source's values themselves (sign- or zero-extended).
  ISet h = a.hull(s);
  return fromMath(t, h.lo, h.hi, !a.crosses(s));
}

// The checked ops trap where the mathematical result does not fit, so
// their results are that result, clamped to the type.
Transfer checkedArith(Op op, IntType t, ISet a, ISet b) {
  ISet x = a.hull(t), y = b.hull(t);
  i128 lo, hi;
  bool overflow = false;
  if (op == Op::CheckedAdd) lo = x.lo + y.lo, hi = x.hi + y.hi;
  else if (op == Op::CheckedSub) lo = x.lo - y.hi, hi = x.hi - y.lo;
  else std::tie(lo, hi) = mulCorners(x, y, overflow);  // saturated corners lie beyond the type: clamped off
  return {ISet::clamped(t, lo, hi), true};
}

}  // namespace

Transfer transfer(Op op, IntType t, std::span<const IntType> types, std::span<const ISet> sets) {
  for (const ISet &s : sets)
    if (s.isEmpty()) return {ISet::empty(), true};
  auto A = [&] { return sets[0]; };
  auto B = [&] { return sets[1]; };
  switch (op) {
    case Op::Const: return {A(), true};
    case Op::Range: {
      ISet n = A().hull(types[0]);
      return {n.hi >= 1 ? ISet{0, n.hi - 1} : ISet::empty(), true};
    }
    case Op::Add: return fromMath(t, A().lo + B().lo, A().hi + B().hi, !A().crosses(t) && !B().crosses(t));
    case Op::Sub: return fromMath(t, A().lo - B().hi, A().hi - B().lo, !A().crosses(t) && !B().crosses(t));
    case Op::Mul: return mulT(t, A(), B());
    case Op::Neg:
      if (t.isBool()) {  // logical not; on the hull, as {1, 0} (lo 1, hi 2) is canonical too
        ISet h = A().hull(t);
        return {ISet{1 - h.hi, 1 - h.lo}, false};
      }
      return fromMath(t, -A().hi, -A().lo, !A().crosses(t));
    case Op::Shl: return shlT(t, A(), B());
    case Op::Shr: return shrT(t, A(), B());
    case Op::Idiv: return divT(t, A(), B(), false);
    case Op::CheckedDiv: return divT(t, A(), B(), true);
    case Op::Mod:
    case Op::CheckedMod: return modT(t, A(), B());  // (checked_mod traps on MIN % -1, whose 0 may stay in the set)
    case Op::Max:
    case Op::Min: {
      ISet x = A().hull(t), y = B().hull(t);
      if (op == Op::Max) return {ISet{std::max(x.lo, y.lo), std::max(x.hi, y.hi)}, true};
      return {ISet{std::min(x.lo, y.lo), std::min(x.hi, y.hi)}, true};
    }
    case Op::And:
    case Op::Or:
    case Op::Xor: return bitT(op, t, A(), B());
    case Op::Cmplt:
    case Op::Cmpne:
    case Op::Cmpeq: return cmpT(op, types[0], A(), B());
    case Op::Where: {
      ISet c = A();
      if (c.isPoint()) return {c.lo ? sets[1] : sets[2], true};
      return {join(t, sets[1], sets[2]), true};
    }
    case Op::Cast: return castT(t, types[0], A(), false);
    case Op::CheckedCast: return castT(t, types[0], A(), true);
    case Op::CheckedAdd:
    case Op::CheckedSub:
    case Op::CheckedMul: return checkedArith(op, t, A(), B());
    default: return {ISet::full(t), false};
  }
}

}  // namespace cairn
