// The node-level half of the C back end (exec/emit_c*.cpp), shared with the
// CUDA back end (gpu/emit_cuda.cpp): each node of a validated graph as C
// statements in the current body (`line`), with buffers, offsets, scalars
// and local loops as exec/emit_c.cpp's header describes. A subclass walks
// the schedule and decides where the text goes (one kernel function for C;
// kernels, one-thread segments and host code for CUDA) and how a trap gets
// out of the code around it (trapCtx, afterTrap).
//
// Assumes a graph the oracle accepted, with its Facts and a Schedule of it;
// anything else it notices is an internal error (ir/check.hpp).
#pragma once
#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "exec/emit_c_impl.hpp"
#include "exec/first_write.hpp"
#include "exec/reduce.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"

namespace cairn::cemit {

class CWriter {
 public:
  CWriter(const Graph &g, const Facts &f, const Schedule &s, const EmitOptions &o, std::string &out)
      : g_(g), f_(f), s_(s), o_(o), out_(out) {}
  virtual ~CWriter() = default;

 protected:
  // The first argument of a trapping helper (cairn_idiv_*, cairn_rt_cshrink):
  // the C runtime's `rt`; the CUDA back end passes its lane record.
  virtual std::string trapCtx() const { return "rt"; }
  // Called right after the line of a node that may trap: C's helpers never
  // return from a trap (longjmp); CUDA's record it and return, so the
  // subclass writes the jump out of the lane here.
  virtual void afterTrap(NodeId) {}
  struct Buf {
    NodeId node;
    DType type;
    bool dynamic = false, negative = false;
    bool writtenFirst = false;  // exec/first_write.hpp: its storage need not be zeroed
    uint64_t size = 0;
  };

  // What the oracle's facts rule out: an internal error, reported at the
  // caller's line.
  [[noreturn]] void fail(const std::string &m, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    internalError(file, line, "cannot emit C for a validated graph: " + m);
  }
  std::string pct(NodeId n) const {
    std::string s = "%";
    s += g_.name(n);
    return s;
  }
  std::string v(NodeId n) const { return "v" + std::to_string(n.v); }
  std::string loc(NodeId n) const {
    return std::to_string(g_.loc(n).line) + ", " + std::to_string(g_.loc(n).col);
  }
  // A short comment naming the node's .uir line.
  std::string note(NodeId n) const {
    std::string t = nodeText(g_, n);
    if (t.size() > 100) t = t.substr(0, 97) + "...";
    for (size_t p; (p = t.find("*/")) != std::string::npos;) t.replace(p, 2, "* /");
    return " /* " + std::to_string(g_.loc(n).line) + ": " + t + " */";
  }
  void line(const std::string &text) {
    body_->append(static_cast<size_t>(depth_) * 2, ' ');
    *body_ += text;
    *body_ += '\n';
  }

  void collectBuffers() {
    std::vector<std::pair<int64_t, uint32_t>> slots;
    const std::vector<bool> writtenFirst = exec::buffersWrittenFirst(g_, f_);
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId n{i};
      if (g_.op(n) != Op::Buffer) continue;
      Buf b;
      b.node = n;
      b.type = g_.dtype(n);
      if (b.type == DType::None) fail(pct(n) + " has no dtype");
      auto ops = g_.operands(n);
      if (ops.size() != 1) return fail(pct(n) + " has no size");
      if (ops[0].isLit()) {
        const Literal &l = g_.literal(ops[0].lit());
        b.negative = l.kind == Literal::Kind::Int && l.negative;
        b.size = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
      } else {
        b.dynamic = true;
      }
      if (g_.hasData(n) && (b.dynamic || g_.data(n).size() != b.size)) fail("the data of " + pct(n) + " has the wrong count");
      b.writtenFirst = writtenFirst[i];
      bufOf_[i] = static_cast<uint32_t>(bufs_.size());
      if (g_.slot(n) >= 0) slots.push_back({g_.slot(n), bufOf_[i]});
      bufs_.push_back(b);
    }
    std::sort(slots.begin(), slots.end());
    for (auto [s, bi] : slots) slotOrder_.push_back(bi);
  }


  bool isParam(uint32_t bi) const { return !bufs_[bi].dynamic && g_.slot(bufs_[bi].node) >= 0; }
  std::string bufName(uint32_t bi) const { return "b" + std::to_string(bi); }
  // The element count of a whole buffer, as C.
  std::string bufCount(uint32_t bi) const {
    return bufs_[bi].dynamic ? bufName(bi) + "_n" : "UINT64_C(" + std::to_string(bufs_[bi].size) + ")";
  }
  uint32_t bufferOf(NodeId view) {
    NodeId s = f_.storage[view.v];
    uint32_t b = s.valid() && s.v < bufOf_.size() ? bufOf_[s.v] : UINT32_MAX;
    if (b == UINT32_MAX) fail(pct(view) + " has no buffer");
    return b == UINT32_MAX ? 0 : b;
  }

  DType typeOf(Operand o) const { return o.isLit() || !o.node().valid() ? DType::None : f_.type[o.node().v]; }
  // A scalar operand as C of dtype t.
  std::string scalar(Operand o, DType t) {
    if (o.isLit()) {
      auto b = literalBits(g_.literal(o.lit()), t);
      if (!b) fail("a literal does not fit " + std::string(dtypeName(t)));
      return cConst(b.value_or(0), t);
    }
    NodeId x = o.node();
    if (!x.valid() || x.v >= g_.size() || !done_[x.v] || expr_[x.v].empty()) {
      fail((x.valid() && x.v < g_.size() ? pct(x) : std::string("a value")) + " is used before it is computed");
      return "0";
    }
    return expr_[x.v];
  }
  // A view or version operand: its element offset, as C.
  std::string offset(Operand o) {
    if (o.isLit() || !o.node().valid() || !f_.isView(o.node())) {
      fail("a view operand is not a view");
      return "0";
    }
    if (f_.kind[o.node().v] == ResultKind::Version) return "0";
    return scalar(o, DType::I64);
  }
  void define(NodeId n, DType t, const std::string &value) {
    expr_[n.v] = v(n);
    line("const " + std::string(cType(t)) + " " + v(n) + " = " + value + ";" + note(n));
  }

  void node(NodeId n) {
    auto ops = g_.operands(n);
    Op op = g_.op(n);
    if (static_cast<int>(ops.size()) < opInfo(op).minArgs) return fail(pct(n) + " has too few operands");
    switch (op) {
      case Op::Buffer: return buffer(n, ops);
      case Op::After:
      case Op::Carry: expr_[n.v] = "0"; return;  // versions: the whole array, offset 0
      case Op::Shrink:
      case Op::CShrink: return shrink(n, ops);
      case Op::Load: {
        std::string off = access(n, ops[0], false);
        uint32_t bi = bufferOf(ops[0].node());
        return define(n, f_.type[n.v], bufName(bi) + "[" + off + "]");
      }
      case Op::Store: {
        std::string off = access(n, ops[0], true);
        uint32_t bi = bufferOf(ops[0].node());
        DType t = f_.type[ops[0].node().v];
        line(bufName(bi) + "[" + off + "] = " + scalar(ops[1], t) + ";" + note(n));
        return;
      }
      case Op::Range: return loopBegin(n, ops);
      case Op::End: return loopEnd(n);
      case Op::Reduce:
        if (expr_[n.v].empty()) fail("a reduce before its loop");
        return;
      case Op::Const: expr_[n.v] = scalar(ops[0], g_.dtype(n)); return;
      case Op::Cast: return cast(n, ops);
      case Op::Where: {
        if (ops.size() != 3) return fail("where needs 3 operands");
        DType t = f_.type[n.v];
        return define(n, t, scalar(ops[0], DType::Bool) + " ? " + scalar(ops[1], t) + " : " + scalar(ops[2], t));
      }
      default: return alu(n, ops, op);
    }
  }

  virtual void buffer(NodeId n, std::span<const Operand> ops) {
    uint32_t bi = bufOf_[n.v];
    if (bi == UINT32_MAX) return fail(pct(n) + " is not a buffer");
    const Buf &b = bufs_[bi];
    if (!b.dynamic) return;  // allocated before the run (parameter) or at the kernel's start
    DType st = typeOf(ops[0]);
    if (!isInteger(st)) return fail("the size of " + pct(n) + " is not an integer");
    std::string size = scalar(ops[0], st);
    std::string neg = isSigned(st) ? "(" + size + " < 0)" : "0";
    std::string count = isSigned(st) ? "(uint64_t)(int64_t)" + size : "(uint64_t)" + size;
    line(std::string(cType(b.type)) + " *restrict " + bufName(bi) + " = (" + cType(b.type) + " *)cairn_rt_alloc_dyn(rt, " +
         std::to_string(bi) + "u, " + count + ", " + neg + ");" + note(n));
    line("const uint64_t " + bufName(bi) + "_n = rt->bufs[" + std::to_string(bi) + "].n;");
    line("(void)" + bufName(bi) + "_n;");
  }

  void shrink(NodeId n, std::span<const Operand> ops) {
    std::string parent = offset(ops[0]);
    // The offset as a 64-bit value: sign- or zero-extended from its dtype
    // (exec/compile.cpp keeps registers in that normal form).
    DType ot = typeOf(ops[1]);
    std::string off;
    bool litOff = ops[1].isLit();
    int64_t litVal = 0;
    if (litOff) {
      const Literal &l = g_.literal(ops[1].lit());
      if (l.kind != Literal::Kind::Int) return fail("the offset of " + pct(n) + " is not an integer");
      litVal = static_cast<int64_t>(l.negative ? Bits{0} - l.magnitude : l.magnitude);
      ot = DType::I64;
      off = litVal == std::numeric_limits<int64_t>::min() ? "INT64_MIN" : "INT64_C(" + std::to_string(litVal) + ")";
    } else {
      if (!isInteger(ot)) return fail("the offset of " + pct(n) + " is not an integer");
      off = "(int64_t)" + scalar(ops[1], ot);
    }
    if (g_.op(n) == Op::CShrink) {
      NodeId pv = ops[0].node();
      uint64_t size = f_.elems[n.v] < 0 ? 0 : static_cast<uint64_t>(f_.elems[n.v]);
      std::string pn = f_.elems[pv.v] >= 0 ? "UINT64_C(" + std::to_string(f_.elems[pv.v]) + ")" : bufCount(bufferOf(pv));
      std::string bits = litOff ? "(uint64_t)" + off
                                : (isSigned(ot) ? "(uint64_t)(int64_t)" : "(uint64_t)") + scalar(ops[1], ot);
      define(n, DType::I64,
             addOffsets(parent, "cairn_rt_cshrink(" + trapCtx() + ", " + loc(n) + ", " + bits + ", " + (isSigned(ot) ? "1" : "0") +
                                    ", UINT64_C(" + std::to_string(size) + "), " + pn + ")"));
      return afterTrap(n);
    }
    // Proven in bounds: every offset is >= 0 and the sum stays inside the
    // buffer, so the int64 addition cannot overflow (addOffsets). Fold
    // constants (wrapping, as addOffsets does).
    bool parentConst = parent == "0" || parent == "INT64_MIN" || parent.rfind("INT64_C(", 0) == 0;
    if (parentConst && litOff) {
      int64_t p = parent == "0"           ? 0
                  : parent == "INT64_MIN" ? std::numeric_limits<int64_t>::min()
                                          : std::stoll(parent.substr(8));
      int64_t sum = static_cast<int64_t>(static_cast<uint64_t>(p) + static_cast<uint64_t>(litVal));
      expr_[n.v] = sum == 0                                     ? "0"
                   : sum == std::numeric_limits<int64_t>::min() ? "INT64_MIN"
                                                                : "INT64_C(" + std::to_string(sum) + ")";
      return;
    }
    if (parent == "0") return define(n, DType::I64, off);
    if (litOff && litVal == 0) {
      expr_[n.v] = parent;
      return;
    }
    define(n, DType::I64, addOffsets(parent, off));
  }

  // The offset of a load/store's view, checked when the options ask:
  // checkAccesses traps as the interpreter does (exit 1, at the access);
  // otherwise guardZones reports it as a bug (exit 3, at the buffer). Both
  // run before the access, so nothing outside a buffer is touched.
  std::string access(NodeId n, Operand view, bool write) {
    std::string off = offset(view);
    if (!o_.checkAccesses && !o_.guardZones) return off;
    uint32_t bi = bufferOf(view.node());
    if (o_.checkAccesses) return "cairn_rt_access(rt, " + loc(n) + ", " + std::to_string(bi) + "u, " + off + ")";
    return std::string(write ? "cairn_rt_guard_wr(rt, " : "cairn_rt_guard_rd(rt, ") + loc(n) + ", " +
           std::to_string(bi) + "u, " + off + ", " + bufCount(bi) + ")";
  }
  // Offsets are added in int64; a program the oracle proved in bounds never
  // overflows. When accesses are checked (which is for programs whose proof
  // may be wrong), the sum wraps instead: no signed overflow, whose undefined
  // behaviour could let the C compiler drop a check.
  std::string addOffsets(const std::string &a, const std::string &b) const {
    if (!o_.checkAccesses && !o_.guardZones) return a + " + " + b;
    return "(int64_t)((uint64_t)" + a + " + (uint64_t)" + b + ")";
  }

  void cast(NodeId n, std::span<const Operand> ops) {
    DType to = g_.dtype(n), from = typeOf(ops[0]);
    if (from == DType::None) {  // a literal: its own natural dtype (exec/compile.cpp)
      const Literal &l = g_.literal(ops[0].lit());
      from = l.kind == Literal::Kind::Float  ? DType::F64
             : l.kind == Literal::Kind::Bool ? DType::Bool
             : l.negative || l.magnitude <= INT64_MAX ? DType::I64
                                                       : DType::U64;
    }
    if (to == DType::None) return fail(pct(n) + " has no dtype");
    std::string x = scalar(ops[0], from);
    std::string value;
    if (to == DType::Bool) value = "(cairn_bool)(" + x + " != 0)";  // NaN != 0 is true
    else if (isFloat(to)) value = "(" + std::string(cType(to)) + ")" + x;  // rounds to nearest
    else if (isFloat(from)) value = "cairn_f2i_" + std::string(dtypeName(to)) + "((double)" + x + ")";
    else value = "(" + std::string(cType(to)) + ")" + x;  // wraps (the low bits)
    define(n, to, value);
  }

  void alu(NodeId n, std::span<const Operand> ops, Op op) {
    const OpInfo &info = opInfo(op);
    DType t = f_.type[n.v];
    if (info.is(opflag::B)) {
      t = typeOf(ops[0]);
      if (t == DType::None && ops.size() > 1) t = typeOf(ops[1]);
    }
    if (t == DType::None || !info.is(opflag::A)) return fail("op `" + std::string(info.name) + "` cannot be emitted here");
    std::string a = scalar(ops[0], t), b = ops.size() > 1 ? scalar(ops[1], t) : a;
    std::string e = aluExpr(op, t, a, b, trapCtx() + ", " + loc(n));
    if (e.empty()) return fail("op `" + std::string(info.name) + "` does not take " + std::string(dtypeName(t)));
    define(n, op == Op::Cmplt || op == Op::Cmpne || op == Op::Cmpeq ? DType::Bool : t, e);
    if (helperFor(op, t) == Helper::Trapping) afterTrap(n);
  }

  // A reduce's combining step, as C assigning to `acc`.
  std::string combine(Op rop, DType t, const std::string &acc, const std::string &x) {
    std::string s = combineStmt(rop, t, acc, x);
    if (s.empty()) fail("a reduce with op `" + std::string(opInfo(rop).name) + "`");
    return s;
  }

  void loopBegin(NodeId n, std::span<const Operand> ops) {
    reduces_.forEach(n, [&](NodeId r) {
      DType t = f_.type[r.v];
      if (t == DType::None) return fail(pct(r) + " has no dtype");
      expr_[r.v] = v(r);
      line(std::string(cType(t)) + " " + v(r) + " = " + cConst(reduceIdentity(g_.reduceOp(r), t), t) + ";" + note(r));
    });
    // The index has the count's dtype (i64 for a literal). The interpreter
    // runs a signed count only when it is > 0 and compares the index
    // unsigned; with 0 <= i < count both agree with C's `<`.
    expr_[n.v] = v(n);
    if (ops[0].isLit()) {
      const Literal &l = g_.literal(ops[0].lit());
      uint64_t count = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
      if (count > static_cast<uint64_t>(INT64_MAX)) {  // counted unsigned, as the interpreter does
        line("for (uint64_t " + v(n) + "_u = 0; " + v(n) + "_u < UINT64_C(" + std::to_string(count) + "); ++" + v(n) +
             "_u) {" + note(n));
        ++depth_;
        line("const int64_t " + v(n) + " = (int64_t)" + v(n) + "_u;");
      } else {
        line("for (int64_t " + v(n) + " = 0; " + v(n) + " < INT64_C(" + std::to_string(count) + "); ++" + v(n) + ") {" +
             note(n));
        ++depth_;
      }
    } else {
      DType t = typeOf(ops[0]);
      if (!isInteger(t)) return fail("the count of " + pct(n) + " is not an integer");
      std::string count = scalar(ops[0], t);
      line("for (" + std::string(cType(t)) + " " + v(n) + " = 0; " + v(n) + " < " + count + "; ++" + v(n) + ") {" + note(n));
      ++depth_;
    }
    loops_.push_back(n);
  }

  void loopEnd(NodeId n) {
    if (loops_.empty()) return fail("an end outside any loop");
    NodeId range = loops_.back();
    loops_.pop_back();
    reduces_.forEach(range, [&](NodeId r) {
      auto rops = g_.operands(r);
      DType t = f_.type[r.v];
      line(combine(g_.reduceOp(r), t, v(r), scalar(rops[1], t)) + note(r));
    });
    --depth_;
    line("}" + note(n));
  }

  // The data arrays, the kernel, its entry and the program descriptor.

  // Per-node tables, the buffers and the reduce index: before any node.
  void prepare() {
    const uint32_t n = g_.size();
    CAIRN_CHECK(f_.kind.size() == n && f_.type.size() == n && f_.storage.size() == n && f_.elems.size() == n &&
                    s_.order.size() == n,
                "emit: the facts or the schedule do not match the graph (was it validated?)");
    expr_.assign(n, std::string());
    done_.assign(n, 0);
    bufOf_.assign(n, UINT32_MAX);
    collectBuffers();
    if (const char *why = reduces_.build(g_)) fail(why);
  }

  // The buffers' data arrays (PREFIX_dataK), for the buffer table.
  void writeData() {
    const std::string &P = o_.prefix;
    std::string &o = out_;
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi) {
      NodeId n = bufs_[bi].node;
      if (!g_.hasData(n) || g_.data(n).empty()) continue;
      DType t = bufs_[bi].type;
      o += "static const " + std::string(cType(t)) + " " + P + "_data" + std::to_string(bi) + "[" +
           std::to_string(g_.data(n).size()) + "] = {";
      size_t k = 0;
      for (const Literal &l : g_.data(n)) {
        o += k % 8 == 0 ? "\n  " : " ";
        o += cConst(literalBits(l, t).value_or(0), t) + ",";
        ++k;
      }
      o += "\n};\n";
    }
  }
  // The buffer table, the slot order and PREFIX_prog, whose entry is
  // PREFIX_entry.
  void writeTables() {
    const std::string &P = o_.prefix;
    std::string &o = out_;
    // The buffer table (C has no empty arrays: a placeholder when none).
    o += "static const cairn_rt_bufdesc " + P + "_bufs[] = {\n";
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi) {
      const Buf &b = bufs_[bi];
      NodeId n = b.node;
      bool data = g_.hasData(n) && !g_.data(n).empty();
      o += "  {" + cString(pct(n)) + ", " + loc(n) + ", " + rtDType(b.type) + ", INT64_C(" + std::to_string(g_.slot(n)) +
           "), " + (b.dynamic ? "1" : "0") + ", " + (b.negative ? "1" : "0") + ", UINT64_C(" + std::to_string(b.size) +
           "), " + (data ? P + "_data" + std::to_string(bi) : std::string("NULL")) + ", " +
           (b.writtenFirst ? "1" : "0") + "},\n";
    }
    if (bufs_.empty()) o += "  {\"\", 0, 0, 0, -1, 0, 0, 0, NULL, 0},\n";
    o += "};\nstatic const uint32_t " + P + "_slots[] = {";
    for (uint32_t bi : slotOrder_) o += std::to_string(bi) + "u, ";
    if (slotOrder_.empty()) o += "0u";
    unsigned guard = o_.guardZones ? (std::max(o_.guardBytes, 1u) + 15u) / 16u * 16u : 0u;
    o += "};\nstatic CAIRN_RT_UNUSED const cairn_rt_prog " + P + "_prog = {" + cString(o_.sourceName) + ", " +
         std::to_string(bufs_.size()) + "u, " + P + "_bufs, " + P + "_slots, " + std::to_string(slotOrder_.size()) +
         "u, " + std::to_string(guard) + "u, " + P + "_entry};\n";
  }

  const Graph &g_;
  const Facts &f_;
  const Schedule &s_;
  const EmitOptions &o_;
  std::string &out_;
  std::string *body_ = nullptr;
  int depth_ = 1;
  std::vector<std::string> expr_;  // per node: its C (a local, a constant, an offset)
  std::vector<uint8_t> done_;
  std::vector<uint32_t> bufOf_;
  std::vector<Buf> bufs_;
  std::vector<uint32_t> slotOrder_;
  ReduceIndex reduces_;
  std::vector<NodeId> loops_;
};

}  // namespace cairn::cemit
