// The C back end for modules (exec/emit_module_c.hpp): one C function per
// module function, written in one pass over each body in id order, which
// is the text order a module runs in (docs/uir.md, "Running a module").
//
// Mapping (each mirrors a case of exec/compile_module.cpp and the machine):
//   param, vparam      the C parameter `aK` (a scalar, or a `cairn_view`)
//   scalar ops         `const T vN = ...;` through the runtime's helpers
//                      (cairn_<op>_<dtype>, the flat back end's, bit-exact)
//   after, carry,      the view they name: every version of a storage is
//   call_write, end    that storage, written in place
//   buffer             a frame buffer (isFrameBuffer): a zeroed C array,
//                      unless the function's frame buffers take more than
//                      kStackFrameBytes (10000 frames must fit the stack):
//                      then, like any other buffer, calloc'ed on the
//                      runtime's stack of buffers, but not counted
//   shrink / part      a sub-view; checked_shrink and part check first,
//                      unless exec/proven.hpp proves the index in bounds
//   checked ops,       through the runtime's checking helpers, unless
//   checked_cast       exec/proven.hpp proves they cannot trap: then the
//                      plain op or cast
//   load / store       `*(T *)V.p`
//   range ... end      a `for` over the count; the body's buffers released
//                      at the end of each iteration; `until` sets a flag
//                      tested there; reduce accumulators before the loop.
//                      A count that is a bool cast (an `if`, a `while`'s
//                      test): a C `if` whose index is 0. A simple loop
//                      (straight-line code, ifs of it, nothing that traps
//                      or calls): strip-mined (stripMine) so that gcc -O2
//                      vectorizes it, unless a mutable scalar carries a
//                      value other than a reduction across its iterations
//                      (carriesRecurrence), which no vectorizer takes
//   deref              cairn_m_deref, through a per-site cache of the last
//                      handle, forgotten at every free and call
//   call               a direct call between cairn_m_enter (the depth
//                      check) and the depth's decrement; externs a direct
//                      call of a prototype named with __asm__("SYMBOL")
//   ret                release the function's buffers, return
// Regions (the function, each loop body) are written into their own
// strings and wrapped when they close, so a loop without buffers or `until`
// gets no bookkeeping at all.
//
// The values (derefs, casts, arithmetic) are emit_module_c_values.cpp.
//
// Assumes `facts` came from validateModule on this module; anything it
// does not expect fails the emission with a message.
#include "exec/emit_module_c.hpp"
#include "exec/emit_module_c_impl.hpp"
#include "exec/emit_module_c_fn.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

#include "exec/emit_c.hpp"
#include "exec/emit_c_impl.hpp"
#include "exec/proven.hpp"
#include "exec/reduce.hpp"
#include "ir/printer.hpp"

namespace cairn::memit {

using cemit::cConst;
using cemit::cString;
using cemit::cType;
using cemit::aluExpr;
using cemit::combineStmt;
using cemit::rtDType;


void FnEmitter::node(NodeId n) {
  auto ops = g_.operands(n);
  Op op = g_.op(n);
  DType t = f_.type[n.v];
  // A loop body stays `simple` (strip-mined by loopEnd) while it holds only
  // these; alu and shrink clear it themselves when they may trap.
  if (regions_.size() > 1) switch (op) {
      case Op::Param:
      case Op::VParam:
      case Op::Const:
      case Op::After:
      case Op::Carry:
      case Op::CallWrite:
      case Op::Reduce:
      case Op::Store:
      case Op::Load:
      case Op::Shrink:
      case Op::CShrink:
      case Op::Cast:
      case Op::Where:
      case Op::Len:
      case Op::Range:  // loopEnd decides
      case Op::End: break;
      case Op::Deref: {
        NodeId cell;
        if (!hoistableDeref(n, cell)) regions_.back().simple = false;
        break;
      }
      default:
        if (!opInfo(op).is(opflag::A) && !proofs_.cannotTrap(n)) regions_.back().simple = false;
    }
  switch (op) {
    case Op::Param:
    case Op::VParam: expr_[n.v] = "a" + std::to_string(g_.literal(ops[0].lit()).magnitude); return;
    case Op::Const: expr_[n.v] = scalar(ops[0], g_.dtype(n)); return;
    case Op::After:
    case Op::Carry:
      if (!cellVar(n).empty()) return;  // a promoted cell's versions are its variable
      expr_[n.v] = view(ops[0]);
      return;
    case Op::CallWrite:
    case Op::Reduce: return;  // nothing at run time; the accumulator (loopBegin)
    case Op::Store: {
      DType et = f_.type[ops[0].node().v];
      if (std::string c = cellVar(n); !c.empty()) return line(c + " = " + scalar(ops[1], et) + ";");
      line(elem(view(ops[0]), et) + " = " + scalar(ops[1], et) + ";");
      return;
    }
    case Op::Load:
      if (std::string c = cellVar(n); !c.empty()) return define(n, t, c);  // a copy: later stores change c
      // A bool byte is read as 0 or 1, as the interpreter reads it: an
      // extern may have written any byte into a bool view.
      if (t == DType::Bool) return define(n, t, "(cairn_bool)(*(const uint8_t *)" + view(ops[0]) + ".p != 0)");
      return define(n, t, elem(view(ops[0]), t));
    case Op::Shrink:
    case Op::CShrink: return shrink(n);
    case Op::Buffer: return buffer(n);
    case Op::Range: return loopBegin(n);
    case Op::End: return loopEnd(n);
    case Op::Cast: return cast(n);
    case Op::Where: {
      DType vt = operandType(n, 1);
      return define(n, vt, scalar(ops[0], DType::Bool) + " ? " + scalar(ops[1], vt) + " : " + scalar(ops[2], vt));
    }
    case Op::Call: return call(n);
    case Op::Ret: {
      Region &top = regions_.front();
      std::string value = ops.empty() ? "" : scalar(ops[0], fn_.sig.ret);
      if (!value.empty() && top.dyn) {
        line("const " + std::string(cType(fn_.sig.ret)) + " result = " + value + ";");
        value = "result";
      }
      if (std::string r = release(top, "mark"); !r.empty()) line(r);
      line(value.empty() ? "return;" : "return " + value + ";");
      returned_ = true;
      return;
    }
    case Op::Until: {
      if (regions_.size() < 2) return fail("until outside a loop");
      regions_.back().until = true;
      line("u" + std::to_string(regions_.back().range.v) + " |= " + scalar(ops[0], DType::Bool) + ";");
      return;
    }
    case Op::Guard:
      line("if (!" + scalar(ops[0], DType::Bool) + ") cairn_m_guard_fail(rt, " + site(n) + ", " + cString(g_.text(n)) + ", " +
           std::to_string(g_.text(n).size()) + "u);");
      return;
    case Op::Len: return define(n, DType::U64, view(ops[0]) + ".n");
    case Op::Part:
      return defineView(n, "cairn_m_part(rt, " + site(n) + ", " + view(ops[0]) + ", " + scalar(ops[1], DType::U64) + ", " +
                               scalar(ops[2], DType::U64) + ", " + esize(t) + ")");
    case Op::Alloc: {
      std::string cols = o_.prefix + "_cols" + std::to_string(k_) + "_" + std::to_string(n.v);
      std::string codes;
      for (int64_t c : g_.dims(n)) codes += (codes.empty() ? "" : ", ") + (c == Graph::kOwnColumn ? std::string("CAIRN_OWN") : rtDType(static_cast<DType>(c)));
      statics_ += "static const int8_t " + cols + "[] = {" + (codes.empty() ? "0" : codes) + "};\n";
      return define(n, DType::U64, "cairn_m_alloc(rt, " + site(n) + ", " + scalar(ops[0], DType::U64) + ", " + cols + ", " +
                                       std::to_string(g_.dims(n).size()) + "u)");
    }
    case Op::Free:
      line("cairn_m_free(rt, " + scalar(ops[0], DType::U64) + ");");
      line(resetMarker());
      return;
    case Op::Deref: return deref(n);
    case Op::Print: {
      NodeId x = ops[0].node();
      if (f_.isView(x)) line("cairn_m_print_bytes(rt, " + view(ops[0]) + ");");
      else line("cairn_m_print(rt, " + rtDType(f_.type[x.v]) + ", &(" + cType(f_.type[x.v]) + "){" + scalar(ops[0], f_.type[x.v]) + "});");
      return;
    }
    case Op::CheckedAdd:
    case Op::CheckedSub:
    case Op::CheckedMul:
    case Op::CheckedDiv:
    case Op::CheckedMod: {
      static const char *const kName[] = {"cadd", "csub", "cmul", "cdiv", "cmod"};
      DType ot = operandType(n);
      if (!isInteger(ot) || ot == DType::Bool) return fail("checked arithmetic on " + std::string(dtypeName(ot)));
      int which = static_cast<int>(op) - static_cast<int>(Op::CheckedAdd);
      if (proofs_.cannotTrap(n)) return uncheckedArith(n, op, ot);
      return define(n, ot, "cairn_" + std::string(kName[which]) + "_" + std::string(dtypeName(ot)) + "(rt, " + site(n) + ", " +
                               scalar(ops[0], ot) + ", " + scalar(ops[1], ot) + ")");
    }
    case Op::CheckedCast: return checkedCast(n);
    default: return alu(n, op);
  }
}

void FnEmitter::buffer(NodeId n) {
  auto ops = g_.operands(n);
  DType t = g_.dtype(n);
  Region &r = regions_.back();
  std::string data;
  if (g_.hasData(n)) {
    for (const Literal &l : g_.data(n)) data += (data.empty() ? "" : ", ") + cConst(literalBits(l, t).value_or(0), t);
  }
  if (ops[0].isLit()) {
    const Literal &l = g_.literal(ops[0].lit());
    uint64_t count = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
    if (l.kind == Literal::Kind::Int && l.negative) {
      r.dyn = true;
      return defineView(n, "cairn_m_buffer(rt, " + site(n) + ", " + cConst(literalBits(l, DType::I64).value_or(0), DType::U64) +
                               ", 1, " + esize(t) + ", NULL)");
    }
    if (std::string c = cellVar(n); !c.empty()) {  // a promoted cell: one variable, not a view
      return line(std::string(cType(t)) + " " + c + " = " + (data.empty() ? cConst(0, t) : data) + ";");
    }
    if (isFrameBuffer(g_, n) && !framesOnStack_) {
      std::string init = "NULL";
      if (!data.empty()) {
        init = o_.prefix + "_data" + std::to_string(k_) + "_" + std::to_string(n.v);
        statics_ += "static const " + std::string(cType(t)) + " " + init + "[] = {" + data + "};\n";
      }
      r.dyn = true;
      return defineView(n, "cairn_m_frame_heap(rt, " + site(n) + ", UINT64_C(" + std::to_string(count) + "), " + esize(t) +
                               ", " + init + ")");
    }
    if (isFrameBuffer(g_, n)) {
      line(std::string(cType(t)) + " " + v(n) + "_s[" + std::to_string(count) + "] = {" + (data.empty() ? "0" : data) + "};");
      return defineView(n, "cairn_m_frame(" + v(n) + "_s, UINT64_C(" + std::to_string(count) + "))");
    }
  }
  std::string init = "NULL";
  if (!data.empty()) {
    std::string name = o_.prefix + "_data" + std::to_string(k_) + "_" + std::to_string(n.v);
    statics_ += "static const " + std::string(cType(t)) + " " + name + "[] = {" + data + "};\n";
    init = name;
  }
  r.dyn = true;
  DType st = ops[0].isLit() ? DType::I64 : typeOf(ops[0]);
  if (!isInteger(st)) return fail("a buffer size is not an integer");
  std::string size = scalar(ops[0], st);
  std::string neg = isSigned(st) ? "(" + size + " < 0)" : "0";
  defineView(n, "cairn_m_buffer(rt, " + site(n) + ", (uint64_t)" + (isSigned(st) ? "(int64_t)" : "") + size + ", " + neg + ", " +
                    esize(t) + ", " + init + ")");
}

void FnEmitter::shrink(NodeId n) {
  if (!cellVar(n).empty()) return;  // a promoted cell's element: its variable
  auto ops = g_.operands(n);
  DType t = f_.type[n.v];
  auto [off, sgn] = index(ops[1]);
  std::string size = "UINT64_C(" + std::to_string(f_.elems[n.v] < 0 ? 0 : f_.elems[n.v]) + ")";
  if ((g_.op(n) == Op::CShrink && !proofs_.proven(n)) || o_.checkAccesses) {
    regions_.back().simple = false;
    return defineView(n, "cairn_m_csub(rt, " + site(n) + ", " + view(ops[0]) + ", " + off + ", " + (sgn ? "1" : "0") + ", " +
                             size + ", " + esize(t) + ")");
  }
  defineView(n, "cairn_m_sub(" + view(ops[0]) + ", " + off + ", " + size + ", " + esize(t) + ")");
}

void FnEmitter::loopBegin(NodeId n) {
  reduces_.forEach(n, [&](NodeId r) {
    DType t = f_.type[r.v];
    expr_[r.v] = v(r);
    line(std::string(cType(t)) + " " + v(r) + " = " + cConst(reduceIdentity(g_.reduceOp(r), t), t) + ";");
  });
  auto ops = g_.operands(n);
  std::string head, count, countType;
  bool whileCount = false;
  if (ops[0].isLit()) {
    const Literal &l = g_.literal(ops[0].lit());
    uint64_t count = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
    std::string ct = count > static_cast<uint64_t>(INT64_MAX) ? "uint64_t" : "int64_t";
    head = "for (" + ct + " " + v(n) + " = 0; " + v(n) + " < (" + ct + ")UINT64_C(" + std::to_string(count) + "); ++" + v(n) + ")";
    whileCount = count == UINT64_MAX;
  } else {
    DType ct = typeOf(ops[0]);
    if (!isInteger(ct)) return fail("a loop count is not an integer");
    count = scalar(ops[0], ct);
    countType = cType(ct);
    const NodeId c = ops[0].node();
    if (g_.op(c) == Op::Const && !g_.operands(c).empty() && g_.operands(c)[0].isLit()) {
      const Literal &l = g_.literal(g_.operands(c)[0].lit());
      whileCount = ct == DType::U64 && l.kind == Literal::Kind::Int && !l.negative && l.magnitude == UINT64_MAX;
    }
    head = "for (" + countType + " " + v(n) + " = 0; " + v(n) + " < " + count + "; ++" + v(n) + ")";
  }
  expr_[n.v] = v(n);
  Region r;
  r.range = n;
  r.head = head;
  r.whileCount = whileCount;
  // A bool made a count (CAIRN's `if` and a `while`'s test): 0 or 1
  // trips, so a C `if` whose index is 0. Strip-mined (a count kept): a
  // count that is a value other than that (gcc sees a literal one itself).
  r.ifShape = !ops[0].isLit() && g_.op(ops[0].node()) == Op::Cast && typeOf(g_.operands(ops[0].node())[0]) == DType::Bool;
  if (r.ifShape) r.head = "if (" + count + ")";
  else r.count = count;
  r.countType = countType;
  if (regions_.size() == 1) outerKey_ = ++nextKey_;  // an outermost region
  regions_.push_back(std::move(r));
}

void FnEmitter::loopEnd(NodeId n) {
  if (regions_.size() < 2) return fail("an end outside any loop");
  NodeId range = g_.operands(n)[0].node();
  reduces_.forEach(range, [&](NodeId r) {
    DType t = f_.type[r.v];
    line(combine(g_.reduceOp(r), t, v(r), scalar(g_.operands(r)[1], t)));
  });
  Region body = std::move(regions_.back());
  regions_.pop_back();
  if (regions_.size() == 1) outerKey_ = 0;
  placeHoisted(body);
  const std::string id = std::to_string(range.v);
  // The loop around it stays simple only if this is a simple `if`.
  if (!body.ifShape || !body.simple || body.dyn || body.until) regions_.back().simple = false;
  if (!body.ifShape || body.inner) regions_.back().inner = true;
  if (stripMine(body, n, id)) return;
  const bool block = body.dyn || body.until;  // the loop needs a mark or a flag around it
  std::string pad(padWidth(), ' '), in = block ? pad + "  " : pad;
  std::string o;
  if (block) o += pad + "{\n";
  if (body.dyn) o += in + "const size_t mark" + id + " = rt->m->nbufs;\n";
  if (body.until) o += in + "cairn_bool u" + id + " = 0;\n";
  // A `while` (an until, the largest count) with no loop inside: unrolled
  // by 4, its counter, which only the 2^64-1st iteration would reach, is
  // tested once per four iterations instead of each (the sieve's inner
  // loop: 8 instructions an iteration, 5 unrolled). Not around another
  // loop, whose code would be copied 4 times per level.
  if (body.until && body.whileCount && !body.inner) o += in + "CAIRN_RT_UNROLL4\n";
  o += in + body.head + " {\n";
  if (body.ifShape) o += in + "  const " + body.countType + " v" + id + " = 0;\n" + in + "  (void)v" + id + ";\n";
  // The body's lines are indented for its depth; one level more in a block.
  if (!block) {
    o += body.text;
  } else {
    for (size_t p = 0; p < body.text.size();) {
      size_t e = body.text.find('\n', p);
      o += "  ";
      o.append(body.text, p, e - p + 1);
      p = e + 1;
    }
  }
  if (std::string rel = release(body, "mark" + id); !rel.empty()) o += in + "  " + rel + "\n";
  if (body.until && !body.ifShape) o += in + "  if (u" + id + ") break;\n";  // an `if` ends anyway
  o += in + "}\n";
  if (block) o += pad + "}\n";
  regions_.back().text += o;
}

// A simple loop: strip-mined (emit_module_c_unit.cpp stripMinedLoop) when
// its count is a value other than a bool's, its body is short, and nothing
// in it keeps gcc from vectorizing it: a recurrence (strip-mined, `a = b;
// b = t` ran 18% slower) or a 64-bit multiply or division.
bool FnEmitter::stripMine(const Region &body, NodeId end, const std::string &id) {
  if (!body.simple || body.dyn || body.until || body.count.empty() || o_.checkAccesses) return false;
  if (static_cast<size_t>(std::count(body.text.begin(), body.text.end(), '\n')) > kStripLines) return false;
  if (carriesRecurrence(g_, f_, proofs_.cells(), body.range, end) || multipliesWide(g_, f_, body.range, end)) return false;
  regions_.back().text += stripMinedLoop(std::string(padWidth(), ' '), id, body.countType, body.count, body.text);
  return true;
}

void FnEmitter::call(NodeId n) {
  auto ops = g_.operands(n);
  int callee = m_.find(g_.text(n));
  if (callee < 0) return fail("a call of an unknown function");
  const Function &cf = m_.funcs[static_cast<size_t>(callee)];
  if (cf.sig.params.size() != ops.size()) return fail("a call with the wrong number of arguments");
  std::string args;
  for (size_t k = 0; k < ops.size(); ++k) {
    const ParamSig &ps = cf.sig.params[k];
    std::string a;
    if (ps.mode == ParamSig::Mode::Scalar) a = scalar(ops[k], ps.type);
    else a = cf.external ? "(" + std::string(ps.mode == ParamSig::Mode::Ro ? "const " : "") + cType(ps.type) + " *)" + view(ops[k]) + ".p"
                         : view(ops[k]);
    args += (k || !cf.external ? ", " : "") + a;
  }
  DType rt = g_.dtype(n);
  std::string target = cf.external ? o_.prefix + "_x" + std::to_string(callee) + "(" + args + ")"
                                   : fnName(o_.prefix, static_cast<size_t>(callee)) + "(rt, depth + 1" + args + ")";
  if (cf.external) {
    line("fflush(rt->out);");  // the interpreter flushes its output before an extern runs
    if (rt == DType::None) return line(target + ";");
    if (rt == DType::Bool) return define(n, rt, "(cairn_bool)(" + target + " != 0)");
    return define(n, rt, target);
  }
  // The depth is a parameter (frames on the stack, main's 1), so counting
  // it costs a register, not a memory update around every call.
  line("if (depth >= CAIRN_M_MAX_DEPTH) cairn_m_overflow(rt, " + site(n) + ");");
  if (rt == DType::None) line(target + ";");
  else define(n, rt, target);
  line(resetMarker());
}


bool emitFunction(const Module &m, size_t k, const Facts &f, const ModuleEmitOptions &o, Sites &sites, std::string &statics,
                  std::string &out, std::string &error) {
  return FnEmitter(m, k, f, o, sites, statics).run(out, error);
}

}  // namespace cairn::memit
