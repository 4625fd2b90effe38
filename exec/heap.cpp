// The machine's slow paths for modules: frames (call, return, externs), the
// stack of buffers, the heap, print, and the traps of views.
//
// Frames: every call appends the callee's registers to two shared files
// (scalars, views) and a Frame record; returning truncates them. Nothing
// recurses on the native stack, so the call depth is bounded only by
// maxCallDepth. Buffers live on one stack of allocations: a loop iteration
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
  return static_cast<uint8_t *>(std::calloc(n ? n : 1, bytes));
}

}  // namespace

Machine::~Machine() {
  for (const StackBuf &b : stack_) std::free(b.p);
  for (Obj &ob : objs_)
    if (ob.live)
      for (Obj::Col &c : ob.cols) std::free(c.p);
}

Machine::Callee Machine::calleeOf(const Program &f) {
  bool scalars = f.nviews == 0;
  for (const auto &[k, reg] : f.params) scalars = scalars && !(reg & kViewArg);
  const uint32_t scratch = static_cast<uint32_t>(f.initRegs.size());
  Callee c{&f, f.code.data(), f.initSet.data(), f.initSet.data() + f.initSet.size(), f.params.data(),
           f.params.data() + f.params.size(), f.initRegs.size() + 1, f.nviews, scalars, f.initSet.size() <= 4,
           {scratch, scratch, scratch, scratch}, {0, 0, 0, 0}};
  for (size_t k = 0; k < f.initSet.size() && k < 4; ++k) c.ireg[k] = f.initSet[k].first, c.ival[k] = f.initSet[k].second;
  if (f.fn && f.fn->external) c.nregs = c.nviews = UINT32_MAX;
  return c;
}

void Machine::start() {
  regs.assign(p.initRegs.begin(), p.initRegs.end());  // a flat graph reads them all
  if (p.fn) {
    regs.push_back(0);  // main's frame has the scratch register of every frame (Callee)
    setInitial(calleeOf(p), regs.data());
  }
  views.assign(p.nviews, View{});
  regTop_ = static_cast<uint32_t>(regs.size());
  viewTop_ = p.nviews;
  frames_.push({&p, nullptr, 0, 0, kNoReg, 0});
  if (fns_) {
    callees_.clear();
    for (const Program &f : *fns_) callees_.push_back(calleeOf(f));
  }
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
    std::free(stack_.back().p);
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
      for (Obj::Col &x : ob.cols) std::free(x.p);
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
      std::free(c.p);
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
  const uint32_t *args = cur->args.data() + ip->b;
  if (cf.fn->external) {
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
    if (ip->d != kNoReg) R[ip->d] = res;
    return ip + 1;
  }
  if (frames_.size() >= maxCallDepth_) {
    trap(ip, steps, formatTrap(kStackOverflow.format, static_cast<unsigned>(maxCallDepth_)));
    return nullptr;
  }
  // Room for the new frame: the files grow by doubling and never shrink,
  // so they move rarely; the caller's are found again from its frame.
  const uint32_t rbase = frames_.back().rbase, vbase = frames_.back().vbase;
  if (frames_.full()) frames_.grow();
  const uint64_t nregs = callees_[ip->a].nregs;
  if (regTop_ + nregs > regs.size()) regs.resize(std::max<size_t>(regTop_ + nregs, 2 * regs.size()));
  if (viewTop_ + cf.nviews > views.size()) views.resize(std::max<size_t>(viewTop_ + cf.nviews, 2 * views.size()));
  noteCaps();
  return enter(callees_[ip->a], ip, regs.data() + rbase, views.data() + vbase);
}

const Ins *Machine::retSlow(const Ins *ip, const Bits *R) {
  release(frames_.back().bufBase);
  if (frames_.size() > 1) return leave(ip, R);
  r.value = static_cast<int32_t>(ip->a != kNoReg ? R[ip->a] : 0);
  frames_.pop();
  return nullptr;
}

}  // namespace cairn::exec
