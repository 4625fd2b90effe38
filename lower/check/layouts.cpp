// `layout` items: each is evaluated once, at check time, from its expression
// (a call of rows, cols, strided, pad, swizzle, transpose, tile, spread or
// inverse, or the name of another layout), enumerated by layout.cpp and
// held to its two rules (verdict). Then every use `L.m(...)` in the file is
// checked: the method exists and takes that many arguments, and
// `L.at(D.row(t, v), D.col(t, v))` reads D's tile through a layout of the
// same shape (E-LAYOUT-CONSUMER). Layout methods that are constants are
// answered here for Program::constValue.
//
// Invariant: a layout that was refused is reported once, where it is
// declared; its uses stay quiet (layoutNamed gives nullptr).
#include "lower/check/items.hpp"

namespace cairn::check {

namespace {
struct FnSig {
  const char *name;
  size_t arity;
  const char *params;
};
constexpr FnSig kFns[] = {
    {"rows", 2, "R, C"},           {"cols", 2, "R, C"},      {"strided", 4, "R, C, SR, SC"},
    {"pad", 2, "L, P"},            {"swizzle", 4, "L, B, M, S"}, {"transpose", 1, "L"},
    {"tile", 3, "L, TR, TC"},      {"spread", 5, "L, TR, TC, VR, VC"}, {"inverse", 1, "D"},
};

const FnSig *fnSig(const std::string &n) {
  for (const FnSig &s : kFns)
    if (n == s.name) return &s;
  return nullptr;
}

// Methods and their argument counts; -1: as many as the layout has extents.
struct MethodSig {
  const char *name;
  int arity;
  bool constant;
};
constexpr MethodSig kMethods[] = {
    {"at", -1, false},  {"row", -1, false},        {"col", -1, false},    {"size", 0, true},
    {"cosize", 0, true}, {"extent", 1, true}, {"participants", 0, true}, {"values", 0, true},
};

const MethodSig *methodSig(const std::string &n) {
  for (const MethodSig &m : kMethods)
    if (n == m.name) return &m;
  return nullptr;
}
}  // namespace

ItemCheck::ItemCheck(sema::Program &prog) : P(prog) {
  P.layoutConst = [this](uint32_t f, ast::ExprId call, uint64_t &out) { return layoutConst(f, call, out); };
}

ItemCheck::~ItemCheck() { P.layoutConst = nullptr; }

bool ItemCheck::run() {
  checkLayouts();
  checkConsts();
  checkAligns();
  checkDuplicates();
  checkFunctions();
  return !constRefused_;
}

void ItemCheck::checkLayouts() {
  for (uint32_t f = 0; f < P.files.size(); ++f) {
    for (ast::ItemId id : P.files[f]->ast.top)
      if (P.files[f]->ast.item(id).kind == ast::ItemKind::Layout) layoutItem(sema::ItemRef{f, id});
    checkLayoutUses(f);
  }
}

const Layout *ItemCheck::layoutNamed(uint32_t f, const std::string &name) {
  sema::ItemRef r = P.lookup(f, name);
  if (!r.valid() || P.item(r).kind != ast::ItemKind::Layout) return nullptr;
  return layoutItem(r);
}

const Layout *ItemCheck::layoutItem(sema::ItemRef r) {
  LayoutMemo &m = layouts_[{r.file, r.id.v}];
  if (m.state == 2) return m.value ? &*m.value : nullptr;
  const ast::Item &it = P.item(r);
  if (m.state == 1) {
    P.error(r.file, it.span.loc(), "E-LAYOUT", "layout " + it.name + " is defined through itself.");
    return nullptr;
  }
  if (layoutDepth_ >= 256) {  // a chain of names declared backwards: bound the recursion
    P.error(r.file, it.span.loc(), "E-LAYOUT", "layout " + it.name + " is defined through more than 256 layouts.");
    return nullptr;
  }
  m.state = 1;
  ++layoutDepth_;
  std::optional<Layout> l = layoutExpr(r.file, it.value, 0);
  --layoutDepth_;
  if (l) {
    Verdict v = verdict(*l);
    if (v.code) {
      P.error(r.file, it.span.loc(), v.code, v.msg);
      l.reset();
    }
  }
  LayoutMemo &done = layouts_[{r.file, r.id.v}];  // the map may have grown
  done.state = 2;
  done.value = std::move(l);
  return done.value ? &*done.value : nullptr;
}

// A layout expression: another layout's name or a call. Reports what is
// wrong with it and gives nullopt; a named layout that was refused gives
// nullopt quietly (it was reported where it is declared).
std::optional<Layout> ItemCheck::layoutExpr(uint32_t f, ast::ExprId eid, int depth) {
  if (!eid.valid()) return std::nullopt;
  const ast::Expr &e = P.files[f]->ast.expr(eid);
  if (depth > 64) {
    P.error(f, e.span.loc(), "E-LAYOUT", "a layout expression nests more than 64 calls deep.");
    return std::nullopt;
  }
  if (e.kind == ast::ExprKind::Name) {
    sema::ItemRef r = P.lookup(f, e.text);
    if (r.valid() && P.item(r).kind == ast::ItemKind::Layout) {
      const Layout *l = layoutItem(r);
      return l ? std::optional<Layout>(*l) : std::nullopt;
    }
    P.error(f, e.span.loc(), "E-LAYOUT", e.text + " is not a layout.");
    return std::nullopt;
  }
  if (e.kind == ast::ExprKind::Call && e.a.valid() && P.files[f]->ast.expr(e.a).kind == ast::ExprKind::Name) {
    std::optional<Layout> l = layoutCall(f, e, P.files[f]->ast.expr(e.a).text, depth);
    if (l && depth > 0) {  // a layout inside another is held to the same rules
      Verdict v = verdict(*l);
      if (v.code) {
        P.error(f, e.span.loc(), v.code, v.msg);
        return std::nullopt;
      }
    }
    return l;
  }
  P.error(f, e.span.loc(), "E-LAYOUT",
          "A layout is a call of rows, cols, strided, pad, swizzle, transpose, tile, spread or inverse, or "
          "another layout's name.");
  return std::nullopt;
}

bool ItemCheck::layoutArg(uint32_t f, ast::ExprId eid, const std::string &fn, uint64_t &out) {
  if (P.constValue(f, eid, {}, out)) return true;
  P.error(f, P.files[f]->ast.expr(eid).span.loc(), "E-LAYOUT",
          "The arguments of " + fn + " are constants, and this one is not.");
  return false;
}

std::optional<Layout> ItemCheck::layoutCall(uint32_t f, const ast::Expr &e, const std::string &fn, int depth) {
  const FnSig *sig = fnSig(fn);
  if (!sig) {
    P.error(f, e.span.loc(), "E-LAYOUT",
            fn + " is not a layout function: a layout is rows, cols, strided, pad, swizzle, transpose, tile, "
                 "spread or inverse.");
    return std::nullopt;
  }
  if (e.args.size() != sig->arity) {
    P.error(f, e.span.loc(), "E-LAYOUT",
            fn + " takes " + std::to_string(sig->arity) + " argument" + (sig->arity == 1 ? "" : "s") + " (" +
                sig->params + "), got " + std::to_string(e.args.size()) + ".");
    return std::nullopt;
  }
  bool takesLayout = sig->params[0] == 'L' || sig->params[0] == 'D';
  std::optional<Layout> inner;
  if (takesLayout && !(inner = layoutExpr(f, e.args[0], depth + 1))) return std::nullopt;
  std::vector<uint64_t> n;
  for (size_t k = takesLayout ? 1 : 0; k < e.args.size(); ++k) {
    uint64_t v = 0;
    if (!layoutArg(f, e.args[k], fn, v)) return std::nullopt;
    n.push_back(v);
  }
  std::string why;
  std::optional<Layout> out;
  if (fn == "rows") out = makeRows(n[0], n[1], why);
  else if (fn == "cols") out = makeCols(n[0], n[1], why);
  else if (fn == "strided") out = makeStrided(n[0], n[1], n[2], n[3], why);
  else if (fn == "pad") out = makePad(*inner, n[0], why);
  else if (fn == "swizzle") out = makeSwizzle(*inner, n[0], n[1], n[2], why);
  else if (fn == "transpose") out = makeTranspose(*inner, why);
  else if (fn == "tile") out = makeTile(*inner, n[0], n[1], why);
  else if (fn == "spread") out = makeSpread(*inner, n[0], n[1], n[2], n[3], why);
  else out = makeInverse(*inner, why);
  if (!out) {
    if (why.rfind("the ", 0) == 0) why[0] = 'T';
    P.error(f, e.span.loc(), "E-LAYOUT", why);
    return out;
  }
  enumerated_ += out->offset.size() + out->row.size();
  if (enumerated_ > kLayoutBudget) {
    P.error(f, e.span.loc(), "E-LAYOUT",
            "The layouts of this program enumerate more than " + std::to_string(kLayoutBudget) +
                " elements together, the most cairn checks.");
    return std::nullopt;
  }
  return out;
}

bool ItemCheck::layoutConst(uint32_t f, ast::ExprId call, uint64_t &out) {
  const ast::Module &A = P.files[f]->ast;
  const ast::Expr &e = A.expr(call);
  if (e.kind != ast::ExprKind::Call || !e.a.valid() || A.expr(e.a).kind != ast::ExprKind::Field) return false;
  const ast::Expr &callee = A.expr(e.a);
  if (!callee.a.valid() || A.expr(callee.a).kind != ast::ExprKind::Name) return false;
  const Layout *l = layoutNamed(f, A.expr(callee.a).text);
  const MethodSig *m = methodSig(callee.text);
  if (!l || !m) return false;
  if (!m->constant) return coordConst(f, e, *l, callee.text, out);
  if (e.args.size() != static_cast<size_t>(m->arity)) return false;
  const std::string &n = callee.text;
  if (n == "size") out = l->size();
  else if (n == "cosize") out = l->cosize;
  else if (n == "participants" || n == "values") {
    if (l->kind != LayoutKind::Spread) return false;
    out = n == "participants" ? l->participants() : l->values();
  } else {  // extent(k)
    uint64_t k = 0;
    if (!P.constValue(f, e.args[0], {}, k) || k >= l->ext.size()) return false;
    out = l->ext[k];
  }
  return true;
}

// L.at(...), D.row(t, v), D.col(t, v) whose arguments are constants inside
// their extents fold too; any other call of them runs (E-UNSUPPORTED today).
bool ItemCheck::coordConst(uint32_t f, const ast::Expr &call, const Layout &l, const std::string &m, uint64_t &out) {
  if (call.args.size() != l.ext.size()) return false;
  uint64_t flat = 0;
  for (size_t k = 0; k < call.args.size(); ++k) {
    uint64_t v = 0;
    if (!P.constValue(f, call.args[k], {}, v) || v >= l.ext[k]) return false;
    flat = flat * l.ext[k] + v;
  }
  if (m == "at" && l.kind != LayoutKind::Inverse) out = l.offset[flat];
  else if (m == "row" && l.kind != LayoutKind::Storage) out = l.row[flat];
  else if (m == "col" && l.kind != LayoutKind::Storage) out = l.col[flat];
  else return false;
  return true;
}

// Every call `L.m(...)` of a layout L in file f: found by walking the whole
// expression arena, so uses in functions main never reaches are checked too.
void ItemCheck::checkLayoutUses(uint32_t f) {
  const ast::Module &A = P.files[f]->ast;
  bool any = false;
  for (ast::ItemId id : A.top) any = any || A.item(id).kind == ast::ItemKind::Layout;
  if (!any) return;
  for (const ast::Expr &e : A.exprs) {
    if (e.kind != ast::ExprKind::Call || !e.a.valid()) continue;
    const ast::Expr &callee = A.expr(e.a);
    if (callee.kind != ast::ExprKind::Field || !callee.a.valid() || A.expr(callee.a).kind != ast::ExprKind::Name)
      continue;
    const std::string &name = A.expr(callee.a).text;
    sema::ItemRef r = P.lookup(f, name);
    if (!r.valid() || P.item(r).kind != ast::ItemKind::Layout) continue;
    if (const Layout *l = layoutItem(r)) checkLayoutMethod(f, e, callee, *l);
  }
}

void ItemCheck::checkLayoutMethod(uint32_t f, const ast::Expr &call, const ast::Expr &callee, const Layout &l) {
  const std::string &name = P.files[f]->ast.expr(callee.a).text;
  const MethodSig *m = methodSig(callee.text);
  Loc loc = call.span.loc();
  if (!m) {
    P.error(f, loc, "E-LAYOUT",
            name + " has no method " + callee.text +
                ": a layout has at, row, col, size, cosize, extent, participants and values.");
    return;
  }
  bool spreadOnly = callee.text == "row" || callee.text == "col" || callee.text == "participants" ||
                    callee.text == "values";
  if (spreadOnly && l.kind == LayoutKind::Storage) {
    P.error(f, loc, "E-LAYOUT", name + "." + callee.text + " needs a spread, and " + name + " is a storage layout.");
    return;
  }
  size_t arity = m->arity >= 0 ? static_cast<size_t>(m->arity) : l.ext.size();
  if (call.args.size() != arity) {
    P.error(f, loc, "E-LAYOUT",
            name + "." + callee.text + " takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") +
                ", got " + std::to_string(call.args.size()) + ".");
    return;
  }
  if (callee.text == "extent") {
    uint64_t k = 0;
    if (P.constValue(f, call.args[0], {}, k) && k >= l.ext.size())
      P.error(f, loc, "E-LAYOUT",
              name + " has " + std::to_string(l.ext.size()) + " extents, and extent(" + std::to_string(k) +
                  ") names none of them.");
    return;
  }
  if (callee.text == "at" && l.kind == LayoutKind::Storage) checkConsumer(f, call, name, l);
}

// L.at(D.row(t, v), D.col(t, v)): D's coordinates must name elements of L.
void ItemCheck::checkConsumer(uint32_t f, const ast::Expr &call, const std::string &name, const Layout &l) {
  const ast::Module &A = P.files[f]->ast;
  for (ast::ExprId arg : call.args) {
    const ast::Expr &a = A.expr(arg);
    if (a.kind != ast::ExprKind::Call || !a.a.valid() || A.expr(a.a).kind != ast::ExprKind::Field) continue;
    const ast::Expr &callee = A.expr(a.a);
    if ((callee.text != "row" && callee.text != "col") || !callee.a.valid() ||
        A.expr(callee.a).kind != ast::ExprKind::Name)
      continue;
    const std::string &dname = A.expr(callee.a).text;
    const Layout *d = layoutNamed(f, dname);
    if (!d || d->kind != LayoutKind::Spread) continue;
    if (l.ext.size() == 2 && l.ext[0] == d->tileR && l.ext[1] == d->tileC) continue;
    P.error(f, call.span.loc(), "E-LAYOUT-CONSUMER",
            dname + " spreads a " + shapeText({d->tileR, d->tileC}) + " tile, and " + name + " lays out " +
                shapeText(l.ext) + ": its coordinates name no element of " + name + ".");
    return;
  }
}

}  // namespace cairn::check
