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
#include <unordered_map>
#include <vector>

#include "lower/check/check.hpp"
#include "lower/check/facts.hpp"
#include "lower/fn.hpp"

namespace cairn::check {

using lower::FnInst;
using sema::Ty;

enum class St : uint8_t { Live, Moved, Maybe };

struct Var {
  std::string name;
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
  std::string extent;    // ViewParam / Array: the extent's canonical text ("" unknown)
  std::string canon;     // an immutable scalar: its initializer's canonical text
  bool mut = false;
  std::string rangeHi;         // the index of `for i in LIT..hi`: hi's canonical text
  bool rangeFromZero = false;  // ... and its start is a literal
  Loc declAt;
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
  std::vector<std::string> locals;  // names declared here (for LocalInfo)
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
  void use(const std::string &name, Loc at, bool move);
  void declare(const std::string &name, Ty ty, Loc at, bool param);
  void declareLocal(const std::string &name, LocalInfo li, Loc at);
  void openBlock();
  void closeBlock(Loc end);
  void runDefers(FlowState &s, size_t downTo);  // the defers of blocks at depth >= downTo run (an exit)
  void leakCheck(size_t fromVar, Loc at, bool atExit, const char *exitWord);
  FlowState join(const FlowState &a, const FlowState &b, Loc at) const;
  int findVar(const std::string &name) const;
  void effect(const std::string &label, Loc at);
  void writeEffect(ast::ExprId target, Loc at, bool alsoRead);

  // ---- places and extents (places.cpp) ----
  PlacePath path(ast::ExprId e) const;
  // "" unknown; fold: an immutable scalar local stands for its initializer
  std::string canon(ast::ExprId e, bool fold = true) const;
  std::string extentOf(ast::ExprId view) const;
  std::string extentField(Ty rec, const std::string &field) const;
  bool inDeclaredExtent(Ty rec, const std::string &field, std::string &carrier) const;
  void checkExtentFields(ast::ExprId call, const CallFact &c);
  void checkExtentFieldWrite(ast::ExprId place, Loc at);
  void checkCallArgs(ast::ExprId e, const CallFact &c);
  void checkExtents(ast::ExprId e, const CallFact &c);
  void checkPartShape(ast::ExprId e);
  std::string text(ast::ExprId e) const;    // the source text of an expression
  std::string rootName(ast::ExprId e) const;
  Ty tyOf(ast::ExprId e) const;

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
  // Every visible local by name (never iterated: a hash map, not a tree of
  // string compares).
  std::unordered_map<std::string, LocalInfo> locals;
  int unsafeDepth = 0;
  bool deferring = false;
  bool writingTarget = false;  // walking the place an assignment writes
  ast::StmtId curStmt;         // the innermost statement being walked (MoveEvent)  // walking a deferred call: it runs later, nothing moves now
};

}  // namespace cairn::check
