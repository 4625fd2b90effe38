// Checks of a loaded CAIRN program that need no lowering: `layout` items
// (E-LAYOUT, E-LAYOUT-GAP, E-LAYOUT-OVERLAP, E-LAYOUT-CONSUMER), typed PTX
// in device code (E-ASM-LANE), `align(n)` (E-ALIGN), the stack declarations
// of a function (E-STACK-LIMIT) and `const` items (E-CONST). They walk the
// syntax tree of every file, reached from main or not, and report through
// sema::Program::error.
//
// The ItemCheck also answers layout methods as constants for the rest of the
// front end: while it lives, Program::constValue evaluates `L.size()`,
// `L.cosize()`, `L.extent(k)`, `D.participants()` and `D.values()` through
// it (Program::layoutConst), and `L.at`, `D.row`, `D.col` of constants.
// It must outlive every use of the Program.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lower/check/layout.hpp"
#include "lower/sema.hpp"

namespace cairn::check {

class ItemCheck {
 public:
  explicit ItemCheck(sema::Program &P);
  ~ItemCheck();
  ItemCheck(const ItemCheck &) = delete;
  ItemCheck &operator=(const ItemCheck &) = delete;

  // Runs every check over every file. Returns false when a `const` item is
  // refused: the lowering would evaluate it again at each use (and a cycle
  // of constants would never end there), so the caller stops.
  bool run();

  // The layout item `name` as seen from file f, evaluated once (nullptr
  // when it is not a layout or was refused).
  const Layout *layoutNamed(uint32_t f, const std::string &name);
  // A layout method call `L.m(args)` as a constant; false when it is not one.
  bool layoutConst(uint32_t f, ast::ExprId call, uint64_t &out);

 private:
  using Key = std::pair<uint32_t, uint32_t>;  // (file, item id)
  struct LayoutMemo {
    int state = 0;  // 0 not yet, 1 evaluating, 2 done
    std::optional<Layout> value;
  };
  struct ConstMemo {
    int state = 0;   // 0 not yet, 1 evaluating, 2 done
    int result = 0;  // as constItem's
    __int128 value = 0;
  };

  // layouts.cpp
  void checkLayouts();
  const Layout *layoutItem(sema::ItemRef r);
  std::optional<Layout> layoutExpr(uint32_t f, ast::ExprId e, int depth);
  std::optional<Layout> layoutCall(uint32_t f, const ast::Expr &e, const std::string &fn, int depth);
  bool layoutArg(uint32_t f, ast::ExprId e, const std::string &fn, uint64_t &out);
  bool coordConst(uint32_t f, const ast::Expr &call, const Layout &l, const std::string &m, uint64_t &out);
  void checkLayoutUses(uint32_t f);
  void checkLayoutMethod(uint32_t f, const ast::Expr &call, const ast::Expr &callee, const Layout &l);
  void checkConsumer(uint32_t f, const ast::Expr &call, const std::string &name, const Layout &l);

  // consts.cpp
  void checkConsts();
  int constItem(sema::ItemRef r, __int128 &out);
  // 1: a value; 0: not a constant expression (left to the lowering); -1: refused.
  int constExpr(uint32_t f, ast::ExprId e, sema::Sc sc, const std::string &name, __int128 &out, int depth);
  int constBinary(uint32_t f, const ast::Expr &e, sema::Sc sc, const std::string &name, __int128 &out, int depth);
  int constCall(uint32_t f, ast::ExprId e, sema::Sc sc, const std::string &name, __int128 &out, int depth);
  bool scalarOfConst(sema::ItemRef r, sema::Sc &sc);

  // items.cpp
  void checkAligns();
  void checkDuplicates();
  void checkFunctions();
  void checkStack(uint32_t f, const ast::Item &fn);
  void checkAsmLane(uint32_t f, ast::StmtId s, bool device);
  uint64_t elemBytes(uint32_t f, ast::TypeId t, bool &ok);

  sema::Program &P;
  std::map<Key, LayoutMemo> layouts_;
  std::map<Key, ConstMemo> consts_;
  std::vector<std::pair<Key, std::string>> constStack_;  // the constants being evaluated, outermost first
  bool constRefused_ = false;
  // Elements and pairs enumerated so far, all layouts together: memory is
  // bounded by the program, not only by each layout.
  static constexpr uint64_t kLayoutBudget = uint64_t(1) << 24;
  uint64_t enumerated_ = 0;
  int layoutDepth_ = 0;  // layout items being evaluated, one inside another
};

// A 128-bit integer in decimal.
std::string int128Text(__int128 v);
std::string uint128Text(unsigned __int128 v);

}  // namespace cairn::check
