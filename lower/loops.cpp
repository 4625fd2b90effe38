// Loops, return and match, and the syntactic questions the statement layer
// asks before it lowers something: which names a region mentions (the cells
// it carries), and whether a statement may leave its block.
//
// A `for` whose body neither breaks nor returns is a `range` over the
// trip count (hi - lo, or 0 for an empty or reversed range); one that may
// leave early keeps its index in a cell and runs as a `while`.
#include "lower/fn.hpp"

namespace cairn::lower {

void FnLowerer::loopBody(const ast::Stmt &s, NodeId lo, NodeId hi, Ty ty, const Arr *each) {
  DType dt = sema::dtypeOf(P.type(ty).sc);
  bool brk = hasLoopExit(s.body, false, true), ret = hasReturn(s.body), cont = hasLoopExit(s.body, false, false);
  LoopFlags lf;
  if (brk) {
    newCell(DType::Bool, "", true, "broke");
    lf.brk = static_cast<int>(storages.size() - 1);
  }
  if (cont) {
    newCell(DType::Bool, "", true, "skip");
    lf.cont = static_cast<int>(storages.size() - 1);
  }
  NameSet names;
  mentioned(s.body, names);
  auto clearCont = [&] {
    if (lf.cont < 0) return;
    Col c;
    c.storage = static_cast<uint32_t>(lf.cont);
    c.dt = DType::Bool;
    storeLeaf(c, {}, konst(DType::Bool, 0));
  };
  auto bodyAt = [&](NodeId iv) {
    pushScope();
    if (each) {
      Val v = loadPlace(elemPlace(*each, iv));
      bindLocal(valueLocal(s.name, v, false, s.span.loc()));
    } else {
      Local l;
      l.name = s.name;
      l.ty = ty;
      l.k = Local::Value;
      l.val = Val{ty, {iv}};
      l.loc = s.span.loc();
      bindLocal(std::move(l));
    }
    block(s.body);
    popScope();
  };
  if (!brk && !ret) {
    NodeId lo64 = dt == DType::U64 ? lo : node(Op::Cast, {lo}, DType::U64, "lo");
    NodeId hi64 = dt == DType::U64 ? hi : node(Op::Cast, {hi}, DType::U64, "hi");
    NodeId empty = node(Op::Cmplt, {hi, lo}, DType::None, "empty");
    NodeId diff = node(Op::Sub, {hi64, lo64}, DType::None, "trips");
    NodeId cnt = node(Op::Where, {empty, Opnd::ofU64(0), diff}, DType::None, "trips");
    openRegion(cnt, names, anyExit(s.body));
    loops.push_back(lf);
    clearCont();
    NodeId idx = regions.back().range;
    bool fromZero = g->op(lo) == Op::Const && g->literal(g->operands(lo)[0].lit()).magnitude == 0;
    NodeId k = dt == DType::U64 ? idx : node(Op::Cast, {idx}, dt, "k");
    NodeId iv = fromZero ? k : node(Op::Add, {lo, k}, DType::None, NodeHint::variable(s.name));
    bodyAt(iv);
    loops.pop_back();
    closeRegion();
    retireLoopFlags(lf);
    return;
  }
  // A name of its own: two loops over `i` in one block must not share it.
  std::string cellVar = "$i" + std::string(nameNumber.text());
  newCell(dt, cellVar, true, "index");
  uint32_t ic = static_cast<uint32_t>(storages.size() - 1);
  Col icol;
  icol.storage = ic;
  icol.dt = dt;
  storeLeaf(icol, {}, lo);
  names.insert(cellVar);
  openRegion(u64c(UINT64_MAX), names, true);
  loops.push_back(lf);
  clearCont();
  NodeId iv = loadLeaf(icol, {});
  NodeId k = node(Op::Cmplt, {iv, hi}, DType::None, "more");
  openIf(k, names, true);
  bodyAt(iv);
  storeLeaf(icol, {}, node(Op::Add, {iv, konst(dt, 1)}, DType::None, "next"));
  closeRegion();
  NodeId stop = node(Op::Or, {node(Op::Neg, {k}, DType::None, "done"), flagsSet(false)}, DType::None, "stop");
  node(Op::Until, {stop}, DType::None, "until");
  loops.pop_back();
  closeRegion();
  retireLoopFlags(lf);
}

void FnLowerer::returnStmt(const ast::Stmt &s) {
  const sema::TypeRec &rt = P.type(F.ret);
  if (rt.k == sema::TK::Error) {  // the signature's error is reported
    setFlag(retFlag);
    return;
  }
  if (s.value.valid()) {
    if (rt.k == sema::TK::Unit) {
      error(s.span.loc(), "E-RETURN", "this function returns nothing; `return;` takes no value here");
      return;
    }
    Val v = moveOrCopy(s.value, F.ret);
    if (!v.ok()) return;
    if (differ(v.ty, F.ret)) {
      error(A.expr(s.value).span.loc(), "E-TYPE-MISMATCH", "Expected " + P.typeName(F.ret) + ", got " + P.typeName(v.ty) + ".");
      return;
    }
    if (F.sret) {
      storeSret(v);
    } else if (retCell.ok()) {
      storePlace(retCell, v);
    }
  } else if (rt.k != sema::TK::Unit && rt.k != sema::TK::Error) {
    error(s.span.loc(), "E-RETURN", "return needs a value of type " + P.typeName(F.ret));
  }
  setFlag(retFlag);
}

void FnLowerer::matchStmt(const ast::Stmt &s) {
  Val v = moveOrCopy(s.value, kNoTy);
  if (!v.ok()) return;
  const sema::TypeRec &r = P.type(v.ty);
  if (r.k != sema::TK::Sum) {
    error(A.expr(s.value).span.loc(), "E-MATCH", "match takes a sum (an enum value); this is a " + P.typeName(v.ty));
    return;
  }
  const sema::SumInst si = P.sums[r.inst];
  std::vector<int> seen(si.variants.size(), 0);
  for (const ast::MatchArm &arm : A.moreOf(s).arms) {
    Loc save = cur;
    cur = arm.span.loc();
    int k = -1;
    std::string vname = arm.path.empty() ? std::string() : arm.path.back();
    for (size_t i = 0; i < si.variants.size(); ++i)
      if (si.variants[i].name == vname) k = static_cast<int>(i);
    if (k < 0) {
      error(arm.span.loc(), "E-MATCH", si.name + " has no variant " + vname);
      cur = save;
      continue;
    }
    if (seen[k]++) error(arm.span.loc(), "E-MATCH-COVERAGE", "Every variant must have exactly one arm; " + vname + " has two.");
    const sema::Variant &var = si.variants[k];
    NodeId cond = node(Op::Cmpeq, {v.leaves[0], konst(DType::U32, static_cast<uint64_t>(k))}, DType::None, "is");
    NameSet names;
    mentioned(arm.body, names);
    openIf(cond, names, anyExit(arm.body));
    pushScope();
    if (var.payload != kNoTy) {
      size_t n = P.leaves(var.payload).size();
      Val pv{var.payload, Leaves(v.leaves.begin() + var.leaf, v.leaves.begin() + var.leaf + n)};
      if (arm.hasBinding) {
        facts->lets[arm.body.v] = check::LocalFact{var.payload, false, 0};
        bindLocal(valueLocal(arm.binding, pv, false, arm.span.loc()));
      }
      else if (P.holdsOwner(var.payload)) freeOwners(pv);
    } else if (arm.hasBinding) {
      error(arm.span.loc(), "E-MATCH", vname + " carries no payload to bind");
    }
    block(arm.body);
    popScope();
    closeRegion();
    cur = save;
  }
  std::string missing;
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) missing += (missing.empty() ? "" : ", ") + P.item(si.item).name + "." + si.variants[i].name;
  if (!missing.empty())
    error(s.span.loc(), "E-MATCH-COVERAGE", "Every variant must have exactly one arm; missing " + missing + ".");
}

// ---------------------------------------------------------------- syntax questions

void FnLowerer::mentionedExpr(ast::ExprId id, NameSet &out) const {
  if (!id.valid()) return;
  const ast::Expr &e = A.expr(id);
  if (e.kind == ast::ExprKind::Name) out.insert(e.text);
  mentionedExpr(e.a, out);
  mentionedExpr(e.b, out);
  mentionedExpr(e.c, out);
  for (ast::ExprId x : e.args) mentionedExpr(x, out);
  if (e.more) {
    const ast::ExprMore &more = A.moreOf(e);
    for (const auto &ga : more.gargs) mentionedExpr(ga.expr, out);
    mentioned(more.body, out);
  }
}

void FnLowerer::mentioned(ast::StmtId id, NameSet &out) const {
  if (!id.valid()) return;
  const ast::Stmt &s = A.stmt(id);
  mentionedExpr(s.target, out);
  mentionedExpr(s.value, out);
  mentionedExpr(s.cond, out);
  if (s.kind == ast::StmtKind::Storage && s.type.valid()) mentionedExpr(A.type(s.type).extent, out);
  mentioned(s.body, out);
  mentioned(s.elseBody, out);
  for (ast::StmtId c : s.stmts) mentioned(c, out);
  const ast::StmtMore &more = A.moreOf(s);
  for (const auto &arm : more.arms) mentioned(arm.body, out);
  for (const auto &op : more.asmOperands) mentionedExpr(op.value, out);
}

// The names of list[from..] that a region opened now could carry: those of
// the mutable cells in scope that some statement from `from` on mentions
// (openRegion asks about no other). The code after each of k early exits
// in one list is a region nested in the one before; walking the rest of
// the list at each of them cost O(k^2) time, and holding every level's
// names O(k^2) memory. Instead the list is walked once, for the last
// statement that mentions each name, and each level asks only about the
// cells in scope, or only about the list's names where they are fewer.
void FnLowerer::restNames(const std::vector<ast::StmtId> &list, size_t from, NameSet &out) {
  auto [at, fresh] = lastMention.try_emplace(&list);
  auto &last = at->second;
  if (fresh) {
    for (size_t j = 0; j < list.size(); ++j) {
      NameSet names;
      mentioned(list[j], names);
      names.seal();
      for (std::string_view n : names.v) last[n] = static_cast<uint32_t>(j);
    }
  }
  // Whichever is shorter: the list's names (a loop body's few, among a
  // function's many cells) or the function's cells (a long list of few).
  if (last.size() <= storages.size()) {
    for (const auto &[name, at] : last) {
      if (at < from || name.empty()) continue;
      if (auto it = mutByVar.find(name); it != mutByVar.end() && !it->second.empty()) out.insert(name);
    }
    return;
  }
  for (const Storage &st : storages) {
    if (!st.mut || st.var.empty()) continue;
    if (auto it = last.find(st.var); it != last.end() && it->second >= from) out.insert(st.var);
  }
}

bool FnLowerer::hasLoopExit(ast::StmtId id, bool nested, bool wantBreak) const {
  if (!id.valid()) return false;
  const ast::Stmt &s = A.stmt(id);
  switch (s.kind) {
    case ast::StmtKind::Break: return wantBreak && !nested;
    case ast::StmtKind::Continue: return !wantBreak && !nested;
    case ast::StmtKind::While:
    case ast::StmtKind::ForRange:
    case ast::StmtKind::ForEach:
    case ast::StmtKind::Parallel: return false;  // its own breaks are its own
    default: break;
  }
  if (hasLoopExit(s.body, nested, wantBreak) || hasLoopExit(s.elseBody, nested, wantBreak)) return true;
  for (ast::StmtId c : s.stmts)
    if (hasLoopExit(c, nested, wantBreak)) return true;
  for (const auto &arm : A.moreOf(s).arms)
    if (hasLoopExit(arm.body, nested, wantBreak)) return true;
  return false;
}

bool FnLowerer::hasReturn(ast::StmtId id) const {
  if (!id.valid()) return false;
  if (int8_t known = returnMemo_[id.v]) return known > 0;
  const bool r = findsReturn(id);
  returnMemo_[id.v] = r ? 1 : -1;
  return r;
}

bool FnLowerer::findsReturn(ast::StmtId id) const {
  const ast::Stmt &s = A.stmt(id);
  if (s.kind == ast::StmtKind::Return) return true;
  if (hasReturn(s.body) || hasReturn(s.elseBody)) return true;
  for (ast::StmtId c : s.stmts)
    if (hasReturn(c)) return true;
  for (const auto &arm : A.moreOf(s).arms)
    if (hasReturn(arm.body)) return true;
  return false;
}

// Whether a return, break or continue appears anywhere inside (nested loops
// included). A region carries the flag cells exactly when this holds, which
// is monotone: every region around one that carries them carries them too.
bool FnLowerer::anyExit(ast::StmtId id) const {
  if (!id.valid()) return false;
  const ast::Stmt &s = A.stmt(id);
  if (s.kind == ast::StmtKind::Return || s.kind == ast::StmtKind::Break || s.kind == ast::StmtKind::Continue) return true;
  if (anyExit(s.body) || anyExit(s.elseBody)) return true;
  for (ast::StmtId c : s.stmts)
    if (anyExit(c)) return true;
  for (const auto &arm : A.moreOf(s).arms)
    if (anyExit(arm.body)) return true;
  return false;
}

// Whether control never falls off the end of s: it returns on every path
// (or loops forever: `while true` without a break).
bool FnLowerer::alwaysReturns(ast::StmtId id) const {
  if (!id.valid()) return false;
  const ast::Stmt &s = A.stmt(id);
  switch (s.kind) {
    case ast::StmtKind::Return: return true;
    case ast::StmtKind::Block:
      for (ast::StmtId c : s.stmts)
        if (alwaysReturns(c)) return true;
      return false;
    case ast::StmtKind::Unsafe: return alwaysReturns(s.body);
    case ast::StmtKind::If: return s.elseBody.valid() && alwaysReturns(s.body) && alwaysReturns(s.elseBody);
    case ast::StmtKind::Match: {
      const std::vector<ast::MatchArm> &arms = A.moreOf(s).arms;
      if (arms.empty()) return false;
      for (const auto &arm : arms)
        if (!alwaysReturns(arm.body)) return false;
      return true;
    }
    case ast::StmtKind::While: {
      const ast::Expr &c = A.expr(s.cond);
      return s.cond.valid() && c.kind == ast::ExprKind::Bool && c.boolValue && !hasLoopExit(s.body, false, true);
    }
    default: return false;
  }
}

bool FnLowerer::mayExit(ast::StmtId id, bool inLoop) const {
  if (hasReturn(id)) return true;
  return inLoop && (hasLoopExit(id, false, true) || hasLoopExit(id, false, false));
}

// Whether every return in s is in tail position, once each `if` without
// `else` whose body always returns takes the statements after it as its
// `else` (stmts does that): then the function needs no `returned` flag,
// as no statement runs after a return. isTail: s is the last thing the
// function does. Returns in loops are never in tail position.
bool FnLowerer::tailReturns(ast::StmtId id, bool isTail) const {
  if (!id.valid() || !hasReturn(id)) return true;
  const ast::Stmt &s = A.stmt(id);
  switch (s.kind) {
    case ast::StmtKind::Return: return isTail;
    case ast::StmtKind::Block: return tailReturnsIn(s.stmts, 0, isTail);
    case ast::StmtKind::Unsafe: return tailReturns(s.body, isTail);
    case ast::StmtKind::If: return tailReturns(s.body, isTail) && tailReturns(s.elseBody, isTail);
    case ast::StmtKind::Match:
      for (const auto &arm : A.moreOf(s).arms)
        if (!tailReturns(arm.body, isTail)) return false;
      return true;
    default: return false;
  }
}

bool FnLowerer::tailReturnsIn(const std::vector<ast::StmtId> &list, size_t from, bool isTail) const {
  for (size_t i = from; i < list.size(); ++i) {
    if (!hasReturn(list[i])) continue;
    const bool last = i + 1 == list.size();
    if (!last && takesRestAsElse(list[i])) return tailReturns(list[i], isTail) && tailReturnsIn(list, i + 1, isTail);
    if (!tailReturns(list[i], last && isTail)) return false;
  }
  return true;
}

// An `if` without `else` whose body always returns: the statements after
// it are its `else`.
bool FnLowerer::takesRestAsElse(ast::StmtId id) const {
  const ast::Stmt &s = A.stmt(id);
  return s.kind == ast::StmtKind::If && !s.elseBody.valid() && alwaysReturns(s.body);
}

}  // namespace cairn::lower
