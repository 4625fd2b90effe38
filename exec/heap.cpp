// The machine's slow paths for modules: frames (call, return, externs), the
// stack of buffers, the heap, print, and the traps of views.
//
// Frames: every call places the callee's frame (a header and its
// registers, exec/machine.hpp "kFrameHeader") just above the caller's in
// the register file, and a heavy callee's views above the views in use;
// returning steps back. Nothing recurses on the native stack, so the call
// depth is bounded only by maxCallDepth; the slow paths here grow the
// files. Buffers live on one stack of allocations: a loop iteration
// releases those made in its body (its mark is a register of the loop), a
// return releases the frame's. Heap objects live in a handle table whose
// handles carry a generation, so a stale handle is caught, never reused;
// `free` releases an object and everything its `own` columns hold, with an
// explicit work list. Live buffer and heap elements count against
// maxElements, except frame buffers (isFrameBuffer).
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "exec/alu.hpp"
#include "exec/externs.hpp"
#include <algorithm>
#include <cstring>

#include "exec/machine.hpp"
#include "exec/trap_text.hpp"

namespace cairn::exec {

namespace {

void storeAny(DType t, uint8_t *p, uint64_t i, Bits b) {
  switch (t) {
#define CAIRN_F(P, D) \
  case DType::D: storeElem<DType::D>(p, i, b); return;
    CAIRN_EXEC_DT(CAIRN_F, _)
#undef CAIRN_F
    default: return;
  }
}

size_t colBytes(int64_t code) { return code == Graph::kOwnColumn ? 8 : dtypeBytes(static_cast<DType>(code)); }

uint8_t *zeroed(uint64_t n, size_t bytes) {
  if (n > (SIZE_MAX - 8) / bytes) return nullptr;
  return static_cast<uint8_t *>(zeroedAlloc(n * bytes));
}

}  // namespace

Machine::~Machine() {
  for (const StackBuf &b : stack_) zeroedFree(b.p);
  for (Obj &ob : objs_)
    if (ob.live)
      for (Obj::Col &c : ob.cols) zeroedFree(c.p);
}

Machine::Callee Machine::calleeOf(const Program &f) {
  const uint32_t scratch = f.nregs;
  Callee c{&f, f.code.data(), scratch + 1u, kFrameHeader + scratch + 1u, f.nviews,
           f.initSet.data(), f.initSet.data() + f.initSet.size(), f.params.data(), f.params.data() + f.params.size(),
           {scratch, scratch}, f.initSet.size() <= 4, {scratch, scratch, scratch, scratch}, {0, 0, 0, 0}, {}};
  for (size_t k = 0; k < f.params.size() && k < 2; ++k) c.preg[k] = f.params[k].second;
  if (f.params.size() > 2) c.preg[0] = kManyParams;
  for (size_t k = 0; k < f.initSet.size() && k < 4; ++k) c.ireg[k] = f.initSet[k].first, c.ival[k] = f.initSet[k].second;
  if (f.fn && f.fn->external) c.span = c.stride = c.nviews = UINT32_MAX;
  else c.lead = leadOf(f, c);
  return c;
}

// The fast form of an integer Lead of the call's b and a constant (src 0
// and 2, or 2 and 0): its compare (CAIRN_EXEC_CMPIF order) as a range of
// keys (Callee::Lead). With K the constant's key and max the largest key:
//   b < K  [0, K - 1] (none when K is 0)   K < b  [K + 1, max] (none when K is max)
//   b <= K [0, K]                          K <= b [K, max]
//   b == K [K, K]                          b != K not [K, K]
void Machine::fastLead(Callee::Lead &ld, int which, DType dt) {
  ld.fast = true;
  ld.sh = static_cast<uint8_t>(64 - 8 * dtypeBytes(dt));
  ld.flip = isSigned(dt) ? Bits{1} << 63 : 0;
  const bool kFirst = ld.src[0] == 2;
  const Bits k = (ld.k[kFirst ? 0 : 1] << ld.sh) ^ ld.flip, top = ~Bits{0};
  // [a, b] as lo and span; a > b: the empty range, `not [0, max]`.
  auto range = [&](Bits a, Bits b, bool empty) {
    ld.lo = empty ? 0 : a;
    ld.span = empty ? top : b - a;
    ld.neg = empty;
  };
  switch (which) {
    case 0: kFirst ? range(k + 1, top, k == top) : range(0, k - 1, k == 0); break;  // lt
    case 1: range(k, k, false), ld.neg = true; break;                               // ne
    case 2: range(k, k, false); break;                                              // eq
    default: kFirst ? range(k, top, false) : range(0, k, false); break;             // le
  }
}

// The Lead of f (a light function's leading `if`, decided at its calls):
// its first instruction a kIf<Cmp>_<T> whose operands are its parameters
// (at most two: the call's b and c) or constants of its initSet, read
// before anything writes them. Its true branch is a leaf when it only
// returns such a value: a kRetL at once (a kIfEnd that threadIfEnds made
// the return), or a kMovIfEnd / kMovIfEndJ of one whose copy the kRetL
// after it, or at its jump, returns.
Machine::Callee::Lead Machine::leadOf(const Program &f, const Callee &c) {
  Callee::Lead ld;
  if (f.code.size() < 2 || !isCmpIf(f.code[0].op) || c.preg[0] == kManyParams || c.nviews != 0) return ld;
  // Value v of the Lead is register reg as the frame starts: a parameter
  // (the call's b or c) or a constant.
  auto source = [&](uint32_t reg, int v) {
    for (size_t p = 0; p < f.params.size(); ++p)
      if (f.params[p].second == reg) return (ld.src[v] = static_cast<uint8_t>(p)), true;
    for (const auto &[r, k] : f.initSet)
      if (r == reg) return (ld.src[v] = 2), (ld.k[v] = k), true;
    return false;
  };
  const Ins &cmp = f.code[0];
  if (!source(cmp.a, 0) || !source(cmp.b, 1)) return ld;
  static constexpr Bits (*kCmps[])(Bits, Bits) = {
#define CAIRN_E2(O, D) &alu::O<DType::D>,
#define CAIRN_E(P, O) CAIRN_EXEC_DT(CAIRN_E2, O)
      CAIRN_EXEC_CMPIF(CAIRN_E, _)
#undef CAIRN_E
#undef CAIRN_E2
  };
  const uint32_t row = cmp.op - cmpIfOpc(0, DType::Bool);  // which * kNumDTypes + dtype
  ld.cmp = kCmps[row];
  const auto dt = static_cast<DType>(row % kNumDTypes);
  const bool bVsConstant = (ld.src[0] == 0 && ld.src[1] == 2) || (ld.src[0] == 2 && ld.src[1] == 0);
  if (isInteger(dt) && bVsConstant) fastLead(ld, static_cast<int>(row / kNumDTypes), dt);
  ld.d = cmp.d;
  ld.w = ld.falseW = cmp.w;
  ld.falseAt = static_cast<int32_t>(cmp.c);
  if (const size_t at = static_cast<size_t>(ld.falseAt); at < f.code.size() && f.code[at].op == kIfNot && f.code[at].a == cmp.d) {
    ld.falseW += f.code[at].w;
    ++ld.falseAt;
  }
  // The leaf: the copy (if any) and the return it reaches.
  const Ins &t = f.code[1];
  uint32_t value = t.a, w = t.w;
  const Ins *ret = &t;
  if (t.op == kMovIfEndJ || t.op == kMovIfEnd) {
    const size_t at = t.op == kMovIfEnd ? 2 : 1 + static_cast<size_t>(static_cast<int32_t>(t.c));
    if (at >= f.code.size() || f.code[at].a != t.d) return ld;
    ret = &f.code[at];
    w += ret->w;
  }
  if (ret->op == kRetL && value != cmp.d && source(value, 2)) ld.leafW = cmp.w + w;
  return ld;
}

// main's frame: a header that no return passes (kResume 0) and its
// registers, all of them as compiled.
void Machine::start() {
  const Callee mc = calleeOf(p);
  regs.assign(kFrameHeader + mc.span, 0);
  Bits *R = regs.data() + kFrameHeader;
  for (const auto &[reg, v] : p.initSet) R[reg] = v;
  R[kResume] = 0;
  R[kCaller] = reinterpret_cast<uintptr_t>(&p);
  R[kLink] = Bits{1} << 32 | (mc.span - 1);
  R[kShape] = mc.stride;
  R[kViews] = 0;
  R[kBufs] = 0;
  views.assign(p.nviews, View{});
  viewTop_ = p.nviews;
  slowR_ = kFrameHeader;
  slowV_ = 0;
  callees_.clear();
  if (fns_)
    for (const Program &f : *fns_) callees_.push_back(calleeOf(f));
  noteCaps();
}

uint64_t Machine::liveObjects() const {
  uint64_t k = 0;
  for (const Obj &ob : objs_) k += ob.live ? 1 : 0;
  return k;
}

// ---- the traps of views ----

void Machine::indexTrap(const Ins *ip, uint64_t steps, uint64_t off, uint64_t n, uint64_t size) {
  const Graph &g = *cur->g;
  Operand o = g.operands(nodeAt(ip))[1];  // the shrink's offset
  std::string at = bitsText(off, o.isLit() ? DType::I64 : cur->facts->type[o.node().v]);
  if (size == 1) return trap(ip, steps, formatTrap(kViewIndex.format, at.c_str(), ull(n)));
  trap(ip, steps, formatTrap(kViewRange.format, ull(size), at.c_str(), ull(n)));
}

void Machine::partTrap(const Ins *ip, uint64_t steps, uint64_t lo, uint64_t hi, uint64_t n) {
  trap(ip, steps, formatTrap(kPartRange.format, ull(lo), ull(hi), ull(n)));
}

// ---- buffers ----

bool Machine::reserve(uint64_t elems) {
  if (elems > o.limits.maxElements || live_ > o.limits.maxElements - elems) return false;
  live_ += elems;
  return true;
}

std::string Machine::oom(uint64_t elems) const {
  return formatTrap(kLiveLimit.format, ull(elems), ull(o.limits.maxElements), ull(live_));
}

bool Machine::buffer(const Ins *ip, uint64_t steps, const Bits *R, View *V) {
  Bits n = R[ip->a];
  DType t = static_cast<DType>(ip->t);
  if ((ip->c & 1) && static_cast<int64_t>(n) < 0) {
    trap(ip, steps, formatTrap(kNegativeSize.format, ll(static_cast<int64_t>(n))));
    return false;
  }
  const uint64_t counted = (ip->b & 2) ? 0 : n;  // a frame buffer is not counted
  if (!reserve(counted)) {
    trap(ip, steps, oom(counted));
    return false;
  }
  uint8_t *mem = zeroed(n, dtypeBytes(t));
  if (!mem) {
    live_ -= counted;
    trap(ip, steps, kOutOfMemory.format);
    return false;
  }
  if (ip->b & 1)
    for (uint64_t k = 0; k < n; ++k) storeAny(t, mem, k, cur->data[(ip->c >> 1) + k]);
  stack_.push_back({mem, counted});
  V[ip->d] = View{mem, n};
  return true;
}

void Machine::release(size_t mark) {
  while (stack_.size() > mark) {
    zeroedFree(stack_.back().p);
    live_ -= stack_.back().elems;
    stack_.pop_back();
  }
}

// ---- the heap ----

Obj *Machine::object(Bits h) {
  uint64_t idx = (h & 0xffffffffu);
  if (idx == 0 || idx > objs_.size()) return nullptr;
  Obj &ob = objs_[idx - 1];
  return ob.live && ob.gen == (h >> 32) ? &ob : nullptr;
}

bool Machine::alloc(const Ins *ip, uint64_t steps, Bits *R) {
  auto cols = cur->g->dims(NodeId{ip->c});
  const uint64_t len = R[ip->a];
  uint64_t total = 0;
  if (__builtin_mul_overflow(len, static_cast<uint64_t>(cols.size()), &total) || !reserve(total)) {
    trap(ip, steps, oom(total ? total : len));
    return false;
  }
  uint32_t idx;
  if (!freeObjs_.empty()) {
    idx = freeObjs_.back();
    freeObjs_.pop_back();
  } else {
    if (objs_.size() >= UINT32_MAX - 1) {
      trap(ip, steps, kTooManyObjects.format);
      return false;
    }
    objs_.emplace_back();
    idx = static_cast<uint32_t>(objs_.size() - 1);
  }
  Obj &ob = objs_[idx];
  ob.n = len;
  ob.cols.clear();
  for (int64_t c : cols) {
    uint8_t *mem = zeroed(len, colBytes(c));
    if (!mem) {
      for (Obj::Col &x : ob.cols) zeroedFree(x.p);
      ob.cols.clear();
      live_ -= total;
      freeObjs_.push_back(idx);
      trap(ip, steps, kOutOfMemory.format);
      return false;
    }
    ob.cols.push_back({c, mem});
  }
  ob.live = true;
  R[ip->d] = (static_cast<Bits>(ob.gen) << 32) | (idx + 1);
  return true;
}

bool Machine::freeDeep(Bits h, std::string &err) {
  for (DerefHit &e : drf_) e = DerefHit{};  // a freed object's handle derefs no more
  ++derefEpoch;
  std::vector<Bits> work{h};
  while (!work.empty()) {
    Bits x = work.back();
    work.pop_back();
    if (x == 0) continue;
    Obj *ob = object(x);
    if (!ob) {
      err = formatTrap(kDoubleFree.format, ull(x));
      return false;
    }
    for (Obj::Col &c : ob->cols) {
      if (c.code == Graph::kOwnColumn)
        for (uint64_t k = 0; k < ob->n; ++k) {
          Bits child = loadElem<DType::U64>(c.p, k);
          if (child) work.push_back(child);
        }
      zeroedFree(c.p);
    }
    live_ -= ob->n * ob->cols.size();
    ob->cols.clear();
    ob->live = false;
    ++ob->gen;
    freeObjs_.push_back(static_cast<uint32_t>((x & 0xffffffffu) - 1));
  }
  return true;
}

bool Machine::freeObj(const Ins *ip, uint64_t steps, const Bits *R) {
  std::string err;
  if (freeDeep(R[ip->a], err)) return true;
  trap(ip, steps, err, RunResult::Status::Error);
  if (r.status == RunResult::Status::Error) r.internal = true;
  return false;
}

bool Machine::derefSlow(const Ins *ip, uint64_t steps, Bits h, View &out, uint32_t back) {
  if (h == 0) {  // a null handle: an empty view (the access then traps)
    out = View{};
    return true;
  }
  Obj *ob = object(h);
  trap(ip, steps, !ob ? kReleased.format : kBadColumn.format, RunResult::Status::Error, back);
  if (r.status == RunResult::Status::Error) r.internal = true;
  return false;
}

void Machine::print(const Ins *ip, const Bits *R, const View *V) {
  DType t = static_cast<DType>(ip->t);
  if (t == DType::None) out_->write(reinterpret_cast<const char *>(V[ip->a].p), static_cast<std::streamsize>(V[ip->a].n));
  else if (t == DType::Bool) *out_ << (R[ip->a] ? "true" : "false");
  else *out_ << bitsText(R[ip->a], t);
}

// ---- frames ----

const Ins *Machine::callSlow(const Ins *ip, uint64_t steps, Bits *R, View *V) {
  const Program &cf = (*fns_)[ip->a];
  slowR_ = static_cast<size_t>(R - regs.data());
  slowV_ = static_cast<size_t>(V - views.data());
  if (cf.fn->external) {
    const uint32_t *args = cur->args.data() + ip->b;
    argB_.assign(ip->c, 0);
    argV_.assign(ip->c, View{});
    argIsView_.assign(ip->c, 0);
    for (uint32_t k = 0; k < ip->c; ++k) {
      if (args[k] & kViewArg) argV_[k] = V[args[k] & ~kViewArg], argIsView_[k] = 1;
      else argB_[k] = R[args[k]];
    }
    out_->flush();
    Bits res = ext_->call(static_cast<int>(ip->a), argB_, argV_, argIsView_);
    std::fflush(stdout);
    R[ip->d] = res;  // the caller's scratch register when the call has no value
    return ip + 1;
  }
  const Bits lk = R[kLink];
  if ((lk >> 32) >= maxCallDepth_) {
    trap(ip, steps, formatTrap(kStackOverflow.format, static_cast<unsigned>(maxCallDepth_)));
    return nullptr;
  }
  // Room for the new frame: the files grow by doubling and never shrink,
  // so they move rarely; the caller's are found again from their offsets.
  const Callee &ce = callees_[ip->a];
  const uint64_t stride = static_cast<uint32_t>(R[kShape]);
  const size_t need = slowR_ + stride + ce.span;
  if (need > regs.size()) regs.resize(std::max<size_t>(need, 2 * regs.size()));
  if (viewTop_ + ce.nviews > views.size()) views.resize(std::max<size_t>(viewTop_ + ce.nviews, 2 * views.size()));
  noteCaps();
  R = regs.data() + slowR_;
  V = views.data() + slowV_;
  if (ip->op == kCallL) {
    R = enterLight(ce, ip, R, lk, stride);
  } else {
    enterHeavy(ce, ip, R, V, lk, stride);
  }
  slowR_ = static_cast<size_t>(R - regs.data());
  slowV_ = static_cast<size_t>(V - views.data());
  return ce.code;
}

// main's return (the run's value; a function without one returns its
// scratch register, which stands for 0), or a heavy frame's that has
// buffers to release.
const Ins *Machine::retSlow(const Ins *ip, Bits *R, View *V) {
  release(static_cast<size_t>(R[kBufs]));
  const auto *resume = reinterpret_cast<const Ins *>(R[kResume]);
  if (!resume) {
    r.value = ip->a == cur->nregs ? 0 : static_cast<int32_t>(R[ip->a]);
    return nullptr;
  }
  leaveViews(R, V);
  leave(ip, R);
  slowR_ = static_cast<size_t>(R - regs.data());
  slowV_ = static_cast<size_t>(V - views.data());
  return resume;
}

}  // namespace cairn::exec
