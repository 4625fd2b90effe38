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
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "lower/ast.hpp"
#include "lower/sema.hpp"

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
  std::string param;   // the parameter's name in the callee
  std::string extent;  // View: the callee's extent parameter ("" none)
  uint64_t extentLit = 0;  // View: a literal or constant extent (0 none)
  sema::Ty ty = sema::kNoTy;  // the parameter's type (View: the element's)
  int viewOf = -1;     // Written: the index of the view argument it was taken from
};

enum class CallKind : uint8_t { Fn, Extern, Builtin, Construct, Variant, Convert };

struct CallFact {
  CallKind kind = CallKind::Fn;
  int callee = -1;      // Fn/Extern: the instance index in Lowering::fns
  std::string name;     // the callee as the user wrote it (fill, vec.push, take)
  std::vector<ArgFact> args;  // in parameter order (Fn/Extern); in written order otherwise
  bool receiver = false;      // x.f(args): args[0] is x
  bool sharedRwCell = false;  // two rw views of one stack array: the lowering has no form for it
};

// A local's declaration as the typing pass saw it.
struct LocalFact {
  sema::Ty ty = sema::kNoTy;  // Value/Place locals: the type; arrays: the element type
  bool array = false;         // a stack/buffer array, a string literal, Array[T, N]()
  uint64_t arrayLen = 0;      // an array's literal extent (0: not a literal)
};

struct FnFacts {
  std::unordered_map<uint32_t, sema::Ty> exprTy;     // ExprId -> type of its value
  std::unordered_map<uint32_t, CallFact> calls;      // ExprId of a Call -> what it calls
  std::unordered_map<uint32_t, LocalFact> lets;      // StmtId of a Let/Storage -> the local
  std::unordered_map<uint32_t, std::vector<sema::Ty>> unpacks;  // StmtId of an Unpack -> field types
  size_t errors = 0;  // diagnostics the typing pass reported in this body
};

}  // namespace cairn::check
