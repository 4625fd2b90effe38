// Internal to the checking layer: the walk over one typed function body
// (`BodyCheck`), shared by lower/check/flow.cpp (moves, linear values,
// leases, unsafe, own effects), lower/check/places.cpp (places, extents,
// aliasing of one call's arguments) and lower/check/order.cpp (operand
// order).
//
// The body is walked in evaluation order over its structured control flow,
// which is the function's control-flow view: an `if` or `match` forks the
// state and joins it, a loop runs its body once from the entry state and
// joins the entry, the end of the body, every `continue` and every `break`;
// `return`, `break` and `continue` end a path (its state is dead) after the
// defers of the blocks they leave have run. The state is one `Var` per
// local that is an owner or linear (copies are never tracked), in
// declaration order, so two states of one point have the same variables.
#pragma once
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lower/check/check.hpp"
#include "lower/check/facts.hpp"
#include "lower/fn.hpp"

namespace cairn::check {

using lower::FnInst;
using sema::Ty;

enum class St : uint8_t { Live, Moved, Maybe };

// A Var is copied with every state (a fork, a join, a loop), so it holds no
// string: its name is a view of the AST's or the instance's (both outlive
// the walk).
struct Var {
  std::string_view name;
  bool linear = false;   // else an owner
  St st = St::Live;
  Loc movedAt, declAt;
  Loc branchAt;          // Maybe of a linear value: the if/match where paths part
  uint32_t loopDepth = 0;
  int leasedBy = 0;      // line of a defer of an enclosing block that reads it (0 none)
  bool deferConsumes = false;  // a pending defer takes it by value
  bool param = false;
  bool quiet = false;    // an error about it was reported: no follow-on errors
  Loc leaseAt;
};

struct FlowState {
  std::vector<Var> vars;
  bool dead = false;
};

// What one local is, for extents and places (every local, copies too).
struct LocalInfo {
  enum K : uint8_t { Scalar, Owner, Record, ViewParam, BorrowParam, Array, Other } k = Other;
  Ty ty = sema::kNoTy;
  // read:NAME / write:NAME went into the body's own effects (a borrow
  // parameter): adding a label again changes nothing, so it is skipped.
  bool readNoted = false, writeNoted = false;
  std::string extent;    // ViewParam / Array: the extent's canonical text ("" unknown)
  std::string canon;     // an immutable scalar: its initializer's canonical text
  bool mut = false;
  std::string rangeHi;         // the index of `for i in LIT..hi`: hi's canonical text
  bool rangeFromZero = false;  // ... and its start is a literal
  Loc declAt;
};

// Every visible local by name, with the part of a map's interface the walk
// uses. A body sees few locals at a time, so a vector searched from the
// newest beats a hash map (no node per local, no rehash, no hashing; an
// open-addressing table measured slower too); past kLinear locals a hash
// index keeps lookups O(1). Keys are unique, as in a map, and the order of
// the entries means nothing (erase moves the last into the hole). Keys are
// views of the AST's and the instance's names, which outlive the walk.
// Iterators last until the next insertion or erase.
class LocalTable {
 public:
  using Entry = std::pair<std::string_view, LocalInfo>;
  using iterator = std::vector<Entry>::iterator;
  using const_iterator = std::vector<Entry>::const_iterator;
  iterator end() { return items_.end(); }
  const_iterator end() const { return items_.end(); }
  iterator find(std::string_view n) { return items_.begin() + static_cast<std::ptrdiff_t>(index(n)); }
  const_iterator find(std::string_view n) const { return items_.begin() + static_cast<std::ptrdiff_t>(index(n)); }
  size_t count(std::string_view n) const { return index(n) != items_.size(); }
  // The entry of `n`, made (a default LocalInfo) when there is none; second: it was made.
  std::pair<iterator, bool> try_emplace(std::string_view n);
  LocalInfo &operator[](std::string_view n) { return try_emplace(n).first->second; }
  void erase(std::string_view n);
  void reserve(size_t n) { items_.reserve(n); }

 private:
  static constexpr size_t kLinear = 24;
  size_t index(std::string_view n) const;  // items_.size() when absent
  std::vector<Entry> items_;
  std::unordered_map<std::string_view, size_t> byName_;  // empty until items_ outgrows kLinear
};

// One step of a place: r.f, r[i], r[lo..hi].
struct Step {
  enum K : uint8_t { Field, Index, Part } k = Field;
  std::string a, b;  // Field: name; Index: canonical index; Part: lo, hi
};
struct PlacePath {
  std::string root;
  std::vector<Step> steps;
  bool ok = false;
};

struct Defer {
  ast::StmtId stmt;
  std::vector<size_t> consumes;            // vars it takes by value
  std::vector<std::pair<size_t, int>> leased;  // vars it reads, with their lease before
};

struct Block {
  size_t mark;        // FlowState::vars.size() at its start
  std::vector<Defer> defers;
  size_t localsMark;  // BodyCheck::declared.size() at its start: the names declared here follow
};

struct Loop {
  size_t mark;
  size_t blockDepth;
  FlowState breaks, conts;
};

class BodyCheck {
 public:
  BodyCheck(CheckContext &cx, uint32_t fnIdx);
  void run();

  // ---- flow (flow.cpp, flow_expr.cpp, flow_call.cpp) ----
  void stmt(ast::StmtId s);
  void stmtKind(const ast::Stmt &s, ast::StmtId id);
  void block(ast::StmtId s);
  void stmts(const std::vector<ast::StmtId> &list);
  void letStmt(const ast::Stmt &s, ast::StmtId id);
  void unpackStmt(const ast::Stmt &s, ast::StmtId id);
  void storageStmt(const ast::Stmt &s);
  void matchStmt(const ast::Stmt &s);
  void assign(const ast::Stmt &s);
  void deferStmt(const ast::Stmt &s, ast::StmtId id);
  void returnStmt(const ast::Stmt &s);
  void loop(const ast::Stmt &s, ast::ExprId cond, const std::string &var);
  void loopExit(const ast::Stmt &s);
  void expr(ast::ExprId e, bool value);  // value: a use by value (moves an owner)
  void call(ast::ExprId e);
  void builtinCall(ast::ExprId e, const CallFact &c);
  void convertCall(ast::ExprId e, const CallFact &c);
  bool provenIndex(ast::ExprId base, ast::ExprId idx) const;
  void use(std::string_view name, Loc at, bool move);
  void declare(std::string_view name, Ty ty, Loc at, bool param);
  void declareLocal(std::string_view name, LocalInfo li, Loc at);
  LocalInfo infoOf(Ty ty, bool mut);  // a local of type ty
  void openBlock();
  void closeBlock(Loc end);
  void runDefers(FlowState &s, size_t downTo);  // the defers of blocks at depth >= downTo run (an exit)
  void leakCheck(size_t fromVar, Loc at, bool atExit, const char *exitWord);
  void joinInto(FlowState &r, FlowState &b, Loc at) const;
  int findVar(std::string_view name) const;
  // The labels the walk adds most, one bit each in fxNoted once added.
  enum Fx : uint8_t { Trap, Free, LocalWrite, Diverge, Alloc, ZeroInit, StackStorage, Io };
  void effect(std::string_view label, Loc at);
  void effect(Fx label, Loc at);
  void borrowEffect(LocalInfo &li, std::string_view name, bool write, Loc at);  // read:NAME / write:NAME
  void writeEffect(ast::ExprId target, Loc at, bool alsoRead);

  // ---- places and extents (places.cpp) ----
  PlacePath path(ast::ExprId e) const;
  // "" unknown; fold: an immutable scalar local stands for its initializer
  std::string canon(ast::ExprId e, bool fold = true) const;
  static constexpr size_t kMaxCanon = 512;  // longer canonical arithmetic is "" (unknown)
  std::string extentOf(ast::ExprId view) const;
  using Extents = std::vector<std::pair<std::string_view, std::string_view>>;  // field, its extent field
  Extents declaredExtents(Ty rec) const;
  std::string extentField(Ty rec, const std::string &field) const;
  bool inDeclaredExtent(Ty rec, const std::string &field, std::string &carrier) const;
  void checkExtentFields(ast::ExprId call, const CallFact &c);
  void checkExtentFieldWrite(ast::ExprId place, Loc at);
  void checkCallArgs(ast::ExprId e, const CallFact &c);
  void checkExtents(ast::ExprId e, const CallFact &c);
  void checkPartShape(ast::ExprId e);
  // sema::Program's answers about a type, each asked of it once for the
  // whole check, the first time where the walk asks it (they do not change
  // once typing is done), then read from cx.typeAnswers.
  enum TypeQ : uint8_t { QOwner, QLinear, QError };
  bool typeIs(Ty t, TypeQ q);
  bool holdsOwner(Ty t) { return typeIs(t, QOwner); }
  bool isLinear(Ty t) { return typeIs(t, QLinear); }
  bool isCopy(Ty t) { return !holdsOwner(t) && !isLinear(t); }  // as sema::Program::isCopy
  bool hasError(Ty t) { return typeIs(t, QError); }

  std::string text(ast::ExprId e) const;    // the source text of an expression
  std::string_view textView(ast::ExprId e) const;  // ... a view of the file's text
  std::string rootName(ast::ExprId e) const;       // the local at the root of a place ("" none)
  std::string_view rootView(ast::ExprId e) const;  // ... a view of the AST's name
  ast::ExprId rootExpr(ast::ExprId e) const;       // ... its Name (none)
  Ty tyOf(ast::ExprId e) const;
  // Is callee the builtin `name` (no item of the file's takes that name)?
  bool isBuiltin(const ast::Expr &callee, const char *name) const;

  CheckContext &cx;
  lower::Lowering &L;
  sema::Program &P;
  uint32_t fnIdx;
  const FnInst &F;
  const FnFacts &facts;
  uint32_t file;
  const ast::Module &A;
  const ast::Item &item;
  FnSummary &sum;

  FlowState cur;
  std::vector<Block> blocks;
  std::vector<Loop> loops;
  LocalTable locals;  // every visible local by name
  std::vector<std::string_view> declared;  // the names declared by the open blocks, outermost first
  uint32_t fxNoted = 0;  // bit f: label f is in sum.own (which keeps the first place it was added)
  int unsafeDepth = 0;
  bool deferring = false;
  bool writingTarget = false;  // walking the place an assignment writes
  ast::StmtId curStmt;         // the innermost statement being walked (MoveEvent)  // walking a deferred call: it runs later, nothing moves now
};

}  // namespace cairn::check
