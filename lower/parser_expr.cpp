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
#include "lower/parser_impl.hpp"

namespace cairn::parse {

namespace {

struct BinInfo {
  Tok tok;
  A::BinOp op;
  int prec;
};
constexpr BinInfo kBin[] = {
    {Tok::OrOr, A::BinOp::Or, 1},     {Tok::AndAnd, A::BinOp::And, 2},  {Tok::Pipe, A::BinOp::BitOr, 3},
    {Tok::Caret, A::BinOp::BitXor, 4}, {Tok::Amp, A::BinOp::BitAnd, 5}, {Tok::Eq, A::BinOp::Eq, 6},
    {Tok::Ne, A::BinOp::Ne, 6},       {Tok::Lt, A::BinOp::Lt, 7},       {Tok::Le, A::BinOp::Le, 7},
    {Tok::Gt, A::BinOp::Gt, 7},       {Tok::Ge, A::BinOp::Ge, 7},       {Tok::Shl, A::BinOp::Shl, 8},
    {Tok::Shr, A::BinOp::Shr, 8},     {Tok::Plus, A::BinOp::Add, 9},    {Tok::Minus, A::BinOp::Sub, 9},
    {Tok::Star, A::BinOp::Mul, 10},   {Tok::Slash, A::BinOp::Div, 10},  {Tok::Percent, A::BinOp::Rem, 10},
};

const BinInfo *binInfo(Tok t) {
  for (const BinInfo &b : kBin)
    if (b.tok == t) return &b;
  return nullptr;
}

}  // namespace

// ---------------------------------------------------------------- expressions

A::ExprId Parser::addExpr(A::Expr &&e, std::initializer_list<A::ExprId> kids) {
  uint32_t h = 1;
  for (A::ExprId k : kids)
    if (k.valid() && k.v < height_.size()) h = std::max(h, height_[k.v] + 1);
  for (A::ExprId k : e.args)
    if (k.valid()) h = std::max(h, height_[k.v] + 1);
  A::Span span = e.span;
  A::ExprId id = put(std::move(e));
  height_.push_back(h);
  if (h > kMaxDepth && !depthReported_) {
    depthReported_ = true;
    panic_ = false;
    error(Token{Tok::Eof, 0, 0, span.line, span.col, span.endLine, span.endCol, 0},
          "expression is nested deeper than " + std::to_string(kMaxDepth) +
              " levels: bind parts of it to names first");
  }
  return id;
}

A::ExprId Parser::errorExpr(const Token &t) {
  A::Expr e;
  e.kind = A::ExprKind::Error;
  e.span = spanFrom(t);
  return addExpr(std::move(e), {});
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
    const BinInfo *b = binInfo(tok().kind);
    if (!b || b->prec < minPrec) return lhs;
    next();
    A::ExprId rhs = binary(b->prec + 1);  // at most 10 levels deep before unary()
    A::Expr e;
    e.kind = A::ExprKind::Binary;
    e.binOp = b->op;
    e.a = lhs;
    e.b = rhs;
    e.span = spanFrom(start);
    lhs = addExpr(std::move(e), {lhs, rhs});
  }
}

A::ExprId Parser::unary() {
  const Token &start = tok();
  A::Expr e;
  switch (tok().kind) {
    case Tok::Minus: e.unOp = A::UnOp::Neg; break;
    case Tok::Bang: e.unOp = A::UnOp::Not; break;
    case Tok::Tilde: e.unOp = A::UnOp::BitNot; break;
    case Tok::KwTry: break;
    default: return postfix(primary(), start);
  }
  Guard g(*this, start);
  if (!g.ok) return errorExpr(start);
  e.kind = at(Tok::KwTry) ? A::ExprKind::Try : A::ExprKind::Unary;
  next();
  e.a = unary();
  e.span = spanFrom(start);
  A::ExprId a = e.a;
  return addExpr(std::move(e), {a});
}

A::ExprId Parser::postfix(A::ExprId base, const Token &start) {
  while (!panic_) {
    A::Expr e;
    if (at(Tok::Dot)) {
      next();
      e.kind = A::ExprKind::Field;
      e.a = base;
      if (!expectIdent(e.text, "a field or member name after `.`")) return base;
    } else if (at(Tok::LParen)) {
      next();
      e.kind = A::ExprKind::Call;
      e.a = base;
      // Collected on a stack shared by nested calls, then copied once: the
      // argument list is allocated at its final size.
      size_t from = argStack_.size();
      while (!at(Tok::RParen) && !at(Tok::Eof) && !panic_) {
        A::ExprId arg = expr();
        argStack_.push_back(arg);
        if (!accept(Tok::Comma)) break;
      }
      e.args.assign(argStack_.begin() + static_cast<std::ptrdiff_t>(from), argStack_.end());
      argStack_.resize(from);
      expect(Tok::RParen, "to close the call's arguments");
    } else if (at(Tok::LBracket)) {
      base = bracketSuffix(base, start);
      continue;
    } else {
      return base;
    }
    e.span = spanFrom(start);
    base = addExpr(std::move(e), {base});
  }
  return base;
}

bool Parser::isGenericBase(A::ExprId id) const {
  const A::Expr &e = m_.expr(id);
  if (e.kind != A::ExprKind::Name && e.kind != A::ExprKind::Field) return false;
  return generic_.count(e.text) != 0;
}

A::ExprId Parser::bracketSuffix(A::ExprId base, const Token &start) {
  A::Expr e;
  e.a = base;
  if (isGenericBase(base)) {
    e.kind = A::ExprKind::Inst;
    e.gargs = genericArgs();
    e.span = spanFrom(start);
    std::vector<A::ExprId> kids{base};
    for (const A::GenericArg &g : e.gargs)
      if (g.expr.valid()) kids.push_back(g.expr);
    A::ExprId id = addExpr(std::move(e), {});
    uint32_t h = 1;
    for (A::ExprId k : kids) h = std::max(h, height_[k.v] + 1);
    height_[id.v] = h;
    return id;
  }
  next();  // `[`
  e.kind = A::ExprKind::Index;
  e.b = expr();
  if (accept(Tok::DotDot)) {
    e.kind = A::ExprKind::Part;
    e.c = expr();
  }
  expect(Tok::RBracket, e.kind == A::ExprKind::Part ? "to close the part" : "to close the index");
  e.span = spanFrom(start);
  A::ExprId b = e.b, c = e.c;
  return addExpr(std::move(e), {base, b, c});
}

A::ExprId Parser::primary() {
  const Token &start = tok();
  A::Expr e;
  switch (tok().kind) {
    case Tok::IntLit:
      e.kind = A::ExprKind::Int;
      for (char c : text(tok()))
        if (c != '_') e.text += c;
      e.intOverflow = !lex::decodeInt(text(tok()), e.intValue);  // the lexer already reported it
      break;
    case Tok::CharLit:
      e.kind = A::ExprKind::Int;
      e.isChar = true;
      e.intValue = tok().aux;
      e.text = std::to_string(tok().aux);
      break;
    case Tok::FloatLit:
      e.kind = A::ExprKind::Float;
      for (char c : text(tok()))
        if (c != '_') e.text += c;
      e.floatValue = std::strtod(e.text.c_str(), nullptr);
      break;
    case Tok::StrLit:
      e.kind = A::ExprKind::Str;
      e.text = strings_[tok().aux];
      break;
    case Tok::KwTrue: case Tok::KwFalse:
      e.kind = A::ExprKind::Bool;
      e.boolValue = at(Tok::KwTrue);
      break;
    case Tok::KwZeroed: e.kind = A::ExprKind::Zeroed; break;
    case Tok::Ident:
      e.kind = A::ExprKind::Name;
      e.text = identText();
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
  e.span = spanFrom(start);
  return addExpr(std::move(e), {});
}

A::ExprId Parser::closure() {
  const Token &start = tok();
  Guard g(*this, start);
  if (!g.ok) return errorExpr(start);
  A::Expr e;
  e.kind = A::ExprKind::Closure;
  if (!accept(Tok::OrOr)) {
    next();  // `|`
    while (!at(Tok::Pipe) && !at(Tok::Eof) && !panic_) {
      const Token &ps = tok();
      A::Param p;
      if (!expectIdent(p.name, "a closure parameter")) break;
      if (expect(Tok::Colon, "after the closure parameter's name")) p.type = type();
      p.span = spanFrom(ps);
      e.params.push_back(std::move(p));
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::Pipe, "to close the closure's parameters");
  }
  if (accept(Tok::Arrow)) e.retType = type();
  e.body = at(Tok::LBrace) ? block() : (errorExpected("`{` to open the closure's body"), A::StmtId{});
  e.span = spanFrom(start);
  return addExpr(std::move(e), {});
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
  A::Expr e;
  e.span = t.span;
  if (t.kind == A::TypeKind::Named && t.args.empty() && !t.extent.valid() &&
      t.name.find('.') == std::string::npos) {
    e.kind = A::ExprKind::Name;
    e.text = t.name;
  } else {
    e.kind = A::ExprKind::Error;
    Token at{Tok::Eof, 0, 0, t.span.line, t.span.col, t.span.endLine, t.span.endCol, 0};
    error(at, "expected an extent (a literal, a constant or a name), found a type");
  }
  return addExpr(std::move(e), {});
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
