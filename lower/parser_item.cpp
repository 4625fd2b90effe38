// Top-level items.
//
//   item := `pub`? ( fn | `linear`? struct | enum | const | import | module
//                  | layout NAME `=` e `;` | plan NAME `use` NAME `;` | trait | impl
//                  | recipe ... `{...}` | derive ... `;` | family ... `;` | `[table]` entries )
//   fn   := (`extern` STRING?)? `kernel`? `unsafe`? `fn` NAME generics? `(` params `)` (`->` T)?
//           clause* (block | `=` e `;` | `;`)
//   clause := `pure` | `effects(` labels `)` | `launch(` e `,` e `)` | `implements` NAME | `@`placement
//   struct := `struct` NAME generics? (`packed` | `align(` e `)`)* `{` (NAME `:` T `;` | lends F[lo..hi] `;`)* `}`
//   enum := `enum` NAME generics? `{` (NAME (`(` T `)`)? `;`)* `}`
// Recipes, derive and family lines are recognised and skipped (Opaque);
// so is a manifest table such as `[foreign]` followed by `"file" = [...]`
// lines, which the spec pages show next to code.
#include <array>

#include "lower/parser_impl.hpp"

namespace cairn::parse {

void Parser::prescanGenerics() {
  for (std::string_view b : {"Buf", "Array", "Dyn", "Atomic", "Mutex", "Ticket", "mmio_read", "mmio_write", "u8",
                             "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32", "f64", "bool"})
    generic_.emplace(b);
  const Token *t = toks_.data();  // through locals, which stay in registers across the set's calls
  const size_t n = toks_.size();
  // The names `import a.b (X, Y);` at t[i] brings in; returns the index of
  // the last token of the names.
  auto importNames = [&](size_t i) {
    size_t j = i + 1;
    while (j < n && (t[j].kind == Tok::Ident || t[j].kind == Tok::Dot)) ++j;
    if (j < n && t[j].kind == Tok::LParen) {
      for (++j; j < n && (t[j].kind == Tok::Ident || t[j].kind == Tok::Comma); ++j)
        if (t[j].kind == Tok::Ident) generic_.emplace(text(t[j]));
    }
    return j - 1;
  };
  // This looks at every token of the file, so the keywords it wants are
  // told apart by one table load.
  enum : uint8_t { kSkip, kDecl, kImport };
  static constexpr auto kWhat = [] {
    std::array<uint8_t, 256> w{};
    for (Tok k : {Tok::KwFn, Tok::KwStruct, Tok::KwEnum, Tok::KwTrait}) w[size_t(k)] = kDecl;
    w[size_t(Tok::KwImport)] = kImport;
    return w;
  }();
  for (size_t i = 0; i + 2 < n; ++i) {
    uint8_t what = kWhat[size_t(t[i].kind)];
    if (what == kSkip) [[likely]]
      continue;
    if (what == kImport) i = importNames(i);
    else if (t[i + 1].kind == Tok::Ident && t[i + 2].kind == Tok::LBracket) generic_.emplace(text(t[i + 1]));
  }
}

void Parser::parseModule() {
  prescanGenerics();
  while (!at(Tok::Eof)) {
    size_t before = p_;
    item();  // reports an error whenever it consumes nothing
    if (p_ == before) next();
    if (panic_) syncItem();
  }
}

A::ItemId Parser::opaqueItem(const Token &start, std::string keyword) {
  A::Item it;
  it.kind = A::ItemKind::Opaque;
  it.name = std::move(keyword);
  it.span = spanFrom(start);
  A::ItemId id = put(std::move(it));
  m_.top.push_back(id);
  return id;
}

void Parser::item() {
  const Token &start = tok();
  bool isPub = accept(Tok::KwPub);
  auto pushTop = [&](A::ItemId id) { m_.top.push_back(id); };
  switch (tok().kind) {
    case Tok::KwFn: return pushTop(fnItem(start, isPub, false, "", false, false));
    case Tok::KwStruct: return pushTop(structItem(start, isPub, false));
    case Tok::KwEnum: return pushTop(enumItem(start, isPub));
    case Tok::KwConst: return pushTop(constItem(start, isPub));
    case Tok::KwImport: return pushTop(importItem(start, isPub));
    case Tok::KwTrait: return pushTop(traitItem(start, isPub));
    case Tok::KwImpl: return pushTop(implItem(start, isPub));
    case Tok::KwModule: {
      next();
      A::Item it;
      it.kind = A::ItemKind::Module;
      it.path = dottedPath("a module name after `module`");
      expect(Tok::Semi, "after the module declaration");
      it.span = spanFrom(start);
      return pushTop(put(std::move(it)));
    }
    case Tok::KwExtern: {
      next();
      std::string symbol;
      if (at(Tok::StrLit)) {
        symbol = strings_[tok().aux];
        next();
      }
      bool kernel = atWord("kernel") && tok(1).kind == Tok::KwFn;
      if (kernel) next();
      if (!at(Tok::KwFn)) return errorExpected("`fn` after `extern`");
      return pushTop(fnItem(start, isPub, true, symbol, kernel, false));
    }
    case Tok::KwUnsafe:
      if (tok(1).kind == Tok::KwFn) {
        next();
        return pushTop(fnItem(start, isPub, false, "", false, true));
      }
      break;
    case Tok::LBracket:
      // A manifest table (`[foreign]` and its `"file" = [...]` lines).
      if (!isPub && tok(1).kind == Tok::Ident && tok(2).kind == Tok::RBracket) {
        next();
        std::string name = identText();
        next();
        next();
        while (at(Tok::StrLit) && tok(1).kind == Tok::Assign) {
          next();
          next();
          if (at(Tok::LBracket)) skipBalanced();
          else next();
        }
        opaqueItem(start, "[" + name + "]");
        return;
      }
      break;
    case Tok::Ident:
      if (atWord("linear") && tok(1).kind == Tok::KwStruct) {
        next();
        return pushTop(structItem(start, isPub, true));
      }
      if (atWord("kernel") && tok(1).kind == Tok::KwFn) {
        next();
        return pushTop(fnItem(start, isPub, false, "", true, false));
      }
      if (atWord("layout") && tok(1).kind == Tok::Ident && tok(2).kind == Tok::Assign) {
        next();
        A::Item it;
        it.kind = A::ItemKind::Layout;
        it.isPub = isPub;
        it.name = identText();
        next();
        next();
        it.value = expr();
        expect(Tok::Semi, "after the layout declaration");
        it.span = spanFrom(start);
        return pushTop(put(std::move(it)));
      }
      if (atWord("plan") && tok(1).kind == Tok::Ident) {
        next();
        A::Item it;
        it.kind = A::ItemKind::Plan;
        std::vector<std::string> ref = dottedPath("the reference function after `plan`");
        for (size_t i = 0; i < ref.size(); ++i) it.name += (i ? "." : "") + ref[i];
        if (atWord("use")) next();
        else errorExpected("`use` after the plan's reference function");
        std::vector<std::string> impl = dottedPath("the implementation after `use`");
        for (size_t i = 0; i < impl.size(); ++i) it.planUse += (i ? "." : "") + impl[i];
        expect(Tok::Semi, "after the plan");
        it.span = spanFrom(start);
        return pushTop(put(std::move(it)));
      }
      if (atWord("recipe")) {
        std::string kw = identText();
        while (!at(Tok::Eof) && !at(Tok::LBrace) && !at(Tok::Semi)) next();
        if (at(Tok::LBrace)) skipBalanced();
        else expect(Tok::LBrace, "to open the recipe's body");
        opaqueItem(start, kw);
        return;
      }
      if (atWord("derive") || atWord("family")) {
        std::string kw = identText();
        while (!at(Tok::Eof) && !at(Tok::Semi) && !at(Tok::LBrace) && !at(Tok::RBrace)) next();
        expect(Tok::Semi, ("after the `" + kw + "` line").c_str());
        opaqueItem(start, kw);
        return;
      }
      break;
    default: break;
  }
  errorExpected(isPub ? "an item after `pub`" : "an item (`fn`, `struct`, `enum`, `const`, `import`, ...)");
}

std::vector<A::GenericParam> Parser::genericParams() {
  std::vector<A::GenericParam> out;
  next();  // `[`
  while (!at(Tok::RBracket) && !at(Tok::Eof) && !panic_) {
    const Token &st = tok();
    A::GenericParam g;
    if (!expectIdent(g.name, "a generic parameter's name")) break;
    if (accept(Tok::Colon)) {
      do {
        if (at(Tok::Ident) || at(Tok::KwFn)) {
          g.bounds.push_back(identText());
          next();
        } else {
          errorExpected("a bound such as `copy`, `nat` or a trait");
          break;
        }
      } while (accept(Tok::Plus));
    }
    g.span = spanFrom(st);
    out.push_back(std::move(g));
    if (!accept(Tok::Comma)) break;
  }
  expect(Tok::RBracket, "to close the generic parameters");
  return out;
}

std::vector<A::Param> Parser::paramList() {
  std::vector<A::Param> out;
  if (!expect(Tok::LParen, "to open the parameter list")) return out;
  while (!at(Tok::RParen) && !at(Tok::Eof) && !panic_) {
    const Token &st = tok();
    A::Param p;
    if (!expectIdent(p.name, "a parameter name")) break;
    if (expect(Tok::Colon, "after the parameter's name")) p.type = type();
    p.span = spanFrom(st);
    out.push_back(std::move(p));
    if (!accept(Tok::Comma)) break;
  }
  expect(Tok::RParen, "to close the parameter list");
  return out;
}

A::ItemId Parser::fnItem(const Token &start, bool isPub, bool isExtern, std::string symbol, bool isKernel,
                         bool isUnsafe) {
  A::Item it;
  it.kind = A::ItemKind::Fn;
  it.isPub = isPub;
  it.isExtern = isExtern;
  it.symbol = std::move(symbol);
  it.isKernel = isKernel;
  it.isUnsafe = isUnsafe;
  it.exprLo = static_cast<uint32_t>(m_.exprs.size());
  it.stmtLo = static_cast<uint32_t>(m_.stmts.size());
  next();  // `fn`
  expectIdent(it.name, "the function's name after `fn`");
  if (at(Tok::LBracket)) it.generics = genericParams();
  it.params = paramList();
  if (accept(Tok::Arrow)) it.ret = type();
  // Clauses, in any order.
  while (!panic_) {
    if (atWord("pure")) {
      next();
      it.ceiling = A::Ceiling::Pure;
    } else if (atWord("effects") && tok(1).kind == Tok::LParen) {
      next();
      it.ceiling = A::Ceiling::Effects;
      it.effects = effectList();
    } else if (atWord("launch") && tok(1).kind == Tok::LParen) {
      next();
      next();
      it.launchThreads = expr();
      expect(Tok::Comma, "between the launch's thread count and block size");
      it.launchBlock = expr();
      expect(Tok::RParen, "to close `launch`");
    } else if (atWord("implements")) {
      next();
      std::vector<std::string> ref = dottedPath("the reference function after `implements`");
      for (size_t i = 0; i < ref.size(); ++i) it.implements += (i ? "." : "") + ref[i];
    } else if (accept(Tok::At)) {
      it.placement = placement();
    } else {
      break;
    }
  }
  if (at(Tok::LBrace)) {
    it.body = block();
  } else if (accept(Tok::Assign)) {
    it.exprBody = expr();
    expect(Tok::Semi, "after the function's expression body");
  } else if (!accept(Tok::Semi)) {
    errorExpected("`{`, `= expr;` or `;` after the function's signature");
  }
  it.exprHi = static_cast<uint32_t>(m_.exprs.size());
  it.stmtHi = static_cast<uint32_t>(m_.stmts.size());
  it.span = spanFrom(start);
  return put(std::move(it));
}

A::ItemId Parser::structItem(const Token &start, bool isPub, bool isLinear) {
  A::Item it;
  it.kind = A::ItemKind::Struct;
  it.isPub = isPub;
  it.isLinear = isLinear;
  next();  // `struct`
  expectIdent(it.name, "the record's name after `struct`");
  if (at(Tok::LBracket)) it.generics = genericParams();
  while (!panic_) {
    if (atWord("packed")) {
      next();
      it.isPacked = true;
    } else if (atWord("align") && tok(1).kind == Tok::LParen) {
      next();
      next();
      it.align = expr();
      expect(Tok::RParen, "to close `align`");
    } else {
      break;
    }
  }
  if (expect(Tok::LBrace, "to open the record's fields")) {
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      const Token &fs = tok();
      size_t before = p_;
      if (atWord("lends") && tok(1).kind == Tok::Ident && tok(2).kind == Tok::LBracket) {
        next();
        it.hasLends = true;
        it.lendsField = identText();
        next();
        next();
        it.lendsLo = expr();
        expect(Tok::DotDot, "between the lent part's bounds");
        it.lendsHi = expr();
        expect(Tok::RBracket, "to close the lent part");
      } else {
        A::StructField f;
        if (expectIdent(f.name, "a field name") && expect(Tok::Colon, "after the field's name")) f.type = type();
        f.span = spanFrom(fs);
        it.fields.push_back(std::move(f));
      }
      if (!accept(Tok::Semi) && !accept(Tok::Comma) && !at(Tok::RBrace))
        errorExpected("`;` after the field");
      if (panic_) syncStmt();
      if (p_ == before) next();
    }
    expect(Tok::RBrace, "to close the record");
  }
  it.span = spanFrom(start);
  return put(std::move(it));
}

A::ItemId Parser::enumItem(const Token &start, bool isPub) {
  A::Item it;
  it.kind = A::ItemKind::Enum;
  it.isPub = isPub;
  next();  // `enum`
  expectIdent(it.name, "the sum's name after `enum`");
  if (at(Tok::LBracket)) it.generics = genericParams();
  if (expect(Tok::LBrace, "to open the variants")) {
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      const Token &vs = tok();
      size_t before = p_;
      A::Variant v;
      if (expectIdent(v.name, "a variant name") && accept(Tok::LParen)) {
        v.payload = type();
        expect(Tok::RParen, "after the variant's payload type");
      }
      v.span = spanFrom(vs);
      it.variants.push_back(std::move(v));
      if (!accept(Tok::Semi) && !accept(Tok::Comma) && !at(Tok::RBrace))
        errorExpected("`;` after the variant");
      if (panic_) syncStmt();
      if (p_ == before) next();
    }
    expect(Tok::RBrace, "to close the sum");
  }
  it.span = spanFrom(start);
  return put(std::move(it));
}

A::ItemId Parser::constItem(const Token &start, bool isPub) {
  A::Item it;
  it.kind = A::ItemKind::Const;
  it.isPub = isPub;
  next();
  expectIdent(it.name, "the constant's name after `const`");
  if (expect(Tok::Colon, "after the constant's name (constants have a written type)")) it.type = type();
  if (expect(Tok::Assign, "before the constant's value")) it.value = expr();
  expect(Tok::Semi, "after the constant");
  it.span = spanFrom(start);
  return put(std::move(it));
}

A::ItemId Parser::importItem(const Token &start, bool isPub) {
  A::Item it;
  it.kind = A::ItemKind::Import;
  it.isPub = isPub;
  next();
  it.path = dottedPath("a module path after `import`");
  if (atWord("as")) {
    next();
    expectIdent(it.alias, "a name after `as`");
  }
  if (accept(Tok::LParen)) {
    while (!at(Tok::RParen) && !at(Tok::Eof)) {
      std::string n;
      if (!expectIdent(n, "an imported name")) break;
      it.names.push_back(n);
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RParen, "to close the imported names");
  }
  expect(Tok::Semi, "after the import");
  it.span = spanFrom(start);
  return put(std::move(it));
}

A::ItemId Parser::traitItem(const Token &start, bool isPub) {
  A::Item it;
  it.kind = A::ItemKind::Trait;
  it.isPub = isPub;
  next();
  expectIdent(it.name, "the trait's name after `trait`");
  if (at(Tok::LBracket)) it.generics = genericParams();
  if (expect(Tok::LBrace, "to open the trait's members")) {
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      const Token &ms = tok();
      size_t before = p_;
      bool mPub = accept(Tok::KwPub);
      if (at(Tok::KwFn)) it.members.push_back(fnItem(ms, mPub, false, "", false, false));
      else errorExpected("`fn` (a trait member)");
      if (panic_) syncStmt();
      if (p_ == before) next();
    }
    expect(Tok::RBrace, "to close the trait");
  }
  it.span = spanFrom(start);
  return put(std::move(it));
}

A::ItemId Parser::implItem(const Token &start, bool isPub) {
  A::Item it;
  it.kind = A::ItemKind::Impl;
  it.isPub = isPub;
  next();
  if (at(Tok::LBracket)) it.generics = genericParams();
  std::vector<std::string> trait = dottedPath("the trait's name after `impl`");
  for (size_t i = 0; i < trait.size(); ++i) it.traitName += (i ? "." : "") + trait[i];
  if (expect(Tok::KwFor, "after the trait's name")) it.forType = type();
  if (expect(Tok::LBrace, "to open the impl's members")) {
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      const Token &ms = tok();
      size_t before = p_;
      bool mPub = accept(Tok::KwPub);
      if (at(Tok::KwFn)) it.members.push_back(fnItem(ms, mPub, false, "", false, false));
      else errorExpected("`fn` (an impl member)");
      if (panic_) syncStmt();
      if (p_ == before) next();
    }
    expect(Tok::RBrace, "to close the impl");
  }
  it.span = spanFrom(start);
  return put(std::move(it));
}

}  // namespace cairn::parse
