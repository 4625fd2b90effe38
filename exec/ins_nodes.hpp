// InsNodes: each instruction's node (Program::nodeOf), kept as runs.
//
// In a run the instructions' nodes are consecutive ids, or all none (the
// helpers no node emits). A flat graph compiled in source order has a run
// for each stretch of nodes that emit one instruction each: a wide ALU
// graph is one run, where a column took 4 bytes an instruction. When runs
// stop paying (more runs than half the instructions: an order far from the
// source's, a module's fused code), the nodes are kept as a plain column
// instead. Only the last instruction's node changes (pop_back, setBack:
// fusions replace the last instruction), so runs are only ever appended.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/graph.hpp"

namespace cairn::exec {

class InsNodes {
 public:
  size_t size() const { return n_; }
  void push_back(NodeId x) {
    if (!dense_ && !runs_.empty() && extends(runs_.back(), x)) {
      ++n_;
      return;
    }
    if (!dense_ && runs_.size() >= kMinRuns && 2 * (runs_.size() + 1) > size_t{n_} + 1) toColumn();
    if (dense_) column_.push_back(x);
    else runs_.push_back(Run{n_, x.v});
    ++n_;
  }
  void pop_back() {  // size() > 0
    --n_;
    if (dense_) column_.pop_back();
    else if (runs_.back().first == n_) runs_.pop_back();
  }
  NodeId back() const { return (*this)[n_ - 1]; }
  void setBack(NodeId x) {
    pop_back();
    push_back(x);
  }
  NodeId operator[](size_t k) const {  // k < size()
    if (dense_) return column_[k];
    auto it = std::upper_bound(runs_.begin(), runs_.end(), k, [](size_t i, const Run &r) { return i < r.first; });
    const Run &r = *(it - 1);
    return r.node == kNone ? NodeId::none() : NodeId{r.node + static_cast<uint32_t>(k - r.first)};
  }
  size_t runs() const { return dense_ ? 0 : runs_.size(); }  // 0: a plain column (tests)

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr size_t kMinRuns = 64;  // a small program keeps its runs
  struct Run {
    uint32_t first;  // its first instruction
    uint32_t node;   // that instruction's node, or kNone for a run of none
  };
  bool extends(const Run &r, NodeId x) const {
    if (r.node == kNone) return !x.valid();
    return x.valid() && uint64_t{x.v} == uint64_t{r.node} + (n_ - r.first);
  }
  void toColumn() {
    std::vector<NodeId> col;
    col.reserve(size_t{n_} + n_ / 2 + 16);
    for (uint32_t k = 0; k < n_; ++k) col.push_back((*this)[k]);
    std::vector<Run>().swap(runs_);
    column_ = std::move(col);
    dense_ = true;
  }
  std::vector<Run> runs_;
  std::vector<NodeId> column_;
  bool dense_ = false;
  uint32_t n_ = 0;
};

}  // namespace cairn::exec
