// The .uir graph: a dense arena of nodes with typed ids.
//
// Nodes live in id-indexed vectors (structure of arrays); a node's operands,
// shape dims and data are slices of flat vectors addressed by CSR offsets, so
// a 10^7-node graph is a handful of large allocations. Nodes are appended in
// source order, which is also a valid definition-before-use order: the
// parser and the JSON reader only ever refer back. The graph holds no
// schedule; the oracle's facts and the interpreter's order are side tables of
// their own, indexed by NodeId.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/dtype.hpp"

namespace cairn {

struct NodeId {
  uint32_t v = UINT32_MAX;
  constexpr bool valid() const { return v != UINT32_MAX; }
  constexpr bool operator==(const NodeId &) const = default;
  static constexpr NodeId none() { return NodeId{}; }
};

enum class ResultKind : uint8_t { Version, View, Scalar, Event, Index };

namespace opflag {
enum : uint8_t { A = 1, F = 2, N = 4, C = 8, B = 16, U = 32, O = 64 };
}

enum class Op : uint8_t {
#define X(e, s, lo, hi, rk, kinds, fl, doc) e,
#include "ir/ops.def"
#undef X
};

struct OpInfo {
  std::string_view name;
  int minArgs, maxArgs;  // maxArgs < 0: variadic
  ResultKind result;
  std::string_view kinds;  // one letter per operand; the last repeats
  uint8_t flags;
  std::string_view doc;
  bool is(uint8_t f) const { return (flags & f) != 0; }
};

const OpInfo &opInfo(Op op);
int numOps();
bool parseOp(std::string_view s, Op &out);

struct Loc {
  uint32_t line = 0, col = 0;
};

// An operand is a node reference or a literal (index into the literal pool).
struct Operand {
  static constexpr uint32_t kLitBit = 0x80000000u;
  uint32_t raw = 0;
  bool isLit() const { return (raw & kLitBit) != 0; }
  NodeId node() const { return NodeId{raw}; }
  uint32_t lit() const { return raw & ~kLitBit; }
  static Operand ofNode(NodeId n) { return Operand{n.v}; }
  static Operand ofLit(uint32_t i) { return Operand{i | kLitBit}; }
};

// Source comments kept for `cairn fmt`: full lines above a node, and the
// comment at the end of its line.
struct NodeComments {
  std::vector<std::string> above;
  std::string trailing;
};

class Graph {
 public:
  Graph();

  // ---- building (append-only) ----
  void reserve(size_t nodes);  // capacity for about this many nodes
  void reserveNames(size_t bytes) { names_.reserve(bytes); }  // capacity for the names' characters
  void reserveComments(size_t nodes) { comments_.reserve(nodes); }  // room for this many commented nodes
  NodeId addNode(Op op, std::string_view name, Loc loc);
  void addOperand(NodeId, Operand o, uint32_t col) {  // only to the last node (inline: every node has some)
    if (col >= kWideCol) wideCols_[static_cast<uint32_t>(operandCol_.size())] = col;
    operands_.push_back(o);
    operandCol_.push_back(col >= kWideCol ? kWideCol : static_cast<uint16_t>(col));
    opStart_.back()++;
  }
  uint32_t addLiteral(const Literal &l);
  // shrink: a dimension; alloc: a column, static_cast<int64_t>(DType) or
  // kOwnColumn (a u64 column of owned handles).
  void addDim(NodeId n, int64_t d);             // only to the last node
  void addData(NodeId n, const Literal &l);     // only to the last node
  void setDType(NodeId n, DType t) { dtype_[n.v] = t; }
  void setSlot(NodeId n, int64_t slot) { aux_[n.v] = static_cast<int32_t>(slot); }  // -1 or 0..INT32_MAX
  void setParallel(NodeId n, bool p) { aux_[n.v] = p; }
  void setReduceOp(NodeId n, Op op) { aux_[n.v] = static_cast<int32_t>(op); }
  void setShapeGiven(NodeId n) { flags_[n.v] |= kShapeGiven; }
  void setParent(NodeId n, NodeId p) { parent_[n.v] = p; }
  // The text attribute: `fn=NAME` of a call, `msg="..."` of a guard. Few
  // nodes have one, so it lives in a map; an empty text is no text.
  void setText(NodeId n, std::string t);
  NodeComments &comments(NodeId n);  // made (empty) when n has none
  std::vector<std::string> &trailingComments() { return tail_; }

  // ---- reading ----
  uint32_t size() const { return static_cast<uint32_t>(op_.size()); }
  Op op(NodeId n) const { return op_[n.v]; }
  std::string_view name(NodeId n) const {
    return std::string_view(names_).substr(nameStart_[n.v], nameStart_[n.v + 1] - nameStart_[n.v]);
  }
  Loc loc(NodeId n) const { return loc_[n.v]; }
  std::span<const Operand> operands(NodeId n) const {
    return {operands_.data() + opStart_[n.v], opStart_[n.v + 1] - opStart_[n.v]};
  }
  uint32_t operandCol(NodeId n, size_t i) const {
    uint32_t k = opStart_[n.v] + static_cast<uint32_t>(i);
    return operandCol_[k] != kWideCol ? operandCol_[k] : wideCols_.at(k);
  }
  const Literal &literal(uint32_t i) const { return lits_[i]; }
  std::span<const int64_t> dims(NodeId n) const {
    return {dims_.data() + dimStart_[n.v], dimStart_[n.v + 1] - dimStart_[n.v]};
  }
  bool shapeGiven(NodeId n) const { return (flags_[n.v] & kShapeGiven) != 0; }
  std::span<const Literal> data(NodeId n) const {
    return {data_.data() + dataStart_[n.v], dataStart_[n.v + 1] - dataStart_[n.v]};
  }
  bool hasData(NodeId n) const { return (flags_[n.v] & kHasData) != 0; }
  void markHasData(NodeId n) { flags_[n.v] |= kHasData; }
  DType dtype(NodeId n) const { return dtype_[n.v]; }  // the dtype= attribute
  int64_t slot(NodeId n) const { return aux_[n.v]; }   // buffer: -1 when none
  bool parallel(NodeId n) const { return aux_[n.v] != 0; }
  Op reduceOp(NodeId n) const { return static_cast<Op>(aux_[n.v]); }
  NodeId parent(NodeId n) const { return parent_[n.v]; }  // enclosing range
  std::string_view text(NodeId n) const {
    auto it = text_.find(n.v);
    return it == text_.end() ? std::string_view() : std::string_view(it->second);
  }
  static constexpr int64_t kOwnColumn = -1;  // an alloc column of owned handles
  const NodeComments *commentsOf(NodeId n) const;  // null when n has none
  const std::vector<std::string> &trailingComments() const { return tail_; }

  // Structural equality: same nodes, ops, names, operands, attributes.
  // Locations and comments are not compared.
  bool sameAs(const Graph &o) const;

 private:
  std::vector<Op> op_;
  std::vector<DType> dtype_;
  std::vector<Loc> loc_;
  std::vector<int32_t> aux_;  // slot / parallel flag / reduce op
  std::vector<NodeId> parent_;
  enum : uint8_t { kShapeGiven = 1, kHasData = 2 };
  std::vector<uint8_t> flags_;
  std::vector<uint32_t> nameStart_{0};
  std::string names_;
  std::vector<uint32_t> opStart_{0};
  std::vector<Operand> operands_;
  // Operand columns fit 16 bits but on very long lines: those are kWideCol
  // here and kept in wideCols_, by operand index.
  static constexpr uint16_t kWideCol = UINT16_MAX;
  std::vector<uint16_t> operandCol_;
  std::unordered_map<uint32_t, uint32_t> wideCols_;
  std::vector<Literal> lits_;
  // Small integer literals are pooled: the index of each (sign, magnitude
  // below kSmallLits) already in lits_, or UINT32_MAX.
  static constexpr uint64_t kSmallLits = 64;
  std::vector<uint32_t> smallLits_;
  std::vector<uint32_t> dimStart_{0};
  std::vector<int64_t> dims_;
  std::vector<uint32_t> dataStart_{0};
  std::vector<Literal> data_;
  // Comments by node id, sorted. Nodes are commented as they are made (the
  // readers, the lowerer), so a new entry is appended; one for an earlier
  // node is inserted in place. Cheaper than a hash map of nodes: no
  // allocation or hashing per commented node.
  std::vector<std::pair<uint32_t, NodeComments>> comments_;
  std::unordered_map<uint32_t, std::string> text_;
  std::vector<std::string> tail_;
};

}  // namespace cairn
