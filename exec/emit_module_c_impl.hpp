// Internal to the module C back end (exec/emit_module_c*.cpp): the pieces
// both halves use.
//
//   emit_module_c.cpp       FnEmitter (emit_module_c_fn.hpp): one function's
//                           body as C, its regions and loops
//   emit_module_c_values.cpp  FnEmitter's values: derefs, casts, arithmetic
//   emit_module_c_unit.cpp  the unit around the functions (prototypes, trap
//                           sites, tables, entry, main, batches) and the
//                           public entry points
#pragma once
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "exec/emit_c_impl.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/promote.hpp"

namespace cairn::memit {

using cemit::cString;

// Marks where the deref caches are forgotten (emitFunction replaces it),
// followed by the key of the outermost region around it and '#'.
inline constexpr const char *kReset = "@@cairn-forget-derefs@@";

// Lines are indented two spaces a region, up to this many regions: the code
// after each of k early exits is a region inside the one before (up to
// 4000), and indenting it all made the C grow as k^2.
inline constexpr size_t kMaxIndentLevels = 32;

// The module's trap sites, shared by its functions: a table of (file, line,
// column, function) rows, a trap naming a row by its index.
class Sites {
 public:
  uint32_t add(const std::string &file, Loc loc, const std::string &fn) {
    auto key = std::make_tuple(file, loc.line, loc.col, fn);
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    uint32_t k = static_cast<uint32_t>(rows_.size());
    rows_.push_back("  {" + cString(file) + ", " + std::to_string(loc.line) + ", " + std::to_string(loc.col) + ", " +
                    cString(fn) + "},\n");
    index_.emplace(key, k);
    return k;
  }
  std::string table(const std::string &name) const {
    std::string o = "static const cairn_msite " + name + "[] = {\n";
    for (const std::string &r : rows_) o += r;
    if (rows_.empty()) o += "  {\"\", 0, 0, \"\"},\n";
    return o + "};\n";
  }

 private:
  std::map<std::tuple<std::string, uint32_t, uint32_t, std::string>, uint32_t> index_;
  std::vector<std::string> rows_;
};

// PREFIX_fK, the C name of function K.
std::string fnName(const std::string &prefix, size_t k);
// The C prototype of function k (an extern: its symbol through __asm__).
std::string prototype(const Module &m, size_t k, const std::string &prefix);

// The iterations of a strip-mined loop's block: a multiple of every vector
// width, and long enough that a reduction's per-block fold (gcc vectorizes
// the inner loop, so it folds its vector accumulator after each block) is
// paid rarely: a u8 sum into a u32 ran 18% slower in blocks of 16 than
// hand-written C, and as fast in blocks of 64.
inline constexpr int kStripBlock = 64;

// A simple loop, strip-mined: blocks of kStripBlock iterations in an inner loop of
// constant count, then the rest one by one (`pad`: its indentation; `id`:
// its range's node, the index `vID`; `body`: lines indented one level more
// than `pad`). The iterations run in the same order: the same C program,
// but gcc -O2 (whose cost model vectorizes a loop only when its trip count
// is a known multiple of the vector width) vectorizes the inner loop.
std::string stripMinedLoop(const std::string &pad, const std::string &id, const std::string &countType,
                           const std::string &count, const std::string &body);

// Whether the body of the loop `range` ... `end` carries a value from one
// iteration to the next other than by a reduction: a cell (a mutable
// scalar local, exec/promote.hpp) made outside the body and stored in it,
// unless its one store in the body writes op(L, y), where L is the body's
// one load of the cell and op (an integer add, sub with L first, mul, and,
// or, xor, max or min) its only use, and y depends on no load of a cell the
// body stores. gcc vectorizes no loop with such a recurrence (`a = b; b = t`),
// so strip-mining one only adds a branch at every block.
bool carriesRecurrence(const Graph &g, const Facts &f, const exec::CellPlan &cells, NodeId range, NodeId end);

// Whether the handle a `deref` (a direct child of loop `range`, whose end is
// `end`) reads is the same at every iteration: it is defined before the
// loop (`cell` none), or loaded in the body from a one-element view of a
// carry of the loop that its end passes on unchanged (no iteration stores
// it; `cell`: the version the carry starts from). The C back end then
// checks the handle once before the loop, if the body turns out simple
// (no call or free, which may release the object, and nothing that traps
// or prints before the deref).
bool invariantHandle(const Graph &g, const Facts &f, NodeId deref, NodeId range, NodeId end, NodeId &cell);

// Whether the body of the loop `range` ... `end` multiplies or divides
// 64-bit integers (mul, idiv, mod and their checked forms): x86-64 and
// AArch64 have no vector instruction for either, so gcc vectorizes no such
// loop, and strip-mining it only adds a branch at every block (a fill by
// (i * 7 + 3) % 251 in u64 ran 4% slower strip-mined).
bool multipliesWide(const Graph &g, const Facts &f, NodeId range, NodeId end);

// Appends function k's C definition to `out` (its tables to `statics`, its
// trap sites to `sites`); false with `error` when it cannot be emitted.
bool emitFunction(const Module &m, size_t k, const Facts &f, const ModuleEmitOptions &o, Sites &sites, std::string &statics,
                  std::string &out, std::string &error);

}  // namespace cairn::memit
