// The parser's token handling, error recovery and statements, and the entry
// point parseCairn. Expressions and types are in parser_expr.cpp, items in
// parser_item.cpp; the class is in parser_impl.hpp.
//
// Statement grammar (one token of lookahead unless noted):
//   block     := `{` stmt* `}`
//   stmt      := block | `let` ... | `stack`/`buffer` NAME `:` T[N] `=` e `;`
//              | `if` e block (`else` (if | block))? | `while` e block
//              | `for` NAME `in` e (`..` e)? block | `parallel` NAME `in` e (`after` names)? block
//              | `break;` | `continue;` | `return` e? `;` | `defer` e `;` | `unsafe` block
//              | `match` e `{` arm* `}` | `asm` TARGET ... `;` | e (ASSIGNOP e)? `;`
// Contextual words (stack, buffer, parallel, asm, reg) are recognised by
// two or three tokens of lookahead, so they remain usable as names.
#include <algorithm>
#include <iterator>

#include "lower/parser_impl.hpp"

namespace cairn {

bool parseCairn(std::string_view text, uint32_t fileIndex, ast::Module &out, Diags &diags) {
  out = ast::Module{};
  out.file = fileIndex;
  size_t before = diags.size();
  lex::Lexed lx;
  lex::lexCairn(text, lx, diags);
  parse::Parser(text, lx, fileIndex, out, diags).parseModule();
  return diags.size() == before && !diags.truncated();
}

}  // namespace cairn

namespace cairn::parse {

Parser::Parser(std::string_view src, lex::Lexed &lx, uint32_t file, A::Module &m, Diags &d)
    : src_(src), toks_(std::move(lx.tokens)), strings_(lx.strings), file_(file), m_(m), d_(d) {
  if (toks_.empty() || toks_.back().kind != Tok::Eof) toks_.push_back(Token{});  // keep the Eof invariant
  // The arenas grow by appending fat nodes; reserving from the token count
  // (about one expression per two tokens, one statement per eight) saves
  // moving every node each time a vector grows.
  m_.exprs.reserve(toks_.size() / 2 + 16);
  height_.reserve(toks_.size() / 2 + 16);
  m_.stmts.reserve(toks_.size() / 8 + 16);
}

// ---------------------------------------------------------------- tokens

std::string Parser::found() const {
  const Token &t = tok();
  switch (t.kind) {
    case Tok::Ident: case Tok::IntLit: case Tok::FloatLit: {
      std::string_view s = text(t);
      return "`" + std::string(s.substr(0, 40)) + (s.size() > 40 ? "...`" : "`");
    }
    default: return std::string(lex::tokName(t.kind));
  }
}

void Parser::error(const Token &t, const std::string &msg) {
  if (panic_) return;
  panic_ = true;
  Diagnostic &d = d_.error(Loc{t.line, t.col}, "E-PARSE", msg);
  if (t.endLine > t.line || (t.endLine == t.line && t.endCol > t.col)) d.span(Loc{t.endLine, t.endCol});  // the token
}

void Parser::errorExpected(std::string_view what) {
  if (panic_) return;
  error(tok(), "expected " + std::string(what) + ", found " + found());
}

bool Parser::expectFailed(Tok k, std::string_view context) {
  if (!panic_) {
    std::string msg = "expected " + std::string(lex::tokName(k));
    if (!context.empty()) msg += " " + std::string(context);
    error(tok(), msg + ", found " + found());
  }
  return false;
}

bool Parser::expectIdent(std::string &out, std::string_view what) {
  if (at(Tok::Ident)) {
    out = identText();
    next();
    return true;
  }
  errorExpected(what);
  return false;
}

bool Parser::closeAngle() {
  Token &t = toks_[p_];
  if (t.kind == Tok::Gt) {
    next();
    return true;
  }
  if (t.kind != Tok::Shr && t.kind != Tok::Ge && t.kind != Tok::ShrEq) return false;
  // `>>` closing two views: the first `>` is consumed by turning the token
  // into what is left of it (`>`, or `=` from `>=`, `>=` from `>>=`), in
  // place, so no token is ever inserted.
  t.kind = t.kind == Tok::Shr ? Tok::Gt : t.kind == Tok::Ge ? Tok::Assign : Tok::Ge;
  ++t.off;
  --t.len;
  ++t.col;
  return true;
}

// ---------------------------------------------------------------- recovery

bool Parser::depthExceeded(const Token &t) {
  if (depth_ < kMaxDepth) return false;
  if (!depthReported_) {
    depthReported_ = true;
    panic_ = false;  // this one is always worth saying
    error(t, "nesting is deeper than " + std::to_string(kMaxDepth) + " levels: split this into smaller parts");
  }
  panic_ = true;
  return true;
}

void Parser::skipBalanced() {
  // Iterative, so nesting of any depth costs no stack.
  size_t open = 0;
  do {
    Tok k = tok().kind;
    if (k == Tok::Eof) return;
    if (k == Tok::LBrace || k == Tok::LParen || k == Tok::LBracket) ++open;
    else if (k == Tok::RBrace || k == Tok::RParen || k == Tok::RBracket) --open;
    next();
  } while (open > 0);
}

void Parser::syncStmt() {
  while (!at(Tok::Eof)) {
    if (at(Tok::Semi)) { next(); break; }
    if (at(Tok::RBrace)) break;
    if (at(Tok::LBrace)) {
      skipBalanced();
      // A `{...}` that ends a construct (an `if` body) ends the statement too.
      if (!at(Tok::KwElse)) break;
      continue;
    }
    next();
  }
  panic_ = false;
}

bool Parser::startsItem() const {
  switch (tok().kind) {
    case Tok::KwFn: case Tok::KwStruct: case Tok::KwEnum: case Tok::KwConst: case Tok::KwImport:
    case Tok::KwModule: case Tok::KwPub: case Tok::KwExtern: case Tok::KwTrait: case Tok::KwImpl:
      return true;
    case Tok::KwUnsafe: return tok(1).kind == Tok::KwFn;
    case Tok::Ident:
      return (atWord("linear") && tok(1).kind == Tok::KwStruct) || (atWord("kernel") && tok(1).kind == Tok::KwFn) ||
             (atWord("layout") && tok(1).kind == Tok::Ident && tok(2).kind == Tok::Assign) ||
             (atWord("plan") && tok(1).kind == Tok::Ident) || atWord("recipe") ||
             atWord("derive") || atWord("family");
    default: return false;
  }
}

void Parser::syncItem() {
  while (!at(Tok::Eof) && !startsItem()) {
    if (at(Tok::LBrace) || at(Tok::LParen) || at(Tok::LBracket)) skipBalanced();
    else next();
  }
  panic_ = false;
}

// ---------------------------------------------------------------- statements

A::StmtId Parser::errorStmt(const Token &start) {
  newStmt(A::StmtKind::Error, spanFrom(start));
  return lastStmt();
}

A::StmtId Parser::block() {
  const Token &start = tok();
  Guard g(*this, start);
  if (!g.ok) {
    skipBalanced();
    return errorStmt(start);
  }
  if (!expect(Tok::LBrace, "to open a block")) return errorStmt(start);
  // Collected on a stack shared by nested blocks, then copied once: the
  // statement list is allocated at its final size.
  size_t from = stmtStack_.size();
  while (!at(Tok::RBrace) && !at(Tok::Eof)) {
    size_t before = p_;
    A::StmtId st = statement();
    if (panic_) syncStmt();
    stmtStack_.push_back(st);
    if (p_ == before) next();  // progress, whatever went wrong
  }
  expect(Tok::RBrace, "to close the block");
  A::Stmt &s = newStmt(A::StmtKind::Block, spanFrom(start));
  s.stmts.assign(stmtStack_.begin() + std::ptrdiff_t(from), stmtStack_.end());
  stmtStack_.resize(from);
  return lastStmt();
}

A::StmtId Parser::statement() {
  const Token &start = tok();
  A::ExprId value, cond;
  A::StmtId body;
  auto finish = [&](A::StmtKind k) {
    A::Stmt &s = newStmt(k, spanFrom(start));
    s.value = value;
    s.cond = cond;
    s.body = body;
    return lastStmt();
  };
  switch (tok().kind) {
    case Tok::LBrace: return block();
    case Tok::KwLet: return letStmt();
    case Tok::KwIf: return ifStmt();
    case Tok::KwFor: return forStmt();
    case Tok::KwMatch: return matchStmt();
    case Tok::KwWhile:
      next();
      cond = expr();
      body = block();
      return finish(A::StmtKind::While);
    case Tok::KwBreak: case Tok::KwContinue: {
      bool isBreak = at(Tok::KwBreak);
      next();
      expect(Tok::Semi, isBreak ? "after `break`" : "after `continue`");
      return finish(isBreak ? A::StmtKind::Break : A::StmtKind::Continue);
    }
    case Tok::KwReturn:
      next();
      if (!at(Tok::Semi)) value = expr();
      expect(Tok::Semi, "after the return statement");
      return finish(A::StmtKind::Return);
    case Tok::KwDefer:
      next();
      value = expr();
      expect(Tok::Semi, "after the deferred call");
      return finish(A::StmtKind::Defer);
    case Tok::KwUnsafe:
      next();
      body = block();
      return finish(A::StmtKind::Unsafe);
    case Tok::Ident:
      if ((atWord("stack") || atWord("buffer")) && tok(1).kind == Tok::Ident && tok(2).kind == Tok::Colon)
        return storageStmt();
      if (atWord("parallel") && tok(1).kind == Tok::Ident && tok(2).kind == Tok::KwIn) return parallelStmt();
      if (atWord("asm") && (tok(1).kind == Tok::Ident)) return asmStmt();
      if (atWord("reg") && tok(1).kind == Tok::Ident && (tok(2).kind == Tok::Assign || tok(2).kind == Tok::Colon))
        return letStmt();
      return simpleStmt();
    default: return simpleStmt();
  }
}

A::StmtId Parser::simpleStmt() {
  const Token &start = tok();
  A::ExprId e = expr();
  static constexpr struct { Tok tok; A::AssignOp op; } kAssign[] = {
      {Tok::Assign, A::AssignOp::Set}, {Tok::PlusEq, A::AssignOp::Add}, {Tok::MinusEq, A::AssignOp::Sub},
      {Tok::StarEq, A::AssignOp::Mul}, {Tok::SlashEq, A::AssignOp::Div}, {Tok::PercentEq, A::AssignOp::Rem},
      {Tok::AmpEq, A::AssignOp::And}, {Tok::PipeEq, A::AssignOp::Or}, {Tok::CaretEq, A::AssignOp::Xor},
      {Tok::ShlEq, A::AssignOp::Shl}, {Tok::ShrEq, A::AssignOp::Shr},
  };
  const auto *assign = std::find_if(std::begin(kAssign), std::end(kAssign), [&](const auto &a) { return at(a.tok); });
  if (assign == std::end(kAssign)) {
    expect(Tok::Semi, "after the statement");
    newStmt(A::StmtKind::Expr, spanFrom(start)).value = e;
    return lastStmt();
  }
  next();
  A::ExprId value = expr();
  expect(Tok::Semi, "after the assignment");
  A::Stmt &s = newStmt(A::StmtKind::Assign, spanFrom(start));
  s.assignOp = assign->op;
  s.target = e;
  s.value = value;
  return lastStmt();
}

std::vector<std::string> Parser::dottedPath(std::string_view what) {
  std::vector<std::string> path;
  std::string seg;
  if (!expectIdent(seg, what)) return path;
  path.push_back(seg);
  while (at(Tok::Dot) && tok(1).kind == Tok::Ident) {
    next();
    path.push_back(identText());
    next();
  }
  return path;
}

A::StmtId Parser::letStmt() {
  const Token &start = tok();
  bool isMut = atWord("reg");  // `reg x = 0;` is the old spelling of `let mut x = 0;`
  next();
  if (atWord("mut") && tok(1).kind == Tok::Ident) {
    next();
    isMut = true;
  }
  // `let R(a, b) = r;` and `let m.R(a, b) = r;` take a record apart.
  bool unpack = at(Tok::Ident) && (tok(1).kind == Tok::LParen || tok(1).kind == Tok::Dot);
  std::string name;
  std::vector<std::string> path, names;
  A::TypeId ty;
  if (unpack) {
    path = dottedPath("the record's name");
    if (expect(Tok::LParen, "after the record's name in `let`")) {
      while (!at(Tok::RParen) && !at(Tok::Eof)) {
        std::string n;
        if (!expectIdent(n, "a name to bind (or `_`)")) break;
        names.push_back(n);
        if (!accept(Tok::Comma)) break;
      }
      expect(Tok::RParen, "to close the names bound by `let`");
    }
  } else {
    expectIdent(name, "a name after `let`");
    if (accept(Tok::Colon)) ty = type();
  }
  A::ExprId value;
  if (accept(Tok::Assign)) value = expr();
  else if (unpack) expect(Tok::Assign, "before the record taken apart");
  expect(Tok::Semi, "after the `let` statement");
  A::Stmt &s = newStmt(unpack ? A::StmtKind::Unpack : A::StmtKind::Let, spanFrom(start));
  s.isMut = isMut;
  s.name = std::move(name);
  s.type = ty;
  s.value = value;
  if (unpack) {
    A::StmtMore more;
    more.path = std::move(path);
    more.names = std::move(names);
    m_.addMore(s, std::move(more));
  }
  return lastStmt();
}

A::StmtId Parser::storageStmt() {
  const Token &start = tok();
  A::Stmt s;
  s.kind = A::StmtKind::Storage;
  s.isBuffer = atWord("buffer");
  next();
  s.name = identText();
  next();
  next();  // `:`, checked by the caller's lookahead
  s.type = storageType();
  expect(Tok::Assign, "before the storage's initializer (`= zeroed`)");
  s.value = expr();
  expect(Tok::Semi, "after the storage declaration");
  s.span = spanFrom(start);
  return put(std::move(s));
}

A::StmtId Parser::ifStmt() {
  const Token &start = tok();
  Guard g(*this, start);  // `else if` chains nest
  if (!g.ok) return errorStmt(start);
  next();
  A::ExprId cond = expr();
  A::StmtId body = block(), elseBody;
  if (accept(Tok::KwElse)) {
    if (at(Tok::KwIf)) elseBody = ifStmt();
    else elseBody = block();
  }
  A::Stmt &s = newStmt(A::StmtKind::If, spanFrom(start));
  s.cond = cond;
  s.body = body;
  s.elseBody = elseBody;
  return lastStmt();
}

A::StmtId Parser::forStmt() {
  const Token &start = tok();
  next();
  std::string name;
  expectIdent(name, "the loop variable after `for`");
  expect(Tok::KwIn, "after the loop variable");
  A::ExprId value = expr(), hi;
  A::StmtKind kind = A::StmtKind::ForEach;
  if (accept(Tok::DotDot)) {
    kind = A::StmtKind::ForRange;
    hi = expr();
  }
  A::StmtId body = block();
  A::Stmt &s = newStmt(kind, spanFrom(start));
  s.name = std::move(name);
  s.value = value;
  s.cond = hi;
  s.body = body;
  return lastStmt();
}

A::StmtId Parser::parallelStmt() {
  const Token &start = tok();
  A::Stmt s;
  s.kind = A::StmtKind::Parallel;
  next();
  s.name = identText();
  next();
  next();  // `in`
  s.value = expr();
  A::StmtMore more;
  if (atWord("after")) {
    next();
    do {
      std::string n;
      if (!expectIdent(n, "a ticket after `after`")) break;
      more.after.push_back(n);
    } while (accept(Tok::Comma));
  }
  if (!more.after.empty()) m_.addMore(s, std::move(more));
  s.body = block();
  s.span = spanFrom(start);
  return put(std::move(s));
}

A::StmtId Parser::matchStmt() {
  const Token &start = tok();
  A::Stmt s;
  s.kind = A::StmtKind::Match;
  next();
  s.value = expr();
  A::StmtMore more;
  if (expect(Tok::LBrace, "to open the arms of `match`")) {
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      const Token &armStart = tok();
      size_t before = p_;
      A::MatchArm arm;
      arm.path = dottedPath("a variant such as `Op.Read` in a match arm");
      if (accept(Tok::LParen)) {
        arm.hasBinding = expectIdent(arm.binding, "a name for the variant's payload");
        expect(Tok::RParen, "after the payload's name");
      }
      expect(Tok::FatArrow, "after the match arm's pattern");
      if (at(Tok::LBrace)) {
        arm.body = block();
      } else {  // a single statement arm is wrapped in a block
        const Token &bs = tok();
        Guard g(*this, bs);  // arms without braces nest too: `A => match e { ... }`
        if (!g.ok) {
          arm.body = errorStmt(bs);
          panic_ = true;
        } else {
          A::Stmt b;
          b.kind = A::StmtKind::Block;
          if (!panic_) b.stmts.push_back(statement());
          b.span = spanFrom(bs);
          arm.body = put(std::move(b));
        }
      }
      accept(Tok::Comma);
      arm.span = spanFrom(armStart);
      more.arms.push_back(std::move(arm));
      if (panic_) syncStmt();
      if (p_ == before) next();
    }
    expect(Tok::RBrace, "to close `match`");
  }
  if (!more.arms.empty()) m_.addMore(s, std::move(more));
  s.span = spanFrom(start);
  return put(std::move(s));
}

std::vector<A::EffectLabel> Parser::effectList() {
  std::vector<A::EffectLabel> out;
  if (!expect(Tok::LParen, "after `effects`")) return out;
  while (!at(Tok::RParen) && !at(Tok::Eof)) {
    const Token &st = tok();
    A::EffectLabel l;
    if (!expectIdent(l.name, "an effect label such as `read:x` or `io`")) break;
    if (accept(Tok::Colon)) {
      // The argument is a name, possibly dotted (`bound:Trait.member`), or a keyword-like word.
      if (at(Tok::Ident) || at(Tok::KwFn)) {
        l.arg = identText();
        next();
        while (at(Tok::Dot) && tok(1).kind == Tok::Ident) {
          next();
          l.arg += "." + identText();
          next();
        }
      } else {
        errorExpected("the effect label's argument after `:`");
        break;
      }
    }
    l.span = spanFrom(st);
    out.push_back(std::move(l));
    if (!accept(Tok::Comma)) break;
  }
  expect(Tok::RParen, "to close the effect row");
  return out;
}

A::StmtId Parser::asmStmt() {
  const Token &start = tok();
  A::Stmt s;
  s.kind = A::StmtKind::Asm;
  A::StmtMore more;
  next();  // `asm`
  if (atWord("volatile")) {
    more.asmVolatile = true;
    next();
  }
  expectIdent(more.asmTarget, "an assembly target (ptx, x86_64, aarch64)");
  if (at(Tok::Ident)) {
    more.asmArch = identText();
    next();
  }
  if (at(Tok::StrLit)) {
    more.asmTemplate = strings_[tok().aux];
    next();
  } else {
    errorExpected("the assembly template string");
  }
  if (accept(Tok::LParen)) {
    while (!at(Tok::RParen) && !at(Tok::Eof) && !panic_) {
      const Token &os = tok();
      A::AsmOperand o;
      if (atWord("out") && tok(1).kind == Tok::Ident && tok(2).kind == Tok::Colon) {
        o.isOut = true;
        next();
        o.name = identText();
        next();
        next();
        o.type = type();
        if (accept(Tok::Assign)) o.value = expr();
      } else {
        o.value = expr();
      }
      o.span = spanFrom(os);
      more.asmOperands.push_back(std::move(o));
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RParen, "to close the assembly operands");
  }
  while (!panic_ && (atWord("clobbers") || atWord("effects"))) {
    if (atWord("effects")) {
      next();
      more.effects = effectList();
      continue;
    }
    next();
    if (!expect(Tok::LParen, "after `clobbers`")) break;
    while (!at(Tok::RParen) && !at(Tok::Eof)) {
      std::string r;
      if (!expectIdent(r, "a register name")) break;
      more.clobbers.push_back(r);
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RParen, "to close `clobbers`");
  }
  expect(Tok::Semi, "after the assembly statement");
  m_.addMore(s, std::move(more));
  s.span = spanFrom(start);
  return put(std::move(s));
}

}  // namespace cairn::parse
