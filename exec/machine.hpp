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

namespace cairn::exec {

// A buffer at run time: its storage and element count. The table is sized
// once before the run, so the loop may hold a pointer to it.
struct BufRT {
  uint8_t *p = nullptr;
  uint64_t n = 0;
};

struct Frame {
  const Program *fn;
  const Ins *resume;  // the caller's next instruction
  uint32_t rbase, vbase;
  uint32_t retReg;    // in the caller's file
  size_t bufBase;
};

// The call stack: storage that only grows, and the frames in use (push
// and pop stay inline in the dispatch loop).
class FrameStack {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  bool full() const { return n_ == v_.size(); }
  Frame &back() { return v_[n_ - 1]; }
  void push(const Frame &f) {
    if (full()) grow();
    pushRoom(f);
  }
  size_t capacity() const { return v_.size(); }
  void pushRoom(const Frame &f) { v_[n_++] = f; }  // !full()
  void grow() { v_.resize(std::max<size_t>(16, 2 * v_.size())); }
  void pop() { --n_; }

 private:
  std::vector<Frame> v_;
  size_t n_ = 0;
};

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
  // The next instruction after a call or a return, or nullptr: a trap, or
  // main returned. The loop then takes the new frame's files (frameR,
  // frameV). R and V are the caller's files.
  //
  // The common cases stay inline in the dispatch loop (callFast, retFast):
  // they return nullptr when they cannot run, and the loop then takes
  // callSlow / retSlow. A call is fast for a function of the module whose
  // frame fits the files and the frame stack as they are (externs, the
  // depth limit and growth are slow); a return for a function that is not
  // main and has no frame buffers left to release. The fast forms set R
  // and V to the new frame's files themselves: passed by reference into an
  // inlined function, so the loop's R and V stay in registers.
  [[gnu::always_inline]] const Ins *callFast(const Ins *ip, Bits *&R, View *&V) {
    const Callee &ce = callees_[ip->a];
    if (frames_.size() >= depthCap_ || uint64_t{regTop_} + ce.nregs > regCap_ ||
        uint64_t{viewTop_} + ce.nviews > viewCap_) [[unlikely]]
      return nullptr;
    Bits *NR = regData_ + regTop_;
    View *NV = viewData_ + viewTop_;
    const Ins *start = enter(ce, ip, R, V);
    R = NR;
    V = NV;
    return start;
  }
  [[gnu::always_inline]] const Ins *retFast(const Ins *ip, Bits *&R, View *&V) {
    const Frame &f = frames_.back();
    if (frames_.size() < 2 || stack_.size() > f.bufBase) [[unlikely]]
      return nullptr;
    const Ins *resume = leave(ip, R);
    const Frame &c = frames_.back();
    R = regData_ + c.rbase;
    V = viewData_ + c.vbase;
    return resume;
  }
  // Any call the fast form refused (also updates the capacities below).
  const Ins *callSlow(const Ins *ip, uint64_t steps, Bits *R, View *V);
  const Ins *retSlow(const Ins *ip, const Bits *R);
  Bits *frameR() { return regs.data() + frames_.back().rbase; }
  View *frameV() { return views.data() + frames_.back().vbase; }
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
  // parameters, and its frame's size. callFast checks nregs and nviews,
  // which for an extern are too large for any file, so its calls are slow.
  struct Callee {
    const Program *p;
    const Ins *code;
    const std::pair<uint32_t, Bits> *init, *initEnd;
    const std::pair<uint32_t, uint32_t> *par, *parEnd;
    uint64_t nregs, nviews;  // nregs: the frame's registers and one scratch register
    bool scalars;  // no views and no view parameters: arguments are plain copies
    // An initSet of at most 4 (small): its registers and values, the rest
    // of the 4 the scratch register (the last of the frame, never read).
    bool small;
    uint32_t ireg[4];
    Bits ival[4];
  };
  // Pushes ce's frame on top of the files (which have room for it) for the
  // call at ip, from the caller's files R and V. Only its initSet is
  // written (its constants and its `if`s' index registers that are read):
  // every other register is written before it is read (see setInitial).
  // Each argument is copied once, into its parameter.
  [[gnu::always_inline]] const Ins *enter(const Callee &ce, const Ins *ip, const Bits *R, const View *V) {
    const uint32_t *args = cur->args.data() + ip->b;
    Bits *NR = regData_ + regTop_;
    View *NV = viewData_ + viewTop_;
    frames_.pushRoom(Frame{ce.p, ip + 1, regTop_, viewTop_, ip->d, stack_.size()});
    regTop_ += static_cast<uint32_t>(ce.nregs);
    viewTop_ += static_cast<uint32_t>(ce.nviews);
    setInitial(ce, NR);
    if (ce.scalars && ce.parEnd - ce.par == 1) {
      NR[ce.par->second] = R[args[ce.par->first]];
    } else if (ce.scalars) {
      for (const auto *q = ce.par; q != ce.parEnd; ++q) NR[q->second] = R[args[q->first]];
    } else {
      for (uint64_t k = 0; k < ce.nviews; ++k) NV[k] = View{};
      for (const auto *q = ce.par; q != ce.parEnd; ++q) {
        const uint32_t k = q->first, reg = q->second;
        if (reg & kViewArg) NV[reg & ~kViewArg] = V[args[k] & ~kViewArg];
        else NR[reg] = R[args[k]];
      }
    }
    cur = ce.p;
    return ce.code;
  }
  // A function's registers as a frame starts: its initSet. The sanitizer
  // builds (CAIRN_POISON_FRAMES) fill the rest with a pattern first, so a
  // read before a write changes results and fails the tests.
  [[gnu::always_inline]] static void setInitial(const Callee &ce, Bits *NR) {
#ifdef CAIRN_POISON_FRAMES
    std::fill_n(NR, ce.nregs, Bits{0xa5a5a5a5a5a5a5a5ull});
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
  // Pops a function's frame (not main's; no frame buffers left) at its
  // `ret` ip, and passes its value to the caller.
  [[gnu::always_inline]] const Ins *leave(const Ins *ip, const Bits *R) {
    const Frame &f = frames_.back();
    const Bits val = ip->a != kNoReg ? R[ip->a] : 0;
    const Ins *resume = f.resume;
    const uint32_t rr = f.retReg;
    regTop_ = f.rbase;
    viewTop_ = f.vbase;
    frames_.pop();
    const Frame &c = frames_.back();
    cur = c.fn;
    if (rr != kNoReg) regData_[c.rbase + rr] = val;
    return resume;
  }
  bool allocate(uint32_t bi, uint64_t count, NodeId at);
  void fill(uint32_t bi, const std::vector<Bits> &vals);
  void moduleFail(size_t at, std::string msg, RunResult::Status s);
  void moduleFailAt(NodeId n, std::string msg, RunResult::Status s);
  bool reserve(uint64_t elems);
  std::string oom(uint64_t elems) const;
  Obj *object(Bits h);
  bool freeDeep(Bits h, std::string &err);

  // Flat buffers' storage: zeroed by calloc, so a large buffer's pages are
  // mapped as they are first touched (as the emitted C's are), not all at
  // its start; 8-byte aligned.
  struct FreeStorage {
    void operator()(uint64_t *q) const { std::free(q); }
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
  FrameStack frames_;
  uint32_t regTop_ = 0, viewTop_ = 0;  // the files in use (regs, views may be longer)
  // What callFast checks, kept by start() and callSlow: the functions, the
  // files' sizes, and the frames the stack may hold without growing or
  // passing the depth limit.
  std::vector<Callee> callees_;
  static Callee calleeOf(const Program &f);
  uint64_t regCap_ = 0, viewCap_ = 0;
  size_t depthCap_ = 0;
  Bits *regData_ = nullptr;  // regs.data() and views.data() as noteCaps saw them
  View *viewData_ = nullptr;
  void noteCaps() {
    regCap_ = regs.size();
    viewCap_ = views.size();
    regData_ = regs.data();
    viewData_ = views.data();
    depthCap_ = std::min<size_t>(maxCallDepth_, frames_.capacity());
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
