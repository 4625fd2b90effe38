// The lane kernels of the lane-block tiers (exec/block.cpp for flat graphs,
// exec/module_lanes.cpp for the loops of modules): for each opcode that a
// block may hold, its function over k lanes of slots. Every kernel is the
// scalar handler's own function of exec/alu.hpp applied lane by lane, so
// values are bit for bit the same; a kernel that may trap (check) reports
// whether any lane would, so a block that would trap changes nothing.
//
// Internal to exec/.
#pragma once
#include <array>
#include <cstdint>

#include "exec/alu.hpp"
#include "exec/program.hpp"

namespace cairn::exec::lanes {

// The index of alu::checked for each kChecked<Op> (CAIRN_EXEC_CHK's K).
enum { kChkIndex_CheckedAdd = 0, kChkIndex_CheckedSub = 1, kChkIndex_CheckedMul = 2, kChkIndex_CheckedDiv = 3,
       kChkIndex_CheckedMod = 4 };

using MapFn = void (*)(Bits *d, const Bits *a, const Bits *b, const Bits *c, uint32_t k);
using LoadCheckedFn = bool (*)(Bits *d, const Bits *off, const uint8_t *p, uint64_t n, uint32_t k);
using StoreFn = void (*)(uint8_t *p, const Bits *off, const Bits *v, uint32_t k);
using LoadSeqFn = void (*)(Bits *d, uint64_t first, const uint8_t *p, uint32_t k);
using StoreSeqFn = void (*)(uint8_t *p, uint64_t first, const Bits *v, uint32_t k);
using FoldFn = Bits (*)(Bits s, const Bits *v, uint32_t k);
// A map that may trap (modules): false when some lane would, and then the
// values of d are unspecified.
using CheckFn = bool (*)(Bits *d, const Bits *a, const Bits *b, const Bits *c, uint32_t k);

template <Bits (*F)(Bits, Bits)>
void map2(Bits *d, const Bits *a, const Bits *b, const Bits *, uint32_t k) {
  for (uint32_t j = 0; j < k; ++j) d[j] = F(a[j], b[j]);
}
template <Bits (*F)(Bits)>
void map1(Bits *d, const Bits *a, const Bits *, const Bits *, uint32_t k) {
  for (uint32_t j = 0; j < k; ++j) d[j] = F(a[j]);
}
template <Bits (*F)(Bits, Bits, Bits)>
void map3(Bits *d, const Bits *a, const Bits *b, const Bits *c, uint32_t k) {
  for (uint32_t j = 0; j < k; ++j) d[j] = F(a[j], b[j], c[j]);
}
template <Bits (*F)(Bits, Bits)>
Bits foldK(Bits s, const Bits *v, uint32_t k) {
  for (uint32_t j = 0; j < k; ++j) s = F(s, v[j]);
  return s;
}
// A load and storeK at offsets first, first + 1, ... (the lane index): a
// stride the compiler sees, so it vectorizes them.
template <DType D>
void loadSeqK(Bits *d, uint64_t first, const uint8_t *p, uint32_t k) {
  for (uint32_t j = 0; j < k; ++j) d[j] = loadElem<D>(p, first + j);
}
template <DType D>
void storeSeqK(uint8_t *p, uint64_t first, const Bits *v, uint32_t k) {
  for (uint32_t j = 0; j < k; ++j) storeElem<D>(p, first + j, v[j]);
}
// A load at each offset, checked against n > 0 on the way (one past the end
// reads element 0 instead): false when one is out of bounds.
template <DType D>
bool loadCheckedK(Bits *d, const Bits *off, const uint8_t *p, uint64_t n, uint32_t k) {
  Bits bad = 0;
  for (uint32_t j = 0; j < k; ++j) {
    const Bits o = off[j];
    bad |= o >= n;
    d[j] = loadElem<D>(p, o < n ? o : 0);
  }
  return !bad;
}
// The largest of k offsets.
inline Bits maxOf(const Bits *off, uint32_t k) {
  Bits mx = 0;
  for (uint32_t j = 0; j < k; ++j) mx = off[j] > mx ? off[j] : mx;
  return mx;
}
template <DType D>
void storeK(uint8_t *p, const Bits *off, const Bits *v, uint32_t k) {
  for (uint32_t j = 0; j < k; ++j) storeElem<D>(p, off[j], v[j]);
}

template <int K, DType D>
bool checkedK(Bits *d, const Bits *a, const Bits *b, const Bits *, uint32_t k) {
  int bad = 0;
  for (uint32_t j = 0; j < k; ++j) bad |= alu::checked<K, D>(a[j], b[j], d[j]);
  return bad == 0;
}
// kCMulAdd_<T>: the checked multiply, then the checked add.
template <DType D>
bool checkedMulAddK(Bits *d, const Bits *a, const Bits *b, const Bits *c, uint32_t k) {
  int bad = 0;
  for (uint32_t j = 0; j < k; ++j) {
    Bits p = 0;
    bad |= alu::checked<2, D>(a[j], b[j], p);
    bad |= alu::checked<0, D>(p, c[j], d[j]);
  }
  return bad == 0;
}
template <DType F, DType D>
bool checkedCastK(Bits *d, const Bits *a, const Bits *, const Bits *, uint32_t k) {
  bool ok = true;
  for (uint32_t j = 0; j < k; ++j) ok &= alu::CCast<F, D>(a[j], d[j]);
  return ok;
}
// idiv and mod of the ALU: a zero divisor traps.
template <Bits (*F)(Bits, Bits)>
bool divK(Bits *d, const Bits *a, const Bits *b, const Bits *, uint32_t k) {
  Bits zero = 0;
  for (uint32_t j = 0; j < k; ++j) zero |= b[j] == 0;
  if (zero) return false;
  for (uint32_t j = 0; j < k; ++j) d[j] = F(a[j], b[j]);
  return true;
}
// kGuard: every lane's value is true.
inline bool guardK(Bits *, const Bits *a, const Bits *, const Bits *, uint32_t k) {
  Bits all = 1;
  for (uint32_t j = 0; j < k; ++j) all &= a[j] != 0;
  return all != 0;
}
template <DType D> inline Bits mulAdd(Bits a, Bits b, Bits c) { return alu::Add<D>(alu::Mul<D>(a, b), c); }

inline Bits copyOf(Bits a) { return a; }
inline Bits plus(Bits a, Bits b) { return a + b; }  // kAddOff: offsets wrap
inline Bits bitAnd(Bits a, Bits b) { return a & b; }
inline Bits bitOr(Bits a, Bits b) { return a | b; }
inline Bits bitXor(Bits a, Bits b) { return a ^ b; }
inline Bits select(Bits c, Bits a, Bits b) { return c ? a : b; }

// The kernel tables, indexed by opcode (null: not that kind).
struct Kernels {
  std::array<MapFn, kNumOpcodes> map{};
  std::array<FoldFn, kNumOpcodes> fold{};
  std::array<LoadCheckedFn, kNumOpcodes> loadChecked{};
  std::array<StoreFn, kNumOpcodes> store{};
  std::array<LoadSeqFn, kNumOpcodes> loadSeq{};
  std::array<StoreSeqFn, kNumOpcodes> storeSeq{};
  std::array<CheckFn, kNumOpcodes> check{};
  Kernels() {
    check[kGuard] = &guardK;
    map[kMov] = &map1<copyOf>;
    map[kAddOff] = &map2<plus>;
    map[kAnd] = &map2<bitAnd>;
    map[kOr] = &map2<bitOr>;
    map[kXor] = &map2<bitXor>;
    map[kWhere] = &map3<select>;
    fold[kAnd] = &foldK<bitAnd>;
    fold[kOr] = &foldK<bitOr>;
    fold[kXor] = &foldK<bitXor>;
#define CAIRN_K(P, D)                          \
  loadChecked[kLoad_##D] = &loadCheckedK<DType::D>; \
  store[kStore_##D] = &storeK<DType::D>;        \
  loadSeq[kLoad_##D] = &loadSeqK<DType::D>;     \
  storeSeq[kStore_##D] = &storeSeqK<DType::D>;
    CAIRN_EXEC_DT(CAIRN_K, _)
#undef CAIRN_K
#define CAIRN_K2(O, D)                                     \
  map[k##O##_##D] = &map2<&alu::O<DType::D>>;              \
  fold[k##O##_##D] = &foldK<&alu::O<DType::D>>;
#define CAIRN_K(P, O, Z) CAIRN_EXEC_DT(CAIRN_K2, O)
    CAIRN_EXEC_ALU(CAIRN_K, _)
#undef CAIRN_K
#undef CAIRN_K2
#define CAIRN_K2(O, D) check[k##O##_##D] = &divK<&alu::O<DType::D>>;
    CAIRN_EXEC_DT(CAIRN_K2, Idiv)
    CAIRN_EXEC_DT(CAIRN_K2, Mod)
#undef CAIRN_K2
#define CAIRN_K2(O, D, K) check[k##O##_##D] = &checkedK<K, DType::D>;
#define CAIRN_K3(O, D) CAIRN_K2(O, D, kChkIndex_##O)
#define CAIRN_K(P, O, K) CAIRN_EXEC_DT(CAIRN_K3, O)
    CAIRN_EXEC_CHK(CAIRN_K, _)
#undef CAIRN_K
#undef CAIRN_K2
#undef CAIRN_K3
#define CAIRN_K2(F, D)                                                \
  map[kCast_##F##_##D] = &map1<&alu::Cast<DType::F, DType::D>>;      \
  check[kCCast_##F##_##D] = &checkedCastK<DType::F, DType::D>;
#define CAIRN_K(P, F) CAIRN_EXEC_DT2(CAIRN_K2, F)
    CAIRN_EXEC_DT(CAIRN_K, _)
#undef CAIRN_K
#undef CAIRN_K2
#define CAIRN_K(P, D)                                \
  map[kModC_##D] = &map3<&alu::ModC<DType::D>>;      \
  map[kDivC_##D] = &map3<&alu::DivC<DType::D>>;      \
  map[kMulAdd_##D] = &map3<&mulAdd<DType::D>>;       \
  check[kCMulAdd_##D] = &checkedMulAddK<DType::D>;
    CAIRN_EXEC_FUSE_DT(CAIRN_K, _)
#undef CAIRN_K
  }
};
inline const Kernels &kernels() {
  static const Kernels k;
  return k;
}


}  // namespace cairn::exec::lanes
