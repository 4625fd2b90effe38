// The CAIRN syntax tree: what the parser (lower/parser.hpp) builds and the
// type checker and lowering walk.
//
// Layout. A `Module` owns four dense arenas -- `exprs`, `stmts`, `types`,
// `items` -- and every node refers to others by typed 32-bit ids (`ExprId`,
// `StmtId`, `TypeId`, `ItemId`) that index them; `m.expr(id)` etc. look one
// up. An id whose `v` is `kNone` is absent (`valid()` is false): a missing
// return type, a `let` without an initializer, an `if` without `else`.
// Nodes are appended as they are finished, so children come before parents.
// `Module::top` lists the top-level items in source order (trait and impl
// members are items too, listed in their owner's `members`, not in `top`).
//
// Nodes are "fat": one struct per category whose `kind` says which fields
// mean something; every field is documented with the kinds that use it and
// the others stay at their defaults. The parts of rare kinds (a match's
// arms, asm, closures, generic arguments) sit in side arenas (`stmtMore`,
// `exprMore`), reached by the node's `more` and `m.moreOf(node)`, so the
// common nodes stay small. Every node has a `Span` (1-based line
// and column of its first character, and of the character just past its
// end) and `Span::loc()` gives the `cairn::Loc` that `Diags` wants.
//
// What the parser decides and what it leaves. The tree is syntax only:
// names are strings, nothing is resolved. A dotted name (`Op.Read`,
// `std.vec`, `LOAD.at`) is a chain of `Field` expressions over a `Name`; a
// conversion `u32(x)` and a constructor `Pair(1, 2)` are ordinary `Call`s
// whose callee is a `Name`; `LOAD.at(t, v)` is a `Call` whose callee is a
// `Field`. Explicit generic arguments in an expression (`Buf[u8]`,
// `Array[u64, 4]`, `mmio_read[u32]`, `largest[u64]`, `Option[u64].None`)
// form an `Inst` node; the parser decides `Inst` versus `Index` by the name
// before the bracket (see parser.hpp for the rule). A generic argument is a
// type or an expression (`GenericArg`); a bare name such as `N` in
// `Array[u64, N]` is parsed as a named type, which the checker may find to
// be a constant natural instead.
//
// Stability: this header only grows. New kinds and fields are appended.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.hpp"  // cairn::Loc

namespace cairn::ast {

inline constexpr uint32_t kNone = UINT32_MAX;

struct Span {
  uint32_t file = 0;
  uint32_t line = 0, col = 0;        // first character, 1-based
  uint32_t endLine = 0, endCol = 0;  // just past the last character
  Loc loc() const { return Loc{line, col}; }
};

#define CAIRN_AST_ID(Name)                                           \
  struct Name {                                                      \
    uint32_t v = kNone;                                              \
    constexpr bool valid() const { return v != kNone; }              \
    constexpr bool operator==(const Name &) const = default;         \
  };
CAIRN_AST_ID(ExprId)
CAIRN_AST_ID(StmtId)
CAIRN_AST_ID(TypeId)
CAIRN_AST_ID(ItemId)
#undef CAIRN_AST_ID

// Where a view's elements live; `None` means not written (the host).
enum class Placement : uint8_t { None, Host, Pinned, Unified, Device };
std::string_view placementName(Placement p);

// ---------------------------------------------------------------- types

// A generic argument: exactly one of `type` and `expr` is valid.
// `[T, 4]` gives a type `T` and an expression `4`; `[N]` gives a type `N`.
struct GenericArg {
  TypeId type;
  ExprId expr;
};

enum class TypeKind : uint8_t {
  Named,    // name[args] with an optional [extent]: u8, Pair[T], Buf[f64][rows]
  View,     // ro<T> / rw<T>, optional [extent], optional @placement
  Storage,  // T[N] with optional @placement: the type of a stack/buffer declaration
  Fn,       // fn(T, U) -> R: a function value's type
  Dyn,      // dyn Trait (inside ro<...>/rw<...>)
  Error,    // stands in for a type that failed to parse
};

struct TypeNode {
  TypeKind kind = TypeKind::Error;
  Span span;
  std::string name;              // Named: the (possibly dotted) name, "u8", "Buf", "std.vec.Vec"; Dyn: the trait
  std::vector<GenericArg> args;  // Named: generic arguments, in order
  bool writable = false;         // View: rw (true) or ro (false)
  TypeId elem;                   // View: the borrowed type; Storage: the element type
  ExprId extent;                 // View, Storage, Named (a Buf field's extent): the [n]; may be absent
  Placement placement = Placement::None;  // View, Storage
  std::vector<TypeId> params;    // Fn: parameter types
  TypeId ret;                    // Fn: result type (absent: void)
};

// ---------------------------------------------------------------- expressions

enum class UnOp : uint8_t { Neg, Not, BitNot };
enum class BinOp : uint8_t {
  Mul, Div, Rem,
  Add, Sub,
  Shl, Shr,
  Lt, Le, Gt, Ge,
  Eq, Ne,
  BitAnd, BitXor, BitOr,
  And, Or,
};
std::string_view unOpText(UnOp op);
std::string_view binOpText(BinOp op);

enum class ExprKind : uint8_t {
  Int,      // text, intValue, intOverflow, isChar ('c' literals are Int with isChar)
  Float,    // text, floatValue
  Bool,     // boolValue
  Str,      // text holds the decoded bytes (escapes already applied)
  Name,     // text: an identifier (also scalar type names used as conversions)
  Zeroed,   // the `zeroed` initializer
  Unary,    // unOp, a
  Binary,   // binOp, a (left), b (right)
  Call,     // a (callee), args
  Inst,     // a (the generic thing, a Name or Field), gargs: Buf[u8], mmio_read[u32]
  Field,    // a (base), text (field or path segment): r.slots, Op.Read, LOAD.at
  Index,    // a (base), b (index): xs[i]
  Part,     // a (base), b (lo), c (hi): bytes[lo..hi]
  Try,      // a: try e
  Closure,  // params, retType, body (a Block statement)
  Error,    // stands in for an expression that failed to parse
};

struct Param {
  Span span;
  std::string name;
  TypeId type;
};

struct Expr {
  ExprKind kind = ExprKind::Error;
  Span span;
  UnOp unOp = UnOp::Neg;
  BinOp binOp = BinOp::Add;
  ExprId a, b, c;
  uint32_t more = 0;              // Inst, Closure: 1 + its ExprMore's index (Module::exprMore)
  std::string text;               // Int/Float: the literal as written (without `_`); Str: decoded bytes; Name/Field: the name
  uint64_t intValue = 0;          // Int: the value, valid when !intOverflow
  bool intOverflow = false;       // Int: the literal does not fit 64 bits (a diagnostic was also given)
  bool isChar = false;            // Int: written as 'c'
  double floatValue = 0.0;        // Float
  bool boolValue = false;         // Bool
  std::vector<ExprId> args;       // Call: arguments in order
};

// The parts of the rarer expressions, kept apart in Module::exprMore so that
// an Expr, which every pass walks, stays small.
struct ExprMore {
  std::vector<GenericArg> gargs;  // Inst: generic arguments in order
  std::vector<Param> params;      // Closure
  TypeId retType;                 // Closure: absent means void
  StmtId body;                    // Closure
};

// ---------------------------------------------------------------- statements

enum class AssignOp : uint8_t { Set, Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr };
std::string_view assignOpText(AssignOp op);

// One arm of `match`: `Parsed.Ok(head) => { ... }` has path {"Parsed", "Ok"},
// binding "head"; `Op.Read => { ... }` has no binding.
struct MatchArm {
  Span span;
  std::vector<std::string> path;
  bool hasBinding = false;
  std::string binding;
  StmtId body;  // a Block
};

// One operand of typed assembly: `out hi:u64`, `out r:u32 = e`, or an input expression.
struct AsmOperand {
  Span span;
  bool isOut = false;
  std::string name;  // out: the local it binds
  TypeId type;       // out
  ExprId value;      // input: the expression; out: the optional initial value
};

// A label of an effect row: `read:x` is {"read", "x"}, `trap` is {"trap", ""}.
struct EffectLabel {
  Span span;
  std::string name;
  std::string arg;
};

enum class StmtKind : uint8_t {
  Let,       // name, isMut, type (optional), value (optional init)
  Unpack,    // let [mut] Path(a, b, _) = value: path, names, isMut, value
  Storage,   // stack/buffer name:T[N]@p = init: isBuffer, name, type (a Storage type), value
  Assign,    // assignOp, target, value
  Expr,      // value
  If,        // cond, body (Block), elseBody (a Block or an If; optional)
  While,     // cond, body
  ForRange,  // name, lo (value), hi (cond), body: for i in lo..hi
  ForEach,   // name, value (what is walked), body: for x in view
  Parallel,  // name, value (count), body, after (ticket names): parallel i in n [after a, b] { }
  Break,
  Continue,
  Return,    // value (optional)
  Defer,     // value (the call)
  Block,     // stmts
  Unsafe,    // body (a Block)
  Match,     // value (subject), arms
  Asm,       // typed assembly: asmTarget, asmArch, asmVolatile, asmTemplate, asmOperands, clobbers, effects
  Error,     // stands in for a statement that failed to parse
};

struct Stmt {
  StmtKind kind = StmtKind::Error;
  bool isMut = false;                // Let, Unpack
  bool isBuffer = false;             // Storage: buffer (true) or stack (false)
  AssignOp assignOp = AssignOp::Set; // Assign
  Span span;
  std::string name;                  // Let, Storage, ForRange, ForEach, Parallel
  TypeId type;                       // Let (optional), Storage
  ExprId target;                     // Assign: the place
  ExprId value;                      // see StmtKind
  ExprId cond;                       // If, While; ForRange: hi
  StmtId body;                       // If (then), While, For*, Parallel, Unsafe: a Block
  StmtId elseBody;                   // If
  uint32_t more = 0;                 // Unpack, Parallel, Match, Asm: 1 + its StmtMore's index (Module::stmtMore)
  std::vector<StmtId> stmts;         // Block
};

// The parts of the rarer statements, kept apart in Module::stmtMore so that a
// Stmt, which every pass walks, stays small.
struct StmtMore {
  std::vector<std::string> path;     // Unpack: the record's (dotted) name
  std::vector<std::string> names;    // Unpack: bound names in order (`_` kept as "_")
  std::vector<std::string> after;    // Parallel
  std::vector<MatchArm> arms;        // Match
  // Asm
  std::string asmTarget;             // ptx, x86_64, aarch64
  std::string asmArch;               // ptx only: sm_75 (empty if not written)
  bool asmVolatile = false;
  std::string asmTemplate;           // decoded
  std::vector<AsmOperand> asmOperands;
  std::vector<std::string> clobbers;
  std::vector<EffectLabel> effects;
};

// ---------------------------------------------------------------- items

// A generic parameter: `T`, `T:affine + Hash`, `K:nat`, `F:fn`.
struct GenericParam {
  Span span;
  std::string name;
  std::vector<std::string> bounds;  // in order; "nat" marks a natural
};

enum class Ceiling : uint8_t { None, Pure, Effects };

struct StructField {
  Span span;
  std::string name;
  TypeId type;
};

struct Variant {
  Span span;
  std::string name;
  TypeId payload;  // absent: a tag-only variant
};

enum class ItemKind : uint8_t {
  Fn,      // see the Fn fields
  Struct,  // see the Struct fields
  Enum,    // name, generics, variants
  Const,   // name, type, value
  Import,  // path, alias, names: import a.b; import a.b as c; import a.b (X, Y);
  Module,  // path: module net.http;
  Layout,  // name, value: layout TILE = rows(32, 32);
  Plan,    // name (the reference), planUse (the implementation): plan f use g;
  Trait,   // name, generics, members (Fn items without bodies or with)
  Impl,    // generics, traitName, forType, members
  Opaque,  // a construct that is recognised and skipped: name holds its keyword
           // (recipe, derive, family, a manifest table such as [foreign])
};

struct Item {
  ItemKind kind = ItemKind::Opaque;
  Span span;
  bool isPub = false;
  std::string name;
  std::vector<GenericParam> generics;  // Fn, Struct, Enum, Trait, Impl
  // Fn
  std::vector<Param> params;
  TypeId ret;                          // absent: void
  Ceiling ceiling = Ceiling::None;
  std::vector<EffectLabel> effects;    // Ceiling::Effects
  bool isExtern = false;
  std::string symbol;                  // extern "sym" (empty: the fn's own name)
  bool isKernel = false;               // kernel fn
  bool isUnsafe = false;               // unsafe fn (if written)
  Placement placement = Placement::None;  // fn f(...) -> T @device (if written)
  ExprId launchThreads, launchBlock;   // launch(threads, block)
  std::string implements;              // implements NAME
  StmtId body;                         // a Block; absent for `= expr;`, extern and trait members
  ExprId exprBody;                     // fn f(...) -> T = expr;
  // The expression and statement ids the function's text made, [lo, hi)
  // (the arenas grow in text order): what its typing facts are keyed by.
  uint32_t exprLo = 0, exprHi = 0, stmtLo = 0, stmtHi = 0;
  // Struct
  std::vector<StructField> fields;
  bool isLinear = false;
  bool isPacked = false;
  ExprId align;                        // align(n)
  bool hasLends = false;
  std::string lendsField;              // lends data[lo..hi];
  ExprId lendsLo, lendsHi;
  // Enum
  std::vector<Variant> variants;
  // Const (also uses name), Layout (name, value)
  TypeId type;
  ExprId value;
  // Import, Module
  std::vector<std::string> path;
  std::string alias;
  std::vector<std::string> names;
  // Plan
  std::string planUse;
  // Trait, Impl
  std::vector<ItemId> members;
  std::string traitName;               // Impl
  TypeId forType;                      // Impl
};

// ---------------------------------------------------------------- module

struct Module {
  uint32_t file = 0;
  std::vector<Expr> exprs;
  std::vector<Stmt> stmts;
  std::vector<TypeNode> types;
  std::vector<Item> items;
  std::vector<ItemId> top;  // top-level items in source order
  std::vector<StmtMore> stmtMore;  // see Stmt::more
  std::vector<ExprMore> exprMore;  // see Expr::more

  const Expr &expr(ExprId id) const { return exprs[id.v]; }
  const Stmt &stmt(StmtId id) const { return stmts[id.v]; }
  const TypeNode &type(TypeId id) const { return types[id.v]; }
  const Item &item(ItemId id) const { return items[id.v]; }
  // A statement's or expression's rarer parts: empty ones where it has none.
  const StmtMore &moreOf(const Stmt &s) const { return s.more ? stmtMore[s.more - 1] : kNoStmtMore; }
  const ExprMore &moreOf(const Expr &e) const { return e.more ? exprMore[e.more - 1] : kNoExprMore; }
  Expr &expr(ExprId id) { return exprs[id.v]; }
  Stmt &stmt(StmtId id) { return stmts[id.v]; }
  TypeNode &type(TypeId id) { return types[id.v]; }
  Item &item(ItemId id) { return items[id.v]; }

  ExprId add(Expr e) { exprs.push_back(std::move(e)); return ExprId{uint32_t(exprs.size() - 1)}; }
  StmtId add(Stmt s) { stmts.push_back(std::move(s)); return StmtId{uint32_t(stmts.size() - 1)}; }
  TypeId add(TypeNode t) { types.push_back(std::move(t)); return TypeId{uint32_t(types.size() - 1)}; }
  ItemId add(Item i) { items.push_back(std::move(i)); return ItemId{uint32_t(items.size() - 1)}; }
  // Gives s (e) its rarer parts: s.more (e.more) set.
  void addMore(Stmt &s, StmtMore m) { stmtMore.push_back(std::move(m)); s.more = uint32_t(stmtMore.size()); }
  void addMore(Expr &e, ExprMore m) { exprMore.push_back(std::move(m)); e.more = uint32_t(exprMore.size()); }

 private:
  static inline const StmtMore kNoStmtMore{};
  static inline const ExprMore kNoExprMore{};
};

// A deterministic S-expression rendering of the whole module, one top-level
// item per line, for tests and `--dump-ast` style debugging. Spans are left
// out; the format is documented in ast.cpp.
std::string dumpAst(const Module &m);
std::string dumpExpr(const Module &m, ExprId e);
std::string dumpType(const Module &m, TypeId t);

}  // namespace cairn::ast
