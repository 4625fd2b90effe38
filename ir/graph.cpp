// The graph arena and the op table's accessors.
#include "ir/graph.hpp"

#include <algorithm>
#include <bit>

namespace cairn {

namespace {
using namespace opflag;
constexpr OpInfo kOps[] = {
#define X(e, s, lo, hi, rk, kinds, fl, doc) {s, lo, hi, ResultKind::rk, kinds, static_cast<uint8_t>(fl), doc},
#include "ir/ops.def"
#undef X
};
}  // namespace

const OpInfo &opInfo(Op op) { return kOps[static_cast<int>(op)]; }
int numOps() { return static_cast<int>(sizeof kOps / sizeof kOps[0]); }

// Op names are looked up once per parsed line. Each name (at most 16
// bytes) is two little-endian words and its length; the table, built at
// compile time from kOps, is a perfect hash of 512 slots: the build tries
// multipliers until every op name has a slot of its own, so a lookup packs
// the text, hashes the words and compares one key (no probe loop, no
// memcmp). An empty slot has length 0, which no packed word has.
namespace {
struct OpKey {
  uint64_t lo = 0, hi = 0;
  uint32_t len = 0;
};
constexpr size_t kOpNameMax = 16, kOpSlotBits = 9, kOpSlots = size_t{1} << kOpSlotBits;
constexpr OpKey packOpName(std::string_view s) {
  OpKey k;
  k.len = static_cast<uint32_t>(s.size());
  const size_t lo = s.size() < 8 ? s.size() : 8;
  for (size_t i = 0; i < lo; ++i) k.lo |= uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
  for (size_t i = 8; i < s.size(); ++i) k.hi |= uint64_t{static_cast<unsigned char>(s[i])} << (8 * (i - 8));
  return k;
}
constexpr uint32_t opSlot(const OpKey &k, uint64_t mul) {
  return static_cast<uint32_t>(((k.lo ^ (k.hi * 0x9E3779B97F4A7C15ull) ^ k.len) * mul) >> (64 - kOpSlotBits));
}
struct OpTable {
  uint64_t mul = 0;
  OpKey key[kOpSlots];
  uint8_t op[kOpSlots];
};
// The table for the multiplier `mul`, or one with mul 0 when two names
// share a slot.
constexpr OpTable opTableFor(uint64_t mul) {
  OpTable t{};
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; ++i) {
    if (kOps[i].name.size() > kOpNameMax) throw "an op name longer than 16 bytes";  // (a compile error)
    const OpKey k = packOpName(kOps[i].name);
    const uint32_t s = opSlot(k, mul);
    if (t.key[s].len != 0) return OpTable{};
    t.key[s] = k;
    t.op[s] = static_cast<uint8_t>(i);
  }
  t.mul = mul;
  return t;
}
constexpr OpTable kOpTable = [] {
  uint64_t mul = 0xD6E8FEB86659FD93ull;
  for (int tries = 0; tries < 100000; ++tries, mul += 0x9E3779B97F4A7C16ull)  // odd multipliers
    if (OpTable t = opTableFor(mul); t.mul != 0) return t;
  throw "no perfect hash for the op names: raise kOpSlotBits";  // (a compile error)
}();
}  // namespace

namespace {
bool findOp(const OpKey &k, Op &out) {
  const uint32_t slot = opSlot(k, kOpTable.mul);
  const OpKey &t = kOpTable.key[slot];
  if (t.lo != k.lo || t.hi != k.hi || t.len != k.len) return false;
  out = static_cast<Op>(kOpTable.op[slot]);
  return true;
}
}  // namespace

bool parseOp(std::string_view s, Op &out) {
  if (s.empty() || s.size() > kOpNameMax) return false;
  return findOp(packOpName(s), out);
}

// Where 16 bytes of the text follow the word, its two words are loaded
// whole and cut to its length: no loop a byte at a time (the reader's path).
bool parseOp(std::string_view s, const char *end, Op &out) {
  if (std::endian::native != std::endian::little || end - s.data() < 16) return parseOp(s, out);
  if (s.empty() || s.size() > kOpNameMax) return false;
  uint64_t w[2];
  std::memcpy(w, s.data(), 16);
  const size_t n = s.size();
  OpKey k;
  k.len = static_cast<uint32_t>(n);
  k.lo = n >= 8 ? w[0] : w[0] & ((uint64_t{1} << (8 * n)) - 1);
  k.hi = n <= 8 ? 0 : n == 16 ? w[1] : w[1] & ((uint64_t{1} << (8 * (n - 8))) - 1);
  return findOp(k, out);
}

Graph::Graph() = default;

void Graph::reserve(size_t n) {
  nodes_.reserve(n);
  operands_.reserve(n * 2);
  operandCol_.reserve(n * 2);
}

// The first comment entry of node id `v` or after it.
template <class Vec>
static auto firstCommentFrom(Vec &comments, uint32_t v) {
  return std::lower_bound(comments.begin(), comments.end(), v,
                          [](const std::pair<uint32_t, NodeComments> &e, uint32_t id) { return e.first < id; });
}

NodeComments &Graph::comments(NodeId n) {
  if (comments_.empty() || comments_.back().first < n.v) return comments_.emplace_back(n.v, NodeComments{}).second;
  auto it = firstCommentFrom(comments_, n.v);
  if (it != comments_.end() && it->first == n.v) return it->second;
  return comments_.emplace(it, n.v, NodeComments{})->second;
}

const NodeComments *Graph::commentsOf(NodeId n) const {
  auto it = firstCommentFrom(comments_, n.v);
  return it != comments_.end() && it->first == n.v ? &it->second : nullptr;
}

uint32_t Graph::addLiteralSlow(const Literal &l) {
  // Literals are never changed once added, so equal small integers share
  // one entry (addLiteral finds those already in the pool).
  bool small = l.kind == Literal::Kind::Int && l.magnitude < kSmallLits && std::bit_cast<uint64_t>(l.f) == 0;
  if (small) {
    if (smallLits_.empty()) smallLits_.assign(2 * kSmallLits, UINT32_MAX);
    uint32_t &at = smallLits_[(l.negative ? kSmallLits : 0) + l.magnitude];
    if (at == UINT32_MAX) {
      at = static_cast<uint32_t>(lits_.size());
      lits_.push_back(l);
    }
    return at;
  }
  lits_.push_back(l);
  return static_cast<uint32_t>(lits_.size() - 1);
}

void Graph::addDim(NodeId n, int64_t d) {
  (void)n;
  uint32_t last = nodes_.size() - 1;
  nodes_.flags[last] |= kHasDims;
  dims_.add(last, d);
}

void Graph::addData(NodeId n, const Literal &l) {
  (void)n;
  uint32_t last = nodes_.size() - 1;
  nodes_.flags[last] |= kHasDataRows;
  data_.add(last, l);
}

void Graph::setText(NodeId n, std::string t) {
  if (t.empty()) text_.erase(n.v);
  else text_[n.v] = std::move(t);
}

void Graph::setParentSlow(NodeId n, NodeId p) {
  if (n.v >= parents_.size()) parents_.resize(size(), NodeId::none());
  parents_[n.v] = p;
}

size_t Graph::auxAt(NodeId n) const {
  auto it = std::lower_bound(aux_.begin(), aux_.end(), n.v, [](const auto &e, uint32_t v) { return e.first < v; });
  return static_cast<size_t>(it - aux_.begin());
}

int32_t Graph::aux(NodeId n) const {
  size_t k = auxAt(n);
  if (k < aux_.size() && aux_[k].first == n.v) return aux_[k].second;
  return op(n) == Op::Buffer ? -1 : 0;
}

void Graph::setAux(NodeId n, int32_t v) {
  size_t k = aux_.empty() || aux_.back().first < n.v ? aux_.size() : auxAt(n);  // a new node's: the end
  if (k < aux_.size() && aux_[k].first == n.v) aux_[k].second = v;
  else aux_.insert(aux_.begin() + static_cast<ptrdiff_t>(k), {n.v, v});
}

bool Graph::sameAs(const Graph &o) const {
  if (size() != o.size()) return false;
  for (uint32_t i = 0; i < size(); ++i) {
    NodeId n{i};
    if (op(n) != o.op(n) || name(n) != o.name(n) || dtype(n) != o.dtype(n) || aux(n) != o.aux(n) || text(n) != o.text(n) ||
        parent(n) != o.parent(n) || shapeGiven(n) != o.shapeGiven(n) || hasData(n) != o.hasData(n))
      return false;
    auto a = operands(n), b = o.operands(n);
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k].isLit() != b[k].isLit()) return false;
      if (a[k].isLit() ? !(literal(a[k].lit()) == o.literal(b[k].lit())) : a[k].raw != b[k].raw) return false;
    }
    auto da = dims(n), db = o.dims(n);
    if (!std::equal(da.begin(), da.end(), db.begin(), db.end())) return false;
    auto xa = data(n), xb = o.data(n);
    if (!std::equal(xa.begin(), xa.end(), xb.begin(), xb.end())) return false;
  }
  return true;
}

}  // namespace cairn
