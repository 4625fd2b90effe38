// What the typing pass learns about one function instance, kept in side
// tables indexed by AST ids, for the checking layer (lower/check/) to read.
//
// The typing pass is today the same walk that builds graph nodes
// (lower/fn.hpp's FnLowerer); it records here every expression's type, every
// local's type, and for every call its callee and how each argument is
// passed. The checker never types anything itself: an expression missing
// from `exprTy` was not typed (an error was reported there, or the code is
// unreachable for the lowering), and the checker treats it as unknown.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lower/ast.hpp"
#include "lower/sema.hpp"
#include "lower/small_vec.hpp"

namespace cairn::check {

// How an argument reaches a parameter.
enum class Pass : uint8_t {
  Value,    // by value: a copy, or a move of an owner or linear value
  View,     // an array view ro<T>[n] / rw<T>[n] (a Name, a part, a lent record)
  Borrow,   // a single borrow ro<T> / rw<T> of a place
  Temp,     // an ro<T> given a temporary
  Written,  // an extent the call left out: the checker wrote in len(view)
};

struct ArgFact {
  ast::ExprId arg;     // none for Pass::Written
  Pass pass = Pass::Value;
  bool rw = false;
  std::string_view param;   // the parameter's name in the callee (a view of its FnInst)
  std::string_view extent;  // View: the callee's extent parameter ("" none)
  uint64_t extentLit = 0;  // View: a literal or constant extent (0 none)
  sema::Ty ty = sema::kNoTy;  // the parameter's type (View: the element's)
  int viewOf = -1;     // Written: the index of the view argument it was taken from
};

enum class CallKind : uint8_t { Fn, Extern, Builtin, Construct, Variant, Convert };

struct CallFact {
  CallKind kind = CallKind::Fn;
  int callee = -1;      // Fn/Extern: the instance index in Lowering::fns
  // The callee as the user wrote it (fill, vec.push, take): a view of the
  // AST's text, an instance's name or FnFacts::names (all outlive the facts).
  std::string_view name;
  lower::SmallVec<ArgFact, 3> args;  // in parameter order (Fn/Extern); in written order otherwise
  bool receiver = false;      // x.f(args): args[0] is x
  bool sharedRwCell = false;  // two rw views of one stack array: the lowering has no form for it
};

// A local's declaration as the typing pass saw it.
struct LocalFact {
  sema::Ty ty = sema::kNoTy;  // Value/Place locals: the type; arrays: the element type
  bool array = false;         // a stack/buffer array, a string literal, Array[T, N]()
  uint64_t arrayLen = 0;      // an array's literal extent (0: not a literal)
};

// A map from AST ids to facts. One body's ids lie close together (a
// function's nodes are contiguous in its file's arenas), so each id of a
// window that grows to take new ones has a slot: 0 for none, else 1 + the
// index of its fact in a dense vector. An id far from the window (which
// would make it mostly empty) goes to a hash map instead. Cheaper than a
// hash map of nodes: no allocation per fact, no O(buckets) clear when a
// body's facts die, and growing the window moves only 4-byte slots.
// References returned by operator[] last until the next operator[].
template <class T>
class IdMap {
 public:
  T &operator[](uint32_t id) {
    size_t k = slot(id);
    if (k == kFar) {
      size_t lo = slots_.empty() ? id : std::min<size_t>(base_, id);
      size_t hi = slots_.empty() ? size_t(id) + 1 : std::max<size_t>(base_ + slots_.size(), size_t(id) + 1);
      if (hi - lo > 4096 && hi - lo > 16 * (items_.size() + 1)) return far_[id];
      regrow(lo, hi);
      k = slot(id);
    }
    if (!slots_[k]) {
      items_.emplace_back();
      slots_[k] = static_cast<uint32_t>(items_.size());
    }
    return items_[slots_[k] - 1];
  }
  // Before the first fact: a window over [lo, hi) and room for `items`
  // facts, for a caller that knows the ids its facts will have.
  void reserve(uint32_t lo, uint32_t hi, size_t items) {
    if (!slots_.empty() || hi <= lo) return;
    slots_.assign(hi - lo, 0);
    base_ = lo;
    items_.reserve(items);
  }
  const T *find(uint32_t id) const {
    if (size_t k = slot(id); k != kFar) return slots_[k] ? &items_[slots_[k] - 1] : nullptr;
    auto it = far_.find(id);
    return it == far_.end() ? nullptr : &it->second;
  }
  void erase(uint32_t id) {
    if (size_t k = slot(id); k != kFar) {
      if (slots_[k]) items_[slots_[k] - 1] = T{};  // the fact stays in items_, unreachable
      slots_[k] = 0;
    } else {
      far_.erase(id);
    }
  }

 private:
  static constexpr size_t kFar = SIZE_MAX;
  size_t slot(uint32_t id) const {
    return id >= base_ && size_t(id) - base_ < slots_.size() ? size_t(id) - base_ : kFar;
  }
  // Makes the window cover [lo, hi) (the old window and a new id), with
  // room to grow on both sides, so growing costs amortized O(1) a fact.
  void regrow(size_t lo, size_t hi) {
    size_t slack = (hi - lo) / 2 + 8;
    size_t nlo = lo > slack ? lo - slack : 0, nhi = hi + slack;
    std::vector<uint32_t> slots(nhi - nlo, 0);
    if (!slots_.empty()) std::copy(slots_.begin(), slots_.end(), slots.begin() + (base_ - nlo));
    slots_ = std::move(slots);
    base_ = static_cast<uint32_t>(nlo);
    for (auto it = far_.begin(); it != far_.end();) {  // far ids the window now covers move in
      size_t k = slot(it->first);
      if (k == kFar) {
        ++it;
        continue;
      }
      items_.push_back(std::move(it->second));
      slots_[k] = static_cast<uint32_t>(items_.size());
      it = far_.erase(it);
    }
  }
  uint32_t base_ = 0;
  std::vector<uint32_t> slots_;
  std::vector<T> items_;
  std::unordered_map<uint32_t, T> far_;
};

struct FnFacts {
  IdMap<sema::Ty> exprTy;     // ExprId -> type of its value
  IdMap<CallFact> calls;      // ExprId of a Call -> what it calls
  IdMap<LocalFact> lets;      // StmtId of a Let/Storage -> the local
  IdMap<std::vector<sema::Ty>> unpacks;  // StmtId of an Unpack -> field types
  size_t errors = 0;  // diagnostics the typing pass reported in this body
  std::deque<std::string> names;  // text a CallFact names that has no other home (a record type's name)
  // Sized from the ids of the function's text (ast::Item::exprLo ...):
  // facts about other ids still go in, at the old cost.
  void reserve(uint32_t exprLo, uint32_t exprHi, uint32_t stmtLo, uint32_t stmtHi) {
    uint32_t exprs = exprHi > exprLo ? exprHi - exprLo : 0, stmts = stmtHi > stmtLo ? stmtHi - stmtLo : 0;
    exprTy.reserve(exprLo, exprHi, exprs);
    calls.reserve(exprLo, exprHi, exprs / 8);
    lets.reserve(stmtLo, stmtHi, stmts / 2);
  }
};

}  // namespace cairn::check
