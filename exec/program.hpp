// The compiled form of a graph or of one function of a module: a linear
// bytecode over a register file, the one instruction format of exec/.
//
// Internal to exec/: compile.cpp (with compile_module.cpp) builds a Program,
// interp.cpp runs it. The instruction set is generated from X-macros so that
// every (op, dtype) pair is its own opcode and the dispatch loop does exactly
// one indirect jump per instruction, with no further switch on the dtype:
//
//   control   kHalt, kLoopBeginS/U/B, kLoopEnd, kMov, kAddOff, kCShrink,
//             kBufferDyn, and the dtype-independent kAnd kOr kXor kWhere
//             (bitwise ops and selection keep the normal form of ir/dtype.hpp)
//   modules   kRet kCall kRetL kCallL kMLoopBegin kMLoopEnd kUntil kGuard kPrint kShrink
//             kPart kLen kBuffer kAlloc kFree kDeref, and the fused forms
//             kMLoopBeginN kMLoopEndN kMov2 kUntilNotOr kIfBegin kIfNot kIfEnd
//             kWhileEnd kWhileEndN kMovLoopEndN kMov2LoopEndN kMovIfEnd kMov2IfEnd
//             kIfEndJ kMovIfEndJ,
//             kIf<Cmp>_<T> (a compare and its `if`), k(C)MulAddLoopEndN_<T>,
//             kAddMov2LoopEndN_<T> and kCAddWhileEndN_<T>
//   memory    kLoad_<T>, kStore_<T> (a buffer and an offset: flat graphs),
//             kVLoad_<T>, kVStore_<T>, kVLoadAt_<T>, kVStoreAt_<T> and the
//             checked kVLoadAtC_<T>, kVStoreAtC_<T> (views: modules)
//   ALU       k<Op>_<T> for the ops in CAIRN_EXEC_ALU     (20 x 11)
//   checked   kChecked<Op>_<T> for add sub mul div mod    (5 x 11)
//   cast      kCast_<From>_<To>, kCCast_<From>_<To>       (11 x 11 each)
//
// Registers hold `Bits` in normal form. In a flat graph a view is an integer
// register with its flat element offset into its buffer's storage (versions
// are offset 0); the buffer itself is a compile-time index into the run-time
// buffer table. In a module a view is a register of the frame's view file
// (a pointer and a length). Literals and constant views live in constant
// registers filled before the run, so no instruction carries an immediate.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "exec/block.hpp"
#include "exec/ins_nodes.hpp"
#include "exec/interp.hpp"
#include "exec/module_lanes.hpp"
#include "ir/dtype.hpp"
#include "ir/graph.hpp"
#include "ir/module.hpp"
#include "oracle/module.hpp"
#include "oracle/oracle.hpp"

// The dtypes in DType order, as X(P, Name). Two copies, because the cast
// table nests one list inside the other and a macro cannot expand itself.
#define CAIRN_EXEC_DT(X, P) \
  X(P, Bool) X(P, I8) X(P, I16) X(P, I32) X(P, I64) X(P, U8) X(P, U16) X(P, U32) X(P, U64) X(P, F32) X(P, F64)
#define CAIRN_EXEC_DT2(X, P) \
  X(P, Bool) X(P, I8) X(P, I16) X(P, I32) X(P, I64) X(P, U8) X(P, U16) X(P, U32) X(P, U64) X(P, F32) X(P, F64)

// ALU ops specialised per dtype, as X(P, Op, traps-on-zero-divisor). The
// names are the ir::Op enumerators and the functions of exec/alu.hpp.
#define CAIRN_EXEC_ALU(X, P)                                                                                 \
  X(P, Add, 0) X(P, Sub, 0) X(P, Mul, 0) X(P, Idiv, 1) X(P, Mod, 1) X(P, Max, 0) X(P, Min, 0) X(P, Neg, 0) \
  X(P, Cmplt, 0) X(P, Cmpne, 0) X(P, Cmpeq, 0) X(P, Shl, 0) X(P, Shr, 0) X(P, Fdiv, 0) X(P, Recip, 0)      \
  X(P, Sqrt, 0) X(P, Exp2, 0) X(P, Log2, 0) X(P, Sin, 0) X(P, Trunc, 0)

// The opcodes that are not generated per dtype, in enum order.
#define CAIRN_EXEC_CTRL(X)                                                                          \
  X(kHalt) X(kLoopBeginS) X(kLoopBeginU) X(kLoopEnd) X(kMov) X(kAddOff) X(kCShrink) X(kBufferDyn)  \
  X(kAnd) X(kOr) X(kXor) X(kWhere) X(kRet) X(kCall) X(kMLoopBegin) X(kMLoopEnd) X(kUntil) X(kGuard) \
  X(kPrint) X(kShrink) X(kPart) X(kLen) X(kBuffer) X(kAlloc) X(kFree) X(kDeref) X(kMLoopBeginN) X(kMLoopEndN) \
  X(kMov2) X(kUntilNotOr) X(kIfBegin) X(kIfNot) X(kIfEnd) X(kWhileEnd) X(kWhileEndN) X(kMovLoopEndN) X(kMov2LoopEndN) \
  X(kMovIfEnd) X(kMov2IfEnd) X(kLoopBeginB) X(kCallL) X(kRetL) X(kIfEndJ) X(kMovIfEndJ)

// The per-dtype view accesses of modules, as X(P, Name).
#define CAIRN_EXEC_VMEM(X, P) \
  X(P, VLoad) X(P, VStore) X(P, VLoadAt) X(P, VLoadAtC) X(P, VStoreAt) X(P, VStoreAtC)

// The checked arithmetic of modules, as X(P, Name, K): K is the index of
// alu::checked (0 add .. 4 mod), in the order of ir::Op CheckedAdd...
#define CAIRN_EXEC_CHK(X, P) \
  X(P, CheckedAdd, 0) X(P, CheckedSub, 1) X(P, CheckedMul, 2) X(P, CheckedDiv, 3) X(P, CheckedMod, 4)

// The compares that fuse with the `if` they decide (kIf<Cmp>_<T>), as
// X(P, Name): names of exec/alu.hpp; all but Cmple are also CAIRN_EXEC_ALU
// ops. Cmple has no op of its own: it is `or(cmplt(a, b), cmpeq(a, b))`,
// the three fused (Compiler::fuseLe).
#define CAIRN_EXEC_CMPIF(X, P) X(P, Cmplt) X(P, Cmpne) X(P, Cmpeq) X(P, Cmple)
#define CAIRN_E(P, O) +1
constexpr int kNumCmpIf = 0 CAIRN_EXEC_CMPIF(CAIRN_E, _);  // the rows above, counted
#undef CAIRN_E

// A view access fused with what computes its index or view just before
// (modules), as X(P, Name): kV<Load|Store><CMA|CA>_<T>, a checked access at
// a u64 checked_mul into checked_add (CMA) or a u64 checked_add (CA);
// kV<Load|Store>Drf(U)_<T>, an access (U: unchecked) through the `deref`
// of a heap object's column; kVLoad2At_<T>, two unchecked loads at one
// index (`a[i] * b[i]`).
#define CAIRN_EXEC_VIDX(X, P)                                                                                         \
  X(P, VLoadCMA) X(P, VStoreCMA) X(P, VLoadCA) X(P, VStoreCA) X(P, VLoadDrf) X(P, VStoreDrf) X(P, VLoadDrfU) X(P, VStoreDrfU) \
  X(P, VLoad2At)

// The integer dtypes of the fused multiply-add forms, as X(P, Name).
#define CAIRN_EXEC_FUSE_DT(X, P) X(P, I32) X(P, I64) X(P, U32) X(P, U64)

namespace cairn {
namespace exec {

static_assert(kNumDTypes == 11 && static_cast<int>(DType::Bool) == 0 && static_cast<int>(DType::F64) == 10,
              "CAIRN_EXEC_DT must list the dtypes of ir/dtype.hpp in order");

enum Opc : uint32_t {
#define CAIRN_E(name) name,
  CAIRN_EXEC_CTRL(CAIRN_E)
#undef CAIRN_E
#define CAIRN_E(P, D) kLoad_##D,
  CAIRN_EXEC_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E(P, D) kStore_##D,
  CAIRN_EXEC_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E2(V, D) k##V##_##D,
#define CAIRN_E(P, V) CAIRN_EXEC_DT(CAIRN_E2, V)
  CAIRN_EXEC_VMEM(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
#define CAIRN_E2(O, D) k##O##_##D,
#define CAIRN_E(P, O, K) CAIRN_EXEC_DT(CAIRN_E2, O)
  CAIRN_EXEC_CHK(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
#define CAIRN_E2(O, D) k##O##_##D,
#define CAIRN_E(P, O, Z) CAIRN_EXEC_DT(CAIRN_E2, O)
  CAIRN_EXEC_ALU(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
#define CAIRN_E2(F, D) kCast_##F##_##D,
#define CAIRN_E(P, F) CAIRN_EXEC_DT2(CAIRN_E2, F)
  CAIRN_EXEC_DT(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
#define CAIRN_E2(F, D) kCCast_##F##_##D,
#define CAIRN_E(P, F) CAIRN_EXEC_DT2(CAIRN_E2, F)
  CAIRN_EXEC_DT(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
#define CAIRN_E2(O, D) kIf##O##_##D,
#define CAIRN_E(P, O) CAIRN_EXEC_DT(CAIRN_E2, O)
  CAIRN_EXEC_CMPIF(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
#define CAIRN_E2(O, D) k##O##_##D,
#define CAIRN_E(P, O) CAIRN_EXEC_DT(CAIRN_E2, O)
  CAIRN_EXEC_VIDX(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
#define CAIRN_E(P, D) kCMulAdd_##D,
  CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E(P, D) kMulAdd_##D,
  CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E(P, D) kModC_##D, kDivC_##D,
  CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E(P, D) kMulAddLoopEndN_##D,
  CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E(P, D) kAddMov2LoopEndN_##D,
  CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E(P, D) kCAddWhileEndN_##D,
  CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
#define CAIRN_E(P, D) kCMulAddLoopEndN_##D,
  CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
  kNumOpcodes
};

// Index of `op` in CAIRN_EXEC_ALU, or -1 when it is not a per-dtype ALU op.
constexpr int aluIndex(Op op) {
  constexpr Op kOrder[] = {
#define CAIRN_E(P, O, Z) Op::O,
      CAIRN_EXEC_ALU(CAIRN_E, _)
#undef CAIRN_E
  };
  for (int i = 0; i < static_cast<int>(sizeof kOrder / sizeof kOrder[0]); ++i)
    if (kOrder[i] == op) return i;
  return -1;
}
constexpr uint32_t loadOpc(DType t) { return kLoad_Bool + static_cast<uint32_t>(t); }
constexpr uint32_t storeOpc(DType t) { return kStore_Bool + static_cast<uint32_t>(t); }
constexpr uint32_t aluOpc(int index, DType t) {
  return kAdd_Bool + static_cast<uint32_t>(index) * kNumDTypes + static_cast<uint32_t>(t);
}
constexpr uint32_t castOpc(DType from, DType to) {
  return kCast_Bool_Bool + static_cast<uint32_t>(from) * kNumDTypes + static_cast<uint32_t>(to);
}
constexpr uint32_t ccastOpc(DType from, DType to) {
  return kCCast_Bool_Bool + static_cast<uint32_t>(from) * kNumDTypes + static_cast<uint32_t>(to);
}
// kVLoad_<T> .. kVStoreAtC_<T>: `which` is the index in CAIRN_EXEC_VMEM.
constexpr uint32_t vmemOpc(int which, DType t) {
  return kVLoad_Bool + static_cast<uint32_t>(which) * kNumDTypes + static_cast<uint32_t>(t);
}
enum { kVLoadW, kVStoreW, kVLoadAtW, kVLoadAtCW, kVStoreAtW, kVStoreAtCW };
constexpr uint32_t checkedOpc(int k, DType t) {
  return kCheckedAdd_Bool + static_cast<uint32_t>(k) * kNumDTypes + static_cast<uint32_t>(t);
}
// The position of `t` in CAIRN_EXEC_FUSE_DT, or -1 when it is not there.
constexpr int fuseDTIndex(DType t) {
  constexpr DType kOrder[] = {
#define CAIRN_E(P, D) DType::D,
      CAIRN_EXEC_FUSE_DT(CAIRN_E, _)
#undef CAIRN_E
  };
  for (int i = 0; i < static_cast<int>(sizeof kOrder / sizeof kOrder[0]); ++i)
    if (kOrder[i] == t) return i;
  return -1;
}
static_assert(kMulAdd_U64 - kMulAdd_I32 == 3 && kCMulAdd_U64 - kCMulAdd_I32 == 3 && kDivC_U64 - kModC_I32 == 7 &&
                  kMulAddLoopEndN_U64 - kMulAddLoopEndN_I32 == 3 && kAddMov2LoopEndN_U64 - kAddMov2LoopEndN_I32 == 3 &&
                  kCAddWhileEndN_U64 - kCAddWhileEndN_I32 == 3 && kCMulAddLoopEndN_U64 - kCMulAddLoopEndN_I32 == 3,
              "the fused families list CAIRN_EXEC_FUSE_DT in order");
// kModC_<T> / kDivC_<T> of a CAIRN_EXEC_FUSE_DT dtype; 0: none.
constexpr uint32_t modCOpc(bool div, DType t) {
  const int i = fuseDTIndex(t);
  return i < 0 ? 0 : kModC_I32 + 2 * static_cast<uint32_t>(i) + (div ? 1 : 0);
}
// kIf<Cmp>_<T>: which = 0 lt, 1 ne, 2 eq, 3 le (CAIRN_EXEC_CMPIF order).
constexpr uint32_t cmpIfOpc(int which, DType t) {
  return kIfCmplt_Bool + static_cast<uint32_t>(which) * kNumDTypes + static_cast<uint32_t>(t);
}
constexpr bool isCmpIf(uint32_t op) { return op >= kIfCmplt_Bool && op < kIfCmplt_Bool + kNumCmpIf * kNumDTypes; }
// kV<Load|Store><CMA|CA>_<T>: which is the index in CAIRN_EXEC_VIDX.
enum { kVLoadCMAW, kVStoreCMAW, kVLoadCAW, kVStoreCAW, kVLoadDrfW, kVStoreDrfW, kVLoadDrfUW, kVStoreDrfUW, kVLoad2AtW };
constexpr uint32_t vidxOpc(int which, DType t) {
  return kVLoadCMA_Bool + static_cast<uint32_t>(which) * kNumDTypes + static_cast<uint32_t>(t);
}

// The fused multiply-adds of dtype t (modules): R[d] = R[a] * R[b] + R[c],
// checked (kCMulAdd: a `checked_mul` whose one use is a `checked_add`) or
// wrapping (kMulAdd: `mul` into `add`). 0: t has none.
constexpr uint32_t mulAddOpc(bool checked, DType t) {
  const int i = fuseDTIndex(t);
  return i < 0 ? 0 : (checked ? kCMulAdd_I32 : kMulAdd_I32) + static_cast<uint32_t>(i);
}

// Casts whose result has the same bits as their operand (docs/uir.md,
// normal form): every value of `from` is a value of `to`.
inline bool identityCast(DType from, DType to) {
  if (from == to) return true;
  if (from == DType::Bool) return isInteger(to);
  if (!isInteger(from) || !isInteger(to)) return false;
  const size_t wf = dtypeBytes(from), wt = dtypeBytes(to);
  if (isSigned(from)) return isSigned(to) && wt >= wf;
  return isSigned(to) ? wt > wf : wt >= wf;
}

// Counting instructions that do an op of their stretch first, which may
// trap there (its step pad steps before the stretch's end).
constexpr bool trapsBeforeCounting(uint32_t op) {
  return (op >= kCAddWhileEndN_I32 && op <= kCAddWhileEndN_U64) || (op >= kCMulAddLoopEndN_I32 && op <= kCMulAddLoopEndN_U64);
}

// The instructions that add their stretch's step weight (see Ins).
constexpr bool countsSteps(uint32_t op) {
  return op == kHalt || op == kLoopBeginS || op == kLoopBeginU || op == kLoopBeginB || op == kLoopEnd ||
         op == kRet || op == kCall || op == kRetL || op == kCallL ||
         op == kMLoopBegin || op == kMLoopEnd || op == kMLoopBeginN || op == kMLoopEndN || op == kPrint ||
         op == kIfBegin || op == kIfNot || op == kIfEnd || op == kWhileEnd || op == kWhileEndN || op == kMovLoopEndN ||
         op == kMov2LoopEndN || op == kMovIfEnd || op == kMov2IfEnd || op == kIfEndJ || op == kMovIfEndJ || isCmpIf(op) ||
         (op >= kMulAddLoopEndN_I32 && op <= kMulAddLoopEndN_U64) ||
         (op >= kAddMov2LoopEndN_I32 && op <= kAddMov2LoopEndN_U64) || trapsBeforeCounting(op);
}

constexpr uint32_t kNoReg = UINT32_MAX;

// The halves of a field that packs two registers as lo | hi << 16
// (kMovLoopEndN, kMov2LoopEndN, kMulAddLoopEndN_<T>, kAddMov2LoopEndN_<T>),
// each read as one 16-bit load.
inline uint32_t lo16(const uint32_t &f) {
  uint16_t v;
  std::memcpy(&v, reinterpret_cast<const unsigned char *>(&f) + (std::endian::native == std::endian::little ? 0 : 2), 2);
  return v;
}
inline uint32_t hi16(const uint32_t &f) {
  uint16_t v;
  std::memcpy(&v, reinterpret_cast<const unsigned char *>(&f) + (std::endian::native == std::endian::little ? 2 : 0), 2);
  return v;
}

constexpr uint32_t kViewArg = 0x80000000u;  // in a call's argument pool: a view register

// One instruction. Field use by opcode (R: scalar registers, V: views):
//   ALU/cast/load     d = result, a, b (, c for where) = operand registers;
//                     load/store: a = offset register, b = buffer index,
//                     store: c = value register
//   kAddOff           d = a + b (offsets; wrapping, proven in bounds)
//   kCShrink          d = a + b after checking b against checks[c]
//   kBufferDyn        a = size register, b = buffer index
//   kLoopBegin*       d = index register, a = count register, b = exit target
//   kLoopBeginB       a kLoopBeginS (t = 1) or kLoopBeginU (t = 0) whose
//                     body the lane-block tier runs (exec/block.hpp):
//                     its plan is Program::blocks[pad]
//   kLoopEnd          d = index register, a = count register, b = body start
//                     (and for every loop instruction: c = b - its own index)
//   kVLoad/kVStore    R[d] = element 0 of V[a] / element 0 of V[a] = R[b]
//   kVLoadAt(C)       R[d] = element R[b] of V[a] (C: checked, a trap past the end)
//   kVStoreAt(C)      element R[c] of V[a] = R[b]
//   kChecked*, kCCast R[d] = R[a] op R[b] / R[a] converted, trapping
//   kShrink           V[d] = elements [R[b], R[b] + sizes[c]) of V[a]; t: element dtype
//   kPart             V[d] = elements [R[b], R[c]) of V[a]; t: element dtype
//   kLen              R[d] = V[a].n
//   kBuffer           V[d] = zeroed storage of R[a] elements of t (signed size:
//                     c & 1), data from pool c >> 1 when b & 1; b & 2: a frame
//                     buffer, not counted against maxElements (isFrameBuffer)
//   kMLoopBegin       index R[d] = 0, until flag R[d+1] = 0, buffer mark R[d+2];
//                     count R[a] (signed: t != 0); no iteration: jump to b
//   kMLoopEnd         releases the body's buffers (t == 1); ++R[d]; again at b
//                     unless the count is reached or R[d+1] is set
//   kMLoopBeginN/EndN the same for a loop with no `until` and no buffers in its
//                     body: only the index (no flag, no mark, no release).
//                     kMLoopEndN t 1: a scan's end (Compiler::markScans),
//                     whose jump back may run the next iterations in
//                     selfLoopScanFor
//   kMov2             R[d] = R[a], then R[b] = R[c] (two copies, one dispatch)
//   k(C)MulAdd_<T>    R[d] = R[a] * R[b] + R[c]; checked: pad = the steps of the
//                     instruction after the multiply's (for its trap)
//   kUntil            R[d] |= R[a];  kGuard: traps unless R[a]
//   kUntilNotOr       R[d] |= !R[a] | R[b] (bools: a `while` loop's exit test;
//                     t 1: R[b] is known to be zero)
//   kIfBegin          a loop of 0 or 1 iterations (count R[a] a bool; no
//                     until, no buffers): none: jump by c. Its index register
//                     is never written, so it stays 0
//   kIfNot            as kIfBegin, on the count !R[a] (a bool)
//   kIf<Cmp>_<T>      R[d] = R[a] <cmp> R[b], then as kIfBegin on R[d]
//                     (Cmple: R[a] <= R[b], an `or` of a cmplt and a cmpeq)
//   kIfEnd            the end of such a loop: counts its steps (a: the count
//                     register; pad 1: nothing in the body writes it)
//   kWhileEnd         a kIfEnd, the kUntilNotOr and the kMLoopEnd after it in
//                     one (a `while` whose body is `if cond {...}`): the
//                     condition held, so R[d+1] |= R[b]; then as kMLoopEnd
//                     (d index, a count, t release), again at ip + c, else
//                     on past the kUntilNotOr and kMLoopEnd kept after it for
//                     the condition's false path. pad 1 (this and kWhileEndN):
//                     a scan over a cell's index (Compiler::markScans), whose
//                     jump back may run the next iterations in
//                     selfLoopScanCell
//   kWhileEndN        kWhileEnd where R[b] is zero (the loop's `returned`
//                     is a local's first version: no `return` in it) and
//                     nothing is released: no R[d+1] |= R[b], no t
//   kCMulAddLoopEndN_<T> kMulAddLoopEndN_<T> of a checked multiply-add (or
//                     add): the multiply traps pad steps before the
//                     stretch's end, the add t steps before it
//   kCAddWhileEndN_<T> a checked add, the last op of a `while`'s `if`
//                     (`j += i;`), and the kWhileEndN after it, in the
//                     add's place: R[hi d] = R[lo b] + R[hi b], trapping
//                     (pad: the steps after the add's); then as kWhileEndN
//                     with index lo d (flag lo d + 1), count a, again at
//                     ip + c, else on at ip + 4 (the kIfEnd it replaced is
//                     left where it was, never run). t 1: a scan's end
//                     (Compiler::markScans), whose jump back may run the
//                     next iterations in selfLoopScan
//   kMovIfEnd         a kMov and the kIfEnd after it (counts its steps);
//                     kMov2IfEnd: a kMov2 and the kIfEnd. kMovIfEnd keeps
//                     the kIfEnd's count in b and its pad (0 when the copy
//                     writes the count)
//   kIfEndJ           a kIfEnd (kMovIfEndJ: a kMovIfEnd) that also does the
//                     instruction after it, a kIfNot on its count (known
//                     nonzero at the body's end) or another if's end: counts
//                     both stretches and jumps by c to where that one would
//                     go (exec/fuse_control.cpp, threadIfEnds; a kIfEnd
//                     before a return becomes that return instead)
//   kMovLoopEndN      a copy and the kMLoopEndN after it, registers packed as
//                     lo | hi << 16: d = index | count, a = dst | src; again
//                     at ip + c. kMov2LoopEndN: two copies, the second in b
//   kMulAddLoopEndN_<T> a kMulAdd_<T> (or a kAdd_<T>, as a multiply by a
//                     constant 1) and the kMLoopEndN after it (a loop that
//                     accumulates), packed the same way: R[lo a] =
//                     R[hi a] * R[lo b] + R[hi b]; d and c as kMovLoopEndN
//   kAddMov2LoopEndN_<T> a kAdd_<T> and the kMov2LoopEndN after it whose
//                     second copy is the sum's one use: t = R[lo b] +
//                     R[hi b] (its own register not written), R[lo a] =
//                     R[hi a], R[hi c] = t; d as kMovLoopEndN, again at
//                     ip - lo c
//   kVLoadCMA_<T>     R[d] = element R[a] * R[b] + R[c] of V[w] (w: these
//                     do not count steps), the index a checked u64
//                     multiply-add; kVStoreCMA_<T>: that element
//                     = R[d]. kVLoadCA/kVStoreCA: the index R[a] + R[b].
//                     Trap steps: the add's is pad before the access's, the
//                     multiply's pad + t
//   kVLoadDrf_<T>     V[w] = column lo b (dtype t) of object R[a], then R[d] =
//                     element R[c] of it, checked (U: unchecked);
//                     kVStoreDrf(U)_<T>: that element = R[d]. The deref's
//                     trap is pad steps before the access's. Its cache:
//                     R[hi b] the handle V[w] was taken for, R[hi b + 1]
//                     Machine::derefEpoch then (0 as a frame starts)
//   kVLoad2At_<T>     R[lo d] = element R[b] of V[lo a], R[hi d] = element
//                     R[b] of V[hi a]: two unchecked loads at one index
//                     (the second's steps joined to the first's)
//   kModC_<T>         R[d] = R[a] % R[b], a constant in [2, 2^32) whose
//                     reciprocal floor(2^64 / R[b]) + 1 is R[c] (Lemire's
//                     exact remainder when R[a] < 2^32; `mod` or
//                     `checked_mod`, which cannot trap); kDivC_<T>: R[a] / R[b]
//   kPrint            prints R[a] of dtype t, or (t == None) the bytes of V[a]
//   kAlloc            R[d] = a new object of R[a] elements, columns of node c
//   kFree             frees R[a] deeply;  kDeref: V[d] = column b of object R[a], dtype t
//   kCall             R[d] = function a (arguments: args[b .. b+c)); a call
//                     without a value has d the frame's scratch register
//   kRet              returns R[a] (the scratch register: nothing)
//   kCallL            kCall of a light function (exec/machine.hpp: no
//                     views); of at most two parameters, their arguments
//                     are R[b] and R[c] (the scratch register for none)
//   kRetL             kRet of a light function
// w is the step weight of the instructions that count (countsSteps): the
// number of instructions from the previous counting one (exclusive) to it
// (inclusive; kHalt itself is not counted). Every path into that
// straight-line stretch runs through all of it to the counting instruction,
// so adding the weight there counts executed instructions exactly.
struct Ins {
  uint16_t op = kHalt;
  uint8_t t = 0;  // a dtype, for the module ops that take one
  uint8_t pad = 0;
  uint32_t d = 0, a = 0, b = 0, c = 0;
  uint32_t w = 0;
};

// A view of a module at run time: its first element and its length.
// Storage is shared by every version and view of it and written in place.
struct View {
  uint8_t *p = nullptr;
  uint64_t n = 0;
};

// A checked_shrink's static facts.
struct CheckDesc {
  uint64_t size = 1;          // elements of the new view
  int64_t parentElems = -1;   // elements of the parent view; -1: the whole
                              // dynamic buffer `buf`, read at run time
  uint32_t buf = 0;
  DType offType = DType::I64; // for the message
};

struct BufDesc {
  NodeId node;
  DType type = DType::I32;
  int64_t slot = -1;
  bool dynamic = false;       // size from a register at run time (kBufferDyn)
  bool negative = false;      // a literal negative size (traps at start)
  uint64_t size = 0;          // static size
  std::vector<Bits> init;     // data=[...], normal form; empty: zeros
};

}  // namespace exec

// The compiled program. It points at the graph and facts it was compiled
// from (for trace text and trap locations): both must outlive it.
class Program {
 public:
  const Graph *g = nullptr;
  const Facts *facts = nullptr;
  std::vector<exec::Ins> code;
  exec::InsNodes nodeOf;             // per instruction: its node (none for helpers)
  uint32_t nregs = 0;                // registers (of a frame, in a module)
  // The registers that start with a value, in register order: the
  // constants; in a module also the never-written index of an `if` loop
  // and a fused deref's cache (0) and the top-level cells (their initial
  // value). A flat graph's other registers start at 0; a module's are
  // written before they are read, so a call sets only these. Kept by the
  // register, not as a whole file of initial values: a graph of 10^7
  // nodes has few constants.
  std::vector<std::pair<uint32_t, Bits>> initSet;
  // Per node: its register, or kNoReg. Empty after compile() when not
  // traceable (the tracer's; compile()'s parameter).
  std::vector<uint32_t> regOf;
  bool traceable = true;  // regOf, silent and silentAt kept for --trace
  std::vector<exec::CheckDesc> checks;
  std::vector<exec::BufDesc> bufs;   // in node id order
  std::vector<uint32_t> slotOrder;   // buffer indices of slot buffers, by slot
  // Nodes with no instruction (after, carry, const, folded shrinks, reduce
  // results), for --trace only: each with the index of the instruction it
  // precedes (silentAt, non-decreasing: they are appended in schedule
  // order), so a program pays for them by the silent node, not 4 bytes an
  // instruction.
  std::vector<NodeId> silent;
  std::vector<uint32_t> silentAt;
  // Flat graphs: the loops the lane-block tier runs (kLoopBeginB).
  std::vector<exec::BlockPlan> blocks;
  // Modules: the loops the lane-block tier runs (a kMLoopEndN's pad - 1).
  std::vector<exec::ModuleLanePlan> lanePlans;

  // A function of a module (fn set): views, parameters and calls. Its steps
  // are exact per instruction (see Machine::moduleTrap).
  const Function *fn = nullptr;
  int index = 0;
  uint32_t nviews = 0;
  // Parameters: (K, register | kViewArg for a vparam).
  std::vector<std::pair<uint32_t, uint32_t>> params;
  std::vector<uint32_t> args;        // call arguments: register, | kViewArg for views
  std::vector<uint64_t> sizes;       // shrink sizes
  std::vector<Bits> data;            // buffer data=[...], normal form
  // Steps (docs/uir.md, "maxSteps"): the node of every step in run order,
  // an instruction's own and those of ops that compile to nothing (scalar
  // promotion), and per instruction the number of steps up to and
  // including its own. A counting instruction k's stretch is the steps
  // [stepEnd[k] - w, stepEnd[k]).
  std::vector<NodeId> stepNodes;
  std::vector<uint32_t> stepEnd;
};

namespace exec {
// Compiles every non-extern function of a validated module; externs get an
// empty Program (compile_module.cpp). optimize: ModuleRunOptions::optimize.
std::vector<Program> compileModule(const Module &m, const ModuleFacts &facts, bool optimize = true);
}  // namespace exec

}  // namespace cairn
