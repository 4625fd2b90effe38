// Expressions and types.
//
// Expression grammar, loosest first (C's levels, all left-associative):
//   ||   &&   |   ^   &   == !=   < <= > >=   << >>   + -   * / %
//   unary:   - ! ~ try
//   postfix: e.name   e(args)   e[i]   e[lo..hi]   NAME[generic args]
//   primary: literal | name | zeroed | ( e ) | |params| -> T { ... }
// Binary chains are built by a loop (precedence climbing), so a long chain
// costs no stack; its tree height is tracked in height_ and refused past
// kMaxDepth, because every later walker recurses over the tree.
//
// Types: u8 .. f64, bool and record names (dotted, with `[generic args]`
// and, for a Buf field, a second `[extent]`); ro<T>/rw<T> with `[extent]`
// and `@placement`; fn(T) -> R; dyn Trait; and, in stack/buffer
// declarations only, T[N]@placement.
#include <array>
#include <span>

#include "lower/parser_impl.hpp"

namespace cairn::parse {

namespace {

struct BinInfo {
  Tok tok;
  A::BinOp op;
  int prec;  // 0: not a binary operator
};
constexpr BinInfo kBin[] = {
    {Tok::OrOr, A::BinOp::Or, 1},     {Tok::AndAnd, A::BinOp::And, 2},  {Tok::Pipe, A::BinOp::BitOr, 3},
    {Tok::Caret, A::BinOp::BitXor, 4}, {Tok::Amp, A::BinOp::BitAnd, 5}, {Tok::Eq, A::BinOp::Eq, 6},
    {Tok::Ne, A::BinOp::Ne, 6},       {Tok::Lt, A::BinOp::Lt, 7},       {Tok::Le, A::BinOp::Le, 7},
    {Tok::Gt, A::BinOp::Gt, 7},       {Tok::Ge, A::BinOp::Ge, 7},       {Tok::Shl, A::BinOp::Shl, 8},
    {Tok::Shr, A::BinOp::Shr, 8},     {Tok::Plus, A::BinOp::Add, 9},    {Tok::Minus, A::BinOp::Sub, 9},
    {Tok::Star, A::BinOp::Mul, 10},   {Tok::Slash, A::BinOp::Div, 10},  {Tok::Percent, A::BinOp::Rem, 10},
};

// kBin by token kind (every Tok is below 256), so the operator loop looks
// a token up with one load instead of a scan.
constexpr auto kBinByTok = [] {
  std::array<BinInfo, 256> t{};
  for (const BinInfo &b : kBin) t[size_t(b.tok)] = b;
  return t;
}();

}  // namespace

// ---------------------------------------------------------------- expressions

A::Expr &Parser::newExpr(A::ExprKind kind, const A::Span &span, uint32_t height) {
  A::Expr &e = m_.exprs.emplace_back();
  e.kind = kind;
  e.span = span;
  height_.push_back(height);
  if (height > kMaxDepth && !depthReported_) [[unlikely]]
    reportTooTall(span);
  return e;
}

// Out of line, so that newExpr (called for every node) stays small.
[[gnu::noinline]] void Parser::reportTooTall(const A::Span &span) {
  depthReported_ = true;
  panic_ = false;
  error(Token{Tok::Eof, 0, 0, span.line, span.col, span.endLine, span.endCol, 0},
        "expression is nested deeper than " + std::to_string(kMaxDepth) + " levels: bind parts of it to names first");
}

A::ExprId Parser::errorExpr(const Token &t) {
  newExpr(A::ExprKind::Error, spanFrom(t), 1);
  return lastExpr();
}

A::ExprId Parser::expr() {
  const Token &start = tok();
  Guard g(*this, start);
  if (!g.ok) return errorExpr(start);
  return binary(1);
}

A::ExprId Parser::binary(int minPrec) {
  const Token &start = tok();
  A::ExprId lhs = unary();
  while (true) {
    const BinInfo &b = kBinByTok[size_t(tok().kind)];
    if (b.prec == 0 || b.prec < minPrec) return lhs;
    next();
    A::ExprId rhs = binary(b.prec + 1);  // at most 10 levels deep before unary()
    A::Expr &e = newExpr(A::ExprKind::Binary, spanFrom(start), heightOver({lhs, rhs}));
    e.binOp = b.op;
    e.a = lhs;
    e.b = rhs;
    lhs = lastExpr();
  }
}

A::ExprId Parser::unary() {
  const Token &start = tok();
  A::UnOp op = A::UnOp::Neg;
  switch (tok().kind) {
    case Tok::Minus: op = A::UnOp::Neg; break;
    case Tok::Bang: op = A::UnOp::Not; break;
    case Tok::Tilde: op = A::UnOp::BitNot; break;
    case Tok::KwTry: break;
    default: return postfix(primary(), start);
  }
  Guard g(*this, start);
  if (!g.ok) return errorExpr(start);
  A::ExprKind kind = at(Tok::KwTry) ? A::ExprKind::Try : A::ExprKind::Unary;
  next();
  A::ExprId a = unary();
  A::Expr &e = newExpr(kind, spanFrom(start), heightOver({a}));
  e.unOp = op;
  e.a = a;
  return lastExpr();
}

A::ExprId Parser::postfix(A::ExprId base, const Token &start) {
  while (!panic_) {
    if (at(Tok::Dot)) {
      next();
      if (!at(Tok::Ident)) {
        errorExpected("a field or member name after `.`");
        return base;
      }
      const Token &name = next();
      A::Expr &e = newExpr(A::ExprKind::Field, spanFrom(start), heightOver({base}));
      e.a = base;
      e.text.append(text(name));  // e.text is new and empty; append is cheaper than assign
    } else if (at(Tok::LParen)) {
      next();
      // Collected on a stack shared by nested calls, then copied once: the
      // argument list is allocated at its final size.
      size_t from = argStack_.size();
      while (!at(Tok::RParen) && !at(Tok::Eof) && !panic_) {
        A::ExprId arg = expr();
        argStack_.push_back(arg);
        if (!accept(Tok::Comma)) break;
      }
      expect(Tok::RParen, "to close the call's arguments");
      auto args = std::span(argStack_).subspan(from);
      uint32_t h = heightOver({base});
      for (A::ExprId k : args) h = std::max(h, height_[k.v] + 1);  // arguments are never absent
      A::Expr &e = newExpr(A::ExprKind::Call, spanFrom(start), h);
      e.a = base;
      e.args.assign(args.begin(), args.end());
      argStack_.resize(from);
    } else if (at(Tok::LBracket)) {
      base = bracketSuffix(base, start);
      continue;
    } else {
      return base;
    }
    base = lastExpr();
  }
  return base;
}

bool Parser::isGenericBase(A::ExprId id) const {
  const A::Expr &e = m_.expr(id);
  if (e.kind != A::ExprKind::Name && e.kind != A::ExprKind::Field) return false;
  return generic_.count(e.text) != 0;
}

A::ExprId Parser::bracketSuffix(A::ExprId base, const Token &start) {
  if (isGenericBase(base)) {
    std::vector<A::GenericArg> gargs = genericArgs();
    uint32_t h = heightOver({base});
    for (const A::GenericArg &g : gargs)
      if (g.expr.valid()) h = std::max(h, height_[g.expr.v] + 1);
    // Added as a leaf (never reported as too deep here), then given its height.
    A::Expr &e = newExpr(A::ExprKind::Inst, spanFrom(start), 1);
    e.a = base;
    A::ExprMore more;
    more.gargs = std::move(gargs);
    m_.addMore(e, std::move(more));
    height_.back() = h;
    return lastExpr();
  }
  next();  // `[`
  A::ExprKind kind = A::ExprKind::Index;
  A::ExprId b = expr(), c;
  if (accept(Tok::DotDot)) {
    kind = A::ExprKind::Part;
    c = expr();
  }
  expect(Tok::RBracket, kind == A::ExprKind::Part ? "to close the part" : "to close the index");
  A::Expr &e = newExpr(kind, spanFrom(start), heightOver({base, b, c}));
  e.a = base;
  e.b = b;
  e.c = c;
  return lastExpr();
}

// Appends `digits` without its `_` separators to `out`.
static void appendDigits(std::string &out, std::string_view digits) {
  if (digits.find('_') == std::string_view::npos) return void(out.append(digits));
  for (char c : digits)
    if (c != '_') out += c;
}

// The node is new, so e.text is empty: appending to it is the cheapest way
// to set it (assign() goes through the general replace).
void Parser::literal(A::Expr &e, const Token &t) {
  switch (t.kind) {
    case Tok::IntLit:
      e.kind = A::ExprKind::Int;
      appendDigits(e.text, text(t));
      e.intOverflow = !lex::decodeInt(text(t), e.intValue);  // the lexer already reported it
      break;
    case Tok::CharLit:
      e.kind = A::ExprKind::Int;
      e.isChar = true;
      e.intValue = t.aux;
      e.text = std::to_string(t.aux);
      break;
    case Tok::FloatLit:
      e.kind = A::ExprKind::Float;
      appendDigits(e.text, text(t));
      e.floatValue = std::strtod(e.text.c_str(), nullptr);
      break;
    case Tok::StrLit:
      e.kind = A::ExprKind::Str;
      e.text = strings_[t.aux];
      break;
    case Tok::KwTrue: case Tok::KwFalse:
      e.kind = A::ExprKind::Bool;
      e.boolValue = t.kind == Tok::KwTrue;
      break;
    case Tok::KwZeroed: e.kind = A::ExprKind::Zeroed; break;
    default:  // Tok::Ident, as primary() checked
      e.kind = A::ExprKind::Name;
      e.text.append(text(t));
      break;
  }
}

A::ExprId Parser::primary() {
  const Token &start = tok();
  switch (start.kind) {
    case Tok::IntLit: case Tok::CharLit: case Tok::FloatLit: case Tok::StrLit: case Tok::KwTrue: case Tok::KwFalse:
    case Tok::KwZeroed: case Tok::Ident:
      break;
    case Tok::LParen: {
      Guard g(*this, start);
      if (!g.ok) return errorExpr(start);
      next();
      A::ExprId inner = expr();
      expect(Tok::RParen, "to close the parenthesis");
      return inner;  // parentheses leave no node; spans of the inner expression stay
    }
    case Tok::Pipe: case Tok::OrOr: return closure();
    default:
      errorExpected("an expression");
      return errorExpr(start);
  }
  next();
  literal(newExpr(A::ExprKind::Error, spanFrom(start), 1), start);  // literal() sets the kind
  return lastExpr();
}

A::ExprId Parser::closure() {
  const Token &start = tok();
  Guard g(*this, start);
  if (!g.ok) return errorExpr(start);
  std::vector<A::Param> params;
  if (!accept(Tok::OrOr)) {
    next();  // `|`
    while (!at(Tok::Pipe) && !at(Tok::Eof) && !panic_) {
      const Token &ps = tok();
      A::Param p;
      if (!expectIdent(p.name, "a closure parameter")) break;
      if (expect(Tok::Colon, "after the closure parameter's name")) p.type = type();
      p.span = spanFrom(ps);
      params.push_back(std::move(p));
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::Pipe, "to close the closure's parameters");
  }
  A::TypeId retType;
  if (accept(Tok::Arrow)) retType = type();
  A::StmtId body = at(Tok::LBrace) ? block() : (errorExpected("`{` to open the closure's body"), A::StmtId{});
  A::Expr &e = newExpr(A::ExprKind::Closure, spanFrom(start), 1);
  A::ExprMore more;
  more.params = std::move(params);
  more.retType = retType;
  more.body = body;
  m_.addMore(e, std::move(more));
  return lastExpr();
}

std::vector<A::GenericArg> Parser::genericArgs() {
  std::vector<A::GenericArg> out;
  expect(Tok::LBracket, "to open generic arguments");
  while (!at(Tok::RBracket) && !at(Tok::Eof) && !panic_) {
    out.push_back(genericArg());
    if (!accept(Tok::Comma)) break;
  }
  expect(Tok::RBracket, "to close the generic arguments");
  return out;
}

A::GenericArg Parser::genericArg() {
  A::GenericArg g;
  // A name (dotted, possibly generic itself) followed by `,` `]` `[` `.` or
  // `<` is a type; `ro<...>`, `fn(...)`, `dyn X` are types; anything else
  // (a literal, `N + 1`) is an expression.
  bool isType = at(Tok::KwFn);
  if (at(Tok::Ident)) {
    Tok after = tok(1).kind;
    isType = after == Tok::Comma || after == Tok::RBracket || after == Tok::LBracket || after == Tok::Dot ||
             after == Tok::Lt || (atWord("dyn") && after == Tok::Ident);
  }
  if (isType) g.type = type();
  else g.expr = expr();
  return g;
}

// An extent written as a generic-style group (`Buf[f64][rows]`, `u8[16]`)
// is an expression; a bare name parsed as a type becomes a Name.
A::ExprId Parser::argAsExpr(const A::GenericArg &g) {
  if (g.expr.valid()) return g.expr;
  const A::TypeNode &t = m_.type(g.type);
  A::Span span = t.span;
  if (t.kind == A::TypeKind::Named && t.args.empty() && !t.extent.valid() &&
      t.name.find('.') == std::string::npos) {
    newExpr(A::ExprKind::Name, span, 1).text = t.name;  // t stays put: newExpr appends to another arena
  } else {
    Token at{Tok::Eof, 0, 0, span.line, span.col, span.endLine, span.endCol, 0};
    error(at, "expected an extent (a literal, a constant or a name), found a type");
    newExpr(A::ExprKind::Error, span, 1);
  }
  return lastExpr();
}

// ---------------------------------------------------------------- types

A::TypeId Parser::errorType(const Token &t) {
  A::TypeNode n;
  n.kind = A::TypeKind::Error;
  n.span = spanFrom(t);
  return put(std::move(n));
}

A::Placement Parser::placement() {
  static constexpr struct { std::string_view w; A::Placement p; } kPl[] = {
      {"host", A::Placement::Host}, {"pinned", A::Placement::Pinned},
      {"unified", A::Placement::Unified}, {"device", A::Placement::Device}};
  for (const auto &k : kPl) {
    if (atWord(k.w)) {
      next();
      return k.p;
    }
  }
  errorExpected("a placement (`host`, `pinned`, `unified` or `device`) after `@`");
  return A::Placement::None;
}

A::TypeId Parser::type() {
  const Token &start = tok();
  Guard g(*this, start);
  if (!g.ok) return errorType(start);
  A::TypeNode n;
  if ((atWord("ro") || atWord("rw")) && tok(1).kind == Tok::Lt) {
    n.kind = A::TypeKind::View;
    n.writable = atWord("rw");
    next();
    next();
    n.elem = type();
    if (!closeAngle()) errorExpected("`>` to close the view type");
    if (at(Tok::LBracket)) {
      next();
      n.extent = expr();
      expect(Tok::RBracket, "to close the view's extent");
    }
    if (accept(Tok::At)) n.placement = placement();
  } else if (at(Tok::KwFn)) {
    n.kind = A::TypeKind::Fn;
    next();
    if (expect(Tok::LParen, "after `fn` in a function type")) {
      while (!at(Tok::RParen) && !at(Tok::Eof) && !panic_) {
        n.params.push_back(type());
        if (!accept(Tok::Comma)) break;
      }
      expect(Tok::RParen, "to close the function type's parameters");
    }
    if (accept(Tok::Arrow)) n.ret = type();
  } else if (atWord("dyn") && tok(1).kind == Tok::Ident) {
    n.kind = A::TypeKind::Dyn;
    next();
    n.name = identText();
    next();
    while (at(Tok::Dot) && tok(1).kind == Tok::Ident) {
      next();
      n.name += "." + identText();
      next();
    }
  } else if (at(Tok::Ident)) {
    return namedType(false);
  } else {
    errorExpected("a type");
    return errorType(start);
  }
  n.span = spanFrom(start);
  return put(std::move(n));
}

// NAME(.NAME)* then bracket groups. As a type: the first group holds generic
// arguments and a second the extent (`Buf[f64][rows]`). As storage
// (`storage`): the last group is the extent and the element type keeps any
// group before it (`u8[16]`, `Pair[u8][4]`), then an optional @placement.
A::TypeId Parser::namedType(bool storage) {
  const Token &start = tok();
  A::TypeNode n;
  n.kind = A::TypeKind::Named;
  n.name = identText();
  next();
  while (at(Tok::Dot) && tok(1).kind == Tok::Ident) {
    next();
    n.name += "." + identText();
    next();
  }
  std::vector<std::vector<A::GenericArg>> groups;
  while (at(Tok::LBracket) && groups.size() < 2 && !panic_) groups.push_back(genericArgs());
  auto extentOf = [&](const std::vector<A::GenericArg> &gs) -> A::ExprId {
    if (gs.size() != 1) {
      error(start, "expected one extent in `[...]`, found " + std::to_string(gs.size()));
      return A::ExprId{};
    }
    return argAsExpr(gs[0]);
  };
  if (!storage) {
    if (!groups.empty()) n.args = std::move(groups[0]);
    if (groups.size() > 1) n.extent = extentOf(groups[1]);
    n.span = spanFrom(start);
    return put(std::move(n));
  }
  if (groups.empty()) {
    errorExpected("`[N]`, the number of elements of the storage");
    n.span = spanFrom(start);
    return put(std::move(n));
  }
  A::TypeNode s;
  s.kind = A::TypeKind::Storage;
  s.extent = extentOf(groups.back());
  if (groups.size() > 1) n.args = std::move(groups[0]);
  n.span = spanFrom(start);
  s.elem = put(std::move(n));
  if (accept(Tok::At)) s.placement = placement();
  s.span = spanFrom(start);
  return put(std::move(s));
}

A::TypeId Parser::storageType() {
  const Token &start = tok();
  if (!at(Tok::Ident)) {
    errorExpected("an element type such as `u8[16]`");
    return errorType(start);
  }
  return namedType(true);
}

}  // namespace cairn::parse
