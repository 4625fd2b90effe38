// The lane-block tier (exec/block.hpp): planning which loops of a
// compiled flat program run a block of lanes at a time, and running a block.
//
// Planning reads only the bytecode (and the range's `parallel` flag). A
// loop qualifies when it is parallel or stores nothing, when its body, the instructions strictly between its
// kLoopBeginS/U and its kLoopEnd, is at most 4096 instructions of these
// kinds only: copies, offset adds, checked shrinks, the bitwise ops and
// `where`, loads, stores, casts, ALU ops (idiv and mod only by a value the
// body does not compute) and kModC/kDivC; when each register the body writes
// is written by one instruction of it; when a register read before its
// write in the same lane is a reduction's accumulator (d = d op v, read by
// nothing else there); and when no load follows a store to the same buffer.
// Every kernel is the scalar handler's own function of exec/alu.hpp applied
// lane by lane, so values are bit for bit the same.
#include "exec/block.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "exec/alu.hpp"
#include "exec/lane_kernels.hpp"
#include "exec/machine.hpp"
#include "exec/program.hpp"

namespace cairn::exec {

namespace {

using namespace lanes;

// The ALU opcodes that trap on a zero divisor (idiv, mod).
bool divides(uint32_t op) {
  if (op < kAdd_Bool || op >= kAdd_Bool + 20 * kNumDTypes) return false;
  const uint32_t i = (op - kAdd_Bool) / kNumDTypes;
  return i == static_cast<uint32_t>(aluIndex(Op::Idiv)) || i == static_cast<uint32_t>(aluIndex(Op::Mod));
}

// ---- planning ----
// The registers an instruction of a qualifying body reads and writes
// (kNoReg: none); false when the opcode cannot be in one.
struct Access {
  uint32_t write = kNoReg;
  uint32_t read[3] = {kNoReg, kNoReg, kNoReg};
};
bool access(const Ins &in, const Kernels &K, Access &x) {
  const uint32_t op = in.op;
  if (K.loadSeq[op]) {
    x.write = in.d, x.read[0] = in.a;
  } else if (K.store[op]) {
    x.read[0] = in.a, x.read[1] = in.c;
  } else if (op == kCShrink) {
    x.write = in.d, x.read[0] = in.a, x.read[1] = in.b;
  } else if (op == kMov || (op >= kCast_Bool_Bool && op < kCast_Bool_Bool + kNumDTypes * kNumDTypes)) {
    x.write = in.d, x.read[0] = in.a;
  } else if (op == kWhere || (op >= kModC_I32 && op <= kDivC_U64)) {
    x.write = in.d, x.read[0] = in.a, x.read[1] = in.b, x.read[2] = in.c;
  } else if (K.map[op]) {
    x.write = in.d, x.read[0] = in.a, x.read[1] = in.b;
  } else {
    return false;
  }
  return true;
}

// The most instructions in a body the tier takes.
constexpr uint32_t kMaxBody = 4096;

class Planner {
 public:
  Planner(const Program &p) : p_(p), K_(kernels()) {}

  // The plan of the loop whose kLoopBegin is at `at`, if it qualifies.
  bool plan(uint32_t at, BlockPlan &bp) {
    const Ins &begin = p_.code[at];
    const uint32_t end = begin.b - 1;
    if (end <= at || end >= p_.code.size() || p_.code[end].op != kLoopEnd || p_.code[end].b != at + 1) return false;
    // A longer body would get few lanes a block (LaneFile::enter) for the
    // memory its plan takes.
    if (end - at - 1 > kMaxBody) return false;
    if (!p_.g || !p_.nodeOf[at].valid()) return false;
    const bool parallel = p_.g->parallel(p_.nodeOf[at]);
    bp.at = at;
    first_ = at + 1;
    slot_.clear();
    writer_.clear();
    reads_.clear();
    body_.clear();
    const uint32_t idx = begin.d;
    // What each instruction of the body reads and writes; who writes what.
    for (uint32_t k = first_; k < end; ++k) {
      Access &x = body_.emplace_back();
      if (!access(p_.code[k], K_, x)) return false;
      // A serial loop's lanes may pass values through memory: one that
      // stores nothing only reads what was there before it started.
      if (!parallel && K_.store[p_.code[k].op]) return false;
      for (uint32_t r : x.read)
        if (r != kNoReg) ++reads_[r];
      if (x.write == kNoReg) continue;
      // The loop's index and count are the loop's own (the count is read
      // once, when it starts).
      if (x.write == idx || x.write == begin.a || !writer_.try_emplace(x.write, k).second) return false;
    }
    if (!checkReads(idx, bp)) return false;
    // Slots: invariants first, then the index, then the values.
    for (const Access &x : body_)
      for (uint32_t r : x.read)
        if (r != kNoReg && r != idx && !writer_.count(r) && slot_.try_emplace(r, bp.slots).second) {
          bp.invariants.push_back(r);
          ++bp.slots;
        }
    bp.index = bp.slots++;
    slot_[idx] = bp.index;
    for (uint32_t k = first_; k < end; ++k) lower(p_.code[k], body_[k - first_], bp);
    return true;
  }

 private:
  // Reads in lane order: a value read before its write in the body is a
  // reduction's accumulator or the loop is out; no load after a store to
  // its buffer; divisors are values the body does not compute.
  bool checkReads(uint32_t idx, BlockPlan &bp) {
    std::unordered_set<uint32_t> stored;
    for (uint32_t k = first_; k < first_ + body_.size(); ++k) {
      const Ins &in = p_.code[k];
      if (K_.store[in.op]) stored.insert(in.b);
      if (K_.loadSeq[in.op] && stored.count(in.b)) return false;
      if (divides(in.op)) {  // by a value the body does not compute: checked once per loop
        if (in.b == idx || writer_.count(in.b)) return false;
        bp.divisors.push_back(in.b);
      }
      for (uint32_t r : body_[k - first_].read) {
        if (r == kNoReg || r == idx) continue;
        auto w = writer_.find(r);
        if (w == writer_.end() || w->second < k) continue;  // invariant, or computed earlier in the lane
        if (!isFold(k, r)) return false;
      }
    }
    return true;
  }
  // Instruction k is d = d op b with d == r, and nothing else in the body
  // reads r (its one read in the body is this a).
  bool isFold(uint32_t k, uint32_t r) const {
    const Ins &in = p_.code[k];
    auto n = reads_.find(r);
    return K_.fold[in.op] && !divides(in.op) && in.d == r && in.a == r && in.b != r && n != reads_.end() &&
           n->second == 1;
  }
  uint32_t slotOf(uint32_t r, BlockPlan &bp) {
    auto [it, fresh] = slot_.try_emplace(r, bp.slots);
    if (fresh) {
      ++bp.slots;
      bp.lastLane.emplace_back(r, it->second);
    }
    return it->second;
  }
  void lower(const Ins &in, const Access &x, BlockPlan &bp) {
    LaneOp o;
    o.opc = in.op;
    auto rd = [&](uint32_t r) { return slot_.at(r); };
    if (K_.store[in.op]) {
      o.kind = LaneOp::Store, o.a = rd(in.a), o.c = rd(in.c), o.buf = in.b;
      bp.commits.push_back(o);
      return;
    }
    if (in.d == in.a) {  // reads its own result first: checkReads let only a fold do that
      o.kind = LaneOp::Fold, o.b = rd(in.b), o.buf = in.d;
      bp.commits.push_back(o);
      return;
    }
    if (K_.loadSeq[in.op]) {
      o.kind = LaneOp::Load, o.a = rd(in.a), o.buf = in.b;
    } else if (in.op == kCShrink) {
      o.kind = LaneOp::Check, o.a = rd(in.a), o.b = rd(in.b), o.buf = in.c;
    } else {
      o.kind = LaneOp::Map;
      o.a = rd(x.read[0]);
      o.b = x.read[1] != kNoReg ? rd(x.read[1]) : o.a;
      o.c = x.read[2] != kNoReg ? rd(x.read[2]) : o.a;
    }
    o.d = slotOf(in.d, bp);
    bp.ops.push_back(o);
  }

  const Program &p_;
  const Kernels &K_;
  uint32_t first_ = 0;         // the body's first instruction
  std::vector<Access> body_;   // per instruction of the body
  std::unordered_map<uint32_t, uint32_t> slot_, writer_, reads_;  // reads_: per register, its reads in the body
};

}  // namespace

void planBlocks(Program &p) {
  Planner pl(p);
  for (uint32_t at = 0; at < p.code.size() && p.blocks.size() < 256; ++at) {
    Ins &in = p.code[at];
    if (in.op != kLoopBeginS && in.op != kLoopBeginU) continue;
    BlockPlan bp;
    if (!pl.plan(at, bp)) continue;
    in.t = in.op == kLoopBeginS;
    in.pad = static_cast<uint8_t>(p.blocks.size());
    in.op = kLoopBeginB;
    p.blocks.push_back(std::move(bp));
  }
}

bool LaneFile::enter(const BlockPlan &bp, const Bits *R, uint32_t lanes) {
  for (uint32_t r : bp.divisors)
    if (R[r] == 0) return false;
  // A block's slots fit in kSlotBytes (the L2 cache of most machines): a
  // body of many values runs fewer lanes a block, down to one.
  constexpr size_t kSlotBytes = size_t{1} << 20;
  const size_t fit = kSlotBytes / (sizeof(Bits) * std::max<size_t>(1, bp.slots));
  lanes_ = static_cast<uint32_t>(std::clamp<size_t>(std::min<size_t>(lanes, fit), 1, kMaxLanes));
  const size_t need = static_cast<size_t>(bp.slots) * lanes_;
  if (v_.size() < need) v_.resize(need);
  for (uint32_t s = 0; s < bp.invariants.size(); ++s) std::fill_n(slot(s), lanes_, R[bp.invariants[s]]);
  return true;
}

bool LaneFile::run(const Program &p, const BlockPlan &bp, BufRT *B, Bits *R, uint64_t first, uint32_t k) {
  const Kernels &K = kernels();
  Bits *ix = slot(bp.index);
  for (uint32_t j = 0; j < k; ++j) ix[j] = first + j;
  for (const LaneOp &o : bp.ops) {
    switch (o.kind) {
      case LaneOp::Map:
        K.map[o.opc](slot(o.d), slot(o.a), slot(o.b), slot(o.c), k);
        break;
      case LaneOp::Load: {
        // At the lane index the largest offset is the last lane's.
        const BufRT &bf = B[o.buf];
        if (o.a == bp.index) {
          if (first + k > bf.n) return false;
          K.loadSeq[o.opc](slot(o.d), first, bf.p, k);
        } else if (bf.n == 0 || !K.loadChecked[o.opc](slot(o.d), slot(o.a), bf.p, bf.n, k)) {
          return false;
        }
        break;
      }
      case LaneOp::Check: {
        // As kCShrink: a negative offset is a huge unsigned one.
        const CheckDesc &c = p.checks[o.buf];
        const uint64_t pn = c.parentElems >= 0 ? static_cast<uint64_t>(c.parentElems) : B[c.buf].n;
        const Bits *off = slot(o.b);
        const Bits mx = o.b == bp.index ? first + k - 1 : maxOf(off, k);
        if (mx > pn || pn - mx < c.size) return false;
        map2<plus>(slot(o.d), slot(o.a), off, nullptr, k);
        break;
      }
      default:
        break;
    }
  }
  for (const LaneOp &o : bp.commits) {
    if (o.kind != LaneOp::Store) continue;
    const Bits mx = o.a == bp.index ? first + k - 1 : maxOf(slot(o.a), k);
    if (mx >= B[o.buf].n) return false;
  }
  for (const LaneOp &o : bp.commits) {
    if (o.kind == LaneOp::Store && o.a == bp.index) K.storeSeq[o.opc](B[o.buf].p, first, slot(o.c), k);
    else if (o.kind == LaneOp::Store) K.store[o.opc](B[o.buf].p, slot(o.a), slot(o.c), k);
    else R[o.buf] = K.fold[o.opc](R[o.buf], slot(o.b), k);
  }
  return true;
}

void LaneFile::leave(const BlockPlan &bp, Bits *R, uint32_t k) const {
  for (auto [r, s] : bp.lastLane) R[r] = v_[static_cast<size_t>(s) * lanes_ + k - 1];
}

}  // namespace cairn::exec
