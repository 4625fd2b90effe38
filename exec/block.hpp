// The lane-block tier of the flat interpreter: a parallel loop (or a serial
// one that stores nothing) whose body is straight-line runs a block of lanes at a time, each instruction over the
// whole block in one tight loop, instead of one dispatch per instruction per
// lane.
//
// Internal to exec/. planBlocks (compile time) finds the loops it can run
// this way and turns their kLoopBeginS/U into kLoopBeginB; the dispatch
// loop (interp.cpp) hands such a loop to a LaneFile a block at a time and
// keeps the step count, and falls back to one lane at a time when a block
// cannot run. What makes a block's result the same as its lanes' one after
// another, state for state:
//   - the loop is `parallel`, so the oracle proved that no lane reads or
//     writes an element another lane writes (the lane rule), or it is a
//     serial loop that stores nothing: either way the order of lanes within
//     a block does not matter for memory;
//   - every store (and reduction) of the block is done after every other
//     instruction of it, and no load reads a buffer that an earlier
//     instruction of the body stores to, so a lane's loads see what they
//     would one lane at a time;
//   - nothing in the body can trap except a load, a store or a
//     checked shrink out of bounds (an idiv or mod divides by a value the
//     body does not compute, which the loop's start checks is not 0), and
//     those are checked for the whole block before any store of it: a block
//     with a lane out of bounds changes nothing, and the loop goes on one lane
//     at a time from that block's first lane, to trap where it always has;
//   - the only value carried from lane to lane is a reduction's accumulator
//     (an instruction d = d op v that nothing else in the body reads), folded
//     over the block in lane order, so float sums round as before;
//   - the caller ends a block at the lane whose steps reach the next
//     checkpoint (step limit, time limit), so limits trip at the same step.
// After the last block, every register the body writes holds its last lane's
// value, as it would one lane at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cairn {
class Program;
namespace exec {

struct BufRT;
using Bits = uint64_t;

// One instruction of a block: its kind, its kernel (an index into the
// kernel tables of block.cpp: the instruction's opcode) and its lane
// slots. Map: slot d = f(a, b, c) lane by lane. Load: slot d = element
// (slot a) of buffer buf. Store: element (slot a) of buffer buf = slot c.
// Check: a checked shrink, slot d = slot a + slot b, with slot b checked
// against Program::checks[check]. Fold: register reg = f(reg, slot b) over
// the lanes in order.
struct LaneOp {
  enum Kind : uint8_t { Map, Load, Store, Check, Fold } kind = Map;
  uint16_t opc = 0;
  uint32_t d = 0, a = 0, b = 0, c = 0;
  uint32_t buf = 0;  // Load, Store: buffer index; Check: check index; Fold: register
};

// A loop that the tier runs. Slots [0, invariants.size()) hold registers the
// body reads and never writes (filled once when the loop starts), slot
// `index` the lane index, the rest the values the body computes.
struct BlockPlan {
  uint32_t at = 0;                 // instruction index of its kLoopBeginB
  uint32_t slots = 0;
  uint32_t index = 0;              // slot of the loop index
  std::vector<uint32_t> invariants;  // register of slot s
  std::vector<uint32_t> divisors;    // registers of the idiv and mod divisors (invariants)
  std::vector<LaneOp> ops;         // Map, Load and Check, in body order
  std::vector<LaneOp> commits;     // Store and Fold, in body order, after every check
  std::vector<std::pair<uint32_t, uint32_t>> lastLane;  // (register, slot) written back at the end
};

// The most lanes in a block (the lanes of a slot).
constexpr uint32_t kMaxLanes = 256;

// Finds the loops of a compiled flat program that the tier can run, records
// their plans in p.blocks and marks them kLoopBeginB (at most 256 of them:
// Ins::pad holds a plan's index).
void planBlocks(Program &p);

// The lanes of one loop being run: the slots of its plan, kMaxLanes lanes
// each, or fewer (RunOptions::laneBlock; and at most 1 MiB of slots in all,
// so a loop with a huge body runs few lanes a block, down to one).
class LaneFile {
 public:
  // Sets up plan `bp` with `lanes` lanes a block: the invariant slots get
  // the registers' values. False when a divisor is 0: every lane that
  // reaches its op would trap, so the loop runs one lane at a time.
  bool enter(const BlockPlan &bp, const Bits *R, uint32_t lanes);
  uint32_t lanes() const { return lanes_; }
  // Runs lanes [first, first + k) of the body (k <= lanes()): false, with
  // nothing stored and no register changed, when one would go out of bounds.
  bool run(const Program &p, const BlockPlan &bp, BufRT *B, Bits *R, uint64_t first, uint32_t k);
  // The loop is done: each register the body writes gets its value in the
  // last lane run (lane k - 1 of the last block).
  void leave(const BlockPlan &bp, Bits *R, uint32_t k) const;

 private:
  Bits *slot(uint32_t s) { return v_.data() + static_cast<size_t>(s) * lanes_; }
  std::vector<Bits> v_;
  uint32_t lanes_ = 0;
};

}  // namespace exec
}  // namespace cairn
