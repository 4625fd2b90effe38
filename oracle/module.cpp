// The module layer of the oracle (docs/uir.md, "Module rules").
//
// Runs the three layers on every function body (oracle.cpp's `validate`,
// with module ops allowed), then, on the bodies that passed:
//   C1  function names are unique (`call`);
//   C2  param/vparam K: K is a parameter of the function's own signature,
//       param of a scalar one and vparam of a view one, of the same dtype;
//       no store or call_write writes into an `ro` view parameter (`call`);
//   C3  `ret`: a function with a return type returns a value of that dtype
//       (literals must fit it); one without returns none (`call`);
//   C4  every `call` names a function or extern of the module, passes one
//       argument per parameter (a scalar or fitting literal of a scalar
//       parameter's dtype, a view of a view parameter's element dtype), and
//       its dtype= is the callee's return type; every `rw` argument has
//       exactly one call_write, and only `rw` arguments have one (`call`);
//   C5  text order: every "must come before" edge (Facts::orderEdges) of a
//       body points forward in the text, since a module runs top to bottom
//       (`text-order`).
// Later stages (exec/module_interp.hpp) may assume all of the above.
#include "oracle/module.hpp"

#include <map>
#include <unordered_map>

#include "oracle/util.hpp"

namespace cairn {

namespace {

std::string tn(DType t) { return std::string(dtypeName(t)); }

class ModuleCheck {
 public:
  ModuleCheck(const Module &m, ModuleFacts &mf, Diags &d) : m_(m), mf_(mf), d_(d) {}

  void run() {
    for (size_t i = 0; i < m_.funcs.size(); ++i) {
      const Function &f = m_.funcs[i];
      auto [it, fresh] = index_.emplace(f.name, static_cast<int>(i));
      if (!fresh)
        d_.error(f.loc, "call", "function `" + f.name + "` is defined twice")
            .note(m_.funcs[it->second].loc, "`" + f.name + "` is first defined here");
    }
    mf_.funcs.assign(m_.funcs.size(), Facts{});
    for (size_t i = 0; i < m_.funcs.size() && !d_.full(); ++i) {
      const Function &f = m_.funcs[i];
      if (f.external) {
        if (f.body.size() > 0) d_.error(f.body.loc(NodeId{0}), "syntax", "an extern has no body");
        continue;
      }
      Diags local;
      OracleOptions o;
      o.module = true;
      bool ok = validate(f.body, mf_.funcs[i], local, o);
      for (const Diagnostic &dg : local.list()) {
        Diagnostic &c = d_.error(dg.loc, dg.rule, dg.message);
        c.notes = dg.notes;
      }
      if (ok) function(f, mf_.funcs[i]);
    }
  }

 private:
  Loc opLoc(const Graph &g, NodeId n, size_t k) const { return Loc{g.loc(n).line, g.operandCol(n, k)}; }

  // A scalar operand of dtype t (a literal must fit it).
  bool scalarFits(const Graph &g, const Facts &fx, NodeId n, size_t k, DType t, const std::string &what) {
    Operand o = g.operands(n)[k];
    if (o.isLit()) {
      if (literalBits(g.literal(o.lit()), t)) return true;
      d_.error(opLoc(g, n, k), "call", what + ": literal `" + literalText(g.literal(o.lit())) + "` does not fit " + tn(t));
      return false;
    }
    NodeId x = o.node();
    if (fx.isView(x) || fx.kind[x.v] == ResultKind::Event) {
      d_.error(opLoc(g, n, k), "call", what + " is a scalar of dtype " + tn(t) + ", but " + pct(g, x) + " is not a scalar");
      return false;
    }
    if (fx.type[x.v] != t) {
      d_.error(opLoc(g, n, k), "call", what + " has dtype " + tn(t) + ", but " + pct(g, x) + " has dtype " + tn(fx.type[x.v]));
      return false;
    }
    return true;
  }

  void function(const Function &f, const Facts &fx) {
    const Graph &g = f.body;
    const auto &ps = f.sig.params;
    NodeId ret = NodeId::none();
    std::map<std::pair<uint32_t, uint64_t>, std::vector<NodeId>> writesOf;  // (call, K) -> its call_writes
    for (uint32_t i = 0; i < g.size() && !d_.full(); ++i) {
      NodeId n{i};
      Op op = g.op(n);
      if (op == Op::Param || op == Op::VParam) {
        uint64_t k = g.literal(g.operands(n)[0].lit()).magnitude;
        bool view = op == Op::VParam;
        if (k >= ps.size()) {
          d_.error(opLoc(g, n, 0), "call", "`" + f.name + "` has " + std::to_string(ps.size()) + " parameter(s), so there is no parameter " +
                                               std::to_string(k))
              .note(f.loc, "the signature is here");
        } else if ((ps[k].mode != ParamSig::Mode::Scalar) != view || ps[k].type != g.dtype(n)) {
          d_.error(g.loc(n), "call", "parameter " + std::to_string(k) + " of `" + f.name + "` is " + paramText(ps[k]) + ", but this is `" +
                                         std::string(opInfo(op).name) + " " + std::to_string(k) + " dtype=" + tn(g.dtype(n)) + "`")
              .note(f.loc, "the signature is here");
        }
      } else if (op == Op::Ret) {
        ret = n;
        bool has = !g.operands(n).empty();
        if (f.sig.ret == DType::None && has)
          d_.error(g.loc(n), "call", "`" + f.name + "` returns no value, but `ret` has one").note(f.loc, "the signature is here");
        else if (f.sig.ret != DType::None && !has)
          d_.error(g.loc(n), "call", "`" + f.name + "` returns " + tn(f.sig.ret) + ", but `ret` has no value");
        else if (has)
          scalarFits(g, fx, n, 0, f.sig.ret, "the returned value");
      } else if (op == Op::Store || op == Op::CallWrite) {
        NodeId root = fx.storage[i];
        if (root.valid() && g.op(root) == Op::VParam) {
          uint64_t k = g.literal(g.operands(root)[0].lit()).magnitude;
          if (k < ps.size() && ps[k].mode == ParamSig::Mode::Ro)
            d_.error(g.loc(n), "call", pct(g, n) + " writes into " + pct(g, root) + ", a read-only (`ro`) view parameter")
                .note(g.loc(root), pct(g, root) + " is defined here");
        }
        if (op == Op::CallWrite)
          writesOf[{g.operands(n)[0].node().v, g.literal(g.operands(n)[1].lit()).magnitude}].push_back(n);
      }
    }
    if (f.sig.ret != DType::None && !ret.valid())
      d_.error(f.loc, "call", "`" + f.name + "` returns " + tn(f.sig.ret) + ", but its body has no `ret`");
    for (uint32_t i = 0; i < g.size() && !d_.full(); ++i)
      if (g.op(NodeId{i}) == Op::Call) call(g, fx, NodeId{i}, writesOf);
    for (auto [a, b] : fx.orderEdges) {
      if (a.v < b.v || d_.full()) continue;
      d_.error(g.loc(a), "text-order", pct(g, a) + " reads a version that " + pct(g, b) + " (line " + std::to_string(g.loc(b).line) +
                                           ") overwrites, but comes after it in the text: a module runs in text order, so " +
                                           "the read must come first")
          .note(g.loc(b), pct(g, b) + " overwrites it here");
    }
  }

  static std::string paramText(const ParamSig &p) {
    switch (p.mode) {
      case ParamSig::Mode::Scalar: return "a scalar " + tn(p.type);
      case ParamSig::Mode::Ro: return "a view `ro " + tn(p.type) + "[]`";
      case ParamSig::Mode::Rw: return "a view `rw " + tn(p.type) + "[]`";
    }
    return "?";
  }

  void call(const Graph &g, const Facts &fx, NodeId n, const std::map<std::pair<uint32_t, uint64_t>, std::vector<NodeId>> &writesOf) {
    std::string name(g.text(n));
    auto it = index_.find(name);
    if (it == index_.end()) {
      d_.error(g.loc(n), "call", "no function or extern named `" + name + "` in this module");
      return;
    }
    const Function &callee = m_.funcs[it->second];
    const auto &ps = callee.sig.params;
    auto args = g.operands(n);
    if (args.size() != ps.size()) {
      d_.error(g.loc(n), "call", "`" + name + "` takes " + std::to_string(ps.size()) + " argument(s), found " + std::to_string(args.size()))
          .note(callee.loc, "`" + signatureText(callee) + "` is declared here");
      return;
    }
    if (g.dtype(n) != DType::None && g.dtype(n) != callee.sig.ret)
      d_.error(g.loc(n), "call", "`" + name + "` returns " + (callee.sig.ret == DType::None ? "no value" : tn(callee.sig.ret)) +
                                     ", but the call has dtype=" + tn(g.dtype(n)))
          .note(callee.loc, "`" + signatureText(callee) + "` is declared here");
    for (size_t k = 0; k < args.size(); ++k) {
      std::string what = "argument " + std::to_string(k) + " of `" + name + "`";
      if (ps[k].mode == ParamSig::Mode::Scalar) {
        if (!scalarFits(g, fx, n, k, ps[k].type, what)) return;
      } else {
        if (args[k].isLit() || !fx.isView(args[k].node()) || fx.type[args[k].node().v] != ps[k].type) {
          d_.error(opLoc(g, n, k), "call", what + " is a view of " + tn(ps[k].type) + (args[k].isLit() ? ", found a literal" : ", but " +
                                               pct(g, args[k].node()) + " is not one"))
              .note(callee.loc, "`" + signatureText(callee) + "` is declared here");
          return;
        }
      }
      auto w = writesOf.find({n.v, k});
      size_t count = w == writesOf.end() ? 0 : w->second.size();
      bool rw = ps[k].mode == ParamSig::Mode::Rw;
      if (rw && count != 1) {
        auto &dg = d_.error(g.loc(n), "call", what + " is `rw`, so the call has exactly one `call_write " + pct(g, n) + " " +
                                                  std::to_string(k) + "`; found " + std::to_string(count));
        if (count > 1) dg.note(g.loc(w->second[1]), "a second one is here");
      } else if (!rw && count > 0) {
        d_.error(g.loc(w->second[0]), "call", what + " is not `rw`: the call does not write it")
            .note(callee.loc, "`" + signatureText(callee) + "` is declared here");
      }
    }
  }

  const Module &m_;
  ModuleFacts &mf_;
  Diags &d_;
  std::unordered_map<std::string, int> index_;
};

}  // namespace

bool validateModule(const Module &m, ModuleFacts &facts, Diags &diags) {
  size_t before = diags.size();
  ModuleCheck(m, facts, diags).run();
  diags.sort();
  return diags.size() == before && !diags.truncated();
}

}  // namespace cairn
