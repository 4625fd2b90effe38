// Internal to the module C back end (exec/emit_module_c*.cpp): FnEmitter,
// which writes one function's body as C (emit_module_c.cpp has the mapping
// of each op, the regions and the loops; emit_module_c_values.cpp the
// values: derefs and their hoisting, casts, checked and plain arithmetic).
#pragma once
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "exec/emit_c_impl.hpp"
#include "exec/emit_module_c_impl.hpp"
#include "exec/promote.hpp"
#include "exec/proven.hpp"
#include "exec/reduce.hpp"
#include "ir/check.hpp"

namespace cairn::memit {

using cemit::aluExpr;
using cemit::cConst;
using cemit::combineStmt;
using cemit::cString;
using cemit::cType;
using cemit::rtDType;

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
    // Each kReset line forgets the deref caches of its outermost region
    // (none: the line goes), in one pass (replacing in place, each search
    // from the start, was quadratic in the function's calls).
    std::vector<std::string> resets(nextKey_ + 1);
    for (const auto &[c, key] : caches_) resets[key] += c + " = ";
    const std::string &t = top.text;
    size_t from = 0;
    for (size_t p; (p = t.find(kReset, from)) != std::string::npos;) {
      const size_t k = p + std::strlen(kReset), hash = t.find('#', k);
      const uint32_t key = static_cast<uint32_t>(std::strtoul(t.c_str() + k, nullptr, 10));
      CAIRN_CHECK(hash != std::string::npos && key < resets.size(), "a deref reset marker without its key");
      if (key == 0 || resets[key].empty()) {  // the marker's whole line goes
        const size_t b = t.rfind('\n', p), start = b == std::string::npos || b < from ? from : b + 1;
        const size_t e = t.find('\n', p);
        out.append(t, from, start - from);
        from = e == std::string::npos ? t.size() : e + 1;
      } else {
        out.append(t, from, p - from) += resets[key];
        out += "0;";
        from = hash + 1;
      }
    }
    out.append(t, from, std::string::npos);
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
    bool whileCount = false;  // its count is the largest u64 (a CAIRN `while`)
    bool inner = false;       // a loop (not an `if`) is inside it
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
  // A promoted cell (exec/promote.hpp: a one-element frame buffer whose
  // family is only loaded, stored, carried and listed by `end`) is one C
  // variable: "cell" and its index; "" for any other node.
  std::string cellVar(NodeId n) const {
    const uint32_t c = proofs_.cells().cell[n.v];
    return c == exec::CellPlan::kNone ? std::string() : "cell" + std::to_string(c);
  }
  // The indentation of a line in the innermost region (kMaxIndentLevels).
  size_t padWidth() const { return 2 * std::min(regions_.size(), kMaxIndentLevels); }
  void line(const std::string &text) {
    Region &r = regions_.back();
    r.text.append(padWidth(), ' ');
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
  exec::IndexProofs proofs_{g_, f_};  // checks emitted without their test; the cells and loop ends
  bool returned_ = false;
  static constexpr uint64_t kStackFrameBytes = 8192;
  static constexpr size_t kStripLines = 32;  // the longest body strip-mined
  bool framesOnStack_ = true;
  std::string cache_;  // declarations at the function's top (deref caches)
  // Their handle variables, each with the key of the outermost region
  // around its site (0: none). A free or a call forgets only the caches of
  // its own outermost region: a site elsewhere has run for the last time
  // (its region is done) or not yet (its cache still holds 0), so only a
  // site that a loop around both brings back again can see a released
  // handle. Forgetting them all made a function's C quadratic in its frees.
  std::vector<std::pair<std::string, uint32_t>> caches_;
  uint32_t outerKey_ = 0, nextKey_ = 0;
  std::string resetMarker() const { return kReset + std::to_string(outerKey_) + "#"; }
};

}  // namespace cairn::memit
