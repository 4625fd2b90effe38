// The flow-sensitive walk of one typed body: moves of owners, linear values,
// the leases of `defer`, `unsafe`, and the body's own effects.
//
// Assumes the body typed without errors (FnFacts::errors == 0): every
// expression it reaches has its type and every call its fact. Statements,
// loops and joins are described in body.hpp; this file holds the statement
// and block rules, flow_expr.cpp the expressions and calls.
#include "lower/check/body.hpp"

namespace cairn::check {

BodyCheck::BodyCheck(CheckContext &c, uint32_t idx)
    : cx(c), L(c.L), P(c.L.prog), fnIdx(idx), F(c.L.fns[idx]), facts(c.L.facts[idx]), file(F.item.file),
      A(P.files[file]->ast), item(P.item(F.item)), sum(c.sums[idx]) {}

size_t LocalTable::index(std::string_view n) const {
  if (!byName_.empty()) {
    auto it = byName_.find(n);
    return it == byName_.end() ? items_.size() : it->second;
  }
  for (size_t i = items_.size(); i-- > 0;) {
    const std::string_view k = items_[i].first;
    if (k.size() == n.size() && (n.empty() || (k[0] == n[0] && (k.data() == n.data() || k == n)))) return i;
  }
  return items_.size();
}

std::pair<LocalTable::iterator, bool> LocalTable::try_emplace(std::string_view n) {
  if (size_t i = index(n); i != items_.size()) return {items_.begin() + static_cast<std::ptrdiff_t>(i), false};
  items_.emplace_back(n, LocalInfo{});
  if (!byName_.empty()) {
    byName_.emplace(n, items_.size() - 1);
  } else if (items_.size() > kLinear) {
    for (size_t i = 0; i < items_.size(); ++i) byName_.emplace(items_[i].first, i);
  }
  return {items_.end() - 1, true};
}

void LocalTable::erase(std::string_view n) {
  const size_t i = index(n);
  if (i == items_.size()) return;
  if (!byName_.empty()) byName_.erase(n);
  if (i + 1 != items_.size()) {
    items_[i] = std::move(items_.back());
    if (!byName_.empty()) byName_[items_[i].first] = i;
  }
  items_.pop_back();
}

bool BodyCheck::typeIs(Ty t, TypeQ q) {
  auto ask = [&] { return q == QOwner ? P.holdsOwner(t) : q == QLinear ? P.isLinear(t) : P.hasError(t); };
  if (t >= P.types.size()) return ask();  // kNoTy and the like: not cached
  if (cx.typeAnswers.size() <= t) cx.typeAnswers.resize(P.types.size(), 0);
  uint8_t &a = cx.typeAnswers[t];
  const auto known = static_cast<uint8_t>(1u << (2 * q)), yes = static_cast<uint8_t>(2u << (2 * q));
  if (!(a & known)) a |= known | (ask() ? yes : 0);
  return a & yes;
}

// ---------------------------------------------------------------- effects

// The label is usually there already: found by view, no string is made.
void BodyCheck::effect(std::string_view label, Loc at) {
  for (const auto &[l, first] : sum.own)
    if (l == label) return;
  if (sum.own.empty()) sum.own.reserve(8);  // a body adds a handful
  sum.own.emplace_back(label, at);
}

void BodyCheck::effect(Fx label, Loc at) {
  static constexpr std::string_view kNames[] = {"trap",  "free",      "local_write",   "diverge",
                                                "alloc", "zero_init", "stack_storage", "io"};
  const uint32_t bit = 1u << label;
  if (fxNoted & bit) return;
  fxNoted |= bit;
  effect(kNames[label], at);
}

void BodyCheck::borrowEffect(LocalInfo &li, std::string_view name, bool write, Loc at) {
  bool &noted = write ? li.writeNoted : li.readNoted;
  if (noted) return;
  noted = true;
  effect(std::string(write ? "write:" : "read:").append(name), at);
}

int BodyCheck::findVar(std::string_view name) const {
  for (size_t i = cur.vars.size(); i-- > 0;)
    if (cur.vars[i].name == name) return static_cast<int>(i);
  return -1;
}

void BodyCheck::declare(std::string_view name, Ty ty, Loc at, bool param) {
  if (name.empty() || name == "_" || ty == sema::kNoTy || hasError(ty) || isCopy(ty)) return;
  Var v;
  v.name = name;
  v.linear = isLinear(ty);
  v.declAt = at;
  v.loopDepth = static_cast<uint32_t>(loops.size());
  v.param = param;
  cur.vars.push_back(v);
}

void BodyCheck::use(std::string_view nameView, Loc at, bool move) {
  int i = findVar(nameView);
  if (i < 0 || cur.dead) return;
  Var &v = cur.vars[i];
  if (v.quiet) return;
  if (v.st == St::Moved || v.st == St::Maybe) {
    const std::string name(nameView);
    bool maybe = v.st == St::Maybe;
    Diagnostic *d = cx.error(file, at, "E-MOVED",
                             maybe ? name + " was moved on some paths to here, so it may be gone: " + name +
                                         " was moved."
                                   : name + " was moved.");
    if (d) d->note(v.movedAt, name + " was moved here");
    v.quiet = true;
    return;
  }
  if (!move) return;
  if (deferring) return;
  if (v.leasedBy) {
    const std::string name(nameView);
    Diagnostic *d = cx.error(file, at, "E-LEASED",
                             name + " is read by the defer at line " + std::to_string(v.leasedBy) +
                                 " when its block ends, so it cannot move before then: make that call before the "
                                 "move, or bind what it reads to a local first.");
    if (d) d->note(v.leaseAt, "the defer that reads " + name);
    v.quiet = true;
    return;
  }
  v.st = St::Moved;
  v.movedAt = at;
  if (cx.moves && file == 0 && curStmt.valid()) {
    const ast::Stmt &s = A.stmt(curStmt);
    MoveEvent m{std::string(nameView), at, s.span, v.linear, false, false};
    m.stmtIsCall = s.kind == ast::StmtKind::Expr && A.expr(s.value).kind == ast::ExprKind::Call;
    m.revives = s.kind == ast::StmtKind::Return ||
                (s.kind == ast::StmtKind::Assign && rootView(s.target) == nameView);
    cx.moves->push_back(m);
  }
}

// r = the join of r and b (in that order: r's movedAt is kept), in place;
// b may be left empty.
void BodyCheck::joinInto(FlowState &r, FlowState &b, Loc at) const {
  if (r.dead) {
    r = std::move(b);
    return;
  }
  if (b.dead) return;
  for (size_t i = 0; i < r.vars.size() && i < b.vars.size(); ++i) {
    Var &v = r.vars[i];
    const Var &w = b.vars[i];
    v.quiet = v.quiet || w.quiet;
    if (v.st == w.st) continue;
    if (v.st == St::Live) v.movedAt = w.movedAt;
    if (v.linear && !v.branchAt.line) v.branchAt = w.st == St::Maybe && w.branchAt.line ? w.branchAt : at;
    v.st = St::Maybe;
  }
}

// ---------------------------------------------------------------- blocks

void BodyCheck::openBlock() { blocks.push_back(Block{cur.vars.size(), {}, declared.size()}); }

void BodyCheck::leakCheck(size_t from, Loc at, bool atExit, const char *exitWord) {
  for (size_t i = from; i < cur.vars.size(); ++i) {
    Var &v = cur.vars[i];
    if (v.quiet || !v.linear || v.deferConsumes) continue;
    const std::string name(v.name);
    if (v.st == St::Live) {
      Diagnostic *d =
          atExit ? cx.error(file, at, "E-LINEAR-LEAK",
                            name + " is not consumed before this " + exitWord +
                                ": a linear value must be consumed exactly once on every path (pass it by value, "
                                "return it, store it, or take it apart with let).")
                 : cx.error(file, v.declAt, "E-LINEAR-LEAK",
                            name + " is never consumed: a linear value must be consumed exactly once on every path "
                                     "(pass it by value, return it, store it, or take it apart with let).");
      if (d) d->note(atExit ? v.declAt : at, atExit ? name + " is declared here" : "its block ends here");
      v.quiet = true;
    } else if (v.st == St::Maybe) {
      Diagnostic *d = cx.error(file, v.branchAt.line ? v.branchAt : v.declAt, "E-LINEAR-BRANCH",
                               name + " is consumed on some paths only.");
      if (d) {
        d->note(v.movedAt, name + " is consumed here");
        d->note(v.declAt, name + " is declared here");
      }
      v.quiet = true;
    }
  }
}

void BodyCheck::runDefers(FlowState &s, size_t downTo) {
  for (size_t b = blocks.size(); b-- > downTo;)
    for (auto d = blocks[b].defers.rbegin(); d != blocks[b].defers.rend(); ++d)
      for (size_t i : d->consumes)
        if (i < s.vars.size()) {
          s.vars[i].st = St::Moved;
          s.vars[i].movedAt = A.stmt(d->stmt).span.loc();
          s.vars[i].deferConsumes = false;
        }
}

void BodyCheck::closeBlock(Loc end) {
  Block &b = blocks.back();
  if (!cur.dead) {
    runDefers(cur, blocks.size() - 1);
    leakCheck(b.mark, end, false, "");
    for (size_t i = b.mark; i < cur.vars.size(); ++i)
      if (!cur.vars[i].linear && cur.vars[i].st != St::Moved) effect(Free, end);
  }
  for (auto d = b.defers.rbegin(); d != b.defers.rend(); ++d)
    for (auto &[i, before] : d->leased)
      if (i < cur.vars.size()) cur.vars[i].leasedBy = before;
  cur.vars.resize(std::min(cur.vars.size(), b.mark));
  // Newest first: each is then the table's last entry (erasing is a pop).
  for (size_t i = declared.size(); i-- > b.localsMark;) locals.erase(declared[i]);
  declared.resize(b.localsMark);
  blocks.pop_back();
}

void BodyCheck::block(ast::StmtId id) {
  const ast::Stmt &s = A.stmt(id);
  openBlock();
  stmts(s.stmts);
  closeBlock(Loc{s.span.endLine, s.span.endCol ? s.span.endCol - 1 : 0});
}

void BodyCheck::stmts(const std::vector<ast::StmtId> &list) {
  for (ast::StmtId s : list) stmt(s);
}

// ---------------------------------------------------------------- the body

void BodyCheck::run() {
  if (facts.errors) return;
  sum.checked = true;
  // Room for a usual body's scopes and locals, so they rarely regrow.
  blocks.reserve(16);
  loops.reserve(8);
  locals.reserve(32);
  declared.reserve(32);
  openBlock();
  for (const FnInst::P &p : F.params) {
    LocalInfo li;
    li.ty = p.ty;
    if (p.k == FnInst::P::Array) {
      li.k = LocalInfo::ViewParam;
      li.extent = p.extentName.empty() ? (p.extentLit ? std::to_string(p.extentLit) : "") : p.extentName;
    } else if (p.k == FnInst::P::Borrow) {
      li.k = LocalInfo::BorrowParam;
      li.mut = p.rw;
    } else {
      li.k = P.type(p.ty).k == sema::TK::Scalar ? LocalInfo::Scalar : holdsOwner(p.ty) ? LocalInfo::Owner
                                                                                          : LocalInfo::Record;
    }
    locals[p.name] = std::move(li);
    declared.push_back(p.name);
    if (p.k == FnInst::P::Value) declare(p.name, p.ty, item.span.loc(), true);
  }
  Loc end{item.span.endLine, item.span.endCol ? item.span.endCol - 1 : 0};
  if (item.exprBody.valid()) {
    expr(item.exprBody, true);
    leakCheck(0, end, false, "");
    for (const Var &v : cur.vars)
      if (!v.linear && v.st != St::Moved) effect(Free, end);
    cur.dead = true;
  } else if (item.body.valid()) {
    stmts(A.stmt(item.body).stmts);
  }
  closeBlock(end);
}

void BodyCheck::stmt(ast::StmtId id) {
  const ast::Stmt &s = A.stmt(id);
  if (cur.dead) return;  // unreachable: nothing moves there
  ast::StmtId outer = curStmt;
  curStmt = id;
  struct Restore {
    ast::StmtId &r, v;
    ~Restore() { r = v; }
  } restore{curStmt, outer};
  size_t movesBefore = cx.moves ? cx.moves->size() : 0;
  stmtKind(s, id);
  // A statement after which no path goes on: a use inserted after it is
  // unreachable, so the corpus property skips its moves.
  if (cx.moves && cur.dead)
    for (size_t i = movesBefore; i < cx.moves->size(); ++i)
      if ((*cx.moves)[i].stmt.line == s.span.line && (*cx.moves)[i].stmt.col == s.span.col) (*cx.moves)[i].revives = true;
}

void BodyCheck::stmtKind(const ast::Stmt &s, ast::StmtId id) {
  switch (s.kind) {
    case ast::StmtKind::Let: letStmt(s, id); break;
    case ast::StmtKind::Unpack: unpackStmt(s, id); break;
    case ast::StmtKind::Storage: storageStmt(s); break;
    case ast::StmtKind::Assign: assign(s); break;
    case ast::StmtKind::Expr:
      expr(s.value, true);
      if (holdsOwner(tyOf(s.value))) effect(Free, s.span.loc());
      break;
    case ast::StmtKind::If: {
      expr(s.cond, true);
      FlowState s0 = cur;
      block(s.body);
      FlowState a = std::move(cur);
      cur = std::move(s0);
      if (s.elseBody.valid()) {
        if (A.stmt(s.elseBody).kind == ast::StmtKind::Block) block(s.elseBody);
        else stmt(s.elseBody);
      }
      std::swap(cur, a);  // the join of (then, else)
      joinInto(cur, a, s.span.loc());
      break;
    }
    case ast::StmtKind::While:
      effect(Diverge, s.span.loc());
      loop(s, s.cond, {});
      break;
    case ast::StmtKind::ForRange:
      expr(s.value, true);
      expr(s.cond, true);
      loop(s, {}, s.name);
      break;
    case ast::StmtKind::ForEach:
      expr(s.value, false);
      loop(s, {}, s.name);
      break;
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue: loopExit(s); break;
    case ast::StmtKind::Return: returnStmt(s); break;
    case ast::StmtKind::Defer: deferStmt(s, id); break;
    case ast::StmtKind::Block: block(id); break;
    case ast::StmtKind::Unsafe:
      ++unsafeDepth;
      ++sum.unsafeBlocks;
      block(s.body);
      --unsafeDepth;
      break;
    case ast::StmtKind::Match: matchStmt(s); break;
    case ast::StmtKind::Asm:
      if (!unsafeDepth) cx.error(file, s.span.loc(), "E-UNSAFE", "asm reaches the machine: it is legal only inside unsafe { }.");
      effect("asm:" + A.moreOf(s).asmTarget, s.span.loc());
      for (const ast::EffectLabel &l : A.moreOf(s).effects) effect(l.arg.empty() ? l.name : l.name + ":" + l.arg, s.span.loc());
      break;
    case ast::StmtKind::Parallel:
    case ast::StmtKind::Error: break;
  }
}

void BodyCheck::matchStmt(const ast::Stmt &s) {
  expr(s.value, true);  // the subject is used by value: its payload moves into the arm
  FlowState s0 = cur, out;
  out.dead = true;
  const std::vector<ast::MatchArm> &arms = A.moreOf(s).arms;
  for (const ast::MatchArm &arm : arms) {
    cur = s0;
    openBlock();
    if (arm.hasBinding) {
      const LocalFact *f = facts.lets.find(arm.body.v);
      Ty t = f ? f->ty : sema::kNoTy;
      LocalInfo li;
      li.ty = t;
      li.k = t != sema::kNoTy && P.type(t).k == sema::TK::Scalar ? LocalInfo::Scalar : LocalInfo::Other;
      declareLocal(arm.binding, li, arm.span.loc());
      declare(arm.binding, t, arm.span.loc(), false);
    }
    stmts(A.stmt(arm.body).stmts);
    const ast::Stmt &b = A.stmt(arm.body);
    closeBlock(Loc{b.span.endLine, b.span.endCol ? b.span.endCol - 1 : 0});
    joinInto(out, cur, s.span.loc());
  }
  if (!arms.empty()) cur = std::move(out);
}

// A loop runs its body from the entry state; what the body moves from
// outside must be live again where the body ends or continues.
void BodyCheck::loop(const ast::Stmt &s, ast::ExprId cond, const std::string &var) {
  FlowState s0 = cur;
  loops.push_back(Loop{cur.vars.size(), blocks.size(), {}, {}});
  loops.back().breaks.dead = loops.back().conts.dead = true;
  openBlock();
  if (!var.empty()) {
    LocalInfo li;
    li.k = LocalInfo::Scalar;
    if (s.kind == ast::StmtKind::ForRange) {
      li.rangeHi = canon(s.cond);
      const ast::Expr &lo = A.expr(s.value);
      li.rangeFromZero = lo.kind == ast::ExprKind::Int;
    }
    declareLocal(var, li, s.span.loc());
  }
  if (cond.valid()) expr(cond, true);
  stmts(A.stmt(s.body).stmts);
  const ast::Stmt &b = A.stmt(s.body);
  closeBlock(Loc{b.span.endLine, b.span.endCol ? b.span.endCol - 1 : 0});
  Loop lp = std::move(loops.back());
  loops.pop_back();
  joinInto(cur, lp.conts, s.span.loc());
  FlowState &end = cur;
  if (!end.dead)
    for (size_t i = 0; i < lp.mark && i < end.vars.size(); ++i) {
      Var &v = end.vars[i];
      if (s0.vars[i].st != St::Live || v.st == St::Live || v.quiet) continue;
      Diagnostic *d = cx.error(file, v.movedAt, "E-MOVE-IN-LOOP",
                               std::string(v.name) + " is declared outside this loop, so it cannot move inside it: the body may "
                                        "run more than once. Move it after the loop, or give it a new value before "
                                        "the body runs again.");
      if (d) {
        d->note(s.span.loc(), "the loop starts here");
        d->note(v.declAt, std::string(v.name) + " is declared here");
      }
      v.quiet = true;
      v.st = St::Live;
    }
  joinInto(s0, end, s.span.loc());
  joinInto(s0, lp.breaks, s.span.loc());
  cur = std::move(s0);
}

void BodyCheck::loopExit(const ast::Stmt &s) {
  if (loops.empty()) return;
  Loop &lp = loops.back();
  bool brk = s.kind == ast::StmtKind::Break;
  leakCheck(lp.mark, s.span.loc(), true, brk ? "break" : "continue");
  FlowState out = cur;
  runDefers(out, lp.blockDepth);
  out.vars.resize(std::min(out.vars.size(), lp.mark));
  joinInto(brk ? lp.breaks : lp.conts, out, s.span.loc());
  cur.dead = true;
}

void BodyCheck::returnStmt(const ast::Stmt &s) {
  if (s.value.valid()) expr(s.value, true);
  leakCheck(0, s.span.loc(), true, "return");
  for (const Var &v : cur.vars)
    if (!v.linear && v.st != St::Moved) effect(Free, s.span.loc());
  cur.dead = true;
}

}  // namespace cairn::check
