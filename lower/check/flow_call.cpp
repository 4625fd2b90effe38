// The flow walk's expressions and calls. A name used by value moves it
// when it is an owner or linear; a call walks its arguments in the order
// they are written, each as its fact says it is passed; the guards an
// expression may fail add `trap` to the body's own effects.
#include <algorithm>

#include "lower/check/body.hpp"
#include "lower/small_vec.hpp"

namespace cairn::check {

static bool intTy(sema::Program &P, Ty t) {
  return t != sema::kNoTy && P.type(t).k == sema::TK::Scalar && sema::scInt(P.type(t).sc);
}

// Whether xs[i] is visibly in bounds: i is the index of `for i in 0..n`
// and n is the extent of xs (the oracle proves such an index; no guard).
bool BodyCheck::provenIndex(ast::ExprId base, ast::ExprId idx) const {
  const ast::Expr &i = A.expr(idx);
  if (i.kind != ast::ExprKind::Name) return false;
  auto li = locals.find(i.text);
  if (li == locals.end() || !li->second.rangeFromZero || li->second.rangeHi.empty()) return false;
  return li->second.rangeHi == extentOf(base);
}

void BodyCheck::expr(ast::ExprId id, bool value) {
  if (!id.valid() || cur.dead) return;
  const ast::Expr &e = A.expr(id);
  Loc at = e.span.loc();
  switch (e.kind) {
    case ast::ExprKind::Name: {
      auto li = locals.find(e.text);
      if (li == locals.end()) return;
      if ((li->second.k == LocalInfo::ViewParam || li->second.k == LocalInfo::BorrowParam) && !writingTarget)
        borrowEffect(li->second, e.text, false, at);
      use(e.text, at, value);
      return;
    }
    case ast::ExprKind::Field: {
      const ast::Expr &b = A.expr(e.a);
      if (b.kind == ast::ExprKind::Name && !locals.count(b.text)) return;  // Enum.Variant, module.const
      expr(e.a, false);
      return;
    }
    case ast::ExprKind::Index: {
      expr(e.a, false);
      bool w = writingTarget;
      writingTarget = false;
      expr(e.b, true);
      writingTarget = w;
      if (!provenIndex(e.a, e.b)) effect(Trap, at);
      return;
    }
    case ast::ExprKind::Part:
      expr(e.a, false);
      checkPartShape(id);
      expr(e.b, true);
      expr(e.c, true);
      effect(Trap, at);
      return;
    case ast::ExprKind::Unary:
      expr(e.a, true);
      if (e.unOp == ast::UnOp::Neg && intTy(P, tyOf(id)) && sema::scSigned(P.type(tyOf(id)).sc)) effect(Trap, at);
      return;
    case ast::ExprKind::Binary: {
      expr(e.a, true);
      if (e.binOp == ast::BinOp::And || e.binOp == ast::BinOp::Or) {
        FlowState s0 = cur;
        expr(e.b, true);
        std::swap(cur, s0);  // the right side runs on some paths only: the join of (before, after)
        joinInto(cur, s0, at);
        return;
      }
      expr(e.b, true);
      using B = ast::BinOp;
      bool arith = e.binOp == B::Add || e.binOp == B::Sub || e.binOp == B::Mul || e.binOp == B::Div ||
                   e.binOp == B::Rem || e.binOp == B::Shl || e.binOp == B::Shr;
      if (arith && intTy(P, tyOf(id))) effect(Trap, at);
      return;
    }
    case ast::ExprKind::Call: call(id); return;
    default: return;
  }
}

void BodyCheck::builtinCall(ast::ExprId id, const CallFact &c) {
  const ast::Expr &e = A.expr(id);
  Loc at = e.span.loc();
  const std::string_view n = c.name;  // compared by length first, no strlen per literal
  if (n == "take" || n == "swap") {
    for (const ArgFact &a : c.args) {
      expr(a.arg, false);
      writeEffect(a.arg, at, true);
      checkExtentFieldWrite(a.arg, A.expr(a.arg).span.loc());
    }
    return;
  }
  if (n == "len") {
    for (const ArgFact &a : c.args) expr(a.arg, false);
    return;
  }
  if (n == "print" || n == "println") {
    for (const ArgFact &a : c.args) expr(a.arg, false);
    effect(Io, at);
    return;
  }
  for (const ArgFact &a : c.args) expr(a.arg, true);
  if (n == "shl_wrap" || n == "shr") effect(Trap, at);
}

// A conversion traps unless it widens: a narrower, differently signed or
// float-to-integer target is checked.
void BodyCheck::convertCall(ast::ExprId id, const CallFact &c) {
  if (c.args.empty()) return;
  expr(c.args[0].arg, true);
  Ty from = tyOf(c.args[0].arg), to = tyOf(id);
  if (from == sema::kNoTy || to == sema::kNoTy || from == to) return;
  const sema::TypeRec &f = P.type(from), &t = P.type(to);
  if (f.k != sema::TK::Scalar || t.k != sema::TK::Scalar) return;
  if (sema::scFloat(t.sc)) return;
  int fb = dtypeBits(sema::dtypeOf(f.sc)), tb = dtypeBits(sema::dtypeOf(t.sc));
  bool widens = sema::scInt(f.sc) && ((sema::scSigned(f.sc) == sema::scSigned(t.sc) && tb >= fb) ||
                                      (!sema::scSigned(f.sc) && sema::scSigned(t.sc) && tb > fb));
  if (!widens) effect(Trap, A.expr(id).span.loc());
}

void BodyCheck::call(ast::ExprId id) {
  const ast::Expr &e = A.expr(id);
  Loc at = e.span.loc();
  const CallFact *f = facts.calls.find(id.v);
  if (!f) {
    // Buf[T](n), Array[T, N](): storage made here.
    const ast::Expr &c = A.expr(e.a);
    if (c.kind == ast::ExprKind::Inst && A.expr(c.a).kind == ast::ExprKind::Name && A.expr(c.a).text == "Buf") {
      effect(Alloc, at);
      effect(ZeroInit, at);
    }
    for (ast::ExprId a : e.args) expr(a, true);
    return;
  }
  const CallFact &c = *f;
  switch (c.kind) {
    case CallKind::Builtin: builtinCall(id, c); return;
    case CallKind::Convert: convertCall(id, c); return;
    case CallKind::Construct:
      for (const ArgFact &a : c.args) expr(a.arg, true);
      checkExtentFields(id, c);
      return;
    case CallKind::Variant:
      for (const ArgFact &a : c.args) expr(a.arg, true);
      return;
    case CallKind::Fn:
    case CallKind::Extern: break;
  }
  if (c.kind == CallKind::Extern && !unsafeDepth && !item.isUnsafe)
    cx.error(file, e.span, "E-UNSAFE",
             std::string(c.name) + " is a foreign call: foreign calls, mmio and asm are legal only inside unsafe { }.");
  // Arguments in the order they are written (the receiver of x.f() first).
  lower::SmallVec<const ArgFact *, 8> written;
  for (const ArgFact &a : c.args)
    if (a.arg.valid()) written.push_back(&a);
  std::sort(written.begin(), written.end(), [&](const ArgFact *x, const ArgFact *y) {
    const ast::Span &p = A.expr(x->arg).span, &q = A.expr(y->arg).span;
    return p.line != q.line ? p.line < q.line : p.col < q.col;
  });
  CallSite site;
  site.callee = c.callee;
  site.at = at;
  site.text = textView(id);
  bool views = false;
  for (const ArgFact *a : written) {
    bool byValue = a->pass == Pass::Value || a->pass == Pass::Temp;
    expr(a->arg, byValue);
    if (a->pass == Pass::View || a->pass == Pass::Borrow || a->pass == Pass::Temp) {
      views = true;
      std::string_view root = rootView(a->arg);
      auto li = locals.find(root);
      bool borrowed = a->pass != Pass::Temp && li != locals.end() &&
                      (li->second.k == LocalInfo::ViewParam || li->second.k == LocalInfo::BorrowParam);
      CallSite::Lent lent{a->param, borrowed, borrowed ? root : std::string_view()};
      auto same = std::find_if(site.rename.begin(), site.rename.end(),
                               [&](const CallSite::Lent &l) { return l.param == lent.param; });
      if (same != site.rename.end()) *same = lent;  // one entry a parameter, the last passed
      else site.rename.push_back(lent);
    }
  }
  checkCallArgs(id, c);
  if (c.kind == CallKind::Extern && views) effect(Trap, at);
  sum.calls.push_back(std::move(site));
}

}  // namespace cairn::check
