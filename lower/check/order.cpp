// Operand order (E-EFFECT-ORDER). CAIRN lowers to C++, which leaves the
// order of an expression's operands open, so the checker refuses an
// operand whose effect would make the result depend on that order. The
// operands beside each other are the two sides of a binary operator; &&
// and || are sequenced, and so are a call's own arguments (the reference's
// language.md), and a call runs after them. For each operand this file
// summarizes what running it may do, from the callees' rows
// (lower/check/effects.cpp), and refuses:
//   - a call that writes through a borrow or allocates as an operand of a
//     binary operator, whatever is beside it ("cannot be a nested operand");
//   - a call that moves or takes a local beside an operand that names it;
//   - a call the outside world can observe beside another call or an
//     operand that may abort.
#include <algorithm>
#include <string_view>

#include "lower/check/body.hpp"

namespace cairn::check {

namespace {

struct Summary {
  bool literal = false, hasCall = false, mayAbort = false;
  bool writes = false;           // a call inside writes through a borrow (not only allocates)
  ast::ExprId writer, observer;  // the first call that writes/allocates, that is observable
  ast::ExprId wrote;             // what the writer writes, when it has a source text (none: it only allocates)
  ast::ExprId mover;             // the first call that moves a local (by value) or takes from it
  ast::ExprId moved;             // ... the Name of that local (none: no name)
  // The locals the operand names are OrderCheck::names_[namesFrom, namesTo):
  // the walk of an operand pushes exactly the names of its subtree, in one
  // contiguous run, so a Summary needs no list of its own. It is made,
  // copied and merged at every node under an operator, so it holds ids
  // only: small, and no allocation.
  uint32_t namesFrom = 0, namesTo = 0;
  // Merging is associative: each "first" field keeps the first valid one in
  // operand order (the writer: the first that writes, else the first that
  // allocates), the flags are ORs. Names are not merged (see above).
  void merge(const Summary &o) {
    hasCall = hasCall || o.hasCall;
    mayAbort = mayAbort || o.mayAbort;
    if (!writer.valid() || (!writes && o.writes)) {
      writer = o.writer;
      wrote = o.wrote;
    }
    writes = writes || o.writes;
    if (!mover.valid()) {
      mover = o.mover;
      moved = o.moved;
    }
    if (!observer.valid()) observer = o.observer;
  }
};

bool observable(std::string_view l) {
  static constexpr std::string_view kinds[] = {"io",        "ffi:",      "mmio",     "asm",           "atomic",
                                               "lock",      "spawn",     "join",     "par:",          "transfer:",
                                               "gpu_alloc", "gpu_free",  "dispatch", "indirect_call", "lane:"};
  for (std::string_view k : kinds)
    if (l.starts_with(k)) return true;
  return false;
}

// `id` when it has a source text to name what is written, else none.
ast::ExprId withText(const BodyCheck &b, ast::ExprId id) { return b.textView(id).empty() ? ast::ExprId() : id; }

// What a callee's row says for operand order, read from its labels once
// per callee (not once per call).
struct RowFacts {
  bool ready = false, trap = false, observable = false, alloc = false;
  std::vector<std::string_view> writes;  // p of each write:p, in the row's order (views of its labels)
};

struct OrderCheck {
  BodyCheck &b;
  CheckContext &cx;
  std::vector<RowFacts> &rowFacts;  // by callee, filled on first use (cx.rows no longer change)
  // The names walked so far in this statement (views of the AST's names);
  // each Summary owns a contiguous run of it. Shared by all bodies.
  std::vector<std::string_view> &names_;

  bool names(const Summary &s, std::string_view n) const {
    auto from = names_.begin() + static_cast<std::ptrdiff_t>(s.namesFrom);
    auto to = names_.begin() + static_cast<std::ptrdiff_t>(s.namesTo);
    return std::find(from, to, n) != to;
  }

  const RowFacts &factsOf(int callee) {
    RowFacts &r = rowFacts[static_cast<size_t>(callee)];
    if (r.ready) return r;
    r.ready = true;
    for (const std::string &label : cx.rows[static_cast<size_t>(callee)].effects) {
      const std::string_view l = label;
      r.trap = r.trap || l == "trap";
      r.observable = r.observable || observable(l);
      r.alloc = r.alloc || l == "alloc";
      if (l.starts_with("write:")) r.writes.push_back(l.substr(6));
    }
    return r;
  }

  static Summary builtinSummary(BodyCheck &b, ast::ExprId id, const CallFact &c) {
    Summary s;
    s.hasCall = true;
    const std::string_view name = c.name;  // compared by length first, no strlen per literal
    if (name == "print" || name == "println") s.observer = id;
    if (name == "take" || name == "swap") {
      if (name == "take" && !c.args.empty()) {
        s.mover = id;
        s.moved = b.rootExpr(c.args[0].arg);
      }
      s.writer = id;
      s.writes = true;
      if (!c.args.empty()) s.wrote = withText(b, c.args[0].arg);
    }
    if (name == "shl_wrap" || name == "shr") s.mayAbort = true;
    if (name == "len" || name == "add_wrap" || name == "sub_wrap" || name == "mul_wrap" || name == "min" ||
        name == "max")
      s.hasCall = false;  // pure operations written as calls
    return s;
  }

  Summary callSummary(ast::ExprId id, const ast::Expr &e) {
    Summary s;
    s.hasCall = true;
    const CallFact *f = b.facts.calls.find(id.v);
    if (!f) {
      const ast::Expr &c = b.A.expr(e.a);
      if (c.kind == ast::ExprKind::Inst && b.A.expr(c.a).kind == ast::ExprKind::Name && b.A.expr(c.a).text == "Buf")
        s.writer = id;  // allocates
      return s;
    }
    const CallFact &c = *f;
    if (c.kind == CallKind::Builtin) return builtinSummary(b, id, c);
    if (c.kind == CallKind::Convert) {
      s.hasCall = false;
      s.mayAbort = true;
      return s;
    }
    if (c.kind != CallKind::Fn && c.kind != CallKind::Extern) {
      s.hasCall = false;
      return s;
    }
    for (const ArgFact &a : c.args)
      if (!s.mover.valid() && a.pass == Pass::Value && a.arg.valid() && b.A.expr(a.arg).kind == ast::ExprKind::Name &&
          b.tyOf(a.arg) != sema::kNoTy && !b.isCopy(b.tyOf(a.arg))) {
        s.mover = id;
        s.moved = a.arg;
      }
    // The labels in the row's (sorted) order: alloc, then each write:p; the
    // writer is this call either way, and the first write:p passed an
    // argument with a text names what it writes.
    const RowFacts &r = factsOf(c.callee);
    s.mayAbort = r.trap;
    if (r.observable) s.observer = id;
    if (r.alloc) s.writer = id;
    for (std::string_view p : r.writes)
      for (const ArgFact &a : c.args)
        if (a.param == p && a.arg.valid() && (!s.writer.valid() || !s.wrote.valid())) {
          s.writer = id;
          s.writes = true;
          s.wrote = withText(b, a.arg);
        }
    return s;
  }

  // Finds the operators in `id` and checks their operands (walk), in the
  // order walk meets them, without summarizing what no operator holds:
  // nothing but group() reports, so only an operator's operands need
  // summaries.
  void scan(ast::ExprId id) {
    if (!id.valid()) return;
    const ast::Expr &e = b.A.expr(id);
    switch (e.kind) {
      case ast::ExprKind::Binary: walk(id); return;
      case ast::ExprKind::Index:
      case ast::ExprKind::Part:
        scan(e.a);
        scan(e.b);
        scan(e.c);
        return;
      case ast::ExprKind::Field:
      case ast::ExprKind::Unary: scan(e.a); return;
      case ast::ExprKind::Call: {
        for (ast::ExprId a : e.args) scan(a);
        const ast::Expr &c = b.A.expr(e.a);
        if (c.kind == ast::ExprKind::Field) scan(c.a);  // the receiver of x.f()
        return;
      }
      default: return;
    }
  }

  // What running expression `id` may do; also checks the operands of each
  // binary operator inside it (group). Pushes the names it meets onto names_.
  Summary walk(ast::ExprId id) {
    const auto from = static_cast<uint32_t>(names_.size());
    Summary s = walkKind(id);
    s.namesFrom = from;
    s.namesTo = static_cast<uint32_t>(names_.size());
    return s;
  }

  Summary walkKind(ast::ExprId id) {
    Summary s;
    if (!id.valid()) return s;
    const ast::Expr &e = b.A.expr(id);
    switch (e.kind) {
      case ast::ExprKind::Int:
      case ast::ExprKind::Float:
      case ast::ExprKind::Bool:
      case ast::ExprKind::Str: s.literal = true; return s;
      case ast::ExprKind::Index:
      case ast::ExprKind::Part:
        s = walk(e.a);
        s.merge(walk(e.b));
        s.merge(walk(e.c));
        s.literal = false;
        s.mayAbort = true;
        return s;
      case ast::ExprKind::Field: s = walk(e.a); s.literal = false; return s;
      case ast::ExprKind::Name: names_.push_back(e.text); return s;
      case ast::ExprKind::Unary: {
        s = walk(e.a);
        s.mayAbort = s.mayAbort || (e.unOp == ast::UnOp::Neg && !s.literal);
        return s;
      }
      case ast::ExprKind::Binary: {
        Summary l = walk(e.a), r = walk(e.b);
        bool seq = e.binOp == ast::BinOp::And || e.binOp == ast::BinOp::Or;
        if (!seq) {
          const Summary *sums[2] = {&l, &r};
          group(id, sums);
        }
        s = l;
        s.merge(r);
        s.literal = l.literal && r.literal;
        using B = ast::BinOp;
        if (e.binOp == B::Add || e.binOp == B::Sub || e.binOp == B::Mul || e.binOp == B::Div || e.binOp == B::Rem ||
            e.binOp == B::Shl || e.binOp == B::Shr)
          s.mayAbort = true;
        return s;
      }
      case ast::ExprKind::Call: {
        // A call's own arguments are sequenced (the reference's
        // language.md: "&&, || and a call's own arguments are sequenced").
        // They are walked first, but merged after the receiver of x.f()
        // (merging is associative, so folding them first is the same).
        Summary args;
        for (ast::ExprId a : e.args) args.merge(walk(a));
        const ast::Expr &c = b.A.expr(e.a);
        if (c.kind == ast::ExprKind::Field) s.merge(walk(c.a));  // the receiver of x.f()
        s.merge(args);
        s.merge(callSummary(id, e));
        return s;
      }
      default: return s;
    }
  }

  // The operands beside each other (the two sides of a binary operator).
  void group(ast::ExprId, const Summary *const (&sums)[2]) {
    const size_t count = 2;
    for (size_t i = 0; i < count; ++i) {
      const Summary &s = *sums[i];
      bool othersNonLiteral = false, othersCallOrAbort = false, othersEffect = false;
      for (size_t j = 0; j < count; ++j) {
        if (j == i) continue;
        othersNonLiteral = othersNonLiteral || !sums[j]->literal;
        othersCallOrAbort = othersCallOrAbort || sums[j]->hasCall || sums[j]->mayAbort;
        othersEffect = othersEffect || sums[j]->writes || sums[j]->observer.valid();
      }
      // A write is refused beside any operand but a literal; an allocation
      // only beside one whose order against it shows: one that writes or can
      // be observed (fresh allocations are independent of each other and of
      // reads, and an abort runs no cleanup, so it cannot tell either).
      bool othersName = false;
      const std::string_view moved = s.moved.valid() ? std::string_view(b.A.expr(s.moved).text) : std::string_view();
      for (size_t j = 0; j < count; ++j)
        if (j != i && !moved.empty() && names(*sums[j], moved)) othersName = true;
      if (s.mover.valid() && othersName) {
        cx.error(b.file, b.A.expr(s.mover).span, "E-EFFECT-ORDER",
                 callName(s.mover) + " moves " + std::string(moved) + ", and an operand beside it names " +
                     std::string(moved) +
                     ", so it could run before or after the move: bind the call to its own statement first (let v = " +
                     b.text(s.mover) + ";) and use v here.");
        return;
      }
      // A call that writes through a borrow or allocates cannot be a nested
      // operand at all ("bind it first, so the cost is a statement of its own").
      bool refuse = s.writer.valid();
      (void)othersNonLiteral;
      (void)othersEffect;
      if (refuse) {
        const ast::Expr &w = b.A.expr(s.writer);
        std::string callee = callName(s.writer);
        std::string what = !s.wrote.valid() ? callee + " allocates" : callee + " writes " + b.text(s.wrote);
        cx.error(b.file, w.span, "E-EFFECT-ORDER",
                 what + ", so an operand beside it could run before or after it: bind it to its own statement "
                        "first (let v = " + b.text(s.writer) + ";) and use v here.");
        return;
      }
      if (s.observer.valid() && othersCallOrAbort) {
        cx.error(b.file, b.A.expr(s.observer).span, "E-EFFECT-ORDER",
                 "Bind this call first: it can be observed from outside, and the operand beside it could run, or "
                 "abort, before or after it.");
        return;
      }
    }
  }

  std::string callName(ast::ExprId id) {
    if (const CallFact *f = b.facts.calls.find(id.v)) return std::string(f->name);
    return b.text(b.A.expr(id).a);
  }

  void stmt(ast::StmtId id) {
    if (!id.valid()) return;
    const ast::Stmt &s = b.A.stmt(id);
    for (ast::ExprId e : {s.value, s.cond, s.target}) {
      names_.clear();  // summaries do not outlive the walk of one expression
      scan(e);
    }
    for (ast::StmtId c : {s.body, s.elseBody}) stmt(c);
    for (ast::StmtId c : s.stmts) stmt(c);
    for (const ast::MatchArm &a : b.A.moreOf(s).arms) stmt(a.body);
  }
};

}  // namespace

// Every body that was walked (FnSummary::checked), in instance order.
void checkOrders(CheckContext &cx) {
  std::vector<RowFacts> rowFacts(cx.rows.size());
  std::vector<std::string_view> names;
  for (uint32_t i = 0; i < cx.sums.size(); ++i) {
    if (!cx.sums[i].checked) continue;
    BodyCheck b(cx, i);
    OrderCheck oc{b, cx, rowFacts, names};
    if (b.item.exprBody.valid()) oc.scan(b.item.exprBody);
    oc.stmt(b.item.body);
  }
}

}  // namespace cairn::check
