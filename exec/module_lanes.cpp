// The lane-block tier of modules (exec/module_lanes.hpp): planning which
// counted loops of a compiled function run a block of iterations at a
// time, and running a block.
//
// Planning reads only the bytecode. A loop qualifies when its kMLoopEndN
// jumps back to the instruction after its kMLoopBeginN, and the body
// between them is at most kMaxBody instructions that decode (decode below)
// into maps, checks, loads and stores at the counter, with the register
// rules of module_lanes.hpp. Running a block first takes the views of its
// accesses (refusing when a deref's cache does not hold or views overlap),
// then runs every map, check and load over the block, then every store.
#include "exec/module_lanes.hpp"

#include <algorithm>
#include <unordered_map>

#include "exec/lane_kernels.hpp"
#include "exec/machine.hpp"
#include "exec/program.hpp"

namespace cairn::exec {

namespace {

using lanes::Kernels;
using lanes::kernels;

// The most instructions in a body the tier takes.
constexpr uint32_t kMaxBody = 1024;

// One operation of an instruction of the body, over registers: as MLaneOp,
// with registers in d, a, b, c (kNoReg: not read), or no write (d kNoReg).
struct Decoded {
  MLaneOp op;
  MLaneAccess acc;  // Load, Store
};

constexpr uint32_t kUnaryAlu[] = {static_cast<uint32_t>(aluIndex(Op::Neg)),  static_cast<uint32_t>(aluIndex(Op::Recip)),
                                  static_cast<uint32_t>(aluIndex(Op::Sqrt)), static_cast<uint32_t>(aluIndex(Op::Exp2)),
                                  static_cast<uint32_t>(aluIndex(Op::Log2)), static_cast<uint32_t>(aluIndex(Op::Sin)),
                                  static_cast<uint32_t>(aluIndex(Op::Trunc))};

Decoded map(uint32_t opc, uint32_t d, uint32_t a, uint32_t b = kNoReg, uint32_t c = kNoReg, bool check = false) {
  Decoded s;
  s.op.kind = check ? MLaneOp::Check : MLaneOp::Map;
  s.op.opc = static_cast<uint16_t>(opc);
  s.op.d = d, s.op.a = a, s.op.b = b, s.op.c = c;
  return s;
}
// A load into d (store of value v: d kNoReg) at index register x of dtype t.
Decoded access(bool store, bool checked, DType t, uint32_t d, uint32_t x, uint32_t v, uint32_t view) {
  Decoded s;
  s.op.kind = store ? MLaneOp::Store : MLaneOp::Load;
  s.op.checked = checked;
  s.op.opc = static_cast<uint16_t>(store ? storeOpc(t) : loadOpc(t));
  s.op.d = store ? kNoReg : d, s.op.a = x, s.op.b = kNoReg, s.op.c = store ? v : kNoReg;
  s.acc.view = view;
  s.acc.bytes = static_cast<uint32_t>(dtypeBytes(t));
  s.acc.store = store;
  return s;
}
// A fused deref's access (kV<Load|Store>Drf(U)_<T>).
Decoded derefAccess(const Ins &in, bool store, bool checked, DType t) {
  Decoded s = access(store, checked, t, in.d, in.c, in.d, in.w);
  s.acc.handle = in.a;
  s.acc.cache = hi16(in.b);
  return s;
}

bool inRange(uint32_t op, uint32_t first, uint32_t count) { return op >= first && op < first + count; }

// The operations of one instruction of a body; false when the tier cannot
// run it.
bool decode(const Ins &in, const Kernels &K, std::vector<Decoded> &out) {
  const uint32_t op = in.op;
  const uint32_t n = kNumDTypes;
  if (op == kMov) return out.push_back(map(kMov, in.d, in.a)), true;
  if (op == kMov2) {
    out.push_back(map(kMov, in.d, in.a));
    out.push_back(map(kMov, in.b, in.c));
    return true;
  }
  if (op == kAnd || op == kOr || op == kXor) return out.push_back(map(op, in.d, in.a, in.b)), true;
  if (op == kWhere) return out.push_back(map(op, in.d, in.a, in.b, in.c)), true;
  if (op == kGuard) return out.push_back(map(op, kNoReg, in.a, kNoReg, kNoReg, true)), true;
  if (inRange(op, kAdd_Bool, 20 * n)) {
    const uint32_t which = (op - kAdd_Bool) / n;
    const bool unary = std::find(std::begin(kUnaryAlu), std::end(kUnaryAlu), which) != std::end(kUnaryAlu);
    return out.push_back(map(op, in.d, in.a, unary ? kNoReg : in.b, kNoReg, K.check[op] != nullptr)), true;
  }
  if (inRange(op, kCast_Bool_Bool, n * n)) return out.push_back(map(op, in.d, in.a)), true;
  if (inRange(op, kCCast_Bool_Bool, n * n) || inRange(op, kCheckedAdd_Bool, 5 * n)) {
    if (!K.check[op]) return false;
    return out.push_back(map(op, in.d, in.a, inRange(op, kCCast_Bool_Bool, n * n) ? kNoReg : in.b, kNoReg, true)), true;
  }
  if (op >= kCMulAdd_I32 && op <= kDivC_U64)  // multiply-adds, kModC, kDivC
    return out.push_back(map(op, in.d, in.a, in.b, in.c, K.check[op] != nullptr)), true;
  if (inRange(op, kVLoad_Bool, 6 * n)) {
    const uint32_t which = (op - kVLoad_Bool) / n;
    const DType t = static_cast<DType>((op - kVLoad_Bool) % n);
    switch (which) {
      case kVLoadAtW:
      case kVLoadAtCW: return out.push_back(access(false, which == kVLoadAtCW, t, in.d, in.b, kNoReg, in.a)), true;
      case kVStoreAtW:
      case kVStoreAtCW: return out.push_back(access(true, which == kVStoreAtCW, t, kNoReg, in.c, in.b, in.a)), true;
      default: return false;  // element 0: the same element every iteration
    }
  }
  if (inRange(op, kVLoadCMA_Bool, 9 * n)) {
    const uint32_t which = (op - kVLoadCMA_Bool) / n;
    const DType t = static_cast<DType>((op - kVLoadCMA_Bool) % n);
    switch (which) {
      case kVLoadDrfW:
      case kVLoadDrfUW: return out.push_back(derefAccess(in, false, which == kVLoadDrfW, t)), true;
      case kVStoreDrfW:
      case kVStoreDrfUW: return out.push_back(derefAccess(in, true, which == kVStoreDrfW, t)), true;
      case kVLoad2AtW: {
        // Both loads read the index before either write (the handler's order).
        const uint32_t lo = lo16(in.d), hi = hi16(in.d);
        if (lo == in.b || hi == in.b || lo == hi) return false;
        out.push_back(access(false, false, t, hi, in.b, kNoReg, hi16(in.a)));
        out.push_back(access(false, false, t, lo, in.b, kNoReg, lo16(in.a)));
        return true;
      }
      default: return false;  // the checked index forms (CMA, CA)
    }
  }
  return false;
}

class Planner {
 public:
  explicit Planner(const Program &p) : p_(p), K_(kernels()) {}

  // The plan of the loop whose kMLoopEndN is at `end`, if it qualifies.
  bool plan(uint32_t end, ModuleLanePlan &pl) {
    const Ins &e = p_.code[end];
    const int64_t first = static_cast<int64_t>(end) + static_cast<int32_t>(e.c);
    if (first < 1 || first >= end || end - first > kMaxBody) return false;
    const Ins &begin = p_.code[static_cast<size_t>(first - 1)];
    if (begin.op != kMLoopBeginN || begin.d != e.d) return false;
    decoded_.clear();
    for (uint32_t k = static_cast<uint32_t>(first); k < end; ++k)
      if (!decode(p_.code[k], K_, decoded_)) return false;
    return registers(e.d, e.a) && build(e.d, pl);
  }

 private:
  // Each register written once, not the counter, the count or a deref's
  // handle or cache; each read after its write in the body (or never
  // written there).
  bool registers(uint32_t counter, uint32_t count) {
    writer_.clear();
    for (uint32_t s = 0; s < decoded_.size(); ++s) {
      const uint32_t w = decoded_[s].op.d;
      if (w == kNoReg) continue;
      if (w == counter || w == count || !writer_.try_emplace(w, s).second) return false;
    }
    for (uint32_t s = 0; s < decoded_.size(); ++s) {
      const Decoded &st = decoded_[s];
      for (uint32_t r : {st.op.a, st.op.b, st.op.c}) {
        if (r == kNoReg || r == counter) continue;
        auto w = writer_.find(r);
        if (w != writer_.end() && w->second >= s) return false;  // carried from the iteration before
      }
      if (st.acc.handle != ~0u)
        for (uint32_t r : {st.acc.handle, st.acc.cache, st.acc.cache + 1})
          if (writer_.count(r)) return false;
    }
    return true;
  }
  // Whether index register x is the counter, or the counter plus a
  // register the body does not write (off: that register, else kNoReg).
  bool sequential(uint32_t x, uint32_t counter, uint32_t &off) const {
    off = kNoReg;
    if (x == counter) return true;
    auto w = writer_.find(x);
    if (w == writer_.end()) return false;
    const MLaneOp &o = decoded_[w->second].op;
    if (o.opc != kAdd_U64 && o.opc != kAdd_I64 && o.opc != kCheckedAdd_U64 && o.opc != kCheckedAdd_I64) return false;
    const uint32_t other = o.a == counter ? o.b : o.b == counter ? o.a : kNoReg;
    if (other == kNoReg || other == counter || writer_.count(other)) return false;
    off = other;
    return true;
  }
  uint32_t slotOf(uint32_t r, ModuleLanePlan &pl) {
    auto [it, fresh] = slot_.try_emplace(r, pl.slots);
    if (fresh) ++pl.slots;
    return it->second;
  }
  bool build(uint32_t counter, ModuleLanePlan &pl) {
    slot_.clear();
    for (const Decoded &st : decoded_)
      for (uint32_t r : {st.op.a, st.op.b, st.op.c})
        if (r != kNoReg && r != counter && !writer_.count(r) && slot_.try_emplace(r, pl.slots).second) {
          pl.invariants.push_back(r);
          ++pl.slots;
        }
    pl.index = pl.slots++;
    slot_[counter] = pl.index;
    for (uint32_t s = 0; s < decoded_.size(); ++s) {
      MLaneOp o = decoded_[s].op;
      // An operand a kernel does not read gets operand a's slot.
      const uint32_t a = slot_.at(o.a);
      o.b = o.b == kNoReg ? a : slot_.at(o.b);
      o.c = o.c == kNoReg ? a : slot_.at(o.c);
      o.a = a;
      o.d = o.d == kNoReg ? a : slotOf(o.d, pl);  // a guard or a store writes nothing: d is never read
      if (o.kind == MLaneOp::Load || o.kind == MLaneOp::Store) {
        MLaneAccess acc = decoded_[s].acc;
        acc.pos = s;
        acc.sequential = sequential(decoded_[s].op.a, counter, acc.off);
        if (o.kind == MLaneOp::Store && !acc.sequential) return false;  // iterations might store to one element
        o.acc = static_cast<uint32_t>(pl.accesses.size());
        pl.accesses.push_back(acc);
      }
      (o.kind == MLaneOp::Store ? pl.commits : pl.ops).push_back(o);
    }
    return true;
  }

  const Program &p_;
  const Kernels &K_;
  std::vector<Decoded> decoded_;
  std::unordered_map<uint32_t, uint32_t> writer_, slot_;  // writer_: register -> its step
};

// Whether views x and y share a byte.
bool overlap(const View &x, uint32_t xb, const View &y, uint32_t yb) {
  if (x.n == 0 || y.n == 0) return false;
  const uintptr_t x0 = reinterpret_cast<uintptr_t>(x.p), y0 = reinterpret_cast<uintptr_t>(y.p);
  return x0 < y0 + y.n * yb && y0 < x0 + x.n * xb;
}

}  // namespace

void planModuleLanes(Program &p) {
  Planner pl(p);
  for (uint32_t at = 0; at < p.code.size() && p.lanePlans.size() < 255; ++at) {
    Ins &in = p.code[at];
    if (in.op != kMLoopEndN) continue;
    ModuleLanePlan mp;
    if (!pl.plan(at, mp)) continue;
    p.lanePlans.push_back(std::move(mp));
    in.pad = static_cast<uint8_t>(p.lanePlans.size());
  }
}

// The views of the plan's accesses, and whether a block may run with them:
// every deref's cache holds (else NotNow), and no stored view overlaps
// another access's view unless it is the same view at the counter, read
// before the store or stored (else Overlap, which holds for the whole loop).
ModuleLanes::Ready ModuleLanes::ready(const ModuleLanePlan &pl, const Bits *R, const View *V, uint64_t epoch) {
  views_.resize(pl.accesses.size());
  offsets_.resize(pl.accesses.size());
  for (size_t k = 0; k < pl.accesses.size(); ++k) {
    const MLaneAccess &a = pl.accesses[k];
    if (a.handle != ~0u && (R[a.handle] != R[a.cache] || R[a.cache + 1] != epoch)) return Ready::NotNow;
    views_[k] = V[a.view];
    offsets_[k] = a.off == ~0u ? 0 : R[a.off];
  }
  for (size_t s = 0; s < pl.accesses.size(); ++s) {
    const MLaneAccess &st = pl.accesses[s];
    if (!st.store) continue;
    for (size_t k = 0; k < pl.accesses.size(); ++k) {
      const MLaneAccess &x = pl.accesses[k];
      if (k == s || !overlap(views_[s], st.bytes, views_[k], x.bytes)) continue;
      const bool same = views_[s].p == views_[k].p && st.bytes == x.bytes && x.sequential &&
                        offsets_[k] == offsets_[s] && (x.store || x.pos < st.pos);
      if (!same) return Ready::Overlap;
    }
  }
  return Ready::Yes;
}

// Iterations [first, first + k) of the body, k <= lanes_: false, with
// nothing stored, when one would trap.
bool ModuleLanes::block(const ModuleLanePlan &pl, uint64_t first, uint32_t k) {
  const Kernels &K = kernels();
  Bits *ix = slot(pl.index);
  for (uint32_t j = 0; j < k; ++j) ix[j] = first + j;
  for (const MLaneOp &o : pl.ops) {
    switch (o.kind) {
      case MLaneOp::Map: K.map[o.opc](slot(o.d), slot(o.a), slot(o.b), slot(o.c), k); break;
      case MLaneOp::Check:
        if (!K.check[o.opc](slot(o.d), slot(o.a), slot(o.b), slot(o.c), k)) return false;
        break;
      case MLaneOp::Load: {
        const View &v = views_[o.acc];
        if (pl.accesses[o.acc].sequential) {
          // The lanes' indices are start, start + 1, ... (the add's lanes
          // wrap as start does); checked: out of bounds traps, else never.
          const Bits start = first + offsets_[o.acc];
          if (start > v.n || v.n - start < k) return false;
          K.loadSeq[o.opc](slot(o.d), start, v.p, k);
        } else if (v.n == 0 || !K.loadChecked[o.opc](slot(o.d), slot(o.a), v.p, v.n, k)) {
          return false;
        }
        break;
      }
      case MLaneOp::Store: break;
    }
  }
  for (const MLaneOp &o : pl.commits) {
    const Bits start = first + offsets_[o.acc], n = views_[o.acc].n;
    if (start > n || n - start < k) return false;
  }
  for (const MLaneOp &o : pl.commits) K.storeSeq[o.opc](views_[o.acc].p, first + offsets_[o.acc], slot(o.c), k);
  return true;
}

uint64_t ModuleLanes::run(const ModuleLanePlan &pl, const Bits *R, const View *V, uint64_t epoch, uint64_t first,
                          uint64_t k, uint32_t lanes) {
  if (lanes == 0 || k < 2) return 0;
  if (refused_ == &pl && refusedR_ == R && refusedNext_ == first) {
    ++refusedNext_;
    return 0;
  }
  switch (ready(pl, R, V, epoch)) {
    case Ready::Yes: break;
    case Ready::NotNow: return 0;  // the handler's next deref sets the cache
    case Ready::Overlap: refused_ = &pl, refusedR_ = R, refusedNext_ = first + 1; return 0;
  }
  refused_ = nullptr;
  // A block's slots fit in kSlotBytes (the L2 cache of most machines).
  constexpr size_t kSlotBytes = size_t{1} << 20;
  const size_t fit = kSlotBytes / (sizeof(Bits) * std::max<size_t>(1, pl.slots));
  lanes_ = static_cast<uint32_t>(std::clamp<size_t>(std::min<uint64_t>({lanes, k, fit}), 1, kMaxLanes));
  const size_t need = static_cast<size_t>(pl.slots) * lanes_;
  if (v_.size() < need) v_.resize(need);
  for (uint32_t s = 0; s < pl.invariants.size(); ++s) std::fill_n(slot(s), lanes_, R[pl.invariants[s]]);
  uint64_t ran = 0;
  while (ran < k) {
    const uint32_t b = static_cast<uint32_t>(std::min<uint64_t>(lanes_, k - ran));
    if (!block(pl, first + ran, b)) break;
    ran += b;
  }
  return ran;
}

}  // namespace cairn::exec
