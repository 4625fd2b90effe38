// Internal to the front end: the state of lowering one program (`Lowering`)
// and one function instance (`FnLowerer`), shared by lower/*.cpp.
//
// Storage model (docs/cairn.md has the user-facing story):
//   - every mutable local, record local and borrowed value lives in graph
//     buffers ("cells"), one per leaf, written with store + after;
//   - immutable scalar locals are plain SSA values;
//   - stack/buffer arrays and Array[T, N] are graph buffers, one per leaf
//     column (arrays of records are stored column by column);
//   - a Buf owner is a u64 handle in a cell; its elements live in a heap
//     object reached with `deref`, one column per leaf of the element type;
//   - a view parameter is a `vparam` per leaf column; a single borrow
//     (ro<T>/rw<T>) is a vparam of one element per leaf.
// Control flow is structured: `if` is a serial range of 0 or 1 iterations,
// `while` a range over the largest u64 with `until`. `return`, `break` and
// `continue` set flag cells; the statements after one that may exit run
// inside an `if` that tests the flags, so every block still reaches its end,
// where its defers run and its owners are released (moved-out owners hold 0,
// and `free 0` does nothing).
// Versions: the lowerer tracks the current version of every cell. Entering
// a region carries each mutable cell whose variable the region mentions (and
// the flag cells); leaving it lists the next versions and builds `after`s.
// Two indexes keep lookups independent of a function's size: `bindings`
// (each local name's bindings in scope, kept by bindLocal/popScope) and
// `mutByVar` (each variable's mutable cells, kept by addStorage, nameStorage,
// retireLoopFlags and dropStorages; nothing else touches `storages`' length,
// names or mutability).
#pragma once
#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/module.hpp"
#include "lower/check/facts.hpp"
#include "lower/decimal_counter.hpp"
#include "lower/sema.hpp"
#include "lower/small_vec.hpp"

namespace cairn::lower {

using sema::Ty;
using sema::kNoTy;

using sema::NameHash;

// The variable names a region mentions: views of the AST's names (or of a
// string that outlives the region's opening), collected with repeats and
// sorted once, when a region asks (cheaper than a std::set<std::string>,
// which allocated a node and a string per name).

struct NameSet {
  SmallVec<std::string_view, 16> v;  // most regions mention a few names: no allocation
  bool sorted = true;
  void insert(std::string_view n) {
    v.push_back(n);
    sorted = false;
  }
  void seal() {
    if (sorted) return;
    std::sort(v.begin(), v.end());
    v.truncate(static_cast<size_t>(std::unique(v.begin(), v.end()) - v.begin()));
    sorted = true;
  }
  bool has(std::string_view n) const { return std::binary_search(v.begin(), v.end(), n); }  // after seal()
};

// The prefix of a node's name (hint.N): one of the short literals the
// lowerer writes, kept in a fixed buffer so that building the name copies
// it with a copy of constant size (consteval: a longer literal does not
// compile), or a CAIRN variable's name (variable), which takes the slow way.
struct NodeHint {
  static constexpr size_t kBytes = 16;
  char s[kBytes] = {};
  uint8_t n = 0;
  std::string_view var;  // variable(): the name; else empty
  consteval NodeHint(const char *p) {  // NOLINT: implicit, from the literal at the call
    while (p[n] != 0) {
      if (n == kBytes) throw "a node hint literal is at most 16 characters";
      s[n] = p[n];
      ++n;
    }
  }
  static NodeHint variable(std::string_view name) {
    NodeHint h("");
    h.var = name;
    return h;
  }
};

// A function instance: a fn item with its generic arguments.
struct FnInst {
  sema::ItemRef item;
  sema::GenericEnv env;
  std::string name;  // in the module: main, grow, vec.push.u64
  int funcIndex = -1;
  // Parameter shapes, in CAIRN order.
  struct P {
    enum K : uint8_t { Value, Array, Borrow } k = Value;
    Ty ty = kNoTy;     // Value/Borrow: the type; Array: the element type
    bool rw = false;
    uint32_t first = 0, count = 0;  // graph parameters
    std::string name;
    std::string extentName;  // Array: the extent parameter's name, if any
    uint64_t extentLit = 0;  // Array: a literal/const extent (0: none)
    bool device = false;     // @device, @unified or @pinned
  };
  std::vector<P> params;
  Ty ret = kNoTy;
  bool sret = false;  // a record/sum result returned through rw out-views
  uint32_t sretFirst = 0;
  bool lowered = false;
  bool checkOnly = false;  // not reached from main: lowered for `cairn check` only
};

// Program-wide state: the semantic tables, the module being built, the
// instances made so far and those still to lower.
struct Lowering {
  sema::Program &prog;
  Module &mod;
  std::deque<FnInst> fns;  // a deque: instancing appends while references to others are held
  std::deque<check::FnFacts> facts;  // parallel to fns: what typing each body learned
  std::map<std::string, uint32_t> fnIndex;  // key: item + generic args
  std::unordered_map<uint64_t, uint32_t> plainIndex;  // the instances without generic args, by file << 32 | item
  std::vector<uint32_t> pending;  // instances made but not yet lowered
  uint32_t genericInstances = 0;
  Diags &diags;
  bool lineComments = true;  // LowerOptions::lineComments
  // FnLowerer::hasReturn's answers by file and statement (0 not yet asked,
  // 1 yes, -1 no): the AST is shared by every instance of a function, and
  // each statement list asks it of every statement in it, so without the
  // memo a statement is walked once per list around it.
  std::vector<std::vector<int8_t>> returnMemo;

  Lowering(sema::Program &p, Module &m, Diags &d) : prog(p), mod(m), diags(d) {}
  // The instance of fn item `r` at `env` (made, with its signature, on first use).
  int instance(sema::ItemRef r, const sema::GenericEnv &env, uint32_t useFile, Loc useLoc);
  void lowerAll();
};

// An operand being built: a node, or a literal of the node's dtype.
struct Opnd {
  NodeId n;
  bool lit = false;
  Literal l;
  Opnd(NodeId id) : n(id) {}
  static Opnd ofU64(uint64_t v) {
    Opnd o{NodeId::none()};
    o.lit = true;
    o.l.kind = Literal::Kind::Int;
    o.l.magnitude = v;
    return o;
  }
};

// Generic inference: binds the generic parameters of `it` (declared in
// `file`) by matching a written parameter or field type against the type of
// what is passed there. First binding wins; a mismatch is found later, when
// the instance's types are compared with the arguments.
struct Unify {
  sema::Program &P;
  uint32_t file;
  const ast::Item &it;
  sema::GenericEnv &env;
  void run(ast::TypeId t, Ty actual) {
    if (!t.valid() || actual == kNoTy) return;
    const ast::TypeNode &tn = P.files[file]->ast.type(t);
    const sema::TypeRec &ar = P.type(actual);
    if (tn.kind == ast::TypeKind::View) return run(tn.elem, actual);
    if (tn.kind != ast::TypeKind::Named) return;
    for (const auto &g : it.generics)
      if (tn.args.empty() && g.name == tn.name) {
        env.types.emplace(tn.name, actual);
        return;
      }
    if (tn.name == "Buf" && ar.k == sema::TK::Buf && tn.args.size() == 1) return run(tn.args[0].type, ar.elem);
    if ((ar.k == sema::TK::Record || ar.k == sema::TK::Sum) && !tn.args.empty()) {
      const auto &args = ar.k == sema::TK::Record ? P.recs[ar.inst].args : P.sums[ar.inst].args;
      for (size_t i = 0; i < tn.args.size() && i < args.size(); ++i) run(tn.args[i].type, args[i]);
    }
  }
};

// Sets the lowerer's current CAIRN location for a scope, and restores it.
struct AtLoc {
  Loc &cur;
  Loc saved;
  AtLoc(Loc &c, Loc l) : cur(c), saved(c) { cur = l; }
  ~AtLoc() { cur = saved; }
};

// A value: one node per leaf of its type.
using Leaves = SmallVec<NodeId, 4>;
struct Val {
  Ty ty = kNoTy;
  Leaves leaves;
  bool ok() const { return ty != kNoTy; }
};

// Where one column of an array (or one leaf of a place) lives.
struct Col {
  enum K : uint8_t { Cell, Heap } k = Cell;
  uint32_t storage = 0;  // Cell: index into FnLowerer::storages
  NodeId handle;         // Heap: the handle value
  uint32_t col = 0;      // Heap: the column
  DType dt = DType::None;
};

// Columns (of an array) or leaves (of a place).
using Cols = SmallVec<Col, 4>;

// An array: columns, and the window [off, off + len) of them it stands for.
struct Arr {
  Ty elem = kNoTy;
  Cols cols;
  NodeId off;  // none: 0
  NodeId len;  // the element count (u64); none until lenOf makes it (a Buf's)
  bool writable = true;
  bool ok() const { return elem != kNoTy; }
};

// A place: each leaf is element `idx` of a column (idx none: element 0).
struct Place {
  Ty ty = kNoTy;
  Cols leaves;
  NodeId idx;  // shared by every leaf (u64)
  NodeId partLo, partHi;  // when the index is into a part: its window
  bool writable = true;
  bool ok() const { return ty != kNoTy; }
};

// A graph storage the lowerer versions: a buffer or a vparam.
struct Storage {
  NodeId root;
  NodeId cur;
  DType dt;
  uint32_t depth;    // region depth where it was made
  std::string var;   // the CAIRN variable it belongs to ("" internal)
  bool mut;
  // What the version `stored` holds at element 0: the value storeLeaf put
  // there through a proven view (a literal-size cell at offset 0). While
  // cur is still that version, loadLeaf gives the value itself, with no
  // view and no load. Versions are SSA, so a version's contents never
  // change: a later store, a carry or an end makes a new one (cur moves on
  // and the entry no longer applies). The value is defined beside the
  // version, so every use that sees one sees the other.
  NodeId stored = {}, storedValue = {};
};

struct Local {
  std::string name;
  Ty ty = kNoTy;
  enum K : uint8_t { Value, Place, Array } k = Value;
  Val val;
  lower::Place place;
  Arr arr;
  bool mut = false;
  bool owns = false;  // released at the end of its scope (not a borrow)
  Loc loc;
};

struct Scope {
  std::vector<Local> locals;
  std::vector<ast::StmtId> defers;  // run in reverse at the scope's end
};

struct Region {
  NodeId range;
  size_t storageMark;              // storages made inside are dropped at the end
  SmallVec<uint32_t, 8> carried;   // storages
  SmallVec<NodeId, 8> outer;       // their versions outside
};

struct LoopFlags {
  int brk = -1, cont = -1;  // storages, -1 when the loop has none
};

class FnLowerer {
 public:
  FnLowerer(Lowering &L, uint32_t fnIdx);
  void run();

 private:
  friend struct ExprLowering;
  // ---- graph building (lower/build.cpp) ----
  NodeId node(Op op, std::initializer_list<Opnd> ops, DType dt = DType::None, NodeHint hint = "t");
  NodeId nodeV(Op op, std::span<const Opnd> ops, DType dt = DType::None, NodeHint hint = "t");
  void reserveBody(const ast::Span &span);  // before the first node
  NodeId konst(DType dt, uint64_t bits);
  NodeId konstLit(DType dt, const Literal &l);
  NodeId u64c(uint64_t v) { return konst(DType::U64, v); }
  NodeId newCell(DType dt, const std::string &var, bool mut, NodeHint hint, NodeId count = {});
  // Every storage is made, renamed, retired and dropped through these, which
  // keep mutByVar in step with storages.
  uint32_t addStorage(Storage st);
  void nameStorage(uint32_t s, const std::string &var);  // an internal storage becomes var's
  void dropStorages(size_t mark);                         // those from mark on
  void retireLoopFlags(const LoopFlags &lf);              // after the loop: never carried again
  NodeId version(uint32_t s) const { return storages[s].cur; }
  void guard(NodeId cond, const std::string &msg);
  // Regions.
  void openRegion(NodeId count, NameSet &names, bool flags);
  void closeRegion();
  void openIf(NodeId cond, NameSet &names, bool flags = true);
  // ---- elements ----
  NodeId colView(const Col &c);  // the whole column, current version / deref root
  // The one-element view; `root` (when given) gets the version it is a view of.
  NodeId elemView(const Col &c, NodeId idx, NodeId lo, NodeId hi, NodeId *root = nullptr);
  NodeId loadLeaf(const Col &c, NodeId idx, NodeId lo = {}, NodeId hi = {});
  void storeLeaf(const Col &c, NodeId idx, NodeId value, NodeId lo = {}, NodeId hi = {});
  Val loadPlace(const Place &p);
  void storeSret(const Val &v);
  void storePlace(const Place &p, const Val &v);
  void zeroOwners(const Place &p);
  void freeOwners(const Val &v);
  Place elemPlace(const Arr &a, NodeId idx);
  Place fieldPlace(const Place &p, uint32_t fieldIdx);
  Place cellPlace(Ty ty, const std::string &var, bool mut, NodeHint hint);

  // ---- expressions (lower/expr.cpp, lower/call.cpp) ----
  Val expr(ast::ExprId e, Ty expect = kNoTy);  // records the type in facts
  Val exprRaw(ast::ExprId e, Ty expect);
  Val exprScalar(ast::ExprId e, Ty expect = kNoTy);
  NodeId exprBool(ast::ExprId e);
  Val literal(ast::ExprId e, Ty expect, bool negate = false);
  Val binary(ast::ExprId e, Ty expect);
  Val shortCircuit(ast::ExprId e);
  Val unary(ast::ExprId e, Ty expect);
  Val call(ast::ExprId e, Ty expect);
  Val callFn(ast::ExprId e, sema::ItemRef fn, const std::vector<Ty> &explicitArgs, const std::vector<ast::ExprId> &args,
             Ty expect, std::optional<ast::ExprId> receiver);
  Val construct(ast::ExprId e, Ty recTy, const std::vector<ast::ExprId> &args);
  Val variant(ast::ExprId e, Ty sumTy, uint32_t v, const std::vector<ast::ExprId> &args);
  Val convert(ast::ExprId e, sema::Sc to, ast::ExprId arg);
  Val builtin(ast::ExprId e, const std::string &name, const std::vector<ast::ExprId> &args, Ty expect, bool &handled);
  Val zeroVal(Ty t);
  Val moveOrCopy(ast::ExprId e, Ty expect);  // records the type in facts
  Val moveOrCopyRaw(ast::ExprId e, Ty expect);
  void noteCall(ast::ExprId e, check::CallKind k, std::string_view name, const std::vector<ast::ExprId> &args);
  uint32_t stmtIndex(const ast::Stmt &s) const { return static_cast<uint32_t>(&s - A.stmts.data()); }
  bool isLiteralExpr(ast::ExprId e) const;
  bool boundIn(const ast::Module &M, ast::TypeId t, const ast::Item &it, const sema::GenericEnv &env) const;
  Ty literalDefault(ast::ExprId e);  // the type a literal takes when nothing expects one
  bool isSimple(ast::ExprId e) const;
  // A place's path: its root local, then `.field` and `[index]` steps (an
  // index that is not a literal is "?": it may be any element).
  bool placePath(ast::ExprId e, std::vector<std::string> &out) const;
  // Whether place a may lie strictly inside place b.
  bool mayLieInside(ast::ExprId a, ast::ExprId b) const;
  Ty typeOfName(const std::string &name);
  Ty resolveTypeExpr(ast::ExprId e);  // Buf[u8], Vec[u64] written in an expression
  Ty typeFromExpr(ast::ExprId e);
  bool isTraitMember(const std::string &name) const;     // a type written where an expression goes: u64, Vec[u64]
  Arr copyArr(Arr src, const std::string &var);

  // ---- places and arrays (lower/place.cpp) ----
  std::optional<Place> place(ast::ExprId e, bool forWrite);  // records the type in facts
  std::optional<Place> placeRaw(ast::ExprId e, bool forWrite);
  std::optional<Arr> array(ast::ExprId e);
  Arr arrOfBuf(Ty elem, NodeId handle, bool writable);
  NodeId lenOf(Arr &a);  // the element count, made on first use
  Arr lentArr(const Place &rec);
  void checkWindow(Arr a, NodeId lo, NodeId hi, const std::string &msg);
  Local *findLocal(const std::string &name);
  NodeId extentOf(const FnInst::P &p);
  void bindParams();
  Local paramLocal(const FnInst::P &p, const Leaves &leaves, const std::map<std::string, NodeId> &witness);

  // ---- statements (lower/stmt.cpp) ----
  void block(ast::StmtId s);
  void stmts(const std::vector<ast::StmtId> &list, size_t from);
  void stmt(ast::StmtId s);
  void letStmt(const ast::Stmt &s);
  void unpackStmt(const ast::Stmt &s);
  void storageStmt(const ast::Stmt &s);
  void assignStmt(const ast::Stmt &s);
  void ifStmt(const ast::Stmt &s);
  void whileStmt(const ast::Stmt &s);
  void forRange(const ast::Stmt &s);
  void forEach(const ast::Stmt &s);
  void returnStmt(const ast::Stmt &s);
  void matchStmt(const ast::Stmt &s);
  void loopBody(const ast::Stmt &s, NodeId lo, NodeId hi, Ty ty, const Arr *each);
  NodeId flagsSet(bool withCont);
  void setFlag(int storage);
  Local valueLocal(const std::string &name, const Val &v, bool mut, Loc loc);
  void pushScope();
  void popScope();
  void bindLocal(Local l);
  NodeId exitPending();  // bool: a return/break/continue is in flight
  bool mayExit(ast::StmtId s, bool inLoop) const;
  void mentioned(ast::StmtId s, NameSet &out) const;
  void mentionedExpr(ast::ExprId e, NameSet &out) const;
  void restNames(const std::vector<ast::StmtId> &list, size_t from, NameSet &out);
  bool hasLoopExit(ast::StmtId s, bool nested, bool wantBreak) const;
  bool hasReturn(ast::StmtId s) const;  // memoized in L.returnMemo
  bool findsReturn(ast::StmtId s) const;  // hasReturn's walk
  bool anyExit(ast::StmtId s) const;
  bool alwaysReturns(ast::StmtId s) const;
  bool tailReturns(ast::StmtId s, bool isTail) const;
  bool tailReturnsIn(const std::vector<ast::StmtId> &list, size_t from, bool isTail) const;
  bool takesRestAsElse(ast::StmtId s) const;
  void ifThenRest(const ast::Stmt &s, const std::vector<ast::StmtId> &list, size_t from);
  void ifBody(NodeId c, ast::StmtId body);
  void openRest(NodeId cond, const std::vector<ast::StmtId> &list, size_t from);
  bool usedAsUsize(ast::StmtId body, const std::string &name) const;

  Diagnostic &error(Loc loc, const char *code, std::string msg);
  // Two types that differ, neither of them an error already reported.
  bool differ(Ty a, Ty b) const {
    return a != b && !P.hasError(a) && !P.hasError(b);
  }
  std::string_view trimmedSourceLine(uint32_t line);
  static void appendPrintable(std::string_view t, std::string &out);
  void lineComment(uint32_t line, std::string &out);
  uint32_t commentedLine_ = 0;
  Diagnostic &unsupported(Loc loc, const std::string &what);

 public:
  Lowering &L;
  int8_t *returnMemo_;  // L.returnMemo[file], sized to A's statements
  sema::Program &P;
  const FnInst &F;  // stays valid: instancing other functions appends to a deque
  check::FnFacts *facts;  // L.facts[this instance] (a deque: stable)
  Graph body_;
  std::vector<Origin> origin_;
  uint32_t file;
  const ast::Module &A;
  Graph *g = nullptr;
  std::vector<Origin> *origin = nullptr;
  Loc cur;  // the CAIRN location nodes get
  DecimalCounter nameNumber;  // N of the next node's name hint.N
  std::vector<Storage> storages;
  // The mutable storages of each variable ("" for internal ones: flags,
  // temporaries), ascending: a region finds the cells to carry from the
  // names it mentions, not by a walk over every storage of the function
  // (quadratic in a function with many loops and many cells).
  std::unordered_map<std::string, std::vector<uint32_t>, NameHash, std::equal_to<>> mutByVar;
  std::vector<Region> regions;
  bool regionLimitHit = false;  // openRegion refused the function (E-LIMIT)
  // For each statement list whose rest went into a region (restNames): the
  // index of the last statement that mentions each name.
  std::unordered_map<const std::vector<ast::StmtId> *, std::unordered_map<std::string_view, uint32_t>> lastMention;
  std::vector<Scope> scopes;
  // Each local name's bindings in scope, innermost last, as (scope, index in
  // its locals): findLocal in constant time however many locals a function
  // has (a scan of every scope was quadratic in a long function).
  struct Binding {
    uint32_t scope, index;
  };
  std::unordered_map<std::string, SmallVec<Binding, 2>> bindings;
  std::vector<LoopFlags> loops;
  int retFlag = -1;      // storage: bool, set by return (none when every return is in tail position)
  Place retCell;         // the return value, when the function has one (not sret)
  std::vector<uint32_t> sretStorages;
  std::map<std::string, std::pair<Ty, NodeId>> consts_;  // folded const items used
  uint32_t depthGuard = 0;  // expression recursion guard
};

}  // namespace cairn::lower
