// The flow walk's declarations, assignments, defers, expressions and calls
// (the statements and blocks are in flow.cpp). An expression is walked in
// evaluation order; a name used by value moves it when it is an owner or
// linear; a call walks its arguments as its fact says each is passed.
#include "lower/check/body.hpp"

namespace cairn::check {

void BodyCheck::declareLocal(std::string_view name, LocalInfo li, Loc at) {
  if (name.empty() || name == "_") return;
  li.declAt = at;
  auto [prev, fresh] = locals.try_emplace(name);
  if (!fresh) {
    const std::string n(name);
    if (prev->second.declAt.line == at.line && prev->second.declAt.col == at.col) {
      // two names of one `let R(a, a) = r;`
      cx.error(file, at, "E-DUPLICATE", "this statement binds " + n + " twice; give each its own name.");
    } else {
      Diagnostic *d = cx.error(file, at, "E-SHADOW",
                               n + " is already declared in an enclosing scope; CAIRN never reuses a visible name: "
                                   "pick another one.");
      if (d && prev->second.declAt.line) d->note(prev->second.declAt, n + " is declared here");
    }
  }
  prev->second = std::move(li);
  declared.push_back(name);
}

LocalInfo BodyCheck::infoOf(Ty ty, bool mut) {
  LocalInfo li;
  li.ty = ty;
  li.mut = mut;
  if (ty == sema::kNoTy) return li;
  const sema::TypeRec &r = P.type(ty);
  li.k = r.k == sema::TK::Scalar ? LocalInfo::Scalar
         : holdsOwner(ty) && r.k == sema::TK::Buf ? LocalInfo::Owner
         : r.k == sema::TK::Record || r.k == sema::TK::Sum ? LocalInfo::Record
                                                           : LocalInfo::Other;
  return li;
}

void BodyCheck::letStmt(const ast::Stmt &s, ast::StmtId id) {
  if (s.value.valid() && A.expr(s.value).kind == ast::ExprKind::Name)
    if (auto li = locals.find(A.expr(s.value).text); li != locals.end() && li->second.k == LocalInfo::ViewParam)
      cx.error(file, A.expr(s.value).span, "E-VIEW-ALIAS",
               "A borrow cannot be bound to a local: " + A.expr(s.value).text +
                   " is a view this function was lent. Use it by its own name, or pass it on to a call.");
  if (s.value.valid()) expr(s.value, true);
  const LocalFact *f = facts.lets.find(id.v);
  if (!f) return;
  LocalInfo li = infoOf(f->ty, s.isMut);
  if (f->array) {
    li.k = LocalInfo::Array;
    if (f->arrayLen) li.extent = std::to_string(f->arrayLen);
    else if (s.value.valid() && A.expr(s.value).kind == ast::ExprKind::Name) li.extent = extentOf(s.value);
  } else if (li.k == LocalInfo::Scalar && !s.isMut && s.value.valid()) {
    li.canon = canon(s.value);
  }
  if (s.isMut && li.k != LocalInfo::Array) effect(LocalWrite, s.span.loc());
  declareLocal(s.name, std::move(li), s.span.loc());
  if (!f->array) declare(s.name, f->ty, s.span.loc(), false);
}

void BodyCheck::unpackStmt(const ast::Stmt &s, ast::StmtId id) {
  expr(s.value, true);
  const std::vector<Ty> *f = facts.unpacks.find(id.v);
  if (!f) return;
  const std::vector<std::string> &names = A.moreOf(s).names;
  for (size_t i = 0; i < names.size() && i < f->size(); ++i) {
    Ty t = (*f)[i];
    if (names[i] == "_") {
      if (isLinear(t)) {
        Diagnostic *d = cx.error(file, s.span.loc(), "E-LINEAR-LEAK",
                                 "field " + std::to_string(i + 1) + " holds a linear " + P.typeName(t) +
                                     ", and _ drops it: bind it to a name and consume it.");
        (void)d;
      } else if (holdsOwner(t)) {
        effect(Free, s.span.loc());
      }
      continue;
    }
    declareLocal(names[i], infoOf(t, s.isMut), s.span.loc());
    declare(names[i], t, s.span.loc(), false);
  }
}

void BodyCheck::storageStmt(const ast::Stmt &s) {
  const ast::TypeNode &tn = A.type(s.type);
  if (s.isBuffer) {
    effect(Alloc, s.span.loc());
    effect(ZeroInit, s.span.loc());
    effect(Free, s.span.loc());
  } else {
    effect(StackStorage, s.span.loc());
  }
  LocalInfo li;
  li.k = LocalInfo::Array;
  li.mut = true;
  if (tn.extent.valid()) {
    uint64_t n;
    li.extent = P.constValue(file, tn.extent, F.env, n) ? std::to_string(n) : canon(tn.extent);
  }
  declareLocal(s.name, std::move(li), s.span.loc());
}

// The root local of a place, and whether writing it is a write through a
// borrow (write:x) or to the function's own storage (local_write).
void BodyCheck::writeEffect(ast::ExprId target, Loc at, bool alsoRead) {
  std::string_view root = rootView(target);
  auto li = locals.find(root);
  if (li == locals.end()) return;
  bool borrowed = li->second.k == LocalInfo::ViewParam || li->second.k == LocalInfo::BorrowParam;
  if (borrowed) borrowEffect(li->second, root, true, at);
  else effect(LocalWrite, at);
  if (alsoRead && borrowed) borrowEffect(li->second, root, false, at);
}

void BodyCheck::assign(const ast::Stmt &s) {
  bool set = s.assignOp == ast::AssignOp::Set;
  expr(s.value, true);
  const ast::Expr &t = A.expr(s.target);
  Ty tt = tyOf(s.target);
  Loc at = t.span.loc();
  if (!set) {
    expr(s.target, false);
    if (sema::Ty ty = tt; ty != sema::kNoTy && P.type(ty).k == sema::TK::Scalar && sema::scInt(P.type(ty).sc) &&
                          s.assignOp != ast::AssignOp::And && s.assignOp != ast::AssignOp::Or &&
                          s.assignOp != ast::AssignOp::Xor)
      effect(Trap, at);
  } else if (t.kind == ast::ExprKind::Name) {
    int i = findVar(t.text);
    auto li = locals.find(t.text);
    bool borrowParam = li != locals.end() && li->second.k == LocalInfo::BorrowParam;
    if (i >= 0) {
      Var &v = cur.vars[i];
      if (v.linear && v.st == St::Live && !v.quiet) {
        Diagnostic *d = cx.error(file, at, "E-LINEAR-LEAK",
                                 "assigning over " + t.text + " loses the linear value it still holds: swap the new "
                                 "value in and consume what comes out.");
        if (d) d->note(v.declAt, t.text + " is declared here");
      }
      if (!v.linear && v.st != St::Moved) effect(Free, at);
      v.st = St::Live;
      v.quiet = false;
      v.branchAt = Loc{};
    } else if (borrowParam && tt != sema::kNoTy && isLinear(tt)) {
      cx.error(file, at, "E-LINEAR-LEAK",
               "assigning over " + t.text + " loses the linear value it still holds: swap the new value in and "
                                            "consume what comes out.");
    } else if (tt != sema::kNoTy && holdsOwner(tt)) {
      effect(Free, at);
    }
  } else {
    writingTarget = true;  // the root is written, not read; indices are read
    expr(s.target, false);
    writingTarget = false;
    // The page lists a local, a field, a record holding one and an rw
    // borrow; an element of a Buf is where std.vec puts a new value (past
    // its length, a slot that holds zeros), so elements are left alone.
    bool element = false;
    for (ast::ExprId x = s.target; x.valid() && A.expr(x).kind != ast::ExprKind::Name; x = A.expr(x).a)
      element = element || A.expr(x).kind == ast::ExprKind::Index;
    if (tt != sema::kNoTy && isLinear(tt) && !element)
      cx.error(file, at, "E-LINEAR-LEAK",
               "assigning over " + text(s.target) + " loses the linear value it still holds: swap the new value in "
                                                    "and consume what comes out.");
    else if (tt != sema::kNoTy && holdsOwner(tt))
      effect(Free, at);
  }
  writeEffect(s.target, at, !set);
  checkExtentFieldWrite(s.target, at);
}

// defer f(args): the call runs when the block ends, so it is walked now for
// its effects without moving anything; what it names is leased until then,
// and what it takes by value counts as consumed.
void BodyCheck::deferStmt(const ast::Stmt &s, ast::StmtId id) {
  if (!s.value.valid()) return;
  Defer d;
  d.stmt = id;
  deferring = true;
  expr(s.value, true);
  deferring = false;
  std::set<std::string> names;
  std::vector<ast::ExprId> todo{s.value};
  while (!todo.empty()) {
    ast::ExprId e = todo.back();
    todo.pop_back();
    if (!e.valid()) continue;
    const ast::Expr &x = A.expr(e);
    if (x.kind == ast::ExprKind::Name) names.insert(x.text);
    for (ast::ExprId c : {x.a, x.b, x.c}) todo.push_back(c);
    for (ast::ExprId c : x.args) todo.push_back(c);
  }
  uint32_t line = s.span.line;
  for (const std::string &n : names) {
    int i = findVar(n);
    if (i < 0) continue;
    d.leased.push_back({static_cast<size_t>(i), cur.vars[i].leasedBy});
    cur.vars[i].leasedBy = static_cast<int>(line);
    cur.vars[i].leaseAt = s.span.loc();
  }
  if (const CallFact *c = facts.calls.find(s.value.v))
    for (const ArgFact &a : c->args)
      if (a.arg.valid() && (a.pass == Pass::Value || c->kind != CallKind::Fn) &&
          A.expr(a.arg).kind == ast::ExprKind::Name)
        if (int i = findVar(A.expr(a.arg).text); i >= 0 && a.pass == Pass::Value) {
          cur.vars[i].deferConsumes = true;
          d.consumes.push_back(static_cast<size_t>(i));
        }
  blocks.back().defers.push_back(std::move(d));
}

}  // namespace cairn::check
