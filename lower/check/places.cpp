// Places, extents and the arguments of one call.
//
// A place is a root local and its steps (`.f`, `[i]`, `[lo..hi]`). An
// extent is compared by its canonical text: a literal folds to its value, a
// constant to its value, `len(v)` to v's own extent, an immutable scalar
// local to its initializer's text, and anything else is the name or the
// arithmetic written ("n - 4"). Two extents match only when their texts are
// equal (the page: "the same name or the same literal"); an extent this
// file cannot name ("") is left to the run-time guard. So is arithmetic
// whose text would pass kMaxCanon: each `let a2 = a1 + 1` spells out the
// one before, and a chain of k of them cost O(k^2) time and memory (a
// local whose initializer has no text is named by its own name, as before).
//
// Disjointness (E-ALIAS) follows the page exactly: distinct fields are
// disjoint; two elements at different literal indices are; two parts are
// when one visibly ends where or before the other begins, at one name, at
// literals in order, or through a chain of parts of the same call (each
// part's guard gives lo <= hi, so d[0..a], d[a..b], d[b..n] are ordered).
#include <algorithm>
#include <functional>

#include "lower/check/body.hpp"

namespace cairn::check {

Ty BodyCheck::tyOf(ast::ExprId e) const {
  if (!e.valid()) return sema::kNoTy;
  const Ty *f = facts.exprTy.find(e.v);
  return f ? *f : sema::kNoTy;
}

std::string_view BodyCheck::textView(ast::ExprId id) const {
  const ast::Span &s = A.expr(id).span;
  sema::SourceFile &sf = *P.files[file];
  size_t b = sf.offset(s.line, s.col), e = sf.offset(s.endLine, s.endCol);
  return e > b ? std::string_view(sf.text).substr(b, e - b) : std::string_view();
}

std::string BodyCheck::text(ast::ExprId id) const { return std::string(textView(id)); }

ast::ExprId BodyCheck::rootExpr(ast::ExprId id) const {
  while (id.valid()) {
    const ast::Expr &e = A.expr(id);
    if (e.kind == ast::ExprKind::Name) return id;
    if (e.kind != ast::ExprKind::Field && e.kind != ast::ExprKind::Index && e.kind != ast::ExprKind::Part) return {};
    id = e.a;
  }
  return {};
}

std::string_view BodyCheck::rootView(ast::ExprId id) const {
  const ast::ExprId r = rootExpr(id);
  return r.valid() ? std::string_view(A.expr(r).text) : std::string_view();
}

std::string BodyCheck::rootName(ast::ExprId id) const { return std::string(rootView(id)); }

static bool isNum(const std::string &s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

bool BodyCheck::isBuiltin(const ast::Expr &callee, const char *name) const {
  return callee.kind == ast::ExprKind::Name && callee.text == name && !P.lookup(file, name).valid();
}

std::string BodyCheck::canon(ast::ExprId id, bool fold) const {
  if (!id.valid()) return "";
  const ast::Expr &e = A.expr(id);
  switch (e.kind) {
    case ast::ExprKind::Int: return e.intOverflow ? "" : std::to_string(e.intValue);
    case ast::ExprKind::Name: {
      if (auto li = locals.find(e.text); li != locals.end()) {
        if (fold && !li->second.canon.empty()) return li->second.canon;
        return li->second.k == LocalInfo::Scalar ? e.text : "";
      }
      uint64_t v;
      if (P.constValue(file, id, F.env, v)) return std::to_string(v);
      return "";
    }
    case ast::ExprKind::Field: {
      std::string b = canon(e.a, fold);
      if (b.empty()) b = rootName(e.a) == text(e.a) ? text(e.a) : "";
      return b.empty() ? "" : b + "." + e.text;
    }
    case ast::ExprKind::Call: {
      const ast::Expr &c = A.expr(e.a);
      if (isBuiltin(c, "len") && e.args.size() == 1) return extentOf(e.args[0]);
      if (c.kind == ast::ExprKind::Name && c.text == "usize" && e.args.size() == 1) return canon(e.args[0], fold);
      return "";
    }
    case ast::ExprKind::Binary: {
      using B = ast::BinOp;
      if (e.binOp != B::Add && e.binOp != B::Sub && e.binOp != B::Mul) return "";
      std::string a = canon(e.a, fold), b = canon(e.b, fold);
      if (a.empty() || b.empty()) return "";
      if (isNum(a) && isNum(b) && a.size() < 19 && b.size() < 19) {
        uint64_t x = std::stoull(a), y = std::stoull(b);
        if (e.binOp == B::Add) return std::to_string(x + y);
        if (e.binOp == B::Sub && x >= y) return std::to_string(x - y);
        if (e.binOp == B::Mul && x < (1ull << 31) && y < (1ull << 31)) return std::to_string(x * y);
      }
      if (e.binOp == B::Add && b == "0") return a;
      if (e.binOp == B::Sub && b == "0") return a;
      auto wrap = [](const std::string &s) { return s.find(' ') == std::string::npos ? s : "(" + s + ")"; };
      std::string r = wrap(a) + " " + std::string(ast::binOpText(e.binOp)) + " " + wrap(b);
      return r.size() <= kMaxCanon ? r : "";
    }
    default: return "";
  }
}

// The extent of an expression passed as a view.
std::string BodyCheck::extentOf(ast::ExprId id) const {
  const ast::Expr &e = A.expr(id);
  switch (e.kind) {
    case ast::ExprKind::Str: return std::to_string(e.text.size());
    case ast::ExprKind::Name: {
      auto li = locals.find(e.text);
      if (li == locals.end()) return "";
      if (li->second.k == LocalInfo::ViewParam || li->second.k == LocalInfo::Array) return li->second.extent;
      if (li->second.k == LocalInfo::Owner) return "len(" + e.text + ")";
      break;
    }
    case ast::ExprKind::Part: {
      std::string lo = canon(e.b), hi = canon(e.c);
      if (lo.empty() || hi.empty()) return "";
      if (isNum(lo) && isNum(hi) && lo.size() < 19 && hi.size() < 19)
        return std::stoull(hi) >= std::stoull(lo) ? std::to_string(std::stoull(hi) - std::stoull(lo)) : "";
      if (lo == "0") return hi;
      auto wrap = [](const std::string &s) { return s.find(' ') == std::string::npos ? s : "(" + s + ")"; };
      return wrap(hi) + " - " + wrap(lo);
    }
    default: break;
  }
  Ty t = tyOf(id);
  if (t == sema::kNoTy) return "";
  const sema::TypeRec &r = P.type(t);
  std::string p = text(id);
  // A Buf field that carries the extent of an earlier usize field
  // (`price:Buf[f64][rows]`): its extent is that field of the same record.
  if (r.k == sema::TK::Buf && e.kind == ast::ExprKind::Field)
    if (std::string ef = extentField(tyOf(e.a), e.text); !ef.empty()) return text(e.a) + "." + ef;
  if (r.k == sema::TK::Buf && rootName(id).size()) return "len(" + p + ")";
  if (r.k == sema::TK::Record && P.recs[r.inst].lends) {
    const sema::RecInst &ri = P.recs[r.inst];
    std::string lo = ri.loField >= 0 ? p + "." + ri.fields[ri.loField].name : std::to_string(ri.loLit);
    std::string hi = ri.hiField >= 0 ? p + "." + ri.fields[ri.hiField].name : std::to_string(ri.hiLit);
    if (lo == "0") return hi;
    return hi + " - " + lo;
  }
  return "";
}

// The fields of record type `rec` declared with an extent field, each with
// that field's name (the first declaration of a name), in one pass over the
// declaration.
BodyCheck::Extents BodyCheck::declaredExtents(Ty rec) const {
  Extents out;
  if (rec == sema::kNoTy || P.type(rec).k != sema::TK::Record) return out;
  const sema::RecInst &ri = P.recs[P.type(rec).inst];
  const ast::Item &it = P.item(ri.item);
  const ast::Module &M = P.files[ri.item.file]->ast;
  for (const ast::StructField &f : it.fields) {
    if (!f.type.valid()) continue;
    const ast::TypeNode &tn = M.type(f.type);
    if (!tn.extent.valid() || M.expr(tn.extent).kind != ast::ExprKind::Name) continue;
    if (std::none_of(out.begin(), out.end(), [&](const auto &w) { return w.first == f.name; }))
      out.emplace_back(f.name, M.expr(tn.extent).text);
  }
  return out;
}

static std::string_view extentIn(const BodyCheck::Extents &ex, std::string_view field) {
  auto w = std::find_if(ex.begin(), ex.end(), [&](const auto &x) { return x.first == field; });
  return w == ex.end() ? std::string_view() : w->second;
}

// The usize field that record type `rec`'s Buf field `field` names as its
// extent ("" when it names none).
std::string BodyCheck::extentField(Ty rec, const std::string &field) const {
  return std::string(extentIn(declaredExtents(rec), field));
}

// Whether `field` of record type `rec` takes part in a declared extent: it
// is a carrier (a Buf field with an extent field) or an extent field.
bool BodyCheck::inDeclaredExtent(Ty rec, const std::string &field, std::string &carrier) const {
  if (rec == sema::kNoTy || P.type(rec).k != sema::TK::Record) return false;
  const sema::RecInst &ri = P.recs[P.type(rec).inst];
  // The declaration is read once, not once per field (that was cubic in a
  // record's fields over a function that writes each of them).
  const Extents ex = declaredExtents(rec);
  if (ex.empty()) return false;
  for (const sema::Field &f : ri.fields) {
    std::string_view ef = extentIn(ex, f.name);
    if (ef.empty()) continue;
    if (f.name == field || ef == field) {
      carrier = ri.name + "." + f.name;
      return true;
    }
  }
  return false;
}

PlacePath BodyCheck::path(ast::ExprId id) const {
  PlacePath out;
  std::vector<Step> rev;
  ast::ExprId cur = id;
  while (cur.valid()) {
    const ast::Expr &e = A.expr(cur);
    if (e.kind == ast::ExprKind::Name) {
      out.root = e.text;
      out.ok = locals.count(e.text) > 0;
      break;
    }
    Step s;
    if (e.kind == ast::ExprKind::Field) s = Step{Step::Field, e.text, ""};
    // Disjointness is what the call shows: names stay names (no folding
    // of immutable locals), literals and constants are values.
    else if (e.kind == ast::ExprKind::Index) s = Step{Step::Index, canon(e.b, false), ""};
    else if (e.kind == ast::ExprKind::Part) s = Step{Step::Part, canon(e.b, false), canon(e.c, false)};
    else return out;
    rev.push_back(s);
    cur = e.a;
  }
  out.steps.assign(rev.rbegin(), rev.rend());
  // A lent record written where a view goes is the part it lends.
  Ty t = tyOf(id);
  if (t != sema::kNoTy && P.type(t).k == sema::TK::Record && P.recs[P.type(t).inst].lends) {
    const sema::RecInst &ri = P.recs[P.type(t).inst];
    std::string pre = text(id) + ".";
    out.steps.push_back(Step{Step::Field, ri.fields[ri.lendsField].name, ""});
    out.steps.push_back(Step{Step::Part, ri.loField >= 0 ? pre + ri.fields[ri.loField].name : std::to_string(ri.loLit),
                             ri.hiField >= 0 ? pre + ri.fields[ri.hiField].name : std::to_string(ri.hiLit)});
  }
  return out;
}

namespace {

// a <= b, known from equal texts, literals, or a chain of part guards.
struct Order {
  std::vector<std::pair<std::string, std::string>> le;  // lo <= hi of every part of the call
  bool leq(const std::string &a, const std::string &b) const {
    if (a.empty() || b.empty()) return false;
    if (a == b) return true;
    if (isNum(a) && isNum(b) && a.size() < 19 && b.size() < 19) return std::stoull(a) <= std::stoull(b);
    std::set<std::string> seen{a};
    std::vector<std::string> todo{a};
    while (!todo.empty()) {
      std::string x = todo.back();
      todo.pop_back();
      for (const auto &[lo, hi] : le) {
        bool from = lo == x || (isNum(x) && isNum(lo) && x.size() < 19 && lo.size() < 19 && std::stoull(x) <= std::stoull(lo));
        if (!from || seen.count(hi)) continue;
        if (hi == b || (isNum(hi) && isNum(b) && hi.size() < 19 && b.size() < 19 && std::stoull(hi) <= std::stoull(b)))
          return true;
        seen.insert(hi);
        todo.push_back(hi);
      }
    }
    return false;
  }
};

// [lo, hi) of an index or a part step.
void bounds(const Step &s, std::string &lo, std::string &hi) {
  if (s.k == Step::Part) {
    lo = s.a;
    hi = s.b;
  } else {
    lo = s.a;
    hi = isNum(s.a) && s.a.size() < 19 ? std::to_string(std::stoull(s.a) + 1) : "";
  }
}

bool mayOverlap(const PlacePath &p, const PlacePath &q, const Order &ord) {
  if (p.root != q.root) return false;
  for (size_t i = 0; i < p.steps.size() && i < q.steps.size(); ++i) {
    const Step &a = p.steps[i], &b = q.steps[i];
    if (a.k == Step::Field || b.k == Step::Field) {
      if (a.k == b.k && a.a != b.a) return false;
      if (a.k == b.k) continue;
      return true;
    }
    if (a.k == Step::Index && b.k == Step::Index) {
      if (isNum(a.a) && isNum(b.a) && a.a != b.a) return false;
      continue;  // maybe the same element
    }
    std::string alo, ahi, blo, bhi;
    bounds(a, alo, ahi);
    bounds(b, blo, bhi);
    if (ord.leq(ahi, blo) || ord.leq(bhi, alo)) return false;
    return true;
  }
  return true;  // one lies inside the other
}

}  // namespace

void BodyCheck::checkCallArgs(ast::ExprId id, const CallFact &c) {
  struct Lent {
    const ArgFact *a;
    PlacePath p;
  };
  std::vector<Lent> lent;
  Order ord;
  for (const ArgFact &a : c.args) {
    if (!a.arg.valid() || (a.pass != Pass::View && a.pass != Pass::Borrow)) continue;
    PlacePath p = path(a.arg);
    if (!p.ok) continue;
    for (const Step &s : p.steps)
      if (s.k == Step::Part) ord.le.push_back({s.a, s.b});
    lent.push_back({&a, std::move(p)});
  }
  for (size_t i = 0; i < lent.size(); ++i)
    for (size_t j = 0; j < lent.size(); ++j) {
      if (i == j || !lent[i].a->rw || (lent[j].a->rw && j < i)) continue;
      if (!mayOverlap(lent[i].p, lent[j].p, ord)) continue;
      const ast::Expr &x = A.expr(lent[i].a->arg), &y = A.expr(lent[j].a->arg);
      Diagnostic *d = cx.error(file, x.span, "E-ALIAS",
                               "A mutable view cannot be passed to overlapping call arguments. " + text(lent[i].a->arg) +
                                   " (" + std::string(lent[i].a->param) + ", rw) may overlap " + text(lent[j].a->arg) +
                                   " (" + std::string(lent[j].a->param) + ") in this call of " + std::string(c.name) + ".");
      if (d) d->note(y.span.loc(), "the argument it may overlap");
      return;  // one per call
    }
  if (c.sharedRwCell)
    cx.error(file, A.expr(id).span.loc(), "E-UNSUPPORTED",
             "two rw parts of one stack or buffer array in one call are not supported by `cairn run` yet (use a Buf)");
  checkExtents(id, c);
}

// Each view's extent against the extent its parameter names.
void BodyCheck::checkExtents(ast::ExprId id, const CallFact &c) {
  for (const ArgFact &a : c.args) {
    if (a.pass != Pass::View || !a.arg.valid()) continue;
    // A part, and a lent record (a part too), carries the guard hi - lo ==
    // extent at run time (the page, "Parts"); whole views are compared here.
    Ty at = tyOf(a.arg);
    bool lent = at != sema::kNoTy && P.type(at).k == sema::TK::Record && P.recs[P.type(at).inst].lends;
    if (A.expr(a.arg).kind == ast::ExprKind::Part || lent) {
      effect(Trap, A.expr(a.arg).span.loc());
      continue;
    }
    std::string want, got = extentOf(a.arg);
    if (!a.extent.empty()) {
      for (const ArgFact &b : c.args)
        if (b.param == a.extent) {
          if (b.pass == Pass::Value && b.arg.valid()) want = canon(b.arg);
          else if (b.pass == Pass::Written && b.viewOf >= 0 && c.args[b.viewOf].arg.valid())
            want = extentOf(c.args[b.viewOf].arg);
        }
    } else if (a.extentLit) {
      want = std::to_string(a.extentLit);
    } else {
      continue;
    }
    if (want.empty() || got.empty()) {
      effect(Trap, A.expr(a.arg).span.loc());  // the run-time guard stays
      continue;
    }
    if (want == got) continue;
    std::string kind = a.rw ? "rw<" : "ro<";
    std::string el = P.typeName(a.ty);
    cx.error(file, A.expr(a.arg).span, "E-TYPE-MISMATCH",
             "Expected " + kind + el + ">[" + want + "]@host, got " + kind + el + ">[" + got + "]@host.")
        ->note(A.expr(id).span.loc(), "in this call of " + std::string(c.name) + ": " + std::string(a.param) +
                                          " has the extent " + (a.extent.empty() ? want : std::string(a.extent)));
  }
}

// A record whose Buf field carries an extent field is built with that Buf
// written inline as Buf[T](n), on the same n the extent field is given:
// nothing checks the relation at run time (the reference's values.md).
void BodyCheck::checkExtentFields(ast::ExprId call, const CallFact &c) {
  Ty rec = tyOf(call);
  if (rec == sema::kNoTy || P.type(rec).k != sema::TK::Record) return;
  const sema::RecInst &ri = P.recs[P.type(rec).inst];
  for (size_t i = 0; i < ri.fields.size() && i < c.args.size(); ++i) {
    std::string ef = extentField(rec, ri.fields[i].name);
    if (ef.empty()) continue;
    ast::ExprId given;
    for (size_t j = 0; j < ri.fields.size() && j < c.args.size(); ++j)
      if (ri.fields[j].name == ef) given = c.args[j].arg;
    const ast::Expr &a = A.expr(c.args[i].arg);
    bool inlineBuf = a.kind == ast::ExprKind::Call && A.expr(a.a).kind == ast::ExprKind::Inst &&
                     A.expr(A.expr(a.a).a).kind == ast::ExprKind::Name && A.expr(A.expr(a.a).a).text == "Buf" &&
                     a.args.size() == 1;
    bool same = inlineBuf && given.valid() &&
                ((!canon(a.args[0]).empty() && canon(a.args[0]) == canon(given)) || text(a.args[0]) == text(given));
    if (same) continue;
    cx.error(file, a.span, "E-EXTENT-FIELD",
             ri.fields[i].name + " holds " + ef + " elements: build it here as Buf[T](n) on the same n that " + ef +
                 " is given.");
  }
}

// An extent field, or the Buf that carries it, is not written on its own.
void BodyCheck::checkExtentFieldWrite(ast::ExprId place, Loc at) {
  const ast::Expr &e = A.expr(place);
  if (e.kind != ast::ExprKind::Field) return;
  std::string carrier;
  if (!inDeclaredExtent(tyOf(e.a), e.text, carrier)) return;
  cx.error(file, at, "E-EXTENT-FIELD",
           e.text + " takes part in the declared extent of " + carrier + "; assign, take or swap the whole record.");
}

// A part's bounds are names, literals, fields, elements and arithmetic.
void BodyCheck::checkPartShape(ast::ExprId id) {
  const ast::Expr &e = A.expr(id);
  std::function<ast::ExprId(ast::ExprId)> callIn = [&](ast::ExprId x) -> ast::ExprId {
    if (!x.valid()) return {};
    const ast::Expr &b = A.expr(x);
    if (b.kind == ast::ExprKind::Call) {
      const ast::Expr &c = A.expr(b.a);
      sema::Sc sc;
      bool allowed = isBuiltin(c, "len") || (c.kind == ast::ExprKind::Name && sema::parseSc(c.text, sc));
      if (!allowed) return x;
    }
    for (ast::ExprId k : {b.a, b.b, b.c})
      if (ast::ExprId r = callIn(k); r.valid()) return r;
    for (ast::ExprId k : b.args)
      if (ast::ExprId r = callIn(k); r.valid()) return r;
    return {};
  };
  for (ast::ExprId bound : {e.b, e.c})
    if (ast::ExprId c = callIn(bound); c.valid()) {
      cx.error(file, A.expr(c).span, "E-CALL-SHAPE",
               "A part's bounds and extent are names, literals and arithmetic; bind a call first. Here: let lo = " +
                   text(c) + "; and write the part with lo.");
      return;
    }
}

}  // namespace cairn::check
