// The one machine of exec/: the run-time state of one execution, of a flat
// graph or of a module, and the slow paths of the dispatch loop (buffers,
// limits, traps, frames, the heap, externs, tracing).
//
// Internal to exec/. The dispatch loop (interp.cpp) keeps the hot state in
// locals (instruction pointer, register and view files, buffer table, step
// count) and calls into Machine only off the fast path, through non-inlined
// functions, so the loop's registers are not spilled around them. A flat
// graph is a module of one function whose slot buffers the driver binds
// (prepare, collect); a module's functions call each other through frames
// (call, ret), allocate buffers on a stack and objects on a heap (heap.cpp).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "exec/block.hpp"
#include "exec/module_interp.hpp"
#include "exec/program.hpp"
#include "exec/zeroed.hpp"

namespace cairn::exec {

// A buffer at run time: its storage and element count. The table is sized
// once before the run, so the loop may hold a pointer to it.
struct BufRT {
  uint8_t *p = nullptr;
  uint64_t n = 0;
};

// Frames live in the register file itself. A frame is a header of
// kFrameHeader words and then the function's registers and one scratch
// register (Callee::span words); the caller's registers end where the
// callee's header begins, so a call finds the callee's window at R + the
// caller's stride, and a return finds the caller's at R - the delta its
// call wrote. Nothing in a header is a pointer into the files (they may
// move when they grow), so growing never rewrites a frame. Relative to a
// frame's R:
//   R[kResume]  the caller's next instruction; 0 in main's frame
//   R[kCaller]  the caller's Program (Machine::cur after the return)
//   R[kLink]    the caller's register that takes the result (low 32 bits)
//               | this frame's depth << 32 (main's is 1)
//   R[kShape]   this frame's stride (kFrameHeader + its span: where the
//               window of a call it makes starts, relative to R) | the
//               delta back to the caller's R << 32
//   R[kViews]   the caller's view base (an offset into the view file)  } heavy
//   R[kBufs]    the stack of buffers' size when the frame began        } only
// A light function (no views, no view parameters: isLight in
// exec/compile_module.cpp) neither
// moves the view file nor makes buffers, so its call writes only the
// first four words and its return (kRetL) reads only those.
constexpr ptrdiff_t kResume = -4, kCaller = -3, kLink = -2, kShape = -1, kViews = -6, kBufs = -5;
constexpr uint32_t kFrameHeader = 6;

// A heap object: `n` elements of each column (docs/uir.md, "alloc").
struct Obj {
  struct Col {
    int64_t code;  // a dtype, or Graph::kOwnColumn
    uint8_t *p;
  };
  uint32_t gen = 1;
  bool live = false;
  uint64_t n = 0;
  std::vector<Col> cols;
};

// A buffer of a module on the stack of allocations.
struct StackBuf {
  uint8_t *p;
  uint64_t elems;  // counted against maxElements (0: a frame buffer)
};

class Externs;

class Machine {
 public:
  // A flat graph.
  Machine(const Program &p, const RunOptions &o, RunResult &r);
  // `main` of a module: fns are its compiled functions.
  Machine(const std::vector<Program> &fns, int mainIdx, const ModuleRunOptions &mo, const RunOptions &o, RunResult &r,
          Externs &ext);
  ~Machine();
  Machine(const Machine &) = delete;
  Machine &operator=(const Machine &) = delete;

  // Checks --slot data and allocates the static buffers. False: the result
  // already holds the usage error or trap.
  bool prepare();
  // After a successful run: the slot buffers' contents, in slot order.
  void collect();

  bool failed() const { return r.status != RunResult::Status::Ok; }
  void trapAt(NodeId n, std::string msg);
  void trapAt(const Ins *ip, std::string msg) { trapAt(nodeAt(ip), std::move(msg)); }
  NodeId nodeAt(const Ins *ip) const { return cur->nodeOf[static_cast<size_t>(ip - cur->code.data())]; }
  // A trap at ip with `steps` counted so far. In a module the steps are
  // exact per instruction: a trap past the step limit is that limit's.
  // back: the trapping step is that many steps before the instruction's
  // last (a fused instruction's earlier part).
  void trap(const Ins *ip, uint64_t steps, std::string msg, RunResult::Status s = RunResult::Status::Trap,
            uint32_t back = 0);
  // The steps to report when the loop stops with `steps` counted.
  uint64_t finalSteps(uint64_t steps) const { return stepsSet_ ? stepsAt_ : steps; }

  // Slow paths; each returns normally, having set a trap when it failed.
  bool bufferDyn(const Ins *ip);
  // Called when steps reached the checkpoint: traps past a limit, else
  // returns the next checkpoint.
  uint64_t limits(const Ins *ip, uint64_t steps);
  void cshrinkTrap(const Ins *ip, Bits off, uint64_t parentElems);
  void oobTrap(const Ins *ip, uint64_t off);
  uint64_t firstCheckpoint() const;

  // ---- modules (heap.cpp) ----
  void start();  // main's frame
  void indexTrap(const Ins *ip, uint64_t steps, uint64_t off, uint64_t n, uint64_t size);
  void partTrap(const Ins *ip, uint64_t steps, uint64_t lo, uint64_t hi, uint64_t n);
  bool buffer(const Ins *ip, uint64_t steps, const Bits *R, View *V);
  void release(size_t mark);
  bool alloc(const Ins *ip, uint64_t steps, Bits *R);
  bool freeObj(const Ins *ip, uint64_t steps, const Bits *R);
  // deref: column b, dtype t, of object R[a] into `out`. The common case
  // inline: a live handle and a column of the dtype. A null handle gives an
  // empty view (an access through it then traps); false after a trap,
  // placed `back` steps before the instruction's last (a fused access's
  // deref: kV<Load|Store>Drf).
  [[gnu::always_inline]] bool derefView(const Ins *ip, uint64_t steps, const Bits *R, View &out, uint32_t back,
                                        uint32_t col) {
    const Bits h = R[ip->a];
    DerefHit &e = drf_[(h + col) & (kDerefHits - 1)];
    if (e.h == h && e.col == col && e.t == ip->t) {
      out = e.v;
      return true;
    }
    const uint64_t idx = h & 0xffffffffu;
    if (idx - 1 < objs_.size()) [[likely]] {  // 0 wraps past the end
      const Obj &ob = objs_[idx - 1];
      if (ob.live && ob.gen == (h >> 32) && col < ob.cols.size()) {
        const Obj::Col &c = ob.cols[col];
        if (c.code == Graph::kOwnColumn ? ip->t == static_cast<uint8_t>(DType::U64) : c.code == ip->t) {
          out = View{c.p, ob.n};
          e = DerefHit{h, col, ip->t, out};
          return true;
        }
      }
    }
    return derefSlow(ip, steps, h, out, back);
  }
  bool derefSlow(const Ins *ip, uint64_t steps, Bits h, View &out, uint32_t back);
  void print(const Ins *ip, const Bits *R, const View *V);
  // Calls and returns (frames: see kFrameHeader). Each form gives the next
  // instruction, having moved R (and V) to the new frame's files: passed by
  // reference into an inlined function, so the loop's R and V stay in
  // registers. The common cases stay inline in the dispatch loop:
  //   callLight  kCallL, a call of a light function;
  //   callHeavy  kCall, a call of any other function of the module;
  //   retLight   kRetL, a light function's return;
  //   retHeavy   kRet, any other function's return.
  // Each gives nullptr when it cannot run: past the depth limit, a file
  // that must grow, an extern (calls), main's frame, buffers to release
  // (returns). The loop then takes callSlow / retSlow, which give nullptr
  // after a trap or main's return, and leave the new frame's files in
  // frameR() and frameV().
  // A light callee that begins with an `if` on its parameters and
  // constants (Callee::Lead) has that compare decided here, when its steps
  // fit before the checkpoint (rem, the interpreter's steps left): the
  // frame starts past it, at the branch it takes (a false one past the
  // kIfNot of an `if c { return x; } rest`), with its count register set
  // and its steps counted; a true branch that only returns a parameter
  // or constant (`if n < 2 { return n; }`) makes no frame at all, and
  // counts the compare's, the copy's and the return's steps. Each is what
  // the callee's instructions would do, none of which can trap; the depth
  // check comes first, as for any call (the register file's room only
  // where a frame is made: a leaf makes none, and a file that must grow
  // is the slow path's business, not a trap). (lead: false in a trace,
  // which shows every instruction.)
  [[gnu::always_inline]] const Ins *callLight(const Ins *ip, Bits *&R, int64_t &rem, bool lead) {
    const Callee &ce = callees_[ip->a];
    const Bits link = R[kLink];
    const uint64_t stride = static_cast<uint32_t>(R[kShape]);
    if ((link >> 32) >= maxCallDepth_) [[unlikely]]
      return nullptr;
    // pastRegs is spelt out at each frame below: a `room` lambda in its
    // place measured +20% instructions on fib(25) (27.8M against 23.1M in
    // the dispatch loop, callgrind), R no longer held in a register.
    const Callee::Lead &ld = ce.lead;
    // Two near-copies of the same tail (leaf, true branch, false branch)
    // follow, one after each form of the compare. That is deliberate: one
    // shared tail after either compare measured +8.7% instructions on
    // fib(32) (752.6M against 692.7M, callgrind), the branch on the form
    // taken twice and the fast form's x reloaded.
    if (lead && ld.fast) [[likely]] {  // an integer compare of the call's b with a constant
      const Bits x = R[ip->b];
      if ((((x << ld.sh) ^ ld.flip) - ld.lo <= ld.span) != ld.neg) {
        if (ld.leafW && rem >= static_cast<int64_t>(ld.leafW)) {
          R[ip->d] = ld.src[2] == 0 ? x : ld.src[2] == 2 ? ld.k[2] : R[ip->c];
          rem -= static_cast<int64_t>(ld.leafW);
          return ip + 1;
        }
        if (rem >= static_cast<int64_t>(ld.w) && !pastRegs(R, stride + ce.span)) {
          R = enterLight(ce, ip, R, link, stride);
          R[ld.d] = 1;
          rem -= static_cast<int64_t>(ld.w);
          return nonNull(ce.code + 1);
        }
      } else if (rem >= static_cast<int64_t>(ld.falseW) && !pastRegs(R, stride + ce.span)) {
        R = enterLight(ce, ip, R, link, stride);
        R[ld.d] = 0;
        rem -= static_cast<int64_t>(ld.falseW);
        return nonNull(ce.code + ld.falseAt);
      }
    } else if (lead && ld.cmp) {
      // Each branch below checks that its own steps fit (leafW >= w and
      // falseW >= w); when none does, the frame starts at the compare.
      const Bits x = ld.src[0] == 2 ? ld.k[0] : R[ld.src[0] == 0 ? ip->b : ip->c];
      const Bits y = ld.src[1] == 2 ? ld.k[1] : R[ld.src[1] == 0 ? ip->b : ip->c];
      const Bits c = ld.cmp(x, y);
      if (c && ld.leafW && rem >= static_cast<int64_t>(ld.leafW)) {
        R[ip->d] = ld.src[2] == 2 ? ld.k[2] : R[ld.src[2] == 0 ? ip->b : ip->c];
        rem -= static_cast<int64_t>(ld.leafW);
        return ip + 1;
      }
      const uint32_t w = c ? ld.w : ld.falseW;
      if (rem >= static_cast<int64_t>(w) && !pastRegs(R, stride + ce.span)) {
        R = enterLight(ce, ip, R, link, stride);
        R[ld.d] = c;
        rem -= static_cast<int64_t>(w);
        return nonNull(ce.code + (c ? 1 : ld.falseAt));
      }
    }
    if (pastRegs(R, stride + ce.span)) [[unlikely]]
      return nullptr;
    R = enterLight(ce, ip, R, link, stride);
    return nonNull(ce.code);
  }
  [[gnu::always_inline]] const Ins *callHeavy(const Ins *ip, Bits *&R, View *&V) {
    const Callee &ce = callees_[ip->a];
    const Bits link = R[kLink];
    const uint64_t stride = static_cast<uint32_t>(R[kShape]);
    if ((link >> 32) >= maxCallDepth_ || pastRegs(R, stride + ce.span) || uint64_t{viewTop_} + ce.nviews > viewCap_)
        [[unlikely]]
      return nullptr;
    enterHeavy(ce, ip, R, V, link, stride);
    return nonNull(ce.code);
  }
  [[gnu::always_inline]] const Ins *retLight(const Ins *ip, Bits *&R) {
    const auto *resume = reinterpret_cast<const Ins *>(R[kResume]);
    if (!resume) [[unlikely]]
      return nullptr;
    leave(ip, R);
    return nonNull(resume);
  }
  [[gnu::always_inline]] const Ins *retHeavy(const Ins *ip, Bits *&R, View *&V) {
    const auto *resume = reinterpret_cast<const Ins *>(R[kResume]);
    if (!resume || stack_.size() > R[kBufs]) [[unlikely]]
      return nullptr;
    leaveViews(R, V);
    leave(ip, R);
    return nonNull(resume);
  }
  const Ins *callSlow(const Ins *ip, uint64_t steps, Bits *R, View *V);
  const Ins *retSlow(const Ins *ip, Bits *R, View *V);
  Bits *frameR() { return regs.data() + slowR_; }
  View *frameV() { return views.data() + slowV_; }
  uint64_t liveObjects() const;
  size_t stackMark() const { return stack_.size(); }

  const Program &p;        // the flat graph, or main
  const Program *cur;      // the running function
  const RunOptions &o;
  RunResult &r;
  std::vector<Bits> regs;
  std::vector<BufRT> bt;
  std::vector<View> views;
  LaneFile lanes;  // the lane-block tier's slots (flat graphs)
  ModuleLanes moduleLanes;  // and its loops of modules
  // The dispatch loop's step accounting off its hot path (interp.cpp): the
  // next checkpoint, and the base its count of steps left is taken from.
  uint64_t checkpoint = 0, stepBase = 0;
  // Counts the calls of freeDeep (the only way an object dies): a fused
  // deref's cache in the register file (exec/program.hpp, kVLoadDrf) holds
  // while it is unchanged.
  uint64_t derefEpoch = 1;

 private:
  // What a call needs of a function, in one record per function of the
  // module (callees_, built by start()): its program, code, initSet and
  // parameters, and its frame's size. An extern's span and nviews are too
  // large for any file, so the fast forms refuse its calls.
  struct Callee {
    const Program *p;
    const Ins *code;  // never null (the fast forms' callers rely on it)
    uint32_t span;    // its registers and one scratch register (the last)
    uint32_t stride;  // kFrameHeader + span: from its R to its callees' R
    uint32_t nviews;
    const std::pair<uint32_t, Bits> *init, *initEnd;
    const std::pair<uint32_t, uint32_t> *par, *parEnd;
    // A light call's parameter registers when it has at most two (kCallL:
    // their arguments are the call's b and c), an absent one the scratch
    // register; else preg[0] is kManyParams (the arguments: args[b ..)).
    uint32_t preg[2];
    // An initSet of at most 4 (small): its registers and values, the rest
    // of the 4 the scratch register (never read).
    bool small;
    uint32_t ireg[4];
    Bits ival[4];
    // The compare of a first instruction kIf<Cmp>_<T> (cmp; null: none, or
    // an operand that is neither a parameter of a call of at most two
    // arguments nor a constant of the initSet), found by leadOf: where each
    // operand comes from (src[0], src[1]), its count register d and steps
    // w; where its false branch goes on (falseAt, from code: past a kIfNot
    // on the count there, which the count's zero sends on to the next
    // instruction) and the steps to there (falseW: the kIfNot's included);
    // and when its true branch only returns a parameter or constant
    // (src[2]), the steps to the return included (leafW; 0: not so).
    struct Lead {
      Bits (*cmp)(Bits, Bits) = nullptr;
      uint8_t src[3] = {2, 2, 2};  // 0 the call's b, 1 its c, 2 the constant k
      Bits k[3] = {0, 0, 0};
      uint32_t d = 0, w = 0, falseW = 0, leafW = 0;
      int32_t falseAt = 0;
      // When the compare is of an integer dtype, between the call's b and a
      // constant (fast), callLight decides it without calling cmp: the key
      // (v << sh) ^ flip orders the dtype's values (the low 64 - sh bits of
      // a register) as unsigned words, and the compare holds exactly when
      // the key of b is in [lo, lo + span] (unsigned, wrapping), or when it
      // is not (neg: `!=`, and a compare that never holds).
      bool fast = false, neg = false;
      uint8_t sh = 0;
      Bits flip = 0, lo = 0, span = 0;
    } lead;
  };
  static Callee::Lead leadOf(const Program &f, const Callee &c);
  static void fastLead(Callee::Lead &ld, int which, DType dt);
  static constexpr uint32_t kManyParams = UINT32_MAX;
  // Tells the compiler what the loop's `if (next)` after a fast form need
  // not test again.
  [[gnu::always_inline]] static const Ins *nonNull(const Ins *ip) {
#if defined(__GNUC__) || defined(__clang__)
    if (!ip) __builtin_unreachable();
#endif
    return ip;
  }
  // True when `words` from R run past the register file. In addresses, not
  // pointers: R + words may lie past the end.
  [[gnu::always_inline]] bool pastRegs(const Bits *R, uint64_t words) const {
    return reinterpret_cast<uintptr_t>(R) + words * sizeof(Bits) > regEnd_;
  }
  // The first four words of the header of a frame at NR for the call at
  // ip, from a caller whose link and stride are given.
  [[gnu::always_inline]] void link(Bits *NR, const Callee &ce, const Ins *ip, Bits link, uint64_t stride) {
    NR[kResume] = reinterpret_cast<uintptr_t>(ip + 1);
    NR[kCaller] = reinterpret_cast<uintptr_t>(cur);
    NR[kLink] = ((link >> 32) + 1) << 32 | ip->d;
    NR[kShape] = ce.stride | stride << 32;
  }
  // A light function's frame above the caller's (room checked): its
  // header, its initSet, and each argument copied once, into its
  // parameter. Gives its R.
  [[gnu::always_inline]] Bits *enterLight(const Callee &ce, const Ins *ip, const Bits *R, Bits lk, uint64_t stride) {
    Bits *NR = const_cast<Bits *>(R) + stride;
    link(NR, ce, ip, lk, stride);
    setInitial(ce, NR);
    if (ce.preg[0] != kManyParams) [[likely]] {
      NR[ce.preg[0]] = R[ip->b];
      NR[ce.preg[1]] = R[ip->c];
    } else {
      const uint32_t *args = cur->args.data() + ip->b;
      for (const auto *q = ce.par; q != ce.parEnd; ++q) NR[q->second] = R[args[q->first]];
    }
    cur = ce.p;
    return NR;
  }
  // Any other function's frame (room checked in both files): the header's
  // six words, a view window above the views in use, and the arguments
  // (args[b .. b+c) of the caller) copied once. Moves R and V.
  [[gnu::always_inline]] void enterHeavy(const Callee &ce, const Ins *ip, Bits *&R, View *&V, Bits lk,
                                         uint64_t stride) {
    const uint32_t *args = cur->args.data() + ip->b;
    Bits *NR = R + stride;
    View *NV = viewData_ + viewTop_;
    link(NR, ce, ip, lk, stride);
    NR[kViews] = static_cast<Bits>(V - viewData_);
    NR[kBufs] = stack_.size();
    viewTop_ += static_cast<uint32_t>(ce.nviews);
    setInitial(ce, NR);
    for (uint64_t k = 0; k < ce.nviews; ++k) NV[k] = View{};
    for (const auto *q = ce.par; q != ce.parEnd; ++q) {
      const uint32_t k = q->first, reg = q->second;
      if (reg & kViewArg) NV[reg & ~kViewArg] = V[args[k] & ~kViewArg];
      else NR[reg] = R[args[k]];
    }
    cur = ce.p;
    R = NR;
    V = NV;
  }
  // A function's registers as a frame starts: its initSet. Every other
  // register is written before it is read. The sanitizer builds
  // (CAIRN_POISON_FRAMES) fill the rest with a pattern first, so a read
  // before a write changes results and fails the tests.
  [[gnu::always_inline]] static void setInitial(const Callee &ce, Bits *NR) {
#ifdef CAIRN_POISON_FRAMES
    std::fill_n(NR, ce.span, Bits{0xa5a5a5a5a5a5a5a5ull});
#endif
    if (ce.small) [[likely]] {  // most functions set a few: four stores, no loop
      NR[ce.ireg[0]] = ce.ival[0];
      NR[ce.ireg[1]] = ce.ival[1];
      NR[ce.ireg[2]] = ce.ival[2];
      NR[ce.ireg[3]] = ce.ival[3];
    } else {
      for (const auto *q = ce.init; q != ce.initEnd; ++q) NR[q->first] = q->second;
    }
  }
  // Pops a frame (not main's) at its `ret` ip: R moves back to the
  // caller's, which takes the value (a function without one returns its
  // scratch register into the caller's).
  [[gnu::always_inline]] void leave(const Ins *ip, Bits *&R) {
    const Bits val = R[ip->a];
    const Bits lk = R[kLink];
    cur = reinterpret_cast<const Program *>(R[kCaller]);
    R -= R[kShape] >> 32;
    R[static_cast<uint32_t>(lk)] = val;
  }
  // A heavy frame's view window is given back; V moves to the caller's.
  [[gnu::always_inline]] void leaveViews(const Bits *R, View *&V) {
    viewTop_ = static_cast<uint32_t>(V - viewData_);
    V = viewData_ + R[kViews];
  }
  bool allocate(uint32_t bi, uint64_t count, NodeId at);
  void fill(uint32_t bi, const std::vector<Bits> &vals);
  void moduleFail(size_t at, std::string msg, RunResult::Status s);
  void moduleFailAt(NodeId n, std::string msg, RunResult::Status s);
  bool reserve(uint64_t elems);
  std::string oom(uint64_t elems) const;
  Obj *object(Bits h);
  bool freeDeep(Bits h, std::string &err);

  // Flat buffers' storage: zeroedAlloc's (exec/zeroed.hpp), so a large
  // buffer's pages are mapped as they are first touched (as the emitted C's
  // are), not all at its start; 16-byte aligned.
  struct FreeStorage {
    void operator()(uint64_t *q) const { zeroedFree(q); }
  };
  std::vector<std::unique_ptr<uint64_t[], FreeStorage>> mem_;
  std::vector<std::vector<Bits>> slotVals_;  // --slot data per buffer, converted
  std::vector<uint8_t> hasSlotVals_;
  uint64_t total_ = 0;                       // elements of all live buffers (flat)
  std::chrono::steady_clock::time_point start_;
  bool stepsSet_ = false;
  uint64_t stepsAt_ = 0;

  // Modules.
  const std::vector<Program> *fns_ = nullptr;
  Externs *ext_ = nullptr;
  std::ostream *out_ = nullptr;
  uint32_t maxCallDepth_ = 0;
  // The views in use: the top of the heavy frames' windows (light frames
  // have none).
  uint32_t viewTop_ = 0;
  // The frame callSlow and retSlow leave the loop in (frameR, frameV), as
  // offsets into the files.
  size_t slowR_ = 0, slowV_ = 0;
  // What the fast forms read, kept by start() and callSlow: the functions,
  // and the files' ends.
  std::vector<Callee> callees_;
  static Callee calleeOf(const Program &f);
  uintptr_t regEnd_ = 0;  // the address past the register file
  uint64_t viewCap_ = 0;
  View *viewData_ = nullptr;  // views.data() as noteCaps saw it
  void noteCaps() {
    regEnd_ = reinterpret_cast<uintptr_t>(regs.data() + regs.size());
    viewCap_ = views.size();
    viewData_ = views.data();
  }
  std::vector<StackBuf> stack_;
  std::vector<Obj> objs_;
  // The derefs that succeeded lately (derefView), by handle, column and
  // dtype, in a small direct-mapped table: while an object lives its
  // columns and length never change, and freeDeep (the only way an object
  // dies) empties the table. An empty entry's handle is ~0, which is no
  // object's: a handle's index part is at most 2^32 - 2 (alloc).
  struct DerefHit {
    Bits h = ~Bits{0};
    uint32_t col = 0;
    uint32_t t = 0;
    View v;
  };
  static constexpr size_t kDerefHits = 4;
  DerefHit drf_[kDerefHits];
  std::vector<uint32_t> freeObjs_;
  uint64_t live_ = 0;  // live buffer and heap elements
  std::vector<Bits> argB_;
  std::vector<View> argV_;
  std::vector<uint8_t> argIsView_;
};

// Runs the machine from its first instruction to the halt, main's return
// or a trap (interp.cpp): the dispatch loop, traced when o.trace is set.
void runMachine(Machine &m);

// One line per executed step for --trace. step() is called as each
// instruction is dispatched: it finishes the line of the previous one (now
// executed, so its result is in its register) and prints the nodes without
// instructions that the schedule placed before the new one.
class Tracer {
 public:
  Tracer(const Machine &m, std::ostream *os) : m_(m), os_(os) {}
  void step(const Ins *ip);
  void end();  // after a normal halt

 private:
  void finish(const Ins *ins, const Ins *next);
  void printNode(NodeId n);
  Bits regValue(NodeId n) const;
  std::string where(NodeId view) const;  // `%b[3]` or `%b[2..6)`
  std::string head(NodeId n) const;      // `line L: `

  const Machine &m_;
  std::ostream *os_;
  const Ins *prev_ = nullptr;
  std::string line_;
};

}  // namespace cairn::exec
