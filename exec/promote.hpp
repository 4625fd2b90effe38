// Scalar promotion for the module compiler: which one-element frame buffers
// (the cells CAIRN's mutable locals lower to) can live in a register, which
// loads of them may read that register directly, and which stored values
// may be computed straight into it.
//
// Internal to exec/ (promote.cpp, used by compile_module.cpp). The graph
// and its order are unchanged: only their bytecode is, and every node keeps
// its step (docs/uir.md, "maxSteps").
#pragma once
#include <cstdint>
#include <vector>

#include "ir/graph.hpp"
#include "oracle/oracle.hpp"

namespace cairn::exec {

struct CellPlan {
  static constexpr uint32_t kNone = UINT32_MAX;
  // Per node: the cell (an index) of a promoted family member (its buffer,
  // carries, afters and one-element shrinks of it), of a load from it, or
  // of a store into it; kNone otherwise.
  std::vector<uint32_t> cell;
  // Per load of a cell: its value is the cell's register itself (no
  // instruction), since no write of the cell comes before its last use.
  std::vector<uint8_t> alias;
  // Per value node: the cell that its one use, a store, writes; the value
  // may be computed into the cell's register (the store then emits
  // nothing). kNone: not such a value.
  std::vector<uint32_t> into;
  uint32_t cells = 0;

  // No cells: every node runs as memory (an unoptimized compile).
  static CellPlan none(uint32_t nodes) {
    CellPlan p;
    p.cell.assign(nodes, kNone);
    p.into.assign(nodes, kNone);
    return p;
  }
};

// Assumes the function body passed the oracle with these facts.
CellPlan planCells(const Graph &g, const Facts &f);

}  // namespace cairn::exec
