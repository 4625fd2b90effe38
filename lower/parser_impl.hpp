// Private to the parser: the Parser class shared by parser.cpp (tokens,
// errors, recovery, statements), parser_expr.cpp (expressions and types)
// and parser_item.cpp (top-level items). See parser.hpp for the contract.
//
// Error discipline: `error()` reports only when the parser is not already
// in panic mode, and sets it; the statement and item loops clear it after
// `sync*()` has skipped to a safe point. So one mistake gives one
// diagnostic, not a cascade. Every rule that recurses holds a `Guard`.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "lower/ast.hpp"
#include "lower/lexer.hpp"
#include "lower/parser.hpp"

namespace cairn::parse {

using lex::Tok;
using lex::Token;
namespace A = cairn::ast;

class Parser {
 public:
  Parser(std::string_view src, lex::Lexed &lx, uint32_t file, A::Module &m, Diags &d);
  void parseModule();

 private:
  friend class Guard;
  std::string_view src_;
  std::vector<Token> toks_;  // moved from the lexer; `>>` may be split into two `>` in types
  const std::vector<std::string> &strings_;
  uint32_t file_;
  A::Module &m_;
  Diags &d_;
  size_t p_ = 0;
  uint32_t depth_ = 0;
  bool panic_ = false;
  bool depthReported_ = false;
  std::unordered_set<std::string> generic_;  // names whose `[...]` is generic arguments
  std::vector<uint32_t> height_;             // expression tree height, by ExprId
  std::vector<A::ExprId> argStack_;          // call arguments being parsed (postfix)
  std::vector<A::StmtId> stmtStack_;         // statements of the blocks being parsed (block)

  // ---- tokens (parser.cpp). Invariant: p_ < toks_.size(), as next() never
  // moves past the Eof that ends the list, so tok() needs no clamping.
  const Token &tok() const { return toks_[p_]; }
  const Token &tok(size_t k) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  bool at(Tok k) const { return tok().kind == k; }
  bool atWord(std::string_view w, size_t k = 0) const {  // an Ident with this text
    const Token &t = tok(k);
    return t.kind == Tok::Ident && text(t) == w;
  }
  std::string_view text(const Token &t) const { return src_.substr(t.off, t.len); }
  std::string identText() const { return std::string(text(tok())); }
  const Token &next() {
    const Token &t = tok();
    if (p_ + 1 < toks_.size()) ++p_;  // never past Eof
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    next();
    return true;
  }
  // "expected `;` after the statement, found `}`" unless the token is k.
  bool expect(Tok k, std::string_view context) { return accept(k) || expectFailed(k, context); }
  bool expectFailed(Tok k, std::string_view context);  // reports; false
  bool expectIdent(std::string &out, std::string_view what);
  std::string found() const;
  void error(const Token &at, const std::string &msg);
  void errorExpected(std::string_view what);  // "expected WHAT, found X" at the current token
  // From `start` to the end of the last token consumed (to the end of
  // `start` when nothing after it was).
  A::Span spanFrom(const Token &start) const {
    const Token &last = p_ > 0 ? toks_[p_ - 1] : start;
    bool any = p_ > 0 && last.off >= start.off;
    return A::Span{file_, start.line, start.col, any ? last.endLine : start.endLine, any ? last.endCol : start.endCol};
  }
  bool closeAngle();  // consumes one `>`, splitting `>>`, `>=` or `>>=`; false if none

  // ---- recovery (parser.cpp)
  void skipBalanced();  // at `{`, `(` or `[`: skips to past the matching closer
  void syncStmt();      // to past the next `;`, or to a `}` that closes the block
  void syncItem();      // to the next token that can start an item at brace depth 0
  bool depthExceeded(const Token &at);

  // ---- statements (parser.cpp)
  A::StmtId block();  // at `{`
  A::StmtId statement();
  A::StmtId letStmt();
  A::StmtId storageStmt();
  A::StmtId ifStmt();
  A::StmtId forStmt();
  A::StmtId parallelStmt();
  A::StmtId matchStmt();
  A::StmtId asmStmt();
  A::StmtId simpleStmt();  // expression or assignment
  A::StmtId errorStmt(const Token &start);
  // Appends a statement node (its children are already in the arena) and
  // returns it for the caller to fill in at once: the next append may move
  // it. lastStmt() is its id.
  A::Stmt &newStmt(A::StmtKind kind, const A::Span &span) {
    A::Stmt &s = m_.stmts.emplace_back();
    s.kind = kind;
    s.span = span;
    return s;
  }
  A::StmtId lastStmt() const { return A::StmtId{uint32_t(m_.stmts.size() - 1)}; }
  std::vector<A::EffectLabel> effectList();  // at `(` after `effects`
  std::vector<std::string> dottedPath(std::string_view what);

  // ---- expressions and types (parser_expr.cpp)
 public:
  A::ExprId expr();
 private:
  A::ExprId binary(int minPrec);
  A::ExprId unary();
  A::ExprId postfix(A::ExprId base, const Token &start);
  A::ExprId primary();
  A::ExprId closure();
  A::ExprId bracketSuffix(A::ExprId base, const Token &start);
  A::ExprId errorExpr(const Token &at);
  void literal(A::Expr &e, const Token &t);  // fills a literal or name node from its token
  // One more than the tallest of these (absent ones skipped), 1 for none.
  uint32_t heightOver(std::initializer_list<A::ExprId> kids) const {
    uint32_t h = 1;
    for (A::ExprId k : kids)
      if (k.valid()) h = std::max(h, height_[k.v] + 1);
    return h;
  }
  // Appends an expression node of tree height `height` (its children are
  // already in the arena: nodes are appended as they are finished) and
  // returns it for the caller to fill in at once: the next append may move
  // it. lastExpr() is its id. A node taller than kMaxDepth is reported.
  A::Expr &newExpr(A::ExprKind kind, const A::Span &span, uint32_t height);
  A::ExprId lastExpr() const { return A::ExprId{uint32_t(m_.exprs.size() - 1)}; }
  void reportTooTall(const A::Span &span);
  // Appends a finished node to its arena (as ast::Module::add, without
  // moving the fat node twice on the way).
  A::StmtId put(A::Stmt &&s) { m_.stmts.push_back(std::move(s)); return A::StmtId{uint32_t(m_.stmts.size() - 1)}; }
  A::TypeId put(A::TypeNode &&t) { m_.types.push_back(std::move(t)); return A::TypeId{uint32_t(m_.types.size() - 1)}; }
  A::ItemId put(A::Item &&i) { m_.items.push_back(std::move(i)); return A::ItemId{uint32_t(m_.items.size() - 1)}; }
  bool isGenericBase(A::ExprId e) const;
  std::vector<A::GenericArg> genericArgs();  // at `[`
  A::GenericArg genericArg();
  A::ExprId argAsExpr(const A::GenericArg &g);
 public:
  A::TypeId type();
 private:
  A::TypeId storageType();  // T[N]@p in stack/buffer declarations
  A::TypeId namedType(bool storage);
  A::TypeId errorType(const Token &at);
  A::Placement placement();  // after `@`

  // ---- items (parser_item.cpp)
  void item();
  A::ItemId fnItem(const Token &start, bool isPub, bool isExtern, std::string symbol, bool isKernel, bool isUnsafe);
  A::ItemId structItem(const Token &start, bool isPub, bool isLinear);
  A::ItemId enumItem(const Token &start, bool isPub);
  A::ItemId constItem(const Token &start, bool isPub);
  A::ItemId importItem(const Token &start, bool isPub);
  A::ItemId traitItem(const Token &start, bool isPub);
  A::ItemId implItem(const Token &start, bool isPub);
  A::ItemId opaqueItem(const Token &start, std::string keyword);
  std::vector<A::GenericParam> genericParams();  // at `[`
  std::vector<A::Param> paramList();             // at `(`
  void prescanGenerics();
  bool startsItem() const;
};

// Holds one level of recursion; `ok` is false past kMaxDepth (reported once).
class Guard {
 public:
  Guard(Parser &p, const Token &at) : p_(p) {
    ok = p.depth_ < kMaxDepth || !p.depthExceeded(at);  // depthExceeded is false below the limit
    ++p_.depth_;
  }
  ~Guard() { --p_.depth_; }
  Guard(const Guard &) = delete;
  Guard &operator=(const Guard &) = delete;
  bool ok;

 private:
  Parser &p_;
};

}  // namespace cairn::parse
