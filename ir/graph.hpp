// The .uir graph: a dense arena of nodes with typed ids.
//
// Nodes live in id-indexed columns (structure of arrays, NodeColumns: one
// allocation for all of them); a node's operands, shape dims and data are
// slices of flat arrays addressed by CSR offsets, so a 10^7-node graph is a
// handful of large allocations. Nodes are appended in
// source order, which is also a valid definition-before-use order: the
// parser and the JSON reader only ever refer back. The graph holds no
// schedule; the oracle's facts and the interpreter's order are side tables of
// their own, indexed by NodeId.
#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/column.hpp"
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
// The same for a word of a text that ends at `end` (faster).
bool parseOp(std::string_view s, const char *end, Op &out);

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

// Node locations as runs (Graph::loc): the nodes of a run lie in one
// column, on one line (step 0) or on consecutive lines (step 1). A reader
// makes one node a line and the lowerer a few, so a graph holds far fewer
// runs than nodes: one for a generated graph without blank lines, where a
// column of 8 bytes a node held the same thing. Nodes are added in id order.
class LocRuns {
 public:
  [[gnu::always_inline]] void add(uint32_t node, Loc l) {
    if (!runs_.empty()) {
      Run &r = runs_.back();
      const uint64_t k = node - r.first;  // >= 1
      if (l.col == r.col) {
        if (r.step == kOneNode && (l.line == r.line || uint64_t{l.line} == uint64_t{r.line} + 1)) {  // k is 1
          r.step = l.line - r.line;
          return;
        }
        if (r.step != kOneNode && uint64_t{l.line} == r.line + r.step * k) return;
      }
    }
    runs_.push_back(Run{node, l.line, l.col, kOneNode});
  }
  Loc at(uint32_t node) const {  // node was added
    auto it = std::upper_bound(runs_.begin(), runs_.end(), node, [](uint32_t n, const Run &r) { return n < r.first; });
    const Run &r = *(it - 1);
    return Loc{r.line + (r.step == 1 ? node - r.first : 0), r.col};
  }
  size_t runs() const { return runs_.size(); }

 private:
  static constexpr uint32_t kOneNode = 2;  // a run of one node has no step yet
  struct Run {
    uint32_t first, line, col, step;
  };
  std::vector<Run> runs_;
};

// NodeColumns: the graph's per-node columns, in one allocation and with one
// length. A node is a row across them: its op, dtype and flags, and the
// CSR starts of its name and operands
// (those have one row more, the end of the last node's slice; row 0 is 0).
// Appending a node tests the room once and writes each column at the same
// row. The 4-byte columns come first, then the bytes, so each is aligned.
class NodeColumns {
 public:
  NodeColumns() = default;
  NodeColumns(const NodeColumns &o) { copyFrom(o); }
  NodeColumns(NodeColumns &&o) noexcept { take(o); }
  NodeColumns &operator=(const NodeColumns &o) {
    if (this != &o) {
      release();
      copyFrom(o);
    }
    return *this;
  }
  NodeColumns &operator=(NodeColumns &&o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~NodeColumns() { release(); }

  uint32_t size() const { return n_; }
  uint32_t capacity() const { return cap_; }
  // Room for `cap` rows; the rows in use keep their values.
  void reserve(size_t cap) {
    if (cap > cap_) regrow(cap);
  }
  // Room for one more row (amortized O(1)).
  void makeRoom() {
    if (n_ == cap_) regrow(std::max<size_t>(16, 2 * size_t{cap_}));
  }
  void setSize(uint32_t n) { n_ = n; }  // after writing the rows below n

  uint32_t *nameStart = nullptr, *opStart = nullptr;  // n + 1 rows
  Op *op = nullptr;
  DType *dtype = nullptr;
  uint8_t *flags = nullptr;

 private:
  static size_t bytesFor(size_t cap) {
    return cap * (sizeof(Op) + sizeof(DType) + sizeof(uint8_t)) +
           2 * (cap + 1) * sizeof(uint32_t);
  }
  // Points the columns into `block`, laid out for `cap` rows.
  void carve(std::byte *block, size_t cap) {
    std::byte *p = block;
    auto next = [&](auto *&col, size_t rows) {
      col = reinterpret_cast<std::remove_reference_t<decltype(col)>>(p);
      p += rows * sizeof(*col);
    };
    next(nameStart, cap + 1);
    next(opStart, cap + 1);
    next(op, cap);
    next(dtype, cap);
    next(flags, cap);
  }
  // Copies the rows in use of `o`'s columns (and the extra start row) into ours.
  void copyRows(const NodeColumns &o) {
    size_t n = o.n_;
    std::memcpy(nameStart, o.nameStart, (n + 1) * sizeof(uint32_t));
    std::memcpy(opStart, o.opStart, (n + 1) * sizeof(uint32_t));
    std::memcpy(static_cast<void *>(op), o.op, n * sizeof(Op));
    std::memcpy(static_cast<void *>(dtype), o.dtype, n * sizeof(DType));
    std::memcpy(flags, o.flags, n);
  }
  void regrow(size_t cap) {
    cap = std::min<size_t>(cap, kMaxRows);
    if (cap <= n_) throw std::bad_alloc();  // no room for another id
    NodeColumns grown;
    grown.block_ = static_cast<std::byte *>(::operator new(bytesFor(cap)));
    grown.carve(grown.block_, cap);
    grown.cap_ = static_cast<uint32_t>(cap);
    if (block_) {
      grown.copyRows(*this);
    } else {
      grown.nameStart[0] = grown.opStart[0] = 0;
    }
    grown.n_ = n_;
    *this = std::move(grown);
  }
  void copyFrom(const NodeColumns &o) {
    if (!o.block_) return;
    block_ = static_cast<std::byte *>(::operator new(bytesFor(o.cap_)));
    carve(block_, o.cap_);
    cap_ = o.cap_;
    copyRows(o);
    n_ = o.n_;
  }
  void take(NodeColumns &o) {
    block_ = std::exchange(o.block_, nullptr);
    n_ = std::exchange(o.n_, 0);
    cap_ = std::exchange(o.cap_, 0);
    op = o.op, dtype = o.dtype, flags = o.flags;
    nameStart = o.nameStart, opStart = o.opStart;
    o.forget();
  }
  // No storage: every column null, no rows.
  void forget() {
    block_ = nullptr;
    n_ = cap_ = 0;
    op = nullptr, dtype = nullptr, flags = nullptr;
    nameStart = opStart = nullptr;
  }
  void release() {
    if (block_) ::operator delete(block_);
    forget();
  }
  static constexpr size_t kMaxRows = UINT32_MAX - 1;  // ids are 32 bits, and UINT32_MAX is none
  std::byte *block_ = nullptr;
  uint32_t n_ = 0, cap_ = 0;
};

class Graph {
 public:
  Graph();

  // ---- building (append-only) ----
  void reserve(size_t nodes);  // capacity for about this many nodes
  void reserveNames(size_t bytes) { names_.reserve(bytes); }  // capacity for the names' characters
  void reserveComments(size_t nodes) { comments_.reserve(nodes); }  // room for this many commented nodes
  // Inline (always): both readers and the lowerer call it for every node.
  [[gnu::always_inline]] NodeId addNode(Op op, std::string_view name, Loc loc) {
    names_.append(name.data(), name.size());
    return addNodeNamed(op, 0, loc);
  }
  // A name built in place, with no copy: nameRoom(k) gives room for k bytes
  // past the names; the caller writes the name there (what follows it is
  // scratch), and addNodeNamed(op, len, loc) adds the node named by the
  // first len of them (len <= k). (A name built on the stack and copied
  // was read back across the smaller stores that built it: a stalled load.)
  char *nameRoom(size_t k) { return names_.room(k); }
  [[gnu::always_inline]] NodeId addNodeNamed(Op op, size_t len, Loc loc) {
    names_.commit(len);
    nodes_.makeRoom();
    uint32_t i = nodes_.size();
    NodeColumns &c = nodes_;
    locs_.add(i, loc);
    c.nameStart[i + 1] = static_cast<uint32_t>(names_.size());
    c.opStart[i + 1] = c.opStart[i];
    c.op[i] = op;
    c.dtype[i] = DType::None;
    c.flags[i] = 0;
    c.setSize(i + 1);
    return NodeId{i};
  }
  void addOperand(NodeId, Operand o, uint32_t col) {  // only to the last node (inline: every node has some)
    if (col >= kWideCol) wideCols_[static_cast<uint32_t>(operandCol_.size())] = col;
    operands_.push_back(o);
    operandCol_.push_back(col >= kWideCol ? kWideCol : static_cast<uint8_t>(col));
    nodes_.opStart[nodes_.size()]++;
  }
  void setOperand(NodeId n, size_t i, Operand o) { operands_[nodes_.opStart[n.v] + i] = o; }  // i < operands(n).size()
  // The literal's index in the pool. Equal small integers (the offsets and
  // steps of most programs) share one entry: those are found inline.
  uint32_t addLiteral(const Literal &l) {
    if (l.kind == Literal::Kind::Int && l.magnitude < kSmallLits && std::bit_cast<uint64_t>(l.f) == 0 && !smallLits_.empty())
      if (uint32_t at = smallLits_[(l.negative ? kSmallLits : 0) + l.magnitude]; at != UINT32_MAX) return at;
    return addLiteralSlow(l);
  }
  // shrink: a dimension; alloc: a column, static_cast<int64_t>(DType) or
  // kOwnColumn (a u64 column of owned handles).
  void addDim(NodeId n, int64_t d);             // only to the last node
  void addData(NodeId n, const Literal &l);     // only to the last node
  void setDType(NodeId n, DType t) { nodes_.dtype[n.v] = t; }
  void setSlot(NodeId n, int64_t slot) { setAux(n, static_cast<int32_t>(slot)); }  // -1 or 0..INT32_MAX
  void setParallel(NodeId n, bool p) { setAux(n, p); }
  void setReduceOp(NodeId n, Op op) { setAux(n, static_cast<int32_t>(op)); }
  void setShapeGiven(NodeId n) { nodes_.flags[n.v] |= kShapeGiven; }
  void setParent(NodeId n, NodeId p) {
    if (p.valid() || n.v < parents_.size()) setParentSlow(n, p);  // else none already
  }
  // The text attribute: `fn=NAME` of a call, `msg="..."` of a guard. Few
  // nodes have one, so it lives in a map; an empty text is no text.
  void setText(NodeId n, std::string t);
  NodeComments &comments(NodeId n);  // made (empty) when n has none
  std::vector<std::string> &trailingComments() { return tail_; }

  // ---- reading ----
  uint32_t size() const { return nodes_.size(); }
  Op op(NodeId n) const { return nodes_.op[n.v]; }
  std::string_view name(NodeId n) const {
    return std::string_view(names_.data() + nodes_.nameStart[n.v], nodes_.nameStart[n.v + 1] - nodes_.nameStart[n.v]);
  }
  Loc loc(NodeId n) const { return locs_.at(n.v); }
  size_t locRuns() const { return locs_.runs(); }  // what the locations take (tests)
  std::span<const Operand> operands(NodeId n) const {
    return {operands_.data() + nodes_.opStart[n.v], nodes_.opStart[n.v + 1] - nodes_.opStart[n.v]};
  }
  uint32_t operandCol(NodeId n, size_t i) const {
    uint32_t k = nodes_.opStart[n.v] + static_cast<uint32_t>(i);
    return operandCol_[k] != kWideCol ? operandCol_[k] : wideCols_.at(k);
  }
  const Literal &literal(uint32_t i) const { return lits_[i]; }
  std::span<const int64_t> dims(NodeId n) const {
    return (nodes_.flags[n.v] & kHasDims) ? dims_.rowsOf(n) : std::span<const int64_t>{};
  }
  bool shapeGiven(NodeId n) const { return (nodes_.flags[n.v] & kShapeGiven) != 0; }
  std::span<const Literal> data(NodeId n) const {
    return (nodes_.flags[n.v] & kHasDataRows) ? data_.rowsOf(n) : std::span<const Literal>{};
  }
  bool hasData(NodeId n) const { return (nodes_.flags[n.v] & kHasData) != 0; }
  void markHasData(NodeId n) { nodes_.flags[n.v] |= kHasData; }
  DType dtype(NodeId n) const { return nodes_.dtype[n.v]; }  // the dtype= attribute
  int64_t slot(NodeId n) const { return aux(n); }   // buffer: -1 when none
  bool parallel(NodeId n) const { return aux(n) != 0; }
  Op reduceOp(NodeId n) const { return static_cast<Op>(aux(n)); }
  NodeId parent(NodeId n) const { return n.v < parents_.size() ? parents_[n.v] : NodeId::none(); }  // enclosing range
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
  enum : uint8_t { kShapeGiven = 1, kHasData = 2, kHasDims = 4, kHasDataRows = 8 };  // flags
  NodeColumns nodes_;
  // Each node's enclosing range: none for all until buildRegions sets one
  // (then a column, none past its end), so a graph without loops pays
  // nothing for it.
  std::vector<NodeId> parents_;
  // The attribute word of the nodes that have one (slot=, parallel, the
  // reduce op), sorted by node: a node sets its own as it is made, so an
  // entry is appended. Every other node's is -1 for a buffer, else 0.
  std::vector<std::pair<uint32_t, int32_t>> aux_;
  size_t auxAt(NodeId n) const;  // where n's entry is or would go
  int32_t aux(NodeId n) const;
  void setParentSlow(NodeId n, NodeId p);
  void setAux(NodeId n, int32_t v);
  LocRuns locs_;
  Column<char> names_;  // every node's name, back to back (nameStart)
  Column<Operand> operands_;
  // Operand columns fit a byte but on long lines: those are kWideCol here
  // and kept in wideCols_, by operand index (a byte, not 2, an operand:
  // a line of text rarely has an operand past column 254).
  static constexpr uint8_t kWideCol = UINT8_MAX;
  Column<uint8_t> operandCol_;
  std::unordered_map<uint32_t, uint32_t> wideCols_;
  uint32_t addLiteralSlow(const Literal &l);
  std::vector<Literal> lits_;
  // Small integer literals are pooled: the index of each (sign, magnitude
  // below kSmallLits) already in lits_, or UINT32_MAX.
  static constexpr uint64_t kSmallLits = 64;
  std::vector<uint32_t> smallLits_;
  // Dims and data: the values of all nodes in node order, and for each node
  // that has any (flag kHasDims, kHasDataRows) its id and first value, so a
  // graph pays for them by the node that has them, not 4 bytes a node.
  template <class T>
  struct SparseRows {
    std::vector<T> values;
    std::vector<uint32_t> node, first;  // sorted by node
    void add(uint32_t n, const T &v) {
      if (node.empty() || node.back() != n) node.push_back(n), first.push_back(static_cast<uint32_t>(values.size()));
      values.push_back(v);
    }
    std::span<const T> rowsOf(NodeId n) const {  // n has some
      size_t k = static_cast<size_t>(std::lower_bound(node.begin(), node.end(), n.v) - node.begin());
      size_t end = k + 1 < node.size() ? first[k + 1] : values.size();
      return {values.data() + first[k], end - first[k]};
    }
  };
  SparseRows<int64_t> dims_;
  SparseRows<Literal> data_;
  // Comments by node id, sorted. Nodes are commented as they are made (the
  // readers, the lowerer), so a new entry is appended; one for an earlier
  // node is inserted in place. Cheaper than a hash map of nodes: no
  // allocation or hashing per commented node.
  std::vector<std::pair<uint32_t, NodeComments>> comments_;
  std::unordered_map<uint32_t, std::string> text_;
  std::vector<std::string> tail_;
};

}  // namespace cairn
