// The compiled form of a module's functions, internal to exec/.
//
// module_compile.cpp builds one MFunc per function; module_interp.cpp runs
// them. Every node with a value has a register: scalars (and loop indices,
// reduce accumulators, constants) in the frame's `Bits` file, views and
// versions in its `View` file. Literals are constant registers filled when
// the frame is made, so no instruction carries an immediate.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.hpp"
#include "ir/module.hpp"
#include "oracle/module.hpp"

namespace cairn::mexec {

// A view: its first element and its length. Storage is shared by every
// version and view of it and written in place.
struct View {
  uint8_t *p = nullptr;
  uint64_t n = 0;
};

// Field use by opcode (d, a, b, c: registers unless said otherwise; t: a
// dtype; R scalar file, V view file):
enum MOp : uint16_t {
  kMov,         // R[d] = R[a]
  kAlu,         // R[d] = kAluFns[c](R[a], R[b])
  kAluZ,        // as kAlu; traps when R[b] == 0 (idiv, mod)
  kCast,        // R[d] = kCastFns[c](R[a])
  kAnd, kOr, kXor,
  kWhere,       // R[d] = R[a] ? R[b] : R[c]
  kChecked,     // R[d] = checked op c (0 add .. 4 mod) over t of R[a], R[b]
  kCheckedCast, // R[d] = R[a] from dtype c to t, trapping unless it fits
  kLoad,        // R[d] = element 0 of V[a], dtype t
  kStore,       // element 0 of V[a] = R[b], dtype t
  kLoadIdx,     // R[d] = element R[b] of V[a], dtype t: a one-element shrink fused with its one load;
                //        c == 1: checked (checked_shrink), trapping past the end
  kStoreIdx,    // element R[c] of V[a] = R[b], dtype t: the same for a store; d == 1: checked
  kShrink,      // V[d] = elements [R[b], R[b] + sizes[c]) of V[a] (dtype t); traps out of range
  kPart,        // V[d] = elements [R[b], R[c]) of V[a] (dtype t); traps unless R[b] <= R[c] <= len
  kLen,         // R[d] = V[a].n
  kBuffer,      // V[d] = fresh zeroed storage of R[a] elements of t (signed size: c & 1),
                //        data from pool c >> 1 when b & 1; b & 2: a frame buffer, not
                //        counted against maxElements (isFrameBuffer)
  kLoopBegin,   // index R[d] = 0, stop flag R[d+1] = 0, buffer mark R[d+2]; count R[a] (signed: t == 1);
                //        no iteration: jump to b
  kLoopEnd,     // end of an iteration: release the body's buffers (c == 1); ++R[d]; again at b
                //        unless the count is reached or R[d+1] (until) is set
  kUntil,       // R[d] |= R[a]
  kGuard,       // traps with the node's msg unless R[a]
  kPrint,       // prints R[a] of dtype t, or (t == None) the bytes of V[a]
  kAlloc,       // R[d] = a new object of R[a] elements, columns of the node
  kFree,        // frees R[a] deeply
  kDeref,       // V[d] = column b of object R[a], dtype t
  kCall,        // R[d] (kNoReg: none) = function a (args: pool[b .. b+c))
  kRet,         // returns R[a] (kNoReg: nothing)
};

constexpr uint32_t kNoReg = UINT32_MAX;
constexpr uint32_t kViewArg = 0x80000000u;  // in the args pool: a view register

struct MIns {
  MOp op = kRet;
  DType t = DType::None;
  uint32_t d = 0, a = kNoReg, b = 0, c = 0;
};

struct MFunc {
  const Function *src = nullptr;
  int index = 0;
  std::vector<MIns> code;
  std::vector<NodeId> nodeOf;         // per instruction
  uint32_t nregs = 0, nviews = 0;
  std::vector<Bits> initRegs;         // constants; the rest zero
  // Parameters: (K, register | kViewArg for a vparam).
  std::vector<std::pair<uint32_t, uint32_t>> params;
  std::vector<uint32_t> args;         // call arguments: register, | kViewArg for views
  std::vector<uint64_t> sizes;        // shrink sizes
  std::vector<Bits> data;             // buffer data=[...], normal form
};

// Compiles every non-extern function; externs get an empty MFunc.
std::vector<MFunc> compileModule(const Module &m, const ModuleFacts &facts);


// Externs through libffi (module_ffi.cpp).
class Externs {
 public:
  Externs();
  ~Externs();
  Externs(const Externs &) = delete;
  Externs &operator=(const Externs &) = delete;
  // Resolves every extern of m with dlsym; false (and `missing` named) when
  // one is not found.
  bool resolve(const Module &m, std::string &missing);
  // Calls extern `f` with scalar/view arguments; returns its result in
  // normal form (0 for none).
  Bits call(int f, const std::vector<Bits> &scalars, const std::vector<View> &views, const std::vector<uint8_t> &isView);

 private:
  struct Impl;
  Impl *impl_;
};

}  // namespace cairn::mexec
