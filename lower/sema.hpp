// The CAIRN front end's semantic tables: the files of a program, its items,
// its types and the instances generics make of them.
//
// A program is the user's file plus every `std.*` module it imports (read from
// the std/ folder), each parsed into an ast::Module. Items are found by
// (module, name); generic items are instantiated on demand (monomorphized),
// and every instance is an ordinary record, sum or function from then on.
//
// Types are interned: a `Ty` is an index into `Program::types`, equal types
// have equal indices, so type equality is integer equality. Records and sums
// are flattened into *leaves* for the graph: every leaf is one scalar (a
// `Buf` is one u64 handle leaf that owns its object). A record of three
// scalars is three leaves; a sum is a u32 tag followed by the leaves of every
// variant's payload, one after the other (no overlap: simple, and a variant
// that is not active holds zeros, which also means "owns nothing").
#pragma once
#include <cstdint>
#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/diag.hpp"
#include "ir/dtype.hpp"
#include "lower/ast.hpp"

namespace cairn::sema {

// A hash for maps keyed by std::string that are searched with a string_view.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

using Ty = uint32_t;
inline constexpr Ty kNoTy = UINT32_MAX;

// Scalar types of CAIRN; `usize` is its own type for checking and a u64 in
// the graph.
enum class Sc : uint8_t { Bool, U8, U16, U32, U64, Usize, I8, I16, I32, I64, F32, F64 };
DType dtypeOf(Sc s);
std::string_view scName(Sc s);
bool parseSc(std::string_view s, Sc &out);
inline bool scInt(Sc s) { return s != Sc::Bool && s != Sc::F32 && s != Sc::F64; }
inline bool scFloat(Sc s) { return s == Sc::F32 || s == Sc::F64; }
inline bool scSigned(Sc s) { return s >= Sc::I8 && s <= Sc::I64; }

enum class TK : uint8_t {
  Error,   // a type that failed to resolve (a diagnostic was given)
  Unit,    // no value
  Scalar,  // sc
  Buf,     // Buf[elem]: an owner of heap elements
  Array,   // elem[n]: stack/buffer storage, Array[T, N], string literals
  Record,  // inst: a struct instance
  Sum,     // inst: an enum instance
};

struct TypeRec {
  TK k = TK::Error;
  Sc sc = Sc::Bool;
  Ty elem = kNoTy;
  uint64_t n = 0;      // Array: element count (0: dynamic, as `buffer x:u8[n]`)
  uint32_t inst = 0;   // Record/Sum: index into Program::recs / sums
};

struct Leaf {
  DType dt;
  bool own;  // a Buf handle: released with the value
};

// Where an item lives: file index and item id in that file's ast.
struct ItemRef {
  uint32_t file = UINT32_MAX;
  ast::ItemId id;
  bool valid() const { return file != UINT32_MAX; }
};
// A file's names (items, imports): searched, never walked in order.
using NameMap = std::unordered_map<std::string, ItemRef, NameHash, std::equal_to<>>;

struct Field {
  std::string name;
  Ty ty;
  uint32_t leaf;  // first leaf
};

struct RecInst {
  ItemRef item;
  std::vector<Ty> args;
  std::string name;  // display name: Ring, Vec[u64]
  std::vector<Field> fields;
  std::vector<Leaf> leaves;
  bool linear = false;
  bool done = false;  // fields resolved
  // lends data[lo..hi]: field index of the Buf, and each bound as a field
  // index (>= 0) or a literal (lit, when field < 0).
  bool lends = false;
  int lendsField = -1, loField = -1, hiField = -1;
  uint64_t loLit = 0, hiLit = 0;
};

struct Variant {
  std::string name;
  Ty payload = kNoTy;  // kNoTy: tag only
  uint32_t leaf = 0;   // first payload leaf
};

struct SumInst {
  ItemRef item;
  std::vector<Ty> args;
  std::string name;
  std::vector<Variant> variants;
  std::vector<Leaf> leaves;  // leaf 0: the u32 tag
  bool done = false;
};

// A generic environment: parameter name -> type (or natural, for [N:nat]).
struct GenericEnv {
  std::map<std::string, Ty> types;
  std::map<std::string, uint64_t> nats;
};

// One parsed source file and how it names other modules.
struct SourceFile {
  std::string path;
  std::string moduleName;  // "" for the root file, "vec" for std.vec ...
  std::string text;
  ast::Module ast;
  std::map<std::string, std::string> aliases;   // `vec` -> module "std.vec"
  NameMap imported;  // `Vec` -> the item
  NameMap items;     // this file's own items by name
  // The byte offset of (line, col), 1-based, line ends as the lexer counts
  // them ("\n", "\r\n", a lone "\r"); clamped to the text.
  size_t offset(uint32_t line, uint32_t col);
  // Line `line` (1-based) without its line end; empty past the last line.
  std::string_view lineText(uint32_t line);

 private:
  std::vector<size_t> lineStarts_;  // where each line starts; filled on first use
  const std::vector<size_t> &lineStarts();
};

class Program {
 public:
  explicit Program(Diags &diags) : diags_(diags) {}

  // Reads and parses a file (and, recursively, the std modules it imports).
  bool load(const std::string &path, std::string text, const std::string &stdDir);

  std::vector<std::unique_ptr<SourceFile>> files;
  // Deques: references to elements stay valid while instantiation appends.
  std::deque<TypeRec> types;
  std::deque<RecInst> recs;
  std::deque<SumInst> sums;

  Diags &diags() { return diags_; }
  Diagnostic &error(uint32_t file, Loc loc, const char *code, std::string msg);

  // ---- types ----
  Ty unit();
  Ty errorTy();
  Ty scalar(Sc s);
  Ty buf(Ty elem);
  Ty array(Ty elem, uint64_t n);
  const TypeRec &type(Ty t) const { return types[t]; }
  std::string typeName(Ty t) const;
  const std::vector<Leaf> &leaves(Ty t);  // flattened scalars of a value type
  bool holdsOwner(Ty t);
  // Whether t is, or is made from, a type that failed to resolve.
  bool hasError(Ty t) const;
  bool isCopy(Ty t);    // no owner, not linear
  bool isLinear(Ty t);

  // Resolves a written type in file `f` under generic environment `env`.
  Ty resolveType(uint32_t f, ast::TypeId t, const GenericEnv &env);
  // A record / sum instance of a generic (or plain) item.
  Ty recordOf(ItemRef item, const std::vector<Ty> &args, uint32_t useFile, Loc useLoc);
  Ty sumOf(ItemRef item, const std::vector<Ty> &args, uint32_t useFile, Loc useLoc);

  // ---- names ----
  // An item named `name` as seen from file `f` (its own items, then the
  // names it imported, then the builtin std.core names).
  ItemRef lookup(uint32_t f, const std::string &name) const;
  // `alias.name` where alias is an imported module.
  ItemRef lookupQualified(uint32_t f, const std::string &alias, const std::string &name) const;
  bool isModuleAlias(uint32_t f, const std::string &name) const;
  const ast::Item &item(ItemRef r) const { return files[r.file]->ast.item(r.id); }
  // Functions named `name` in the module that declares record/sum type t (methods).
  ItemRef methodOf(Ty t, const std::string &name) const;

  // Constant evaluation of a `const` item or a natural expression, over u64:
  // false when the expression is not constant, overflows u64, divides by
  // zero or names a constant defined through itself. Each `const` item is
  // evaluated once (memoized), so a chain of constants costs its length.
  // Reports nothing: lower/check (E-CONST) reports refused constants.
  bool constValue(uint32_t f, ast::ExprId e, const GenericEnv &env, uint64_t &out, int depth = 0);
  // Set by lower/check's ItemCheck while it lives: a layout method call
  // `L.cosize()` as a constant (false: not one).
  std::function<bool(uint32_t f, ast::ExprId call, uint64_t &out)> layoutConst;

 private:
  bool loadModule(const std::vector<std::string> &path, uint32_t fromFile, Loc loc, const std::string &stdDir,
                  std::string &moduleName);
  Ty intern(const TypeRec &r);
  std::string dumpExprText(ItemRef item, ast::ExprId e) const;
  void completeRecord(uint32_t idx);
  void completeSum(uint32_t idx);

  Diags &diags_;
  std::set<std::string> reported_;
  // intern's table: a TypeRec's fields, packed, to its Ty.
  struct TypeKey {
    uint64_t kindScElem, n;
    uint32_t inst;
    bool operator==(const TypeKey &) const = default;
  };
  struct TypeKeyHash {
    size_t operator()(const TypeKey &k) const {
      uint64_t h = (k.kindScElem * 0x9E3779B97F4A7C15ull) ^ (k.n + 0x632BE59BD9B4E019ull + (h0(k.inst) << 6));
      return static_cast<size_t>(h ^ (h >> 31));
    }
    static uint64_t h0(uint32_t x) { return uint64_t{x} * 0xC2B2AE3D27D4EB4Full; }
  };
  std::unordered_map<TypeKey, Ty, TypeKeyHash> interned_;
  std::map<std::string, uint32_t> recIndex_, sumIndex_;
  std::map<std::string, uint32_t> moduleFile_;  // "std.vec" -> file index
  std::deque<std::vector<Leaf>> leafCache_;
  std::vector<uint8_t> leafState_;  // 0 none, 1 computing, 2 done (no references to it are kept)
  std::vector<uint8_t> ownState_;   // holdsOwner once the leaves are done: 0 not yet known, 1 no, 2 yes
  mutable std::vector<uint8_t> errState_;  // hasError: 0 not yet known, 1 no, 2 yes
  bool hasErrorWalk(Ty t) const;
  std::array<Ty, 12> scalarTy_ = [] {  // scalar(Sc) once interned, else kNoTy
    std::array<Ty, 12> a;
    a.fill(kNoTy);
    return a;
  }();
  int leafDepth_ = 0;
  bool nestReported_ = false;
  // constValue's memo of const items by (file, item id): 1 evaluating
  // (a cycle when met again), 2 a value, 3 not constant.
  struct ConstMemo {
    int state = 0;
    uint64_t value = 0;
  };
  std::map<std::pair<uint32_t, uint32_t>, ConstMemo> constMemo_;
};

}  // namespace cairn::sema
