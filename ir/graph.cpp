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
// compile time from kOps, is open-address with 128 slots, so a lookup packs
// the text, hashes the words and compares one or two keys (no memcmp).
namespace {
struct OpKey {
  uint64_t lo = 0, hi = 0;
  uint32_t len = 0;
};
constexpr size_t kOpNameMax = 16, kOpSlots = 128;
constexpr OpKey packOpName(std::string_view s) {
  OpKey k;
  k.len = static_cast<uint32_t>(s.size());
  const size_t lo = s.size() < 8 ? s.size() : 8;
  for (size_t i = 0; i < lo; ++i) k.lo |= uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
  for (size_t i = 8; i < s.size(); ++i) k.hi |= uint64_t{static_cast<unsigned char>(s[i])} << (8 * (i - 8));
  return k;
}
constexpr uint32_t opSlot(const OpKey &k) {
  return static_cast<uint32_t>(((k.lo ^ (k.hi * 0x9E3779B97F4A7C15ull) ^ k.len) * 0xD6E8FEB86659FD93ull) >> 57);
}
struct OpTable {
  OpKey key[kOpSlots];
  uint8_t op[kOpSlots];
  bool used[kOpSlots];
};
constexpr OpTable kOpTable = [] {
  static_assert(sizeof kOps / sizeof kOps[0] <= kOpSlots / 2, "the op table stays at most half full");
  OpTable t{};
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; ++i) {
    if (kOps[i].name.size() > kOpNameMax) throw "an op name longer than 16 bytes";  // (a compile error)
    OpKey k = packOpName(kOps[i].name);
    uint32_t s = opSlot(k);
    while (t.used[s]) s = (s + 1) % kOpSlots;
    t.key[s] = k;
    t.op[s] = static_cast<uint8_t>(i);
    t.used[s] = true;
  }
  return t;
}();
}  // namespace

namespace {
bool findOp(const OpKey &k, Op &out) {
  for (uint32_t slot = opSlot(k); kOpTable.used[slot]; slot = (slot + 1) % kOpSlots) {
    const OpKey &t = kOpTable.key[slot];
    if (t.lo == k.lo && t.hi == k.hi && t.len == k.len) {
      out = static_cast<Op>(kOpTable.op[slot]);
      return true;
    }
  }
  return false;
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
