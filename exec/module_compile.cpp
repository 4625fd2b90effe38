// Compiles a validated module's function bodies to MFunc instruction lists
// (exec/module_code.hpp), one pass over each body in id order.
//
// The text order is the run order (a module runs top to bottom), so no
// schedule is needed: a `range` opens a loop, its `end` closes it, and the
// body's instructions lie in between. Registers: one per node with a value;
// `carry` and `after` share their operand's view register (every version of
// a storage is that storage); a `const` is a constant register; a `reduce`
// is an accumulator set to its identity before the loop and combined at the
// end of every iteration. Events without effect at run time (store's
// successors, call_write, end's operands) compile to nothing.
#include <bit>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "exec/emit_module_c.hpp"
#include "exec/module_code.hpp"
#include "exec/program.hpp"
#include "exec/reduce.hpp"

namespace cairn::mexec {


namespace {

class FnCompiler {
 public:
  FnCompiler(const Module &m, const Function &fn, const Facts &f, MFunc &out) : m_(m), fn_(fn), g_(fn.body), f_(f), o_(out) {}

  void run() {
    const uint32_t n = g_.size();
    reg_.assign(n, kNoReg);
    reduces_.build(g_);  // the oracle validated the body: it cannot fail
    // A one-element shrink whose one user is a load or store of it fuses
    // into that access (kLoadIdx / kStoreIdx): one instruction, not two.
    std::vector<uint32_t> uses(n, 0);
    std::vector<NodeId> user(n, NodeId::none());
    for (uint32_t i = 0; i < n; ++i)
      for (Operand o : g_.operands(NodeId{i}))
        if (!o.isLit()) {
          ++uses[o.node().v];
          user[o.node().v] = NodeId{i};
        }
    fused_.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      NodeId s{i};
      Op op = g_.op(s);
      if ((op != Op::Shrink && op != Op::CShrink) || f_.elems[i] != 1 || uses[i] != 1) continue;
      NodeId u = user[i];
      if ((g_.op(u) == Op::Load || g_.op(u) == Op::Store) && !g_.operands(u)[0].isLit() && g_.operands(u)[0].node() == s)
        fused_[i] = 1;
    }
    for (uint32_t i = 0; i < n; ++i) node(NodeId{i});
    emit(kRet, NodeId::none());  // a body without `ret` returns nothing
    o_.nregs = static_cast<uint32_t>(o_.initRegs.size());
  }

 private:
  uint32_t newReg() {
    o_.initRegs.push_back(0);
    return static_cast<uint32_t>(o_.initRegs.size() - 1);
  }
  uint32_t newView() { return o_.nviews++; }
  uint32_t constReg(Bits v) {
    auto it = consts_.find(v);
    if (it != consts_.end()) return it->second;
    uint32_t r = newReg();
    o_.initRegs[r] = v;
    consts_.emplace(v, r);
    return r;
  }
  // Operand k of n as a scalar register; a literal takes dtype t.
  uint32_t sreg(NodeId n, size_t k, DType t) {
    Operand o = g_.operands(n)[k];
    if (o.isLit()) return constReg(literalBits(g_.literal(o.lit()), t).value_or(0));
    return reg_[o.node().v];
  }
  uint32_t vreg(NodeId n, size_t k) const { return reg_[g_.operands(n)[k].node().v]; }
  DType operandType(NodeId n, size_t first = 0) const {
    auto ops = g_.operands(n);
    for (size_t k = first; k < ops.size(); ++k)
      if (!ops[k].isLit()) return f_.type[ops[k].node().v];
    return DType::I64;
  }
  MIns &emit(MOp op, NodeId n, DType t = DType::None, uint32_t d = 0, uint32_t a = kNoReg, uint32_t b = 0, uint32_t c = 0) {
    o_.code.push_back(MIns{op, t, d, a, b, c});
    o_.nodeOf.push_back(n);
    return o_.code.back();
  }
  static uint32_t aluFn(Op op, DType t) { return static_cast<uint32_t>(exec::aluIndex(op)) * kNumDTypes + static_cast<uint32_t>(t); }

  void node(NodeId n) {
    Op op = g_.op(n);
    DType t = f_.type[n.v];
    auto ops = g_.operands(n);
    switch (op) {
      case Op::Param:
        reg_[n.v] = newReg();
        o_.params.push_back({static_cast<uint32_t>(g_.literal(ops[0].lit()).magnitude), reg_[n.v]});
        return;
      case Op::VParam:
        reg_[n.v] = newView();
        o_.params.push_back({static_cast<uint32_t>(g_.literal(ops[0].lit()).magnitude), reg_[n.v] | kViewArg});
        return;
      case Op::Const: reg_[n.v] = constReg(literalBits(g_.literal(ops[0].lit()), g_.dtype(n)).value_or(0)); return;
      case Op::After:
      case Op::Carry: reg_[n.v] = vreg(n, 0); return;
      case Op::Store: {
        NodeId v = ops[0].node();
        if (fused_[v.v]) {  // nodeOf is the shrink: a trap is about its bounds
          emit(kStoreIdx, v, f_.type[n.v], g_.op(v) == Op::CShrink ? 1 : 0, vreg(v, 0), sreg(n, 1, f_.type[n.v]),
               sreg(v, 1, DType::I64));
          return;
        }
        emit(kStore, n, f_.type[n.v], 0, vreg(n, 0), sreg(n, 1, f_.type[n.v]));
        return;
      }
      case Op::Load: {
        NodeId v = ops[0].node();
        if (fused_[v.v]) {
          emit(kLoadIdx, v, t, reg_[n.v] = newReg(), vreg(v, 0), sreg(v, 1, DType::I64), g_.op(v) == Op::CShrink ? 1 : 0);
          return;
        }
        emit(kLoad, n, t, reg_[n.v] = newReg(), vreg(n, 0));
        return;
      }
      case Op::Shrink:
      case Op::CShrink:
        if (fused_[n.v]) return;  // emitted with its load or store
        o_.sizes.push_back(static_cast<uint64_t>(f_.elems[n.v]));
        emit(kShrink, n, t, reg_[n.v] = newView(), vreg(n, 0), sreg(n, 1, DType::I64),
             static_cast<uint32_t>(o_.sizes.size() - 1));
        return;
      case Op::Buffer: {
        DType st = ops[0].isLit() ? DType::I64 : f_.type[ops[0].node().v];
        uint32_t c = (static_cast<uint32_t>(o_.data.size()) << 1) | (isSigned(st) ? 1 : 0);
        for (const Literal &l : g_.data(n)) o_.data.push_back(literalBits(l, g_.dtype(n)).value_or(0));
        emit(kBuffer, n, g_.dtype(n), reg_[n.v] = newView(), sreg(n, 0, DType::I64),
             (g_.hasData(n) ? 1 : 0) | (isFrameBuffer(g_, n) ? 2 : 0), c);
        if (!loops_.empty()) code(loops_.back().begin).c = 1;  // the loop releases it at the end of each iteration
        return;
      }
      case Op::Range: {
        uint32_t idx = newReg();
        newReg();  // idx + 1: the until flag
        newReg();  // idx + 2: the buffer mark
        reg_[n.v] = idx;
        reduces_.forEach(n, [&](NodeId r) {
          reg_[r.v] = newReg();
          emit(kMov, r, DType::None, reg_[r.v], constReg(reduceIdentity(g_.reduceOp(r), f_.type[r.v])));
        });
        DType ct = ops[0].isLit() ? DType::I64 : f_.type[ops[0].node().v];
        uint32_t cnt = sreg(n, 0, DType::I64);
        loops_.push_back({n, static_cast<uint32_t>(o_.code.size())});
        emit(kLoopBegin, n, ct, idx, cnt, 0, 0);
        return;
      }
      case Op::End: {
        NodeId r = ops[0].node();
        reduces_.forEach(r, [&](NodeId red) {
          Op rop = g_.reduceOp(red);
          uint32_t acc = reg_[red.v], val = reg_[g_.operands(red)[1].node().v];
          DType rt = f_.type[red.v];
          if (rop == Op::And) emit(kAnd, red, rt, acc, acc, val);
          else if (rop == Op::Or) emit(kOr, red, rt, acc, acc, val);
          else if (rop == Op::Xor) emit(kXor, red, rt, acc, acc, val);
          else emit(kAlu, red, rt, acc, acc, val, aluFn(rop, rt));
        });
        Loop l = loops_.back();
        loops_.pop_back();
        const MIns &b = code(l.begin);
        emit(kLoopEnd, n, b.t, b.d, b.a, l.begin + 1, b.c);
        code(l.begin).b = static_cast<uint32_t>(o_.code.size());
        return;
      }
      case Op::Reduce: return;  // the accumulator (see Range/End)
      case Op::Cast: {
        DType from = f_.type[ops[0].node().v];
        emit(kCast, n, t, reg_[n.v] = newReg(), reg_[ops[0].node().v], 0,
             static_cast<uint32_t>(from) * kNumDTypes + static_cast<uint32_t>(g_.dtype(n)));
        return;
      }
      case Op::Where: {
        DType vt = operandType(n, 1);
        emit(kWhere, n, vt, reg_[n.v] = newReg(), sreg(n, 0, DType::Bool), sreg(n, 1, vt), sreg(n, 2, vt));
        return;
      }
      case Op::And:
      case Op::Or:
      case Op::Xor: {
        DType ot = operandType(n);
        emit(op == Op::And ? kAnd : op == Op::Or ? kOr : kXor, n, ot, reg_[n.v] = newReg(), sreg(n, 0, ot), sreg(n, 1, ot));
        return;
      }
      case Op::Call: {
        int callee = m_.find(g_.text(n));
        const Function &cf = m_.funcs[static_cast<size_t>(callee)];
        uint32_t start = static_cast<uint32_t>(o_.args.size());
        for (size_t k = 0; k < ops.size(); ++k) {
          if (cf.sig.params[k].mode != ParamSig::Mode::Scalar) o_.args.push_back(vreg(n, k) | kViewArg);
          else o_.args.push_back(sreg(n, k, cf.sig.params[k].type));
        }
        uint32_t d = g_.dtype(n) != DType::None ? (reg_[n.v] = newReg()) : kNoReg;
        emit(kCall, n, g_.dtype(n), d, static_cast<uint32_t>(callee), start, static_cast<uint32_t>(ops.size()));
        return;
      }
      case Op::CallWrite: return;
      case Op::Ret: emit(kRet, n, fn_.sig.ret, 0, ops.empty() ? kNoReg : sreg(n, 0, fn_.sig.ret)); return;
      case Op::Until: emit(kUntil, n, DType::Bool, reg_[g_.parent(n).v] + 1, sreg(n, 0, DType::Bool)); return;
      case Op::Guard: emit(kGuard, n, DType::Bool, 0, sreg(n, 0, DType::Bool)); return;
      case Op::Len: emit(kLen, n, DType::U64, reg_[n.v] = newReg(), vreg(n, 0)); return;
      case Op::Part:
        emit(kPart, n, t, reg_[n.v] = newView(), vreg(n, 0), sreg(n, 1, DType::U64), sreg(n, 2, DType::U64));
        return;
      case Op::Alloc: emit(kAlloc, n, DType::U64, reg_[n.v] = newReg(), sreg(n, 0, DType::U64), 0, n.v); return;
      case Op::Free: emit(kFree, n, DType::U64, 0, sreg(n, 0, DType::U64)); return;
      case Op::Deref:
        emit(kDeref, n, g_.dtype(n), reg_[n.v] = newView(), sreg(n, 0, DType::U64),
             static_cast<uint32_t>(g_.literal(ops[1].lit()).magnitude));
        return;
      case Op::Print: {
        NodeId x = ops[0].node();
        if (f_.isView(x)) emit(kPrint, n, DType::None, 0, reg_[x.v]);
        else emit(kPrint, n, f_.type[x.v], 0, reg_[x.v]);
        return;
      }
      case Op::CheckedAdd:
      case Op::CheckedSub:
      case Op::CheckedMul:
      case Op::CheckedDiv:
      case Op::CheckedMod: {
        DType ot = operandType(n);
        uint32_t which = static_cast<uint32_t>(op) - static_cast<uint32_t>(Op::CheckedAdd);
        emit(kChecked, n, ot, reg_[n.v] = newReg(), sreg(n, 0, ot), sreg(n, 1, ot), which);
        return;
      }
      case Op::CheckedCast:
        emit(kCheckedCast, n, g_.dtype(n), reg_[n.v] = newReg(), reg_[ops[0].node().v], 0,
             static_cast<uint32_t>(f_.type[ops[0].node().v]));
        return;
      default: break;
    }
    if (exec::aluIndex(op) >= 0) {  // the per-dtype ALU ops
      DType ot = operandType(n);
      bool z = op == Op::Idiv || op == Op::Mod;
      emit(z ? kAluZ : kAlu, n, ot, reg_[n.v] = newReg(), sreg(n, 0, ot), ops.size() > 1 ? sreg(n, 1, ot) : sreg(n, 0, ot),
           aluFn(op, ot));
    }
  }

  MIns &code(uint32_t i) { return o_.code[i]; }

  struct Loop {
    NodeId range;
    uint32_t begin;
  };
  const Module &m_;
  const Function &fn_;
  const Graph &g_;
  const Facts &f_;
  MFunc &o_;
  std::vector<uint32_t> reg_;
  std::vector<uint8_t> fused_;  // per shrink: folded into its one load/store
  std::unordered_map<Bits, uint32_t> consts_;
  ReduceIndex reduces_;
  std::vector<Loop> loops_;
};

}  // namespace

std::vector<MFunc> compileModule(const Module &m, const ModuleFacts &facts) {
  std::vector<MFunc> out(m.funcs.size());
  for (size_t i = 0; i < m.funcs.size(); ++i) {
    out[i].src = &m.funcs[i];
    out[i].index = static_cast<int>(i);
    if (m.funcs[i].external) continue;
    FnCompiler(m, m.funcs[i], facts.funcs[i], out[i]).run();
  }
  return out;
}

}  // namespace cairn::mexec
