// The lane-block tier of modules: a counted loop of a function (a
// kMLoopEndN) whose body is straight-line arithmetic and accesses runs a
// block of iterations at a time, each instruction over the whole block in
// one tight loop (the kernels of exec/lane_kernels.hpp), instead of one
// dispatch per instruction per iteration.
//
// Internal to exec/. planModuleLanes (compile time) finds the loops it can
// run this way and marks their kMLoopEndN (Ins::pad: its plan's index + 1);
// the handler (interp.cpp), after an iteration, hands ModuleLanes the
// iterations after it that it may run: never the loop's last one, and none
// that reaches the step checkpoint (exec/self_loop.hpp's selfLoopRoom). The
// handler then goes on one iteration at a time, so the last iteration (and
// any from a block that could not run) rewrites every register the body
// writes: the registers need no values from the blocks. What makes a block's
// result the same as its iterations' one after another, state for state:
//   - the body is straight-line: copies, bitwise ops and `where`, ALU ops,
//     casts, multiply-adds, kModC/kDivC, checked arithmetic and casts,
//     guards, loads, and stores at the loop's counter; each register it
//     writes is written by one instruction of it, and read only after that
//     write in the same iteration (no value is carried from one iteration
//     to the next but the counter), and neither the counter, the count nor
//     a fused deref's handle and cache are among them;
//   - a block computes every value of all its iterations, checks every
//     possible trap of them (overflow, zero divisors, guards, indices out of
//     bounds), and only then stores, instruction by instruction: a block with
//     an iteration that would trap changes nothing, and the handler goes on
//     one iteration at a time from its first, to trap where it always has;
//   - each store writes element `counter` (or `counter + off`, off a value
//     the body does not write) of its view, so iterations store to distinct
//     elements; a block runs only when no view the body stores to overlaps
//     one it reads or stores elsewhere, except the same view at the same
//     index, read before the store in the body: so every load sees what it
//     would one iteration at a time;
//   - a fused deref (kV<Load|Store>Drf) runs only when its cache holds (the
//     handle it was taken for, and no object died since): nothing in the
//     body frees, so every iteration would hit it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cairn {
class Program;
namespace exec {

using Bits = uint64_t;
struct View;

// One view the body reads or stores through.
struct MLaneAccess {
  uint32_t view = 0;    // its register of the view file (a deref's: its cached view)
  uint32_t handle = ~0u;  // a fused deref: the handle's register (else ~0u)
  uint32_t cache = 0;   // and its cache: R[cache] the handle, R[cache + 1] the epoch
  uint32_t bytes = 1;   // of an element
  uint32_t pos = 0;     // the access's place in the body
  bool store = false;
  // Its index is the loop's counter (off: kNoReg), or the counter plus a
  // register the body does not write (a u64 or i64 add of the body):
  // iteration j then accesses element first + j (+ R[off]) of the block.
  bool sequential = false;
  uint32_t off = ~0u;
};

// One operation of a block over slots. Map and Check: slot d = f(slots a,
// b, c) (Check: false when a lane would trap). Load: slot d = element slot a
// of access acc's view. Store: element slot a (sequential: MLaneAccess)
// of access acc's view = slot c. checked: a Load or Store whose index the body checks against the
// view's length (else the compiler proved it in bounds).
struct MLaneOp {
  enum Kind : uint8_t { Map, Check, Load, Store } kind = Map;
  bool checked = false;
  uint16_t opc = 0;  // the kernel's opcode (Load/Store: kLoad_<T>/kStore_<T>)
  uint32_t d = 0, a = 0, b = 0, c = 0;
  uint32_t acc = 0;
};

// A loop the tier runs. Slots [0, invariants.size()) hold registers the
// body reads and never writes, slot `index` the counter, the rest the
// values the body computes.
struct ModuleLanePlan {
  uint32_t slots = 0, index = 0;
  std::vector<uint32_t> invariants;  // register of slot s
  std::vector<MLaneAccess> accesses;
  std::vector<MLaneOp> ops;      // Map, Check and Load, in body order
  std::vector<MLaneOp> commits;  // Store, in body order, after every check
};

// Finds the loops of a compiled function the tier runs, records their
// plans in p.lanePlans and marks their kMLoopEndN (at most 255 a function).
void planModuleLanes(Program &p);

// The slots of the block being run, and what the handler needs to run one.
class ModuleLanes {
 public:
  // Runs up to k iterations of plan pl from counter value `first`, `lanes`
  // at most a block (RunOptions::laneBlock; 0: none), with the frame's
  // files R and V and the machine's deref epoch. Returns how many it ran,
  // whole blocks from `first` on; the handler runs the rest.
  uint64_t run(const ModuleLanePlan &pl, const Bits *R, const View *V, uint64_t epoch, uint64_t first, uint64_t k,
               uint32_t lanes);

 private:
  enum class Ready { Yes, NotNow, Overlap };
  Ready ready(const ModuleLanePlan &pl, const Bits *R, const View *V, uint64_t epoch);
  bool block(const ModuleLanePlan &pl, uint64_t first, uint32_t k);
  Bits *slot(uint32_t s) { return v_.data() + static_cast<size_t>(s) * lanes_; }

  std::vector<Bits> v_;
  std::vector<View> views_;   // per access of the plan being run
  std::vector<Bits> offsets_;  // and the offset of a sequential one
  uint32_t lanes_ = 0;
  // A loop whose views overlap in a way a block cannot keep: it would be
  // refused again at every iteration, so the refusal is remembered for the
  // counter value it expects next.
  const ModuleLanePlan *refused_ = nullptr;
  const Bits *refusedR_ = nullptr;
  uint64_t refusedNext_ = 0;
};

}  // namespace exec
}  // namespace cairn
