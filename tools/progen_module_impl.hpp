// Internal to the module generator (tools/progen_module.cpp: values, views
// and plain statements; tools/progen_module_ctl.cpp: loops, calls, the
// heap and functions).
//
// The generator keeps every view at its newest version (`cur`): a load,
// call or print always names it, and a store or call_write is followed at
// once by its `after`, which becomes the new `cur`. So every read comes
// before, in the text, the write that overwrites what it read, and every
// version is written once. A loop body sees the views of the code around
// it either carried (the outer view hidden while the body runs, its new
// version the loop's `after`) or frozen read-only. Values known to lie in
// [0, 11] (`small`) feed the checks meant to pass; any value feeds those
// that may fail.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tools/progen_module.hpp"

namespace cairn::modgen {

struct Val {
  std::string name, dt;
  bool small = false;  // an integral value in [0, 11]
};

struct View {
  std::string cur, dt;
  int id = 0;            // its storage: two views of one storage share it
  int len = 0;           // elements it has at least
  bool writable = true;  // false: an `ro` parameter, or frozen in a loop body
  bool dynamic = false;  // length known at run time only: checked_shrink
  bool hidden = false;   // carried into the loop body being written
};

struct Param {
  std::string dt;
  int mode = 0;  // 0 scalar, 1 ro, 2 rw
  int minLen = 0;
};

struct Fn {
  std::string name, ret;  // ret "": no value
  std::vector<Param> params;
  bool recursive = false;  // parameter 0 is the depth
  long cost = 0;           // lines it runs at most, callees included
  bool called = false;
};

struct Scope {
  size_t vals = 0, views = 0, heaps = 0;
  long mult = 1;                  // iterations of this body times the enclosing ones
  std::vector<size_t> carried;    // outer views carried into this body
  std::vector<size_t> carriedAt;  // their inner copies
  std::vector<size_t> frozen;     // outer views made read-only here
  int lenView = -1;               // a len loop: the storage id its index is in range for
  std::string index;              // the loop's index
  bool parallel = false;
};

class ModGen {
 public:
  ModGen(uint64_t seed, const ModuleGenOptions &o);
  std::string run();

 private:
  // ---- helpers (progen_module.cpp)
  int pick(int n) { return n <= 1 ? 0 : static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int pct) { return pick(100) < pct; }
  std::string fresh(const char *stem) { return "%" + std::string(stem) + std::to_string(next_++); }
  void emit(const std::string &line);
  long mult() const { return scopes_.back().mult; }
  bool unsafe();  // spend one of the module's possible traps
  std::string literal(const std::string &dt);
  std::string smallLiteral(const std::string &dt, int hi = 11);
  std::string anyDtype();
  std::string intDtype();
  Val &addVal(const std::string &name, const std::string &dt, bool small = false);
  Val valOf(const std::string &dt);
  Val smallOf(const std::string &dt);
  Val anyVal();
  Val boolVal();
  int findView(const std::string &dt, int minLen, bool writable, const std::vector<int> &avoidIds);
  int anyView(bool writable);
  size_t newBuffer(const std::string &dt, int len, bool dynamic = false);
  std::string bufferData(const std::string &dt, int len);
  std::string indexOf(const View &v, bool mayTrap);
  void write(size_t vi, const std::string &value, const std::string &index);
  void statement(int depth);
  void constStmt();
  void aluStmt();
  void castStmt();
  void checkedStmt();
  void checkedCastStmt();
  void loadStmt();
  void storeStmt();
  void printStmt();
  void guardStmt();
  void partStmt();
  void lenStmt();

  // ---- control, calls, heap, functions (progen_module_ctl.cpp)
  void openBody(long iterations, const std::string &index, bool parallel);
  void closeBody(const std::string &index, const std::vector<std::string> &stores, int target);
  void block(int n, int depth);
  void loopStmt(int depth);
  void ifStmt(int depth);
  void untilStmt(int depth);
  void lenLoopStmt(int depth);
  void parallelStmt();
  void callStmt(int depth);
  void call(size_t fi, const std::vector<std::string> &scalarArgs);
  void recursionStmt();
  void heapStmt();
  void freeHeaps();
  void function(size_t fi, bool isMain);
  Fn signature(int k);

  std::mt19937_64 rng_;
  ModuleGenOptions o_;
  std::string out_;
  std::vector<Fn> fns_;
  size_t self_ = 0;
  int next_ = 0, nextId_ = 0, trapsLeft_ = 0;
  long cost_ = 0, budget_ = 0;
  bool recursed_ = false;
  std::vector<Val> vals_;
  std::vector<View> views_;
  std::vector<std::string> heaps_;  // handles to free when their scope closes
  std::vector<Scope> scopes_;
};

bool isFloatDt(const std::string &t);
bool isIntDt(const std::string &t);  // integers, not bool

}  // namespace cairn::modgen
