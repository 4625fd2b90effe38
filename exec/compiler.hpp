// The one compiler of exec/: a function body, its oracle facts and an order
// to the bytecode of exec/program.hpp.
//
// Internal to exec/. A flat graph is a module of one function whose slot
// buffers the driver binds: it is compiled in the flat scheduler's order
// (runFlat, compile.cpp), views are offsets into a static buffer table, and
// nodes with no run-time effect emit nothing. A module function is compiled
// in text order (runModule, compile_module.cpp), views are pointer+length
// registers, and every node keeps the instruction count the module engine
// has always had (so --max-steps trips at the same instructions). Both share
// the register file, constants, emission, reduces and loop closing, and the
// step weights (Ins::w) of the counting instructions.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/program.hpp"
#include "ir/check.hpp"
#include "exec/promote.hpp"
#include "exec/proven.hpp"
#include "exec/reduce.hpp"

namespace cairn::exec {

class Compiler {
 public:
  Compiler(const Graph &g, const Facts &f, Program &p) : g_(g), f_(f), p_(p) {}

  // A flat graph, in the schedule's order (null: the source order).
  void runFlat(const std::vector<NodeId> *order);
  // Function `fn` of module m, in text order; optimize: promotion and
  // fusion (ModuleRunOptions::optimize).
  void runModule(const Module &m, const Function &fn, bool optimize = true);

 private:
  // What the oracle's facts rule out: an internal error (ir/check.hpp),
  // reported at the caller's line.
  [[noreturn]] void fail(const std::string &m, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    internalError(file, line, "cannot compile a validated graph: " + m);
  }

  // ---- registers ----
  uint32_t newReg() { return p_.nregs++; }
  uint32_t newView() { return p_.nviews++; }
  uint32_t constReg(Bits v);
  bool isConst(uint32_t r) const { return constVal_.count(r) != 0; }
  Bits constVal(uint32_t r) const { return constVal_.at(r); }
  // Program::initSet from the constants and the frame's other initial
  // registers (startRegs_), in register order.
  void finishInitSet();

  // ---- emission ----
  // Every instruction is one step, at node n (modules: recorded in
  // Program::stepNodes, so a trap or the step limit is exact per step).
  uint32_t emit(uint32_t op, NodeId n, uint32_t d = 0, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    p_.code.push_back(Ins{static_cast<uint16_t>(op), 0, 0, d, a, b, c, 0});
    p_.nodeOf.push_back(n);
    step(n);
    if (fn_) p_.stepEnd.push_back(static_cast<uint32_t>(p_.stepNodes.size()));
    if (fn_) owner_.push_back(cur_);
    return static_cast<uint32_t>(p_.code.size() - 1);
  }
  // A step at node n without an instruction (modules: an op that scalar
  // promotion made free still counts, so --max-steps does not change).
  void step(NodeId n) {
    ++steps_;
    if (fn_) p_.stepNodes.push_back(n);
  }
  // Drops the last instruction (a fusion took its place), keeping its
  // steps: the next joinStep or control counts them.
  void popIns() {
    p_.code.pop_back();
    p_.nodeOf.pop_back();
    if (fn_) p_.stepEnd.pop_back();
    if (fn_) owner_.pop_back();
  }
  // Modules: node n's step joins the last instruction (a fused one), which
  // n now owns.
  void joinStep(NodeId n) {
    step(n);
    p_.stepEnd.back() = static_cast<uint32_t>(p_.stepNodes.size());
    owner_.back() = n;
  }
  uint32_t emitT(uint32_t op, DType t, NodeId n, uint32_t d = 0, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    uint32_t k = emit(op, n, d, a, b, c);
    p_.code[k].t = static_cast<uint8_t>(t);
    return k;
  }
  // Closes the straight-line stretch at counting instruction k: its weight.
  void control(uint32_t k) {
    p_.code[k].w = steps_ - segSteps_;
    segSteps_ = steps_;
  }
  void silent(NodeId n) {
    if (!p_.traceable) return;
    p_.silent.push_back(n);
    p_.silentAt.push_back(static_cast<uint32_t>(p_.code.size()));
  }
  uint32_t reduceOpc(Op rop, DType t) const;
  // The relative jumps (c) of a loop's first and last instructions, from
  // their absolute targets (b), so the dispatch loop needs no code base.
  void jumps(uint32_t begin, uint32_t end) {
    p_.code[begin].c = p_.code[begin].b - begin;
    p_.code[end].c = p_.code[end].b - end;
  }

  // ---- flat graphs (compile.cpp) ----
  uint32_t scalar(Operand o, DType t);
  uint32_t view(Operand o);
  uint32_t bufferOf(NodeId v);
  uint32_t bufIndex(NodeId buffer) const;  // its index in Program::bufs, or kNoReg
  DType typeOf(Operand o) const { return o.isLit() ? DType::None : f_.type[o.node().v]; }
  DType scalarType(DType t) {
    if (t == DType::None) fail("a value without a dtype");
    return t == DType::None ? DType::I64 : t;
  }
  void collectBuffers();
  void node(NodeId n);
  bool divByConstant(NodeId n, bool div, DType t, uint32_t dst, uint32_t a, uint32_t b);
  void alu(NodeId n, std::span<const Operand> ops);
  void shrink(NodeId n, std::span<const Operand> ops);
  void loopBegin(NodeId n, std::span<const Operand> ops);
  void loopEnd(NodeId n);

  // ---- module functions (compile_module.cpp) ----
  void findFused();
  uint32_t sreg(NodeId n, size_t k, DType t);
  uint32_t vreg(NodeId n, size_t k) const { return p_.regOf[g_.operands(n)[k].node().v]; }
  DType operandType(NodeId n, size_t first = 0) const;
  void mnode(NodeId n);
  void mop(NodeId n);
  bool mmemory(NodeId n);
  bool mcontrol(NodeId n);
  bool mheap(NodeId n);
  void mloopEnd(NodeId n);
  void mov(NodeId n, uint32_t d, uint32_t a);
  bool mcell(NodeId n);
  void intoCell(NodeId n);
  bool inCell(NodeId x) const;
  bool fuseMulAdd(NodeId n, bool checked, DType t, uint32_t a, uint32_t b);
  bool fuseUntil(NodeId n);
  bool knownZero(Operand o) const;
  bool checkedIndex(NodeId v) const;
  void markLoops();
  bool boolCount(NodeId r) const;
  uint32_t ifBegin(NodeId n, uint32_t cnt);
  bool ifNot(NodeId n, uint32_t cnt);
  bool fuseLe(NodeId n, uint32_t cnt);
  void ifEnd(NodeId n, uint32_t begin, NodeId range);
  void fuseWhileEnd(uint32_t end, uint32_t begin);
  void threadIfEnds();
  void markScans();
  bool fuseMovLoopEnd(uint32_t end, uint32_t begin);
  bool fuseMulAddLoopEnd(uint32_t end, uint32_t begin);
  bool fuseAddMov2LoopEnd(uint32_t at, uint32_t begin);
  bool fuseAccess(NodeId n, NodeId v, bool load);
  bool fuseDeref(NodeId n, NodeId v, bool load);
  bool fuseLoad2(NodeId n, NodeId v);
  bool indexOfAccess(NodeId n) const;
  bool fuseAddWhileEnd(uint32_t end, uint32_t begin);

  struct Loop {
    NodeId range;
    uint32_t begin;  // index of the loop's first instruction
    uint32_t count;  // register of N (flat graphs)
    bool until = false;  // an `until` ends it early (modules)
    bool ifForm = false; // 0 or 1 iterations: kIfBegin/kIf<Cmp> .. kIfEnd (modules)
  };

  const Graph &g_;
  const Facts &f_;
  Program &p_;
  const Module *m_ = nullptr;
  const Function *fn_ = nullptr;
  std::vector<Loop> loops_;
  std::vector<uint8_t> fused_;   // per shrink: folded into its one load/store (modules)
  std::unordered_map<Bits, uint32_t> consts_;    // value -> its register
  std::unordered_map<uint32_t, Bits> constVal_;  // and back
  ReduceIndex reduces_;
  uint32_t zero_ = 0;
  uint32_t steps_ = 0;     // steps emitted so far
  uint32_t segSteps_ = 0;  // steps_ at the end of the last counting instruction
  // Scalar promotion (modules, promote.hpp): the plan, each cell's
  // register, and the values computed straight into a cell.
  bool optimize_ = false;
  std::unique_ptr<IndexProofs> proofs_;  // set when optimizing
  CellPlan cells_;
  std::vector<uint32_t> uses_;     // per node: operand uses (modules)
  std::vector<NodeId> user_;       // per node: its last user (modules; the one user of a node of one use)
  std::vector<uint8_t> valueRead_; // per node: an operand of a node other than `end`
  NodeId cur_;                     // the node being compiled (modules)
  std::vector<NodeId> owner_;      // per instruction: the node that emitted it (modules)
  std::vector<uint32_t> cellReg_;
  std::vector<uint8_t> intoCell_;
  // Per range (optimizing): kUntilIn, an `until` in its body; kBufferIn, a
  // buffer (not a promoted cell) directly in its body, released each time.
  enum : uint8_t { kUntilIn = 1, kBufferIn = 2 };
  std::vector<uint8_t> loopFlags_;
  // Registers a frame starts with, and their values: if-loop indices and
  // fused derefs' caches (0), top-level cells (their initial value).
  std::vector<std::pair<uint32_t, Bits>> startRegs_;
};

}  // namespace cairn::exec
