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
// Assumes `facts` came from validateModule on this module; anything it
// does not expect fails the emission with a message.
#include "exec/emit_module_c.hpp"
#include "exec/emit_module_c_impl.hpp"

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

namespace {

class FnEmitter {
 public:
  FnEmitter(const Module &m, size_t index, const Facts &f, const ModuleEmitOptions &o, Sites &sites, std::string &statics)
      : m_(m), k_(index), fn_(m.funcs[index]), g_(fn_.body), f_(f), o_(o), sites_(sites), statics_(statics) {}

  bool run(std::string &out, std::string &error) {
    const uint32_t n = g_.size();
    if (f_.type.size() != n || f_.kind.size() != n || f_.elems.size() != n) {
      error = "the facts do not match function `" + fn_.name + "` (was the module validated?)";
      return false;
    }
    expr_.assign(n, std::string());
    // The C stack holds 10000 frames (main's thread has 1 GiB): a function
    // whose frame buffers take more than kStackFrameBytes in all keeps them
    // on the heap instead (still not counted against maxElements).
    uint64_t frameBytes = 0;
    for (uint32_t i = 0; i < n; ++i)
      if (isFrameBuffer(g_, NodeId{i}))
        frameBytes += g_.literal(g_.operands(NodeId{i})[0].lit()).magnitude * dtypeBytes(g_.dtype(NodeId{i}));
    framesOnStack_ = frameBytes <= kStackFrameBytes;
    if (const char *why = reduces_.build(g_)) fail(why);
    regions_.push_back(Region{});
    for (uint32_t i = 0; i < n && error_.empty(); ++i) node(NodeId{i});
    if (error_.empty() && regions_.size() != 1) fail("a loop is not closed");
    if (!error_.empty()) {
      error = "function `" + fn_.name + "`: " + error_;
      return false;
    }
    Region &top = regions_.back();
    out += prototype(m_, k_, o_.prefix) + " {\n";
    if (top.dyn) out += "  const size_t mark = rt->m->nbufs;\n";
    out += cache_;
    // Each kReset line forgets the deref caches (none: the line goes).
    std::string reset;
    for (const std::string &c : caches_) reset += c + " = ";
    if (!reset.empty()) reset += "0;";
    for (size_t p; (p = top.text.find(kReset)) != std::string::npos;) {
      size_t b = top.text.rfind('\n', p), e = top.text.find('\n', p);
      if (reset.empty()) top.text.erase(b == std::string::npos ? 0 : b + 1, e - (b == std::string::npos ? 0 : b + 1) + 1);
      else top.text.replace(p, std::strlen(kReset), reset);
    }
    out += top.text;
    if (!returned_) out += "  " + release(top, "mark") + "\n";
    out += "}\n\n";
    return true;
  }

 private:
  struct Region {
    std::string text;
    NodeId range = NodeId::none();
    std::string head;         // a loop's `for (...)`
    bool dyn = false;         // it calloc's buffers
    bool until = false;
    // Strip-mining (loopEnd): the count and its C type, and whether the
    // body is straight-line code that cannot trap or call (`simple`).
    std::string count, countType;
    bool simple = true;
    bool ifShape = false;  // 0 or 1 trips: emitted as an `if`
    // Derefs of a handle no iteration changes (hoistableDeref): their check
    // for before the loop (`pre`, kept if the body ends up simple), and per
    // marker line in the body the check to put back there if not.
    std::string pre;
    std::vector<std::pair<std::string, std::string>> hoisted;
  };

  void fail(std::string m) {
    if (error_.empty()) error_ = std::move(m);
  }
  std::string v(NodeId n) const { return "v" + std::to_string(n.v); }
  void line(const std::string &text) {
    Region &r = regions_.back();
    r.text.append(regions_.size() * 2, ' ');
    r.text += text;
    r.text += '\n';
  }
  std::string site(NodeId n) {
    Origin where = n.v < fn_.origin.size() ? fn_.origin[n.v] : Origin{0, g_.loc(n)};
    const std::string &file =
        where.file < m_.files.size() && !m_.files[where.file].empty() ? m_.files[where.file] : o_.sourceName;
    return std::to_string(sites_.add(file, where.loc, fn_.name)) + "u";
  }
  DType typeOf(Operand o) const { return o.isLit() ? DType::None : f_.type[o.node().v]; }
  DType operandType(NodeId n, size_t first = 0) const {
    auto ops = g_.operands(n);
    for (size_t k = first; k < ops.size(); ++k)
      if (!ops[k].isLit()) return f_.type[ops[k].node().v];
    return DType::I64;
  }
  // A scalar operand as C of dtype t (a literal takes t).
  std::string scalar(Operand o, DType t) {
    if (o.isLit()) {
      auto b = literalBits(g_.literal(o.lit()), t);
      if (!b) fail("a literal does not fit " + std::string(dtypeName(t)));
      return cConst(b.value_or(0), t);
    }
    const std::string &e = expr_[o.node().v];
    if (e.empty()) fail("%" + std::string(g_.name(o.node())) + " is used before it is computed");
    return e.empty() ? "0" : e;
  }
  std::string view(Operand o) {
    if (o.isLit() || !f_.isView(o.node())) {
      fail("a view operand is not a view");
      return "v_none";
    }
    return scalar(o, DType::None);
  }
  // An index operand as uint64_t in the interpreter's normal form, and
  // whether it is signed (for the trap's text).
  std::pair<std::string, bool> index(Operand o) {
    if (o.isLit()) return {scalar(o, DType::U64), false};
    DType t = typeOf(o);
    if (!isInteger(t)) fail("an index is not an integer");
    return {(isSigned(t) ? "(uint64_t)(int64_t)" : "(uint64_t)") + scalar(o, t), isSigned(t)};
  }
  void define(NodeId n, DType t, const std::string &value) {
    expr_[n.v] = v(n);
    line("const " + std::string(cType(t)) + " " + v(n) + " = " + value + ";");
  }
  void defineView(NodeId n, const std::string &value) {
    expr_[n.v] = v(n);
    line("const cairn_view " + v(n) + " = " + value + ";");
  }
  std::string esize(DType t) const { return std::to_string(dtypeBytes(t)) + "u"; }
  std::string elem(const std::string &view, DType t) const { return "*(" + std::string(cType(t)) + " *)" + view + ".p"; }
  // Releases a region's calloc'ed buffers (its mark named `mark`).
  static std::string release(const Region &r, const std::string &mark) {
    return r.dyn ? "cairn_m_release(rt, " + mark + ");" : "";
  }

  void node(NodeId n);
  bool hoistableDeref(NodeId n, NodeId &cell);
  void deref(NodeId n);
  void placeHoisted(Region &body);
  void buffer(NodeId n);
  void shrink(NodeId n);
  void loopBegin(NodeId n);
  void loopEnd(NodeId n);
  bool stripMine(const Region &body, NodeId end, const std::string &id);
  void call(NodeId n);
  void cast(NodeId n);
  void checkedCast(NodeId n);
  void alu(NodeId n, Op op);
  void uncheckedArith(NodeId n, Op op, DType t);
  std::string combine(Op rop, DType t, const std::string &acc, const std::string &x);

  const Module &m_;
  size_t k_;
  const Function &fn_;
  const Graph &g_;
  const Facts &f_;
  const ModuleEmitOptions &o_;
  Sites &sites_;
  std::string &statics_;  // module-level tables (alloc columns)
  std::string error_;
  std::vector<std::string> expr_;
  std::vector<Region> regions_;
  ReduceIndex reduces_;
  exec::IndexProofs proofs_{g_, f_};  // checked_shrinks emitted without their check
  std::optional<exec::CellPlan> cells_;  // the cells, planned at the first loop strip-mining may take
  bool returned_ = false;
  static constexpr uint64_t kStackFrameBytes = 8192;
  static constexpr size_t kStripLines = 32;  // the longest body strip-mined
  bool framesOnStack_ = true;
  std::string cache_;  // declarations at the function's top (deref caches)
  std::vector<std::string> caches_;  // their handle variables
  std::vector<NodeId> endOf_;        // per range: its end (built at the first deref in a loop)
};

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
    case Op::Carry: expr_[n.v] = view(ops[0]); return;
    case Op::CallWrite:
    case Op::Reduce: return;  // nothing at run time; the accumulator (loopBegin)
    case Op::Store: {
      DType et = f_.type[ops[0].node().v];
      line(elem(view(ops[0]), et) + " = " + scalar(ops[1], et) + ";");
      return;
    }
    case Op::Load:
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
      line(kReset);
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

// A deref directly in the body of a counted loop (not an `if`), whose
// handle no iteration changes and which no call or free may release
// (invariantHandle): its check can run once, before the loop.
bool FnEmitter::hoistableDeref(NodeId n, NodeId &cell) {
  const Region &r = regions_.back();
  if (o_.checkAccesses || regions_.size() < 2 || r.ifShape || r.count.empty() || !r.range.valid()) return false;
  if (endOf_.empty()) {
    endOf_.assign(g_.size(), NodeId::none());
    for (uint32_t i = 0; i < g_.size(); ++i)
      if (g_.op(NodeId{i}) == Op::End && !g_.operands(NodeId{i})[0].isLit()) endOf_[g_.operands(NodeId{i})[0].node().v] = NodeId{i};
  }
  return invariantHandle(g_, f_, n, r.range, endOf_[r.range.v], cell);
}

void FnEmitter::deref(NodeId n) {
  auto ops = g_.operands(n);
  const std::string h = scalar(ops[0], DType::U64);
  auto call = [&](const std::string &handle) {
    return "cairn_m_deref(rt, " + handle + ", " + std::to_string(g_.literal(ops[1].lit()).magnitude) + "u, " +
           rtDType(g_.dtype(n)) + ")";
  };
  if (o_.checkAccesses) return defineView(n, call(h));
  // A live handle's columns never move, so each deref site remembers
  // the last handle it checked (0 to begin with: the empty view, which
  // is what deref of 0 is). In a loop that costs a compare, not a walk
  // through the heap table that a byte store would force to repeat.
  // Every free and every call (which may free) forgets them all (kReset
  // is replaced when the function is done), so a released handle is
  // caught as the interpreter catches it.
  const std::string c = "dc" + std::to_string(n.v);
  cache_ += "  uint64_t " + c + "_h = 0;\n  cairn_view " + c + "_v = {NULL, 0};\n";
  caches_.push_back(c + "_h");
  auto check = [&](const std::string &handle) {
    return "if (" + handle + " != " + c + "_h) { " + c + "_v = " + call(handle) + "; " + c + "_h = " + handle + "; }";
  };
  NodeId cell;
  if (hoistableDeref(n, cell)) {
    // Checked before the loop when it runs at all (the first iteration
    // would check first: a simple body has nothing before it that traps
    // or prints), from the handle as the loop starts.
    Region &r = regions_.back();
    const std::string before = cell.valid() ? "(*(uint64_t *)cairn_m_sub(" + view(Operand::ofNode(cell)) +
                                                  ", UINT64_C(0), UINT64_C(1), 8u).p)"
                                            : h;
    r.pre += "if (" + r.count + " > 0) {\n  const uint64_t " + c + "_0 = " + before + ";\n  " + check(c + "_0") + "\n}\n";
    const std::string marker = "@@cairn-hoisted-" + c + "@@";
    r.hoisted.emplace_back(marker, check(h));
    line(marker);
  } else {
    line(check(h));
  }
  defineView(n, c + "_v");
}

// The hoisted deref checks of a loop body that has closed: before the loop
// when the body is simple (nothing in it traps, calls or frees), else back
// in place of their markers.
void FnEmitter::placeHoisted(Region &body) {
  const bool hoist = body.simple && !body.dyn && !body.until;
  for (const auto &[marker, check] : body.hoisted) {
    const size_t p = body.text.find(marker);
    if (p == std::string::npos) continue;
    if (!hoist) {
      body.text.replace(p, marker.size(), check);
      continue;
    }
    const size_t b = body.text.rfind('\n', p), e = body.text.find('\n', p);
    const size_t from = b == std::string::npos ? 0 : b + 1;
    body.text.erase(from, e - from + 1);
  }
  if (!hoist || body.pre.empty()) return;
  const std::string pad(regions_.size() * 2, ' ');
  for (size_t p = 0, e; p < body.pre.size(); p = e + 1) {
    e = body.pre.find('\n', p);
    regions_.back().text += pad + body.pre.substr(p, e - p + 1);
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
  if (ops[0].isLit()) {
    const Literal &l = g_.literal(ops[0].lit());
    uint64_t count = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
    std::string ct = count > static_cast<uint64_t>(INT64_MAX) ? "uint64_t" : "int64_t";
    head = "for (" + ct + " " + v(n) + " = 0; " + v(n) + " < (" + ct + ")UINT64_C(" + std::to_string(count) + "); ++" + v(n) + ")";
  } else {
    DType ct = typeOf(ops[0]);
    if (!isInteger(ct)) return fail("a loop count is not an integer");
    count = scalar(ops[0], ct);
    countType = cType(ct);
    head = "for (" + countType + " " + v(n) + " = 0; " + v(n) + " < " + count + "; ++" + v(n) + ")";
  }
  expr_[n.v] = v(n);
  Region r;
  r.range = n;
  r.head = head;
  // A bool made a count (CAIRN's `if` and a `while`'s test): 0 or 1
  // trips, so a C `if` whose index is 0. Strip-mined (a count kept): a
  // count that is a value other than that (gcc sees a literal one itself).
  r.ifShape = !ops[0].isLit() && g_.op(ops[0].node()) == Op::Cast && typeOf(g_.operands(ops[0].node())[0]) == DType::Bool;
  if (r.ifShape) r.head = "if (" + count + ")";
  else r.count = count;
  r.countType = countType;
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
  placeHoisted(body);
  const std::string id = std::to_string(range.v);
  // The loop around it stays simple only if this is a simple `if`.
  if (!body.ifShape || !body.simple || body.dyn || body.until) regions_.back().simple = false;
  if (stripMine(body, n, id)) return;
  const bool block = body.dyn || body.until;  // the loop needs a mark or a flag around it
  std::string pad(regions_.size() * 2, ' '), in = block ? pad + "  " : pad;
  std::string o;
  if (block) o += pad + "{\n";
  if (body.dyn) o += in + "const size_t mark" + id + " = rt->m->nbufs;\n";
  if (body.until) o += in + "cairn_bool u" + id + " = 0;\n";
  o += in + body.head + " {\n";
  if (body.ifShape) o += in + "  const " + body.countType + " v" + id + " = 0;\n" + in + "  (void)v" + id + ";\n";
  // The body's lines are indented for its depth; one level more in a block.
  for (size_t p = 0; p < body.text.size();) {
    size_t e = body.text.find('\n', p);
    o += (block ? "  " : "") + body.text.substr(p, e - p + 1);
    p = e + 1;
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
  if (!cells_) cells_ = exec::planCells(g_, f_);
  if (carriesRecurrence(g_, f_, *cells_, body.range, end) || multipliesWide(g_, f_, body.range, end)) return false;
  regions_.back().text += stripMinedLoop(std::string(regions_.size() * 2, ' '), id, body.countType, body.count, body.text);
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
  line(kReset);
}

void FnEmitter::cast(NodeId n) {
  Operand a = g_.operands(n)[0];
  DType to = g_.dtype(n), from = typeOf(a);
  if (from == DType::None) {  // a literal: its own natural dtype (exec/compile.cpp)
    const Literal &l = g_.literal(a.lit());
    from = l.kind == Literal::Kind::Float  ? DType::F64
           : l.kind == Literal::Kind::Bool ? DType::Bool
           : l.negative || l.magnitude <= INT64_MAX ? DType::I64
                                                     : DType::U64;
  }
  std::string x = scalar(a, from), value;
  if (to == DType::Bool) value = "(cairn_bool)(" + x + " != 0)";  // NaN != 0 is true
  else if (isFloat(to)) value = "(" + std::string(cType(to)) + ")" + x;
  else if (isFloat(from)) value = "cairn_f2i_" + std::string(dtypeName(to)) + "((double)" + x + ")";
  else value = "(" + std::string(cType(to)) + ")" + x;
  define(n, to, value);
}

// checked_cast: exec/module_interp.cpp ccastT (integers by value; floats
// truncated first; NaN and infinities never fit).
void FnEmitter::checkedCast(NodeId n) {
  Operand a = g_.operands(n)[0];
  DType to = g_.dtype(n), from = typeOf(a);
  std::string name = cString(dtypeName(to)), s = site(n), x = scalar(a, from);
  if (proofs_.cannotTrap(n)) return define(n, to, "(" + std::string(cType(to)) + ")" + x);  // the value fits
  if (!isInteger(to) || to == DType::Bool)
    return define(n, to, "(cairn_m_nofit(rt, " + s + ", " + name + "), (" + cType(to) + ")0)");
  const int w = static_cast<int>(dtypeBytes(to)) * 8;
  const bool sto = isSigned(to);
  std::string lo = sto ? (w == 64 ? "INT64_MIN" : "-INT64_C(" + std::to_string(uint64_t{1} << (w - 1)) + ")") : "0";
  std::string hi = sto ? "UINT64_C(" + std::to_string((uint64_t{1} << (w - 1)) - 1) + ")"
                       : (w == 64 ? "UINT64_MAX" : "UINT64_C(" + std::to_string((uint64_t{1} << w) - 1) + ")");
  std::string c = "(" + std::string(cType(to)) + ")";
  if (isFloat(from)) {
    char flo[64], fhi[64];
    std::snprintf(flo, sizeof flo, "%a", sto ? -std::ldexp(1.0, w - 1) : 0.0);
    std::snprintf(fhi, sizeof fhi, "%a", std::ldexp(1.0, sto ? w - 1 : w));
    return define(n, to, c + "cairn_m_fit_f(rt, " + s + ", (double)" + x + ", " + flo + ", " + fhi + ", " + name + ")");
  }
  if (isSigned(from)) return define(n, to, c + "cairn_m_fit_s(rt, " + s + ", (int64_t)" + x + ", " + lo + ", " + hi + ", " + name + ")");
  define(n, to, c + "cairn_m_fit_u(rt, " + s + ", (uint64_t)" + x + ", " + hi + ", " + name + ")");
}

// A checked op that cannot trap (exec/proven.hpp cannotTrap): its value
// without the check. Add, sub and mul never wrap there, so the wrapping
// helper's value is the exact one; div and mod have a divisor that is
// never 0 (nor -1 with a MIN dividend), so C's `/` and `%` (truncating,
// the remainder with the dividend's sign) are the ops themselves.
void FnEmitter::uncheckedArith(NodeId n, Op op, DType t) {
  auto ops = g_.operands(n);
  const std::string a = scalar(ops[0], t), b = scalar(ops[1], t), ct = cType(t);
  if (op == Op::CheckedDiv || op == Op::CheckedMod)
    return define(n, t, "(" + ct + ")(" + a + (op == Op::CheckedDiv ? " / " : " % ") + b + ")");
  const Op plain = op == Op::CheckedAdd ? Op::Add : op == Op::CheckedSub ? Op::Sub : Op::Mul;
  define(n, t, aluExpr(plain, t, a, b, ""));
}

void FnEmitter::alu(NodeId n, Op op) {
  auto ops = g_.operands(n);
  const OpInfo &info = opInfo(op);
  DType t = operandType(n), rt = f_.type[n.v];
  if (!info.is(opflag::A) || ops.empty()) return fail("op `" + std::string(info.name) + "` cannot be emitted here");
  std::string a = scalar(ops[0], t), b = ops.size() > 1 ? scalar(ops[1], t) : a;
  std::string e = aluExpr(op, t, a, b, "rt, " + site(n) + ", 0");
  if (e.empty()) return fail("op `" + std::string(info.name) + "` does not take " + std::string(dtypeName(t)));
  if (e.find("rt, ") != std::string::npos) regions_.back().simple = false;  // it may trap (division by zero)
  define(n, op == Op::Cmplt || op == Op::Cmpne || op == Op::Cmpeq ? DType::Bool : rt, e);
}

std::string FnEmitter::combine(Op rop, DType t, const std::string &acc, const std::string &x) {
  std::string s = combineStmt(rop, t, acc, x);
  if (s.empty()) fail("a reduce with op `" + std::string(opInfo(rop).name) + "`");
  return s;
}
}  // namespace

bool emitFunction(const Module &m, size_t k, const Facts &f, const ModuleEmitOptions &o, Sites &sites, std::string &statics,
                  std::string &out, std::string &error) {
  return FnEmitter(m, k, f, o, sites, statics).run(out, error);
}

}  // namespace cairn::memit
