// Statements: blocks and scopes (defers, releases), locals, assignment,
// if / while / for / match, and the flag discipline for return, break and
// continue (see fn.hpp).
//
// Assumes the expression layer leaves every storage's current version
// valid in the current region. Each block ends, whatever path it took, at
// its own end: that is where its defers run, in reverse, and where the
// owners its locals still hold are released.
#include "ir/check.hpp"
#include "lower/fn.hpp"

namespace cairn::lower {

void FnLowerer::pushScope() { scopes.emplace_back(); }

void FnLowerer::popScope() {
  // Defers run while the scope's locals are still visible.
  std::vector<ast::StmtId> defers = scopes.back().defers;
  for (auto it = defers.rbegin(); it != defers.rend(); ++it) {
    const ast::Stmt &d = A.stmt(*it);
    Loc save = cur;
    cur = d.span.loc();
    Val v = expr(d.value);
    if (v.ok() && P.holdsOwner(v.ty)) freeOwners(v);
    cur = save;
  }
  for (const Local &l : scopes.back().locals) {
    auto b = bindings.find(l.name);
    CAIRN_CHECK(b != bindings.end() && !b->second.empty() && b->second.back().scope == scopes.size() - 1,
                "local " << l.name << " is not bound in the scope that ends");
    b->second.pop_back();  // the entry stays: a name is often bound again (each loop's body)
  }
  Scope sc = std::move(scopes.back());
  for (auto it = sc.locals.rbegin(); it != sc.locals.rend(); ++it) {
    if (!it->owns || !P.holdsOwner(it->ty)) continue;
    if (it->k == Local::Place) freeOwners(loadPlace(it->place));
  }
  scopes.pop_back();
}

void FnLowerer::bindLocal(Local l) {
  std::vector<Local> &ls = scopes.back().locals;
  bindings[l.name].push_back({static_cast<uint32_t>(scopes.size() - 1), static_cast<uint32_t>(ls.size())});
  ls.push_back(std::move(l));
}

Local *FnLowerer::findLocal(const std::string &name) {
  auto b = bindings.find(name);
  if (b == bindings.end() || b->second.empty()) return nullptr;
  return &scopes[b->second.back().scope].locals[b->second.back().index];
}

// A local for a value: immutable scalars stay SSA values; everything else
// gets cells, so it can be assigned, borrowed and moved out of.
Local FnLowerer::valueLocal(const std::string &name, const Val &v, bool mut, Loc loc) {
  Local l;
  l.name = name;
  l.ty = v.ty;
  l.loc = loc;
  l.mut = mut;
  if (!mut && P.type(v.ty).k == sema::TK::Scalar) {
    l.k = Local::Value;
    l.val = v;
    return l;
  }
  l.k = Local::Place;
  l.place = cellPlace(v.ty, name, true, name.empty() || name == "_" ? NodeHint("tmp") : NodeHint("var"));
  storePlace(l.place, v);
  l.owns = true;
  return l;
}

void FnLowerer::block(ast::StmtId id) {
  const ast::Stmt &s = A.stmt(id);
  pushScope();
  if (s.kind == ast::StmtKind::Block) stmts(s.stmts, 0);
  else stmt(id);
  popScope();
}

// Statements from `from` on. After one that may leave (return, or
// break/continue of the loop we are in), the rest runs only when nothing is
// leaving, in a scope of its own so its locals end inside that `if`. In a
// function whose returns are all in tail position (no `returned` flag:
// tailReturns), an `if` whose body always returns takes the rest as its
// `else` instead.
void FnLowerer::stmts(const std::vector<ast::StmtId> &list, size_t from) {
  for (size_t i = from; i < list.size(); ++i) {
    if (regionLimitHit) return;  // the function is refused; going deeper could exhaust the stack
    if (retFlag < 0 && loops.empty() && i + 1 < list.size() && hasReturn(list[i]) && takesRestAsElse(list[i])) {
      ifThenRest(A.stmt(list[i]), list, i + 1);
      return;
    }
    stmt(list[i]);
    if (i + 1 < list.size() && mayExit(list[i], !loops.empty())) {
      openRest(node(Op::Neg, {flagsSet(true)}, DType::None, "go"), list, i + 1);
      pushScope();
      stmts(list, i + 1);
      popScope();
      closeRegion();
      return;
    }
  }
}

NodeId FnLowerer::flagsSet(bool withCont) {
  NodeId acc;
  auto add = [&](int s) {
    if (s < 0) return;
    Col c;
    c.storage = static_cast<uint32_t>(s);
    c.dt = DType::Bool;
    NodeId v = loadLeaf(c, {});
    acc = acc.valid() ? node(Op::Or, {acc, v}, DType::None, "leaving") : v;
  };
  add(retFlag);
  if (!loops.empty()) {
    add(loops.back().brk);
    if (withCont) add(loops.back().cont);
  }
  return acc.valid() ? acc : konst(DType::Bool, 0);
}

void FnLowerer::setFlag(int s) {
  if (s < 0) return;
  Col c;
  c.storage = static_cast<uint32_t>(s);
  c.dt = DType::Bool;
  storeLeaf(c, {}, konst(DType::Bool, 1));
}

void FnLowerer::stmt(ast::StmtId id) {
  const ast::Stmt &s = A.stmt(id);
  Loc save = cur;
  cur = s.span.loc();
  switch (s.kind) {
    case ast::StmtKind::Let: letStmt(s); break;
    case ast::StmtKind::Unpack: unpackStmt(s); break;
    case ast::StmtKind::Storage: storageStmt(s); break;
    case ast::StmtKind::Assign: assignStmt(s); break;
    case ast::StmtKind::Expr: {
      Val v = expr(s.value);
      if (v.ok() && P.holdsOwner(v.ty)) freeOwners(v);  // a result nobody keeps is released
      break;
    }
    case ast::StmtKind::If: ifStmt(s); break;
    case ast::StmtKind::While: whileStmt(s); break;
    case ast::StmtKind::ForRange: forRange(s); break;
    case ast::StmtKind::ForEach: forEach(s); break;
    case ast::StmtKind::Parallel: unsupported(s.span.loc(), "a parallel region"); break;
    case ast::StmtKind::Break:
      if (loops.empty()) error(s.span.loc(), "E-LOOP", "break outside a loop");
      else setFlag(loops.back().brk);
      break;
    case ast::StmtKind::Continue:
      if (loops.empty()) error(s.span.loc(), "E-LOOP", "continue outside a loop");
      else setFlag(loops.back().cont);
      break;
    case ast::StmtKind::Return: returnStmt(s); break;
    case ast::StmtKind::Defer:
      if (!s.value.valid() || A.expr(s.value).kind != ast::ExprKind::Call)
        error(s.span.loc(), "E-DEFER", "defer takes one call: defer f(...);");
      else scopes.back().defers.push_back(id);
      break;
    case ast::StmtKind::Block: block(id); break;
    case ast::StmtKind::Unsafe: block(s.body); break;
    case ast::StmtKind::Match: matchStmt(s); break;
    case ast::StmtKind::Asm: unsupported(s.span.loc(), "typed assembly"); break;
    case ast::StmtKind::Error: break;
  }
  cur = save;
}

void FnLowerer::letStmt(const ast::Stmt &s) {
  Ty declared = s.type.valid() ? P.resolveType(file, s.type, F.env) : kNoTy;
  if (s.value.valid()) {
    const ast::Expr &init = A.expr(s.value);
    // Storage-valued initializers: a string literal, Array[T, N]().
    if (init.kind == ast::ExprKind::Str || (init.kind == ast::ExprKind::Call && A.expr(init.a).kind == ast::ExprKind::Inst &&
                                            A.expr(A.expr(init.a).a).kind == ast::ExprKind::Name &&
                                            A.expr(A.expr(init.a).a).text == "Array")) {
      std::optional<Arr> arr = array(s.value);
      if (!arr) return;
      for (const Col &c : arr->cols)
        if (c.k == Col::Cell && c.storage < storages.size() && storages[c.storage].var.empty())
          nameStorage(c.storage, s.name);  // so regions that mention it carry it
      Local l;
      l.name = s.name;
      l.k = Local::Array;
      l.arr = *arr;
      l.arr.writable = s.isMut;
      l.ty = P.array(arr->elem, 0);
      l.loc = s.span.loc();
      facts->lets[stmtIndex(s)] = check::LocalFact{arr->elem, true, init.kind == ast::ExprKind::Str ? init.text.size() : 0};
      bindLocal(std::move(l));
      return;
    }
  }
  if (s.value.valid() && A.expr(s.value).kind == ast::ExprKind::Name)
    if (Local *src = findLocal(A.expr(s.value).text); src && src->k == Local::Array) {
      Local l;
      l.name = s.name;
      l.k = Local::Array;
      l.arr = copyArr(src->arr, s.name);
      l.arr.writable = s.isMut;
      l.ty = src->ty;
      l.loc = s.span.loc();
      facts->lets[stmtIndex(s)] = check::LocalFact{src->arr.elem, true, 0};
      bindLocal(std::move(l));
      return;
    }
  Val v;
  if (!s.value.valid() || A.expr(s.value).kind == ast::ExprKind::Zeroed) {
    if (declared == kNoTy) {
      error(s.span.loc(), "E-TYPE", "a local without a value needs a type: let " + s.name + ":T = zeroed;");
      return;
    }
    v = zeroVal(declared);
  } else {
    v = moveOrCopy(s.value, declared);
  }
  if (!v.ok()) {
    // The error is reported; the name stays known, so its uses stay quiet.
    Local l;
    l.name = s.name;
    l.ty = P.errorTy();
    l.k = Local::Value;
    l.val = Val{P.errorTy(), {}};
    l.loc = s.span.loc();
    bindLocal(std::move(l));
    return;
  }
  if (declared != kNoTy && v.ty != declared && P.type(declared).k != sema::TK::Error) {
    error(s.span.loc(), "E-TYPE-MISMATCH", "Expected " + P.typeName(declared) + ", got " + P.typeName(v.ty) + ".");
    return;
  }
  if (P.type(v.ty).k == sema::TK::Unit) {
    error(s.span.loc(), "E-TYPE", s.name + " would hold no value (the call returns nothing)");
    return;
  }
  facts->lets[stmtIndex(s)] = check::LocalFact{v.ty, false, 0};
  bindLocal(valueLocal(s.name, v, s.isMut, s.span.loc()));
}

void FnLowerer::unpackStmt(const ast::Stmt &s) {
  const ast::StmtMore &x = A.moreOf(s);
  Val v = moveOrCopy(s.value, kNoTy);
  if (!v.ok()) return;
  const sema::TypeRec &r = P.type(v.ty);
  if (r.k != sema::TK::Record) {
    error(s.span.loc(), "E-UNPACK", "let " + (x.path.empty() ? std::string() : x.path.back()) +
                                        "(...) takes a record apart; this is a " + P.typeName(v.ty));
    return;
  }
  const sema::RecInst &ri = P.recs[r.inst];
  if (!x.path.empty() && P.item(ri.item).name != x.path.back()) {
    error(s.span.loc(), "E-UNPACK", "the value is a " + ri.name + ", not a " + x.path.back());
    return;
  }
  if (ri.item.file != file && P.isLinear(v.ty)) {
    error(s.span.loc(), "E-PRIVATE",
          "Only the module that declares a linear record may take it apart: " + ri.name + " is declared in " +
              P.files[ri.item.file]->moduleName + ", so code outside cannot end its protocol. Call its functions.");
    return;
  }
  if (x.names.size() != ri.fields.size()) {
    error(s.span.loc(), "E-UNPACK", ri.name + " has " + std::to_string(ri.fields.size()) + " fields; name each one (or _)");
    return;
  }
  std::vector<Ty> &fieldTys = facts->unpacks[stmtIndex(s)];
  for (const sema::Field &f : ri.fields) fieldTys.push_back(f.ty);
  for (size_t i = 0; i < ri.fields.size(); ++i) {
    const sema::Field &f = ri.fields[i];
    size_t n = P.leaves(f.ty).size();
    Val fv{f.ty, Leaves(v.leaves.begin() + f.leaf, v.leaves.begin() + f.leaf + n)};
    if (x.names[i] == "_") {
      if (P.holdsOwner(f.ty)) freeOwners(fv);
      continue;
    }
    bindLocal(valueLocal(x.names[i], fv, s.isMut, s.span.loc()));
  }
}

void FnLowerer::storageStmt(const ast::Stmt &s) {
  const ast::TypeNode &tn = A.type(s.type);
  if (tn.placement == ast::Placement::Device || tn.placement == ast::Placement::Unified) {
    unsupported(s.span.loc(), "device storage");
    return;
  }
  Ty elem = P.resolveType(file, tn.elem, F.env);
  if (P.holdsOwner(elem)) {
    unsupported(s.span.loc(), "stack or buffer storage of owners");
    return;
  }
  uint64_t n = 0;
  NodeId count;
  if (tn.extent.valid() && P.constValue(file, tn.extent, F.env, n)) {
    count = u64c(n);
  } else if (tn.extent.valid()) {
    Val c = exprScalar(tn.extent, P.scalar(sema::Sc::Usize));
    if (!c.ok()) return;
    if (c.ty != P.scalar(sema::Sc::Usize)) {
      error(tn.span.loc(), "E-EXTENT", "an extent is a usize; got " + P.typeName(c.ty));
      return;
    }
    count = c.leaves[0];
  } else {
    error(s.span.loc(), "E-TYPE", "a stack or buffer declaration needs a length: name:T[N]");
    return;
  }
  Local l;
  l.name = s.name;
  l.k = Local::Array;
  l.loc = s.span.loc();
  l.arr.elem = elem;
  l.arr.len = count;
  l.ty = P.array(elem, n);
  for (const sema::Leaf &lf : P.leaves(elem)) {
    if (n) {
      // a literal size, so the oracle can prove constant indices
      NodeId b = node(Op::Buffer, {Opnd::ofU64(n)}, lf.dt, s.isBuffer ? NodeHint("buffer") : NodeHint("stack"));
      addStorage(Storage{b, b, lf.dt, static_cast<uint32_t>(regions.size()), s.name, true});
    } else {
      newCell(lf.dt, s.name, true, s.isBuffer ? NodeHint("buffer") : NodeHint("stack"), count);
    }
    Col c;
    c.storage = static_cast<uint32_t>(storages.size() - 1);
    c.dt = lf.dt;
    l.arr.cols.push_back(c);
  }
  facts->lets[stmtIndex(s)] = check::LocalFact{elem, true, n};
  bindLocal(std::move(l));
}

static Op arithOp(ast::AssignOp op, bool isFloatTy) {
  switch (op) {
    case ast::AssignOp::Add: return isFloatTy ? Op::Add : Op::CheckedAdd;
    case ast::AssignOp::Sub: return isFloatTy ? Op::Sub : Op::CheckedSub;
    case ast::AssignOp::Mul: return isFloatTy ? Op::Mul : Op::CheckedMul;
    case ast::AssignOp::Div: return isFloatTy ? Op::Fdiv : Op::CheckedDiv;
    case ast::AssignOp::Rem: return Op::CheckedMod;
    case ast::AssignOp::And: return Op::And;
    case ast::AssignOp::Or: return Op::Or;
    case ast::AssignOp::Xor: return Op::Xor;
    case ast::AssignOp::Shl: return Op::Shl;
    case ast::AssignOp::Shr: return Op::Shr;
    case ast::AssignOp::Set: break;
  }
  return Op::Add;
}

void FnLowerer::assignStmt(const ast::Stmt &s) {
  std::optional<Place> p = place(s.target, true);
  if (!p) return;
  if (!p->writable) {
    error(A.expr(s.target).span.loc(), "E-IMMUTABLE", "this place is not mutable (declare it `let mut`, or take rw<...>)");
    return;
  }
  if (s.assignOp == ast::AssignOp::Set) {
    // t.kids[0] = t: the record would hold itself.
    if (P.holdsOwner(p->ty) && A.expr(s.value).kind == ast::ExprKind::Name && mayLieInside(s.target, s.value)) {
      error(A.expr(s.value).span.loc(), "E-ALIAS",
            "this moves the local the assigned place lies in, so it would hold itself; take the child out first: t = "
            "take(t.kids[0]);");
      return;
    }
    Val v = moveOrCopy(s.value, p->ty);
    if (!v.ok()) return;
    if (differ(v.ty, p->ty)) {
      error(A.expr(s.value).span.loc(), "E-TYPE-MISMATCH", "Expected " + P.typeName(p->ty) + ", got " + P.typeName(v.ty) + ".");
      return;
    }
    if (P.holdsOwner(p->ty)) freeOwners(loadPlace(*p));  // the value assigned over is released here
    storePlace(*p, v);
    return;
  }
  const sema::TypeRec &r = P.type(p->ty);
  if (P.hasError(p->ty)) return;  // reported already
  if (r.k != sema::TK::Scalar) {
    error(s.span.loc(), "E-TYPE", "compound assignment needs a scalar place; this is a " + P.typeName(p->ty));
    return;
  }
  Val old = loadPlace(*p);
  Val rhs = exprScalar(s.value, p->ty);
  if (!rhs.ok() || old.leaves.empty()) return;
  if (differ(rhs.ty, p->ty)) {
    error(A.expr(s.value).span.loc(), "E-TYPE-MISMATCH", "Expected " + P.typeName(p->ty) + ", got " + P.typeName(rhs.ty) + ".");
    return;
  }
  NodeId b = rhs.leaves[0];
  if (s.assignOp == ast::AssignOp::Shl || s.assignOp == ast::AssignOp::Shr) {
    int w = dtypeBits(sema::dtypeOf(r.sc));
    guard(node(Op::Cmplt, {b, konst(sema::dtypeOf(r.sc), static_cast<uint64_t>(w))}, DType::None, "ok"),
          "shift count out of range");
  }
  NodeId nv = node(arithOp(s.assignOp, sema::scFloat(r.sc)), {old.leaves[0], b}, DType::None, "x");
  storePlace(*p, Val{p->ty, {nv}});
}

void FnLowerer::ifStmt(const ast::Stmt &s) {
  NodeId c = exprBool(s.cond);
  if (!c.valid()) return;
  NameSet names;
  mentioned(s.body, names);
  openIf(c, names, anyExit(s.body));
  block(s.body);
  closeRegion();
  if (s.elseBody.valid()) {
    NameSet en;
    mentioned(s.elseBody, en);
    NodeId nc = node(Op::Neg, {c}, DType::None, "else");
    openIf(nc, en, anyExit(s.elseBody));
    block(s.elseBody);
    closeRegion();
  }
}

// The region of `if c { body }`, opened, lowered and closed. Out of line
// (as is openRest), so that its NameSet is not in the frames of the
// recursion of stmts and ifThenRest, one level per early exit.
[[gnu::noinline]] void FnLowerer::ifBody(NodeId c, ast::StmtId body) {
  NameSet names;
  mentioned(body, names);
  openIf(c, names, true);
  block(body);
  closeRegion();
}

// Opens the region, on `cond`, of the statements list[from..]: the code
// after an early exit.
[[gnu::noinline]] void FnLowerer::openRest(NodeId cond, const std::vector<ast::StmtId> &list, size_t from) {
  NameSet names;
  restNames(list, from, names);
  openIf(cond, names, true);
}

// `if c { ...return } rest` as `if c { ...return } else { rest }`.
void FnLowerer::ifThenRest(const ast::Stmt &s, const std::vector<ast::StmtId> &list, size_t from) {
  Loc save = cur;
  cur = s.span.loc();
  NodeId c = exprBool(s.cond);
  if (c.valid()) ifBody(c, s.body);
  cur = save;
  if (c.valid()) openRest(node(Op::Neg, {c}, DType::None, "else"), list, from);
  pushScope();
  stmts(list, from);
  popScope();
  if (c.valid()) closeRegion();
}

// while: range over the largest u64; each iteration clears `continue`,
// evaluates the condition, runs the body when it holds, and stops after
// an iteration whose condition failed or that broke or returned.
void FnLowerer::whileStmt(const ast::Stmt &s) {
  LoopFlags lf;
  if (hasLoopExit(s.body, false, true)) {
    newCell(DType::Bool, "", true, "broke");
    lf.brk = static_cast<int>(storages.size() - 1);
  }
  if (hasLoopExit(s.body, false, false)) {
    newCell(DType::Bool, "", true, "skip");
    lf.cont = static_cast<int>(storages.size() - 1);
  }
  NameSet names;
  mentionedExpr(s.cond, names);
  mentioned(s.body, names);
  bool flags = anyExit(s.body);
  openRegion(u64c(UINT64_MAX), names, flags);
  loops.push_back(lf);
  if (lf.cont >= 0) {
    Col c;
    c.storage = static_cast<uint32_t>(lf.cont);
    c.dt = DType::Bool;
    storeLeaf(c, {}, konst(DType::Bool, 0));
  }
  NodeId k = exprBool(s.cond);
  if (k.valid()) {
    openIf(k, names, flags);
    block(s.body);
    closeRegion();
    NodeId stop = node(Op::Or, {node(Op::Neg, {k}, DType::None, "done"), flagsSet(false)}, DType::None, "stop");
    node(Op::Until, {stop}, DType::None, "until");
  }
  loops.pop_back();
  closeRegion();
  retireLoopFlags(lf);
}

void FnLowerer::forRange(const ast::Stmt &s) {
  Val lo, hi;
  if (isLiteralExpr(s.value) && !isLiteralExpr(s.cond)) {
    hi = exprScalar(s.cond);
    if (!hi.ok()) return;
    lo = exprScalar(s.value, hi.ty);
  } else {
    // Two literals (0..8) take the type expected of the index: usize when
    // the body uses it where a usize is expected (a part's bound, a usize
    // parameter of a function), else u64, the type of a literal that
    // nothing expects (values.md). Indexing takes any unsigned index.
    Ty want = isLiteralExpr(s.value) && isLiteralExpr(s.cond) && usedAsUsize(s.body, s.name)
                  ? P.scalar(sema::Sc::Usize)
                  : kNoTy;
    lo = exprScalar(s.value, want);
    if (!lo.ok()) return;
    hi = exprScalar(s.cond, lo.ty);
  }
  if (!lo.ok() || !hi.ok()) return;
  if (lo.ty != hi.ty || !sema::scInt(P.type(lo.ty).sc)) {
    error(s.span.loc(), "E-TYPE-MISMATCH", "a for range needs two integers of one type; got " + P.typeName(lo.ty) +
                                               " and " + P.typeName(hi.ty));
    return;
  }
  loopBody(s, lo.leaves[0], hi.leaves[0], lo.ty, nullptr);
}

// Whether `name` appears in `body` as a part's bound or as an argument of a
// function parameter declared usize: where the index of a literal range is
// expected to be a usize.
bool FnLowerer::usedAsUsize(ast::StmtId body, const std::string &name) const {
  bool found = false;
  SmallVec<ast::ExprId, 32> exprsLeft;
  SmallVec<ast::StmtId, 16> stmtsLeft{body};
  auto isName = [&](ast::ExprId x) {
    return x.valid() && A.expr(x).kind == ast::ExprKind::Name && A.expr(x).text == name;
  };
  while (!stmtsLeft.empty() && !found) {
    ast::StmtId id = stmtsLeft.back();
    stmtsLeft.pop_back();
    if (!id.valid()) continue;
    const ast::Stmt &st = A.stmt(id);
    for (ast::ExprId x : {st.value, st.cond, st.target}) exprsLeft.push_back(x);
    for (ast::StmtId c : {st.body, st.elseBody}) stmtsLeft.push_back(c);
    for (ast::StmtId c : st.stmts) stmtsLeft.push_back(c);
    for (const ast::MatchArm &a : A.moreOf(st).arms) stmtsLeft.push_back(a.body);
    while (!exprsLeft.empty() && !found) {
      ast::ExprId x = exprsLeft.back();
      exprsLeft.pop_back();
      if (!x.valid()) continue;
      const ast::Expr &e = A.expr(x);
      if (e.kind == ast::ExprKind::Part && (isName(e.b) || isName(e.c))) found = true;
      if (e.kind == ast::ExprKind::Call && A.expr(e.a).kind == ast::ExprKind::Name) {
        sema::ItemRef r = P.lookup(file, A.expr(e.a).text);
        if (r.valid() && P.item(r).kind == ast::ItemKind::Fn) {
          const ast::Item &it = P.item(r);
          const ast::Module &CA = P.files[r.file]->ast;
          for (size_t i = 0; i < e.args.size() && i < it.params.size(); ++i)
            if (isName(e.args[i]) && CA.type(it.params[i].type).kind == ast::TypeKind::Named &&
                CA.type(it.params[i].type).name == "usize")
              found = true;
        }
      }
      for (ast::ExprId c : {e.a, e.b, e.c}) exprsLeft.push_back(c);
      for (ast::ExprId c : e.args) exprsLeft.push_back(c);
    }
  }
  return found;
}

void FnLowerer::forEach(const ast::Stmt &s) {
  std::optional<Arr> a = array(s.value);
  if (!a) return;
  if (!P.isCopy(a->elem)) {
    error(s.span.loc(), "E-MOVE-IN-LOOP", "for x in view copies each element; these elements hold owners");
    return;
  }
  NodeId n = lenOf(*a);
  loopBody(s, u64c(0), n, P.scalar(sema::Sc::Usize), &*a);
}

}  // namespace cairn::lower
