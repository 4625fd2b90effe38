// The module interpreter's run time: one dispatch loop over the compiled
// functions of exec/module_code.hpp, with an explicit call stack.
//
// Frames: every call appends the callee's registers to two shared files
// (scalars, views) and a Frame record; returning truncates them. Nothing
// recurses on the native stack, so the call depth is bounded only by
// maxCallDepth. Buffers live on one stack of allocations: a loop iteration
// releases those made in its body (its mark is a register of the loop), a
// return releases the frame's. Heap objects live in a handle table whose
// handles carry a generation, so a stale handle is caught, never reused;
// `free` releases an object and everything its `own` columns hold, with an
// explicit work list. Steps are counted per instruction; one compare
// against `checkpoint` covers the step limit and the periodic time check.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>

#include "exec/alu.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/module_code.hpp"
#include "exec/module_interp.hpp"
#include "exec/program.hpp"

namespace cairn {

namespace {

using namespace mexec;
using exec::dec;
using exec::enc;
using exec::kFloat;
using exec::kSigned;
using exec::kWidth;
using exec::loadElem;
using exec::storeElem;
using exec::T_;
using exec::wrap;
namespace alu = exec::alu;

using AluFn = Bits (*)(Bits, Bits);
using CastFn = Bits (*)(Bits);
using CheckedFn = int (*)(Bits, Bits, Bits &);  // 0 ok, 1 overflow, 2 zero divisor
using CCastFn = bool (*)(Bits, Bits &);         // false: does not fit

#define CAIRN_F2(O, D) &alu::O<DType::D>,
#define CAIRN_F(P, O, Z) CAIRN_EXEC_DT(CAIRN_F2, O)
constexpr AluFn kAluFns[] = {CAIRN_EXEC_ALU(CAIRN_F, _)};
#undef CAIRN_F
#undef CAIRN_F2
#define CAIRN_F2(F, D) &alu::Cast<DType::F, DType::D>,
#define CAIRN_F(P, F) CAIRN_EXEC_DT2(CAIRN_F2, F)
constexpr CastFn kCastFns[] = {CAIRN_EXEC_DT(CAIRN_F, _)};
#undef CAIRN_F
#undef CAIRN_F2

template <DType D> constexpr bool kInt = kSigned<D> || (D >= DType::U8 && D <= DType::U64);

template <DType D, int K>
int checkedT(Bits a, Bits b, Bits &r) {
  if constexpr (!kInt<D>) {
    (void)a, (void)b, (void)r;
    return 0;
  } else {
    using T = T_<D>;
    T x = dec<D>(a), y = dec<D>(b), z{};
    if constexpr (K == 0) {
      if (__builtin_add_overflow(x, y, &z)) return 1;
    } else if constexpr (K == 1) {
      if (__builtin_sub_overflow(x, y, &z)) return 1;
    } else if constexpr (K == 2) {
      if (__builtin_mul_overflow(x, y, &z)) return 1;
    } else {
      if (y == 0) return 2;
      if constexpr (kSigned<D>)
        if (x == std::numeric_limits<T>::min() && y == T(-1)) return 1;
      z = static_cast<T>(K == 3 ? x / y : x % y);
    }
    r = enc<D>(z);
    return 0;
  }
}
#define CAIRN_F(K, D) &checkedT<DType::D, K>,
constexpr CheckedFn kCheckedFns[5][kNumDTypes] = {
    {CAIRN_EXEC_DT(CAIRN_F, 0)}, {CAIRN_EXEC_DT(CAIRN_F, 1)}, {CAIRN_EXEC_DT(CAIRN_F, 2)},
    {CAIRN_EXEC_DT(CAIRN_F, 3)}, {CAIRN_EXEC_DT(CAIRN_F, 4)}};
#undef CAIRN_F

// Fits exactly: integers by value; floats truncated toward zero first (NaN
// and infinities never fit).
template <DType F, DType D>
bool ccastT(Bits a, Bits &r) {
  if constexpr (!kInt<D>) {
    (void)a, (void)r;
    return false;
  } else if constexpr (kFloat<F>) {
    auto v = dec<F>(a);
    if (v != v) return false;
    double t = std::trunc(static_cast<double>(v));
    if constexpr (kSigned<D>) {
      const double lo = -std::ldexp(1.0, kWidth<D> - 1);
      if (!(t >= lo && t < -lo)) return false;
      r = enc<D>(static_cast<T_<D>>(static_cast<int64_t>(t)));
    } else {
      if (!(t >= 0 && t < std::ldexp(1.0, kWidth<D>))) return false;
      r = enc<D>(static_cast<T_<D>>(static_cast<uint64_t>(t)));
    }
    return true;
  } else {
    __int128 v = kSigned<F> ? static_cast<__int128>(static_cast<int64_t>(a)) : static_cast<__int128>(a);
    __int128 lo = kSigned<D> ? static_cast<__int128>(std::numeric_limits<T_<D>>::min()) : 0;
    __int128 hi = static_cast<__int128>(std::numeric_limits<T_<D>>::max());
    if (v < lo || v > hi) return false;
    r = wrap<D>(a);
    return true;
  }
}
#define CAIRN_F2(F, D) &ccastT<DType::F, DType::D>,
#define CAIRN_F(P, F) CAIRN_EXEC_DT2(CAIRN_F2, F)
constexpr CCastFn kCCast[] = {CAIRN_EXEC_DT(CAIRN_F, _)};
#undef CAIRN_F
#undef CAIRN_F2

Bits loadAny(DType t, const uint8_t *p, uint64_t i) {
  switch (t) {
#define CAIRN_F(P, D) \
  case DType::D: return loadElem<DType::D>(p, i);
    CAIRN_EXEC_DT(CAIRN_F, _)
#undef CAIRN_F
    default: return 0;
  }
}
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

struct Frame {
  const MFunc *fn;
  const MIns *resume;  // the caller's next instruction
  uint32_t rbase, vbase;
  uint32_t retReg;     // in the caller's file
  size_t bufBase;
};

struct Col {
  int64_t code;
  uint8_t *p;
};
struct Obj {
  uint32_t gen = 1;
  bool live = false;
  uint64_t n = 0;
  std::vector<Col> cols;
};
struct Buf {
  uint8_t *p;
  uint64_t elems;
};

constexpr uint64_t kTimeEvery = uint64_t{1} << 20;

class Machine {
 public:
  Machine(const ModuleFacts &mf, const std::vector<MFunc> &fns, const ModuleRunOptions &o, ModuleRunResult &r,
          Externs &ext)
      : mf_(mf), fns_(fns), o_(o), r_(r), ext_(ext), out_(o.out ? *o.out : std::cout) {}

  ~Machine() {
    for (const Buf &b : bufs_) std::free(b.p);
    for (Obj &ob : objs_)
      if (ob.live)
        for (Col &c : ob.cols) std::free(c.p);
  }

  void run(int mainIdx);

  uint64_t liveObjects() const {
    uint64_t k = 0;
    for (const Obj &ob : objs_) k += ob.live ? 1 : 0;
    return k;
  }

 private:
  // ---- failure ----
  void fail(const MFunc &fn, const MIns *ip, std::string msg, ModuleRunResult::Status s = ModuleRunResult::Status::Trap) {
    r_.status = s;
    r_.message = std::move(msg);
    r_.function = fn.src->name;
    size_t at = static_cast<size_t>(ip - fn.code.data());
    NodeId n = at < fn.nodeOf.size() ? fn.nodeOf[at] : NodeId::none();
    if (!n.valid()) r_.where = Origin{0, fn.src->loc};
    else if (n.v < fn.src->origin.size()) r_.where = fn.src->origin[n.v];
    else r_.where = Origin{0, fn.src->body.loc(n)};
  }
  NodeId nodeAt(const MFunc &fn, const MIns *ip) const { return fn.nodeOf[static_cast<size_t>(ip - fn.code.data())]; }

  // ---- memory ----
  bool reserve(uint64_t elems) {
    if (elems > o_.limits.maxElements || live_ > o_.limits.maxElements - elems) return false;
    live_ += elems;
    return true;
  }
  std::string oom(uint64_t elems) const {
    return "out of memory: " + std::to_string(elems) + " more elements would pass the limit of " +
           std::to_string(o_.limits.maxElements) + " live elements (" + std::to_string(live_) + " in use)";
  }
  static uint8_t *zeroed(uint64_t n, size_t bytes) {
    if (n > (SIZE_MAX - 8) / bytes) return nullptr;
    return static_cast<uint8_t *>(std::calloc(n ? n : 1, bytes));
  }
  void release(size_t mark) {
    while (bufs_.size() > mark) {
      std::free(bufs_.back().p);
      live_ -= bufs_.back().elems;
      bufs_.pop_back();
    }
  }
  Obj *object(Bits h) {
    uint64_t idx = (h & 0xffffffffu);
    if (idx == 0 || idx > objs_.size()) return nullptr;
    Obj &ob = objs_[idx - 1];
    return ob.live && ob.gen == (h >> 32) ? &ob : nullptr;
  }
  bool alloc(const Graph &g, NodeId n, uint64_t len, Bits &h, std::string &err);
  bool freeDeep(Bits h, std::string &err);

  const ModuleFacts &mf_;
  const std::vector<MFunc> &fns_;
  const ModuleRunOptions &o_;
  ModuleRunResult &r_;
  Externs &ext_;
  std::ostream &out_;
  std::vector<Bits> regs_;
  std::vector<View> views_;
  std::vector<Frame> frames_;
  std::vector<Buf> bufs_;
  std::vector<Obj> objs_;
  std::vector<uint32_t> freeObjs_;
  uint64_t live_ = 0;  // live buffer and heap elements
};

bool Machine::alloc(const Graph &g, NodeId n, uint64_t len, Bits &h, std::string &err) {
  auto cols = g.dims(n);
  uint64_t total = 0;
  if (__builtin_mul_overflow(len, static_cast<uint64_t>(cols.size()), &total) || !reserve(total)) {
    err = oom(total ? total : len);
    return false;
  }
  uint32_t idx;
  if (!freeObjs_.empty()) {
    idx = freeObjs_.back();
    freeObjs_.pop_back();
  } else {
    if (objs_.size() >= UINT32_MAX - 1) {
      err = "out of memory: too many heap objects";
      return false;
    }
    objs_.emplace_back();
    idx = static_cast<uint32_t>(objs_.size() - 1);
  }
  Obj &ob = objs_[idx];
  ob.n = len;
  ob.cols.clear();
  for (int64_t c : cols) {
    uint8_t *p = zeroed(len, colBytes(c));
    if (!p) {
      for (Col &x : ob.cols) std::free(x.p);
      ob.cols.clear();
      live_ -= total;
      freeObjs_.push_back(idx);
      err = "out of memory";
      return false;
    }
    ob.cols.push_back({c, p});
  }
  ob.live = true;
  h = (static_cast<Bits>(ob.gen) << 32) | (idx + 1);
  return true;
}

bool Machine::freeDeep(Bits h, std::string &err) {
  std::vector<Bits> work{h};
  while (!work.empty()) {
    Bits x = work.back();
    work.pop_back();
    if (x == 0) continue;
    Obj *ob = object(x);
    if (!ob) {
      err = "double free: heap object " + std::to_string(x) + " was already released";
      return false;
    }
    for (Col &c : ob->cols) {
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

void Machine::run(int mainIdx) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const uint64_t maxSteps = o_.limits.maxSteps;
  const bool timed = o_.limits.maxSeconds > 0;
  auto nextCheckpoint = [&](uint64_t steps) {
    uint64_t c = UINT64_MAX;
    if (maxSteps) c = maxSteps + 1;
    if (timed) c = std::min(c, steps + kTimeEvery);
    return c;
  };
  uint64_t steps = 0, checkpoint = nextCheckpoint(0);

  const MFunc *fn = &fns_[static_cast<size_t>(mainIdx)];
  regs_.assign(fn->initRegs.begin(), fn->initRegs.end());
  views_.assign(fn->nviews, View{});
  frames_.push_back({fn, nullptr, 0, 0, kNoReg, 0});
  Bits *R = regs_.data();
  View *V = views_.data();
  const MIns *ip = fn->code.data();
  std::vector<Bits> argB;
  std::vector<View> argV;
  std::vector<uint8_t> argIsView;
  std::string err;

#define CAIRN_TRAP(msg)   \
  do {                    \
    fail(*fn, ip, (msg)); \
    goto done;            \
  } while (0)

  for (;;) {
    if (++steps >= checkpoint) [[unlikely]] {
      if (maxSteps && steps > maxSteps) CAIRN_TRAP("exceeded the step limit of " + std::to_string(maxSteps));
      if (timed && std::chrono::duration<double>(clock::now() - start).count() > o_.limits.maxSeconds) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", o_.limits.maxSeconds);
        CAIRN_TRAP("exceeded the time limit of " + std::string(buf) + " s");
      }
      checkpoint = nextCheckpoint(steps);
    }
    const MIns &in = *ip;
    switch (in.op) {
      case kMov: R[in.d] = R[in.a]; break;
      case kAlu: R[in.d] = kAluFns[in.c](R[in.a], R[in.b]); break;
      case kAluZ:
        if (R[in.b] == 0) CAIRN_TRAP("division by zero");
        R[in.d] = kAluFns[in.c](R[in.a], R[in.b]);
        break;
      case kCast: R[in.d] = kCastFns[in.c](R[in.a]); break;
      case kAnd: R[in.d] = R[in.a] & R[in.b]; break;
      case kOr: R[in.d] = R[in.a] | R[in.b]; break;
      case kXor: R[in.d] = R[in.a] ^ R[in.b]; break;
      case kWhere: R[in.d] = R[in.a] ? R[in.b] : R[in.c]; break;
      case kChecked: {
        int s = kCheckedFns[in.c][static_cast<int>(in.t)](R[in.a], R[in.b], R[in.d]);
        if (s) [[unlikely]]
          CAIRN_TRAP(s == 2 ? "division by zero" : "arithmetic overflow");
        break;
      }
      case kCheckedCast:
        if (!kCCast[in.c * kNumDTypes + static_cast<uint32_t>(in.t)](R[in.a], R[in.d])) [[unlikely]]
          CAIRN_TRAP("value does not fit " + std::string(dtypeName(in.t)));
        break;
      case kLoad: R[in.d] = loadAny(in.t, V[in.a].p, 0); break;
      case kLoadIdx:
      case kStoreIdx: {
        const View pv = V[in.a];
        uint64_t off = R[in.op == kLoadIdx ? in.b : in.c];
        bool checked = (in.op == kLoadIdx ? in.c : in.d) != 0;
        if (checked && off >= pv.n) [[unlikely]] {
          NodeId n = nodeAt(*fn, ip);  // the shrink
          const Graph &g = fn->src->body;
          Operand o = g.operands(n)[1];
          std::string at = bitsText(off, o.isLit() ? DType::I64 : mf_.funcs[static_cast<size_t>(fn->index)].type[o.node().v]);
          CAIRN_TRAP("index " + at + " out of bounds for a view of " + std::to_string(pv.n) + " elements");
        }
        if (in.op == kLoadIdx) R[in.d] = loadAny(in.t, pv.p, off);
        else storeAny(in.t, pv.p, off, R[in.b]);
        break;
      }
      case kStore: storeAny(in.t, V[in.a].p, 0, R[in.b]); break;
      case kShrink: {
        const View pv = V[in.a];
        uint64_t off = R[in.b], size = fn->sizes[in.c];
        if (off > pv.n || pv.n - off < size) [[unlikely]] {
          NodeId n = nodeAt(*fn, ip);
          const Graph &g = fn->src->body;
          Operand o = g.operands(n)[1];
          std::string at = bitsText(off, o.isLit() ? DType::I64 : mf_.funcs[static_cast<size_t>(fn->index)].type[o.node().v]);
          if (size == 1) CAIRN_TRAP("index " + at + " out of bounds for a view of " + std::to_string(pv.n) + " elements");
          CAIRN_TRAP("a view of " + std::to_string(size) + " elements at offset " + at + " is out of bounds for a view of " +
                     std::to_string(pv.n) + " elements");
        }
        V[in.d] = View{pv.p + off * dtypeBytes(in.t), size};
        break;
      }
      case kPart: {
        const View pv = V[in.a];
        uint64_t lo = R[in.b], hi = R[in.c];
        if (lo > hi || hi > pv.n) [[unlikely]]
          CAIRN_TRAP("part [" + std::to_string(lo) + ", " + std::to_string(hi) + ") out of range for a view of " +
                     std::to_string(pv.n) + " elements");
        V[in.d] = View{pv.p + lo * dtypeBytes(in.t), hi - lo};
        break;
      }
      case kLen: R[in.d] = V[in.a].n; break;
      case kBuffer: {
        Bits n = R[in.a];
        if ((in.c & 1) && static_cast<int64_t>(n) < 0)
          CAIRN_TRAP("buffer size " + std::to_string(static_cast<int64_t>(n)) + " is negative");
        const uint64_t counted = (in.b & 2) ? 0 : n;  // a frame buffer is not counted
        if (!reserve(counted)) CAIRN_TRAP(oom(counted));
        uint8_t *p = zeroed(n, dtypeBytes(in.t));
        if (!p) {
          live_ -= counted;
          CAIRN_TRAP("out of memory");
        }
        if (in.b & 1)
          for (uint64_t k = 0; k < n; ++k) storeAny(in.t, p, k, fn->data[(in.c >> 1) + k]);
        bufs_.push_back({p, counted});
        V[in.d] = View{p, n};
        break;
      }
      case kLoopBegin: {
        Bits cnt = R[in.a];
        R[in.d] = 0;
        R[in.d + 1] = 0;
        R[in.d + 2] = bufs_.size();
        bool any = isSigned(in.t) ? static_cast<int64_t>(cnt) > 0 : cnt != 0;
        ip = any ? ip + 1 : fn->code.data() + in.b;
        continue;
      }
      case kLoopEnd: {
        if (in.c) release(static_cast<size_t>(R[in.d + 2]));
        Bits i = R[in.d] + 1;  // the loop was entered, so the count is positive: compare unsigned
        R[in.d] = i;
        ip = i < R[in.a] && !R[in.d + 1] ? fn->code.data() + in.b : ip + 1;
        continue;
      }
      case kUntil: R[in.d] |= R[in.a]; break;
      case kGuard:
        if (!R[in.a]) CAIRN_TRAP(std::string(fn->src->body.text(nodeAt(*fn, ip))));
        break;
      case kPrint:
        if (in.t == DType::None) out_.write(reinterpret_cast<const char *>(V[in.a].p), static_cast<std::streamsize>(V[in.a].n));
        else if (in.t == DType::Bool) out_ << (R[in.a] ? "true" : "false");
        else out_ << bitsText(R[in.a], in.t);
        break;
      case kAlloc: {
        Bits h = 0;
        if (!alloc(fn->src->body, NodeId{in.c}, R[in.a], h, err)) CAIRN_TRAP(err);
        R[in.d] = h;
        break;
      }
      case kFree:
        if (!freeDeep(R[in.a], err)) {
          fail(*fn, ip, err, ModuleRunResult::Status::Error);
          r_.internal = true;
          goto done;
        }
        break;
      case kDeref: {
        Bits h = R[in.a];
        if (h == 0) {
          V[in.d] = View{};
          break;
        }
        Obj *ob = object(h);
        if (!ob || in.b >= ob->cols.size() ||
            (ob->cols[in.b].code == Graph::kOwnColumn ? in.t != DType::U64 : ob->cols[in.b].code != static_cast<int64_t>(in.t))) {
          fail(*fn, ip,
               !ob ? "use of a released heap object" : "deref of a column the object does not have",
               ModuleRunResult::Status::Error);
          r_.internal = true;
          goto done;
        }
        V[in.d] = View{ob->cols[in.b].p, ob->n};
        break;
      }
      case kCall: {
        const MFunc &cf = fns_[in.a];
        const uint32_t *args = fn->args.data() + in.b;
        argB.assign(in.c, 0);
        argV.assign(in.c, View{});
        argIsView.assign(in.c, 0);
        for (uint32_t k = 0; k < in.c; ++k) {
          if (args[k] & kViewArg) argV[k] = V[args[k] & ~kViewArg], argIsView[k] = 1;
          else argB[k] = R[args[k]];
        }
        if (cf.src->external) {
          out_.flush();
          Bits res = ext_.call(static_cast<int>(in.a), argB, argV, argIsView);
          std::fflush(stdout);
          if (in.d != kNoReg) R[in.d] = res;
          break;
        }
        if (frames_.size() >= o_.maxCallDepth) CAIRN_TRAP("stack overflow (call depth " + std::to_string(o_.maxCallDepth) + ")");
        Frame f{&cf, ip + 1, static_cast<uint32_t>(regs_.size()), static_cast<uint32_t>(views_.size()), in.d, bufs_.size()};
        regs_.insert(regs_.end(), cf.initRegs.begin(), cf.initRegs.end());
        views_.resize(views_.size() + cf.nviews);
        frames_.push_back(f);
        fn = &cf;
        R = regs_.data() + f.rbase;
        V = views_.data() + f.vbase;
        for (auto [k, reg] : cf.params) {
          if (reg & kViewArg) V[reg & ~kViewArg] = argV[k];
          else R[reg] = argB[k];
        }
        ip = cf.code.data();
        continue;
      }
      case kRet: {
        Bits val = in.a != kNoReg ? R[in.a] : 0;
        Frame f = frames_.back();
        frames_.pop_back();
        release(f.bufBase);
        if (frames_.empty()) {
          r_.value = static_cast<int32_t>(val);
          goto done;
        }
        regs_.resize(f.rbase);
        views_.resize(f.vbase);
        const Frame &c = frames_.back();
        fn = c.fn;
        R = regs_.data() + c.rbase;
        V = views_.data() + c.vbase;
        if (f.retReg != kNoReg) R[f.retReg] = val;
        ip = f.resume;
        continue;
      }
    }
    ++ip;
  }
done:
#undef CAIRN_TRAP
  r_.steps = steps;
  out_.flush();
}

}  // namespace

std::string missingExtern(const Module &m) {
  Externs ext;
  std::string missing;
  return ext.resolve(m, missing) ? std::string() : missing;
}

ModuleRunResult runModule(const Module &m, const ModuleFacts &facts, const ModuleRunOptions &opts) {
  ModuleRunResult r;
  int mainIdx = m.find("main");
  if (std::string why = moduleEntryError(m); !why.empty()) {
    r.status = ModuleRunResult::Status::Error;
    r.message = why;
    return r;
  }
  if (facts.funcs.size() != m.funcs.size()) {
    r.status = ModuleRunResult::Status::Error;
    r.message = "the module was not validated";
    r.internal = true;
    return r;
  }
  Externs ext;
  std::string missing;
  if (!ext.resolve(m, missing)) {
    r.status = ModuleRunResult::Status::Error;
    r.message = "extern symbol `" + missing + "` not found";
    return r;
  }
  try {
    std::vector<MFunc> fns = compileModule(m, facts);
    Machine mc(facts, fns, opts, r, ext);
    mc.run(mainIdx);
    r.leaked = mc.liveObjects();
  } catch (const std::bad_alloc &) {
    r.status = ModuleRunResult::Status::Trap;
    r.message = "out of memory";
  } catch (const std::length_error &) {
    r.status = ModuleRunResult::Status::Trap;
    r.message = "out of memory";
  }
  return r;
}

}  // namespace cairn
