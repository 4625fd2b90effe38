// Proves the invariants of oracle/interval.hpp by enumeration on small types.
//
// An operand set is any wrapped interval of a small type: every start with
// every length (the full set from every start too), and the empty set. The
// results of an op over its operand sets come from an independent reference
// semantics, `ref`, written from docs/uir.md ("Dtypes", "Scalars", the
// checked_* ops of "Modules"), as bitsets grown one value at a time, and
// each transfer() (and join) is checked against them:
//   I1  its set holds every result that does not trap;
//   I2  when it says `exact`, every result equals `math`, the op's
//       mathematical value (a + b, a * 2^s, trunc(a / b), floor(a / 2^s), the
//       cast's operand, ...); ops with no such value (mod, max, and, ...)
//       need only I1;
//   I3  its set is canonical.
// Groups: every binary op on every pair of sets at 4 and 5 bits (signed,
// unsigned) and bool, `where` on every triple; at 8 bits (i8, u8) every set
// of one operand, in both positions, against points and representative sets
// of the other (all of them with CAIRN_INTERVAL_FULL=1, see others8); cast,
// checked_cast, neg and range on every set of every type of 1 to 8 bits;
// join on every pair at 3 to 5 bits and bool, and least. At 16, 32 and 64
// bits, sampled values of sets around the wrap points (not a proof). `ref`
// is tied to the engine: exec/alu.hpp on every pair of 8-bit values, the
// module interpreter on the checked ops at edge values.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "exec/alu.hpp"
#include "exec/module_interp.hpp"
#include "ir/module.hpp"
#include "oracle/interval.hpp"
#include "oracle/module.hpp"

namespace cairn {
namespace {

using std::optional;
constexpr IntType kBool{1, false}, kI8{8, true}, kU8{8, false};
constexpr optional<i128> kTrap = std::nullopt;

// ---- the reference semantics (docs/uir.md) ---------------------------------
i128 floorMod(i128 a, i128 m) { i128 r = a % m; return r < 0 ? r + m : r; }
i128 floorDiv(i128 a, i128 d) { return (a - floorMod(a, d)) / d; }
i128 wrapTo(IntType t, i128 x) {  // x modulo 2^bits, in [min, max]
  i128 r = floorMod(x, t.modulus());
  return r > t.max() ? r - t.modulus() : r;
}
int shiftAmount(IntType t, i128 b) { return static_cast<int>(floorMod(b, t.bits)); }
// a * b; past 128 bits (only at 64 bits) a value far outside every type.
i128 mulSat(i128 a, i128 b) {
  i128 r;
  return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? -1 : 1) * (i128{1} << 126) : r;
}
i128 mulWrap(i128 a, i128 b) {  // a * b modulo 2^128: the same low 64 bits
  return static_cast<i128>(static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b));
}
bool isCmp(Op op) { return op == Op::Cmplt || op == Op::Cmpne || op == Op::Cmpeq; }

// The value of `op` with result type t on operands of types ty, or kTrap.
// Not for `range` (its index is a set: see unaryRow).
optional<i128> ref(Op op, IntType t, std::span<const IntType> ty, std::span<const i128> v) {
  const i128 a = v[0], b = v.size() > 1 ? v[1] : 0;
  auto fits = [&](i128 x) { return t.holds(x) ? optional<i128>(x) : kTrap; };
  switch (op) {
    case Op::Add: return wrapTo(t, a + b);
    case Op::Sub: return wrapTo(t, a - b);
    case Op::Mul: return wrapTo(t, mulWrap(a, b));
    case Op::Idiv: return b == 0 ? kTrap : wrapTo(t, a / b);  // truncates; MIN / -1 wraps to MIN
    case Op::Mod: return b == 0 ? kTrap : a % b;              // sign of a; MIN % -1 is 0
    case Op::Max: return std::max(a, b);
    case Op::Min: return std::min(a, b);
    case Op::Neg: return t.isBool() ? 1 - a : wrapTo(t, -a);  // bool: logical not
    case Op::And: return wrapTo(t, a & b);                    // on the two's complement bits
    case Op::Or: return wrapTo(t, a | b);
    case Op::Xor: return wrapTo(t, a ^ b);
    case Op::Shl: return wrapTo(t, a * (i128{1} << shiftAmount(ty[0], b)));
    case Op::Shr: return floorDiv(a, i128{1} << shiftAmount(ty[0], b));  // arithmetic, or logical as a >= 0
    case Op::Cmplt: return i128{a < b};
    case Op::Cmpne: return i128{a != b};
    case Op::Cmpeq: return i128{a == b};
    case Op::Where: return a != 0 ? v[1] : v[2];
    case Op::Cast: return t.isBool() ? i128{a != 0} : wrapTo(t, a);
    case Op::CheckedAdd: return fits(a + b);
    case Op::CheckedSub: return fits(a - b);
    case Op::CheckedMul: return fits(mulSat(a, b));
    case Op::CheckedDiv: return b == 0 ? kTrap : fits(a / b);  // MIN / -1 does not fit
    case Op::CheckedMod: return b == 0 || (t.isSigned && a == t.min() && b == -1) ? kTrap : a % b;
    case Op::CheckedCast: return fits(a);
    default: ADD_FAILURE() << "no reference for " << opInfo(op).name; return kTrap;
  }
}

// The op's mathematical value (I2), or nullopt for ops that have none.
optional<i128> math(Op op, std::span<const IntType> ty, std::span<const i128> v) {
  const i128 a = v[0], b = v.size() > 1 ? v[1] : 0;
  switch (op) {
    case Op::Add: case Op::CheckedAdd: return a + b;
    case Op::Sub: case Op::CheckedSub: return a - b;
    case Op::Mul: case Op::CheckedMul: return mulSat(a, b);
    case Op::Neg: return -a;
    case Op::Shl: return a * (i128{1} << shiftAmount(ty[0], b));
    case Op::Shr: return floorDiv(a, i128{1} << shiftAmount(ty[0], b));
    case Op::Idiv: case Op::CheckedDiv: return b == 0 ? kTrap : a / b;
    case Op::CheckedMod: return b == 0 ? kTrap : a % b;
    case Op::Cast: case Op::CheckedCast: return a;
    default: return std::nullopt;
  }
}

// ---- value sets as bitsets -------------------------------------------------
int count(IntType t) { return 1 << t.bits; }  // bits <= 8
int idx(IntType t, i128 v) { return static_cast<int>(v - t.min()); }
i128 val(IntType t, int i) { return t.min() + i; }
std::string tname(IntType t) { return t.isBool() ? "bool" : (t.isSigned ? "i" : "u") + std::to_string(t.bits); }
std::string show(optional<i128> v, const char *none) { return v ? str(*v) : none; }

// Values min+i of a type (i < 64*K).
template <int K> struct VS {
  uint64_t w[K] = {};
  void set(int i) { w[i >> 6] |= uint64_t{1} << (i & 63); }
  bool test(int i) const { return (w[i >> 6] >> (i & 63)) & 1; }
  VS &operator|=(const VS &o) {
    for (int k = 0; k < K; ++k) w[k] |= o.w[k];
    return *this;
  }
  static uint64_t mask(int k, int a, int b) {  // the bits of [a, b) in word k
    int s = std::max(a, k * 64) - k * 64, e = std::min(b, k * 64 + 64) - k * 64;
    return s >= e ? 0 : e - s == 64 ? ~uint64_t{0} : ((uint64_t{1} << (e - s)) - 1) << s;
  }
  int firstIn(int a, int b) const {  // the first element in [a, b), or -1
    for (int k = 0; k < K; ++k)
      if (uint64_t d = w[k] & mask(k, a, b)) return k * 64 + std::countr_zero(d);
    return -1;
  }
  int firstNotIn(const VS &o) const {
    for (int k = 0; k < K; ++k)
      if (uint64_t d = w[k] & ~o.w[k]) return k * 64 + std::countr_zero(d);
    return -1;
  }
  void setRange(int a, int b) {
    for (int k = 0; k < K; ++k) w[k] |= mask(k, a, b);
  }
};

// A wrapped interval of a small type by index: `len` values from min+lo.
struct Iv {
  int lo = 0, len = 0;  // len 0: empty
};
ISet toISet(IntType t, Iv s) { return s.len == 0 ? ISet::empty() : ISet{val(t, s.lo), val(t, s.lo) + s.len - 1}; }
Iv ivOf(IntType t, i128 lo, int len) { return {idx(t, wrapTo(t, lo)), std::min(len, count(t))}; }
std::vector<Iv> allSets(IntType t) {
  std::vector<Iv> v{{0, 0}};
  for (int lo = 0; lo < count(t); ++lo)
    for (int len = 1; len <= count(t); ++len) v.push_back({lo, len});
  return v;
}

bool canonical(IntType t, ISet s) {
  return s.isEmpty() || (t.holds(s.lo) && s.hi - s.lo >= 0 && s.hi - s.lo < t.modulus());
}
bool holds(IntType t, ISet s, i128 v) {  // s canonical, v in t
  return !s.isEmpty() && ((v >= s.lo && v <= s.hi) || (v + t.modulus() >= s.lo && v + t.modulus() <= s.hi));
}
template <int K> VS<K> members(IntType t, Iv s) {
  VS<K> m;
  m.setRange(s.lo, std::min(count(t), s.lo + s.len));
  m.setRange(0, s.lo + s.len - count(t));
  return m;
}
// The first element of v that the canonical set s leaves out, or -1.
template <int K> int firstOutside(const VS<K> &v, IntType t, ISet s) {
  const int n = count(t);
  if (s.isEmpty()) return v.firstIn(0, n);
  const int lo = static_cast<int>(s.lo - t.min()), size = static_cast<int>(s.hi - s.lo) + 1;
  if (size >= n) return -1;
  const int from = (lo + size) % n, end = from + n - size;  // the arc left out: [from, end) mod n
  int f = v.firstIn(from, std::min(end, n));
  return f >= 0 || end <= n ? f : v.firstIn(0, end - n);
}

// ---- checks: what failed, where, a counterexample; a few per sweep ---------
struct Sweep {
  Op op;
  IntType rt;                  // the result type
  std::vector<IntType> types;  // the operands'
  int failures = 0;
  bool fail() { return ++failures < 3; }  // false: stop the sweep
};

std::string describe(const Sweep &s, std::span<const ISet> sets, const Transfer &tr) {
  std::ostringstream o;
  o << opInfo(s.op).name << " -> " << tname(s.rt) << " of";
  for (size_t k = 0; k < sets.size(); ++k)
    o << (k ? ", " : " ") << tname(s.types[k]) << " " << str(s.types[k], sets[k]);
  o << ": computed ";
  if (canonical(s.rt, tr.set)) o << str(s.rt, tr.set);
  else o << "lo=" << str(tr.set.lo) << " hi=" << str(tr.set.hi);
  o << (tr.exact ? " exact" : " inexact");
  return o.str();
}

// "a, b -> r": operand values, one of each set, whose result r satisfies
// pred(r, math value); "" if none does.
template <class Pred> std::string witness(const Sweep &s, std::span<const ISet> sets, Pred pred) {
  std::vector<i128> v(sets.size());
  std::string found;
  auto rec = [&](auto &self, size_t k) -> bool {
    if (k == sets.size()) {
      optional<i128> r = ref(s.op, s.rt, s.types, v);
      if (!r || !pred(*r, math(s.op, s.types, v))) return false;
      std::ostringstream o;
      for (size_t j = 0; j < v.size(); ++j) o << (j ? ", " : "") << str(v[j]);
      found = o.str() + " -> " + str(*r);
      return true;
    }
    for (i128 x = sets[k].lo; x <= sets[k].hi && x - sets[k].lo < 512; ++x)
      if (v[k] = wrapTo(s.types[k], x); self(self, k + 1)) return true;
    return false;
  };
  rec(rec, 0);
  return found;
}

// Checks transfer() of `sets` against their results `res` (`wraps`: some
// result is not the math value). False when the sweep is to stop.
template <int K> bool check(Sweep &s, std::span<const ISet> sets, const VS<K> &res, bool wraps) {
  const Transfer tr = transfer(s.op, s.rt, s.types, sets);
  if (!canonical(s.rt, tr.set)) {
    ADD_FAILURE() << "[I3] " << describe(s, sets, tr) << ": not canonical";
    return s.fail();
  }
  if (int miss = firstOutside<K>(res, s.rt, tr.set); miss >= 0) {
    const i128 v = val(s.rt, miss);
    ADD_FAILURE() << "[I1] " << describe(s, sets, tr) << ": misses " << str(v) << " ("
                  << witness(s, sets, [&](i128 r, optional<i128>) { return r == v; }) << ")";
    return s.fail();
  }
  if (tr.exact && wraps) {
    ADD_FAILURE() << "[I2] " << describe(s, sets, tr) << ": not the math value for "
                  << witness(s, sets, [](i128 r, optional<i128> m) { return m && *m != r; });
    return s.fail();
  }
  return true;
}

// ---- binary ops ----------------------------------------------------------------
struct Table {  // the op on every pair of values
  int n = 0;
  std::vector<int16_t> res;    // [a * n + b]: index of the result in rt; -1: traps
  std::vector<uint8_t> wraps;  // the result is not the math value
};
Table table(const Sweep &s) {
  const IntType t = s.types[0];
  Table tb{count(t), std::vector<int16_t>(count(t) * count(t), -1), std::vector<uint8_t>(count(t) * count(t))};
  for (int a = 0; a < tb.n; ++a)
    for (int b = 0; b < tb.n; ++b) {
      const i128 v[2] = {val(t, a), val(t, b)};
      optional<i128> r = ref(s.op, s.rt, s.types, v), m = math(s.op, s.types, v);
      if (!r) continue;
      tb.res[a * tb.n + b] = static_cast<int16_t>(idx(s.rt, *r));
      tb.wraps[a * tb.n + b] = m && *m != *r;
    }
  return tb;
}

// plan[lo]: the indices into `others` that the sets starting at lo meet;
// an empty plan: all of them.
using Plan = std::vector<std::vector<int>>;

// Every set of operand `pos` against the sets `others` of the other operand
// that the plan names. The results of [lo, lo+len] are those of
// [lo, lo+len-1] and of the value lo+len against the other set (`row`).
template <int K> void sweepBinary(Sweep &s, int pos, const std::vector<Iv> &others, const Plan &plan) {
  const IntType t = s.types[0];
  const Table tb = table(s);
  const int n = tb.n, R = static_cast<int>(others.size());
  std::vector<VS<K>> row(n * R), acc(R);
  std::vector<uint8_t> rowW(n * R), accW(R);
  std::vector<ISet> oset(R);
  std::vector<int> every(R);
  ISet sets[2];
  for (int r = 0; r < R; ++r) {
    oset[r] = toISet(t, others[r]), every[r] = r;
    for (int x = 0; x < n; ++x)
      for (int i = 0; i < others[r].len; ++i) {
        int y = (others[r].lo + i) % n, at = pos == 0 ? x * n + y : y * n + x;
        if (tb.res[at] >= 0) row[x * R + r].set(tb.res[at]), rowW[x * R + r] |= tb.wraps[at];
      }
    sets[pos] = ISet::empty(), sets[1 - pos] = oset[r];  // the empty set at `pos`
    if (!check<K>(s, sets, VS<K>{}, false)) return;
  }
  for (int lo = 0; lo < n; ++lo) {
    std::fill(acc.begin(), acc.end(), VS<K>{});
    std::fill(accW.begin(), accW.end(), 0);
    for (int len = 1; len <= n; ++len) {
      const int x = (lo + len - 1) % n;
      sets[pos] = toISet(t, Iv{lo, len});
      for (int r : plan.empty() ? every : plan[lo]) {
        acc[r] |= row[x * R + r];
        accW[r] |= rowW[x * R + r];
        sets[1 - pos] = oset[r];
        if (!check<K>(s, sets, acc[r], accW[r])) return;
      }
    }
  }
}
void sweepBinaryAny(Op op, IntType t, int pos, const std::vector<Iv> &others, const Plan &plan = {}) {
  Sweep s{op, isCmp(op) ? kBool : t, {t, t}};
  if (count(t) <= 64) sweepBinary<1>(s, pos, others, plan);
  else sweepBinary<4>(s, pos, others, plan);
}

constexpr Op kBinaryOps[] = {Op::Add,   Op::Sub,        Op::Mul,        Op::Idiv,       Op::Mod,
                             Op::Max,   Op::Min,        Op::And,        Op::Or,         Op::Xor,
                             Op::Shl,   Op::Shr,        Op::Cmplt,      Op::Cmpne,      Op::Cmpeq,
                             Op::CheckedAdd, Op::CheckedSub, Op::CheckedMul, Op::CheckedDiv, Op::CheckedMod};
constexpr Op kBoolOps[] = {Op::And, Op::Or, Op::Xor, Op::Max, Op::Min, Op::Cmplt, Op::Cmpne, Op::Cmpeq};

TEST(IntervalExhaustive, BinaryEveryPairOfSetsAtWidths4And5) {
  for (int w : {4, 5})
    for (bool sg : {true, false})
      for (Op op : kBinaryOps) sweepBinaryAny(op, IntType{w, sg}, 0, allSets(IntType{w, sg}));
  for (Op op : kBoolOps) sweepBinaryAny(op, kBool, 0, allSets(kBool));
}

// 8 bits. Points: 0, 1, -1, the wrap points, shift amounts, powers of two.
// Sets: touching min, max, 0 and -1, crossing the wrap point (of the type
// and of the other signedness), halves, all but one, full from 3 starts.
std::vector<Iv> points8(IntType t) {
  std::vector<Iv> v;
  for (i128 p : {i128{0}, i128{-1}, i128{1}, t.min(), t.max(), t.min() + 1, t.max() - 1, i128{2}, i128{3},
                 i128{7}, i128{8}, i128{9}, i128{-8}, i128{64}, i128{100}, i128{-100}, i128{128}})
    if (Iv x = ivOf(t, p, 1); std::none_of(v.begin(), v.end(), [&](Iv y) { return y.lo == x.lo; })) v.push_back(x);
  return v;
}
std::vector<Iv> sets8(IntType t) {
  const i128 m = t.min(), M = t.max();
  const std::pair<i128, int> s[] = {{0, 2},   {-1, 2},   {-1, 3},     {-2, 5},    {m, 2},   {M - 1, 2},
                                    {M, 2},   {M - 3, 8}, {m, 16},    {M - 15, 16}, {1, 7}, {0, 128},
                                    {m, 128}, {-64, 128}, {1, 255},   {m + 1, 255}, {0, 256}, {M, 256},
                                    {-5, 3},  {100, 56},  {-100, 50}, {3, 5},     {127, 2}, {m, 256}};
  std::vector<Iv> v;
  for (auto [lo, len] : s) v.push_back(ivOf(t, lo, len));
  return v;
}

// With CAIRN_INTERVAL_FULL=1 in the environment: every point and every set
// of sets8 against every set (1.5 billion transfer calls: minutes). By
// default each start of the enumerated operand meets, at every length, the
// points 0, -1, 1 and three more of points8 and sets8 in turn (each of
// those meets about 20 starts at every length); under ASan, 0 and -1 and
// one more (the sanitizers look for undefined behaviour, the release run
// for unsound sets).
#if defined(__SANITIZE_ADDRESS__)
constexpr int kCore = 2, kTurn = 1;
#else
constexpr int kCore = 3, kTurn = 3;
#endif
void others8(IntType t, std::vector<Iv> &others, Plan &plan) {
  const char *e = std::getenv("CAIRN_INTERVAL_FULL");
  const bool full = e && *e == '1';
  others = points8(t);
  for (int i = 0; full && i < count(t); ++i)
    if (std::none_of(others.begin(), others.end(), [&](Iv y) { return y.lo == i; })) others.push_back({i, 1});
  for (Iv s : sets8(t)) others.push_back(s);
  const int core = kCore, turn = kTurn, pool = static_cast<int>(others.size()) - core;
  plan.assign(full ? 0 : count(t), {});
  for (size_t lo = 0; lo < plan.size(); ++lo) {
    for (int r = 0; r < core; ++r) plan[lo].push_back(r);
    for (int j = 0; j < turn; ++j) plan[lo].push_back(core + (static_cast<int>(lo) * turn + j) % pool);
  }
}

TEST(IntervalExhaustive, BinaryEverySetAgainstPointsAndRepresentativesAt8Bits) {
  for (IntType t : {kI8, kU8}) {
    std::vector<Iv> others;
    Plan plan;
    others8(t, others, plan);
    for (Op op : kBinaryOps)
      for (int pos : {0, 1}) sweepBinaryAny(op, t, pos, others, plan);
  }
}

// where(c, a, b): every set of bool as c, every pair of sets as a and b.
void sweepWhere(IntType t) {
  Sweep s{Op::Where, t, {kBool, t, t}};
  const std::vector<Iv> all = allSets(t);
  std::vector<VS<1>> mem(all.size());
  for (size_t i = 0; i < all.size(); ++i) mem[i] = members<1>(t, all[i]);
  for (Iv c : allSets(kBool)) {
    const VS<1> cm = members<1>(kBool, c);
    for (size_t i = 0; i < all.size(); ++i)
      for (size_t j = 0; j < all.size(); ++j) {
        VS<1> res;  // no results when an operand has no values
        if (cm.test(1) && all[j].len) res |= mem[i];
        if (cm.test(0) && all[i].len) res |= mem[j];
        const ISet sets[3] = {toISet(kBool, c), toISet(t, all[i]), toISet(t, all[j])};
        if (!check<1>(s, sets, res, false)) return;
      }
  }
}

TEST(IntervalExhaustive, WhereEveryTripleAtWidths4And5) {
  for (int w : {4, 5})
    for (bool sg : {true, false}) sweepWhere(IntType{w, sg});
  sweepWhere(kBool);
}

// ---- unary ops: every set of the operand's type -----------------------------
// The results of one operand value (range: every index below it).
template <int K> void unaryRow(const Sweep &s, int a, VS<K> &row, uint8_t &wraps) {
  const i128 v[1] = {val(s.types[0], a)};
  if (s.op == Op::Range) {
    for (i128 i = 0; i < v[0]; ++i) row.set(idx(s.rt, i));
  } else if (optional<i128> r = ref(s.op, s.rt, s.types, v), m = math(s.op, s.types, v); r) {
    row.set(idx(s.rt, *r));
    wraps = m && *m != *r;
  }
}

template <int K> void sweepUnary(Op op, IntType src, IntType rt) {
  Sweep s{op, rt, {src}};
  const int n = count(src);
  std::vector<VS<K>> row(n);
  std::vector<uint8_t> rowW(n);
  for (int a = 0; a < n; ++a) unaryRow<K>(s, a, row[a], rowW[a]);
  ISet sets[1] = {ISet::empty()};
  if (!check<K>(s, sets, VS<K>{}, false)) return;
  for (int lo = 0; lo < n; ++lo) {
    VS<K> acc;
    bool accW = false;
    for (int len = 1; len <= n; ++len) {
      acc |= row[(lo + len - 1) % n];
      accW |= rowW[(lo + len - 1) % n] != 0;
      sets[0] = toISet(src, Iv{lo, len});
      if (!check<K>(s, sets, acc, accW)) return;
    }
  }
}
void sweepUnaryAny(Op op, IntType src, IntType rt) {
  if (count(rt) <= 64) sweepUnary<1>(op, src, rt);
  else sweepUnary<4>(op, src, rt);
}

std::vector<IntType> smallTypes() {  // bool, and 2 to 8 bits signed and unsigned
  std::vector<IntType> v{kBool};
  for (int w = 2; w <= 8; ++w) v.push_back({w, true}), v.push_back({w, false});
  return v;
}

TEST(IntervalExhaustive, CastEverySetBetweenEveryPairOfSmallTypes) {
  for (IntType src : smallTypes())
    for (IntType dst : smallTypes()) {
      sweepUnaryAny(Op::Cast, src, dst);
      if (!dst.isBool()) sweepUnaryAny(Op::CheckedCast, src, dst);  // to bool: refused (structure)
    }
}

TEST(IntervalExhaustive, NegAndRangeEverySet) {
  for (IntType t : smallTypes()) {
    sweepUnaryAny(Op::Neg, t, t);
    if (!t.isBool()) sweepUnaryAny(Op::Range, t, t);  // range takes an integer
  }
}

// ---- join -------------------------------------------------------------------------
// The fewest values of a wrapped interval holding m: by brute force over
// bySize (every set, fewest values first) up to 4 bits, else the type's size
// less the longest run, around the circle, of values m leaves out.
int leastCover(IntType t, const std::vector<Iv> &bySize, const std::vector<VS<1>> &mem, VS<1> m) {
  const int n = count(t);
  for (size_t i = 0; n <= 16 && i < bySize.size(); ++i)
    if (m.firstNotIn(mem[i]) < 0) return bySize[i].len;
  int best = 0, run = 0;
  for (int i = 0; i < 2 * n; ++i) run = m.test(i % n) ? 0 : run + 1, best = std::max(best, std::min(run, n));
  return n - best;
}

void sweepJoin(IntType t) {
  std::vector<Iv> all = allSets(t);
  std::stable_sort(all.begin(), all.end(), [](Iv a, Iv b) { return a.len < b.len; });
  std::vector<VS<1>> mem(all.size());
  for (size_t i = 0; i < all.size(); ++i) mem[i] = members<1>(t, all[i]);
  int failures = 0;
  for (size_t i = 0; i < all.size() && failures < 3; ++i)
    for (size_t j = 0; j < all.size() && failures < 3; ++j) {
      const ISet a = toISet(t, all[i]), b = toISet(t, all[j]), r = join(t, a, b);
      auto what = [&] { return "join " + tname(t) + " " + str(t, a) + ", " + str(t, b) + ": "; };
      VS<1> both = mem[i];
      both |= mem[j];
      const int size = r.isEmpty() ? 0 : static_cast<int>(std::min<i128>(r.hi - r.lo + 1, count(t)));
      if (!canonical(t, r))
        ADD_FAILURE() << what() << "not canonical: lo=" << str(r.lo) << " hi=" << str(r.hi), ++failures;
      else if (int miss = firstOutside<1>(both, t, r); miss >= 0)
        ADD_FAILURE() << what() << str(t, r) << " misses " << str(val(t, miss)), ++failures;
      else if (int least = leastCover(t, all, mem, both); size != least)
        ADD_FAILURE() << what() << str(t, r) << " has " << size << " values; " << least << " hold both", ++failures;
    }
}

TEST(IntervalExhaustive, JoinEveryPairIsSoundCanonicalAndLeast) {
  for (int w : {3, 4, 5})
    for (bool sg : {true, false}) sweepJoin(IntType{w, sg});
  sweepJoin(kBool);
}

// ---- wider types, sampled (not a proof) -----------------------------------------
// At 16, 32 and 64 bits, where 128-bit bounds could overflow: sets from
// around the wrap points of 1 to 2^bits values, checked at their ends and
// at the wrap points, 0 and +-1 they hold.
std::vector<std::pair<ISet, std::vector<i128>>> wideSets(IntType t) {
  const i128 h = i128{1} << (t.bits / 2), m = t.modulus();
  std::vector<std::pair<ISet, std::vector<i128>>> out;
  for (i128 lo : {t.min(), t.min() + 1, -h, i128{-1}, i128{0}, i128{1}, h, t.max()})
    for (i128 size : {i128{1}, i128{2}, h + 1, m / 2, m - 1, m}) {
      const ISet s{wrapTo(t, lo), wrapTo(t, lo) + size - 1};
      std::vector<i128> v;
      for (i128 x : {s.lo, s.lo + 1, s.hi - 1, s.hi, t.min(), t.max(), i128{0}, i128{1}, i128{-1}})
        if (x = wrapTo(t, x); holds(t, s, x) && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
      out.push_back({s, v});
    }
  return out;
}

// op on the sets `sets` (operand types ty), at each choice of their samples.
void sampled(Op op, IntType rt, std::span<const IntType> ty, std::span<const ISet> sets,
             std::span<const std::vector<i128> *const> samples, auto &failures) {
  const Transfer tr = transfer(op, rt, ty, sets);
  Sweep s{op, rt, {ty.begin(), ty.end()}};
  if (!canonical(rt, tr.set)) return ADD_FAILURE() << "[I3] " << describe(s, sets, tr), void(++failures);
  std::vector<i128> v(sets.size());
  for (size_t i = 0; i < samples[0]->size(); ++i)
    for (size_t j = 0; j < (sets.size() > 1 ? samples[1]->size() : 1); ++j) {
      v[0] = (*samples[0])[i];
      if (sets.size() > 1) v[1] = (*samples[1])[j];
      optional<i128> r = ref(op, rt, ty, v), m = math(op, ty, v);
      if (!r || (holds(rt, tr.set, *r) && !(tr.exact && m && *m != *r))) continue;
      ADD_FAILURE() << describe(s, sets, tr) << ": at " << str(v[0]) << (v.size() > 1 ? ", " + str(v[1]) : "")
                    << " -> " << str(*r) << " (math " << show(m, "none") << ")";
      return void(++failures);
    }
}

TEST(IntervalSampled, EveryOpAtWideTypes) {
  std::vector<IntType> wide;
  for (int w : {16, 32, 64}) wide.push_back({w, true}), wide.push_back({w, false});
  for (IntType t : wide) {
    const auto sets = wideSets(t);
    for (Op op : kBinaryOps) {
      int failures = 0;
      const IntType ty[2] = {t, t};
      for (size_t i = 0; i < sets.size() && failures < 3; ++i)
        for (size_t j = 0; j < sets.size() && failures < 3; ++j) {
          const ISet ab[2] = {sets[i].first, sets[j].first};
          const std::vector<i128> *smp[2] = {&sets[i].second, &sets[j].second};
          sampled(op, isCmp(op) ? kBool : t, ty, ab, smp, failures);
        }
    }
    std::vector<std::pair<Op, IntType>> unary{{Op::Neg, t}};
    for (IntType dst : {kBool, kI8, kU8, wide[0], wide[1], wide[2], wide[3], wide[4], wide[5]}) {
      unary.push_back({Op::Cast, dst});
      if (!dst.isBool()) unary.push_back({Op::CheckedCast, dst});
    }
    for (auto [op, dst] : unary)
      for (size_t i = 0, failures = 0; i < sets.size() && failures < 3; ++i) {
        const std::vector<i128> *smp[1] = {&sets[i].second};
        sampled(op, dst, std::span(&t, 1), std::span(&sets[i].first, 1), smp, failures);
      }
  }
}

// ---- the reference against the interpreter --------------------------------------
template <DType D> constexpr IntType kType{exec::kWidth<D>, exec::kSigned<D>};
template <DType D> Bits enc(i128 v) { return kType<D>.isSigned ? Bits(int64_t(v)) : Bits(uint64_t(v)); }
optional<i128> dec(IntType t, Bits b) {  // nullopt: not in t's normal form
  const i128 v = t.isSigned ? i128{int64_t(b)} : i128{b};
  return t.holds(v) ? optional<i128>(v) : std::nullopt;
}

using AluFn = Bits (*)(Bits, Bits);
template <DType D> void tieBinary(Op op, AluFn fn) {
  constexpr IntType t = kType<D>;
  const IntType rt = isCmp(op) ? kBool : t, ty[2] = {t, t};
  const bool traps0 = op == Op::Idiv || op == Op::Mod;  // the interpreter traps before the ALU
  int failures = 0;
  for (i128 a = t.min(); a <= t.max() && failures < 3; ++a)
    for (i128 b = t.min(); b <= t.max() && failures < 3; ++b) {
      const i128 v[2] = {a, b};
      const optional<i128> want = ref(op, rt, ty, v);
      const optional<i128> got = traps0 && b == 0 ? kTrap : dec(rt, fn(enc<D>(a), enc<D>(b)));
      if (got != want)
        ADD_FAILURE() << opInfo(op).name << " " << tname(t) << " " << str(a) << ", " << str(b) << ": alu "
                      << show(got, "trap/abnormal") << ", ref " << show(want, "trap"),
            ++failures;
    }
}

template <DType D> void tieAllBinary() {
  namespace alu = exec::alu;
  const std::pair<Op, AluFn> fns[] = {
      {Op::Add, alu::Add<D>},     {Op::Sub, alu::Sub<D>},     {Op::Mul, alu::Mul<D>},     {Op::Idiv, alu::Idiv<D>},
      {Op::Mod, alu::Mod<D>},     {Op::Max, alu::Max<D>},     {Op::Min, alu::Min<D>},     {Op::Neg, alu::Neg<D>},
      {Op::Cmplt, alu::Cmplt<D>}, {Op::Cmpne, alu::Cmpne<D>}, {Op::Cmpeq, alu::Cmpeq<D>}, {Op::Shl, alu::Shl<D>},
      {Op::Shr, alu::Shr<D>},
      // dtype-independent in the interpreter (exec/interp.cpp kAnd, kOr, kXor)
      {Op::And, [](Bits a, Bits b) { return a & b; }},
      {Op::Or, [](Bits a, Bits b) { return a | b; }},
      {Op::Xor, [](Bits a, Bits b) { return a ^ b; }}};
  for (auto [op, fn] : fns) tieBinary<D>(op, fn);
}

template <DType F, DType D> void tieCast() {
  constexpr IntType s = kType<F>, t = kType<D>;
  for (i128 a = s.min(), failures = 0; a <= s.max() && failures < 3; ++a) {
    const i128 v[1] = {a};
    const optional<i128> want = ref(Op::Cast, t, std::span(&s, 1), v), got = dec(t, exec::alu::Cast<F, D>(enc<F>(a)));
    if (got != want)
      ADD_FAILURE() << "cast " << tname(s) << " -> " << tname(t) << " " << str(a) << ": alu " << show(got, "abnormal")
                    << ", ref " << show(want, "trap"),
          ++failures;
  }
}
template <DType F> void tieCastsFrom() {
  tieCast<F, DType::Bool>(), tieCast<F, DType::I8>(), tieCast<F, DType::U8>(), tieCast<F, DType::I16>();
}

TEST(IntervalExhaustive, ReferenceAgreesWithTheAluOnEveryPairOf8BitValues) {
  tieAllBinary<DType::I8>(), tieAllBinary<DType::U8>(), tieAllBinary<DType::Bool>();
  tieCastsFrom<DType::Bool>(), tieCastsFrom<DType::I8>(), tieCastsFrom<DType::U8>();
  tieCastsFrom<DType::I16>(), tieCastsFrom<DType::U16>();
}

// The checked ops are the module interpreter's: `main` computes %q of
// constants (`body`) and returns it; kTrap: it trapped.
optional<i128> runModuleOp(const std::string &body, std::string *err) {
  const std::string text = "func main() -> i32\n" + body + "  %w = cast %q dtype=i32\n  %r = ret %w\n";
  Module m;
  ModuleFacts f;
  Diags d;
  if (!parseModule(text, m, d) || !validateModule(m, f, d)) return *err = "invalid", kTrap;
  ModuleRunResult r = runModule(m, f, {});
  if (r.status == ModuleRunResult::Status::Ok) return i128{r.value};
  if (r.status != ModuleRunResult::Status::Trap) *err = "error " + r.message;
  return kTrap;
}
std::string constLine(const char *name, IntType t, i128 v) {
  return std::string("  %") + name + " = const " + (t.isBool() ? (v ? "true" : "false") : str(v)) + " dtype=" +
         tname(t) + "\n";
}
std::vector<i128> edges(IntType t) {
  std::vector<i128> v;
  for (i128 x : {t.min(), t.min() + 1, t.min() + 2, i128{-100}, i128{-16}, i128{-11}, i128{-2}, i128{-1}, i128{0},
                 i128{1}, i128{2}, i128{11}, i128{16}, i128{100}, i128{127}, i128{128}, t.max() - 1, t.max()})
    if (t.holds(x) && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  return v;
}

TEST(IntervalExhaustive, ReferenceAgreesWithTheModuleInterpreterOnCheckedOps) {
  for (IntType t : {kI8, kU8}) {
    const IntType ty[2] = {t, t};
    for (Op op : {Op::CheckedAdd, Op::CheckedSub, Op::CheckedMul, Op::CheckedDiv, Op::CheckedMod})
      for (i128 a : edges(t))
        for (i128 b : edges(t)) {
          const std::string body =
              constLine("a", t, a) + constLine("b", t, b) + "  %q = " + std::string(opInfo(op).name) + " %a %b\n";
          const i128 v[2] = {a, b};
          std::string err;
          EXPECT_EQ(runModuleOp(body, &err), ref(op, t, ty, v)) << body << err;
        }
  }
  for (IntType s : {kBool, kI8, kU8, IntType{16, true}, IntType{16, false}})
    for (IntType t : {kI8, kU8, IntType{16, true}})
      for (i128 a : edges(s)) {
        const std::string body = constLine("a", s, a) + "  %q = checked_cast %a dtype=" + tname(t) + "\n";
        const i128 v[1] = {a};
        std::string err;
        EXPECT_EQ(runModuleOp(body, &err), ref(Op::CheckedCast, t, std::span(&s, 1), v)) << body << err;
      }
}

// ---- precision: a too coarse transfer fails these -----------------------------------
TEST(IntervalExhaustive, PrecisionSmoke) {
  const IntType i64{64, true}, one[1] = {i64}, two[2] = {kI8, kI8};
  const ISet c[1] = {ISet{0, 199}}, n[1] = {ISet::point(300)}, ab[2] = {ISet{100, 120}, ISet::point(20)};
  EXPECT_EQ(transfer(Op::Cast, kU8, one, c).set, (ISet{0, 199}));
  EXPECT_TRUE(transfer(Op::Cast, kU8, one, c).exact);
  const Transfer add = transfer(Op::Add, kI8, two, ab);
  EXPECT_EQ(add.set, (ISet{120, 140})) << str(kI8, add.set);
  EXPECT_FALSE(add.exact);
  EXPECT_EQ(transfer(Op::Range, i64, one, n).set, (ISet{0, 299}));
}

}  // namespace
}  // namespace cairn
