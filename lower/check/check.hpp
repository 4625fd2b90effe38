// The checking layer of the CAIRN front end: the rules of the spec page
// (shared/spec/cairn-memory-ownership-effects.md) that need the whole typed
// body or the whole program, run after typing and before a module is handed
// on. Its invariants, each a code:
//
//   E-MOVED          an owner or linear value is not used after it moved
//                    (on every path, or on some: "may have been moved")
//   E-MOVE-IN-LOOP   nothing from outside a loop moves inside it, unless the
//                    body gives it a new value before it runs again
//   E-LINEAR-LEAK    a linear value is consumed on every path; `=` over a
//                    place that still holds one loses it
//   E-LINEAR-BRANCH  ... and never on some paths only
//   E-LEASED         a local that a pending `defer` reads does not move
//   E-ALIAS          a mutable borrow overlaps no other argument of its call
//   E-TYPE-MISMATCH  a view's extent is the extent its parameter asks for:
//                    the same name or the same literal
//   E-CALL-SHAPE     a part's bounds hold no call
//   E-UNSAFE         foreign calls happen inside `unsafe { }`
//   E-EXTERN-EFFECTS an extern states its effects
//   E-EFFECT-CEILING a function's row stays within its declared ceiling
//   E-EFFECT-ORDER   no operand's effect makes a result depend on operand order
//
// Effect rows are computed here too (lower/check/effects.cpp), for
// ceilings, `cairn doc` and the build receipt.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/diag.hpp"
#include "lower/ast.hpp"

namespace cairn::lower {
struct Lowering;
}

namespace cairn::check {

// A call site inside one body, for renaming the callee's row. It lives
// only while checkProgram runs, so it holds views: of the source text, of
// the call's facts (lower/check/facts.hpp) and of the AST's names.
struct CallSite {
  int callee = -1;
  Loc at;
  std::string_view text;  // the call as written
  // What the caller passed for each borrowed callee parameter (one entry a
  // parameter): a borrow parameter of the caller, whose read:/write: the
  // callee's read:PARAM/write:PARAM become, or its own storage (nothing).
  struct Lent {
    std::string_view param;
    bool borrowed = false;
    std::string_view root;  // borrowed: the caller's parameter
  };
  std::vector<Lent> rename;
};

// What one body does by itself, and whom it calls.
struct FnSummary {
  // effect label -> the first place that adds it, in the order added (a
  // body adds few labels, each once: see BodyCheck::effect).
  std::vector<std::pair<std::string, Loc>> own;
  std::vector<CallSite> calls;
  uint32_t unsafeBlocks = 0;
  bool checked = false;  // the body was walked (it typed without errors)
};

// One function's row, computed.
struct FnRow {
  std::vector<std::string> effects;  // sorted, each once
  std::vector<std::string> calls;    // the instances it calls by name, sorted, each once
  uint32_t unsafeBlocks = 0;
};

// Where a label enters a row, for the notes of E-EFFECT-CEILING (the text
// is made only for a note).
struct EffectWhy {
  enum K : uint8_t { Own, Extern, Cycle, Call } k = Own;
  Loc at;
  const CallSite *call = nullptr;  // Call: the call it enters through
};

// A move the flow walk saw in the root file, for the corpus properties
// (tests/cairn_props_test.cpp): the statement it happens in, by span.
struct MoveEvent {
  std::string name;
  Loc at;
  ast::Span stmt;           // the innermost statement holding the move
  bool linear = false;
  bool stmtIsCall = false;  // that statement is `f(...);` passing the name by value
  bool revives = false;     // it is a return, an assignment to the name, or no path goes on after it
};

struct CheckContext {
  lower::Lowering &L;
  Diags &diags;
  std::vector<FnSummary> sums;  // by instance
  std::vector<FnRow> rows;      // by instance, after effects()
  std::vector<std::vector<EffectWhy>> why;  // by instance, parallel to rows[i].effects
  std::set<std::string> reported;  // file:line:col:code, so generic instances report once
  std::vector<uint8_t> typeAnswers;  // by type: what BodyCheck::typeIs learned (2 bits a question)
  std::vector<MoveEvent> *moves = nullptr;
  Diagnostic *error(uint32_t file, Loc at, const char *code, std::string msg);
  // The same, underlining the whole span (the caret line runs to its end).
  Diagnostic *error(uint32_t file, const ast::Span &sp, const char *code, std::string msg);
};

// Runs every check of this layer over the instances `L` lowered; returns
// false when one failed. `rows` (when not null) receives the rows of every
// instance, by instance name, for `cairn doc` and the receipt.
bool checkProgram(lower::Lowering &L, Diags &diags, std::vector<FnRow> *rows = nullptr,
                  std::vector<MoveEvent> *moves = nullptr);

// `cairn doc` and the build receipt, from the rows of checkProgram (by
// instance index) (lower/check/doc.cpp).
std::string renderDoc(lower::Lowering &L, const std::vector<FnRow> &rows);
std::string renderReceipt(lower::Lowering &L, const std::vector<FnRow> &rows, std::string &why);  // "": why says

}  // namespace cairn::check
