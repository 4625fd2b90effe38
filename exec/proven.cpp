// IndexProofs (exec/proven.hpp): a pattern match on the validated graph,
// nothing more; anything it does not recognise keeps its check.
#include "exec/proven.hpp"

#include <algorithm>

namespace cairn::exec {

IndexProofs::IndexProofs(const Graph &g, const Facts &f) : g_(g), f_(f), endOf_(g.size()) {
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId r = operandNode(NodeId{i}, 0);
    if (g.op(NodeId{i}) == Op::End && r.valid()) endOf_[r.v] = NodeId{i};
  }
}

// The node of operand k of n when it is one (not a literal).
NodeId IndexProofs::operandNode(NodeId n, size_t k) const {
  auto ops = g_.operands(n);
  return k < ops.size() && !ops[k].isLit() ? ops[k].node() : NodeId::none();
}

bool IndexProofs::isZero(Operand o) const {
  if (!o.isLit() && g_.op(o.node()) == Op::Const) o = g_.operands(o.node())[0];
  if (!o.isLit()) return false;
  const Literal &l = g_.literal(o.lit());
  return l.kind == Literal::Kind::Int && l.magnitude == 0;
}

// Does range r run at most one iteration: is its count a bool, or a bool
// cast to an integer (a CAIRN `if`)?
bool IndexProofs::atMostOnce(NodeId r) const {
  NodeId c = operandNode(r, 0);
  if (c.valid() && g_.op(c) == Op::Cast) c = operandNode(c, 0);
  return c.valid() && f_.type[c.v] == DType::Bool;
}

// The version carry b always is: the one it carries in, when its loop's
// end passes b itself on (no iteration writes a new version) or its loop
// runs at most once (its only iteration sees what it carries in); none
// otherwise.
NodeId IndexProofs::carriedIn(NodeId b) const {
  NodeId r = g_.parent(b);
  if (!r.valid() || !endOf_[r.v].valid()) return NodeId::none();
  if (!atMostOnce(r)) {
    const auto &carries = f_.carriesOf(r);
    size_t k = 0;
    while (k < carries.size() && !(carries[k] == b)) ++k;
    if (k == carries.size() || !(operandNode(endOf_[r.v], k + 1) == b)) return NodeId::none();
  }
  return operandNode(b, 0);
}

// Is version b always version a? b == a, or b a carry that is always a.
bool IndexProofs::sameVersion(NodeId a, NodeId b) const {
  for (int depth = 0; depth < 64; ++depth) {
    if (a == b) return true;
    if (g_.op(b) != Op::Carry) return false;
    b = carriedIn(b);
    if (!b.valid()) return false;
  }
  return false;
}

// The value load n reads when its version is always one that a store of
// the cell's one element made (`after V (store (shrink V 0) X)`): X, and so
// on while X is such a load; n itself otherwise. The lowering forwards
// such reads itself where it still holds the version (lower/build.cpp,
// Storage::stored), and a read of a version carried into a region is a
// load: this finds that both are X.
NodeId IndexProofs::storedValue(NodeId n) const {
  for (int depth = 0; depth < 64 && g_.op(n) == Op::Load; ++depth) {
    const NodeId at = operandNode(n, 0);
    if (!at.valid() || f_.elems[at.v] != 1 || !f_.storage[at.v].valid() || f_.elems[f_.storage[at.v].v] != 1) break;
    NodeId x = f_.version[at.v];
    for (int k = 0; k < 64 && x.valid() && g_.op(x) == Op::Carry; ++k) x = carriedIn(x);
    if (!x.valid() || g_.op(x) != Op::After) break;
    const NodeId st = operandNode(x, 1);
    if (!st.valid() || g_.op(st) != Op::Store) break;
    const NodeId sv = operandNode(st, 0), value = operandNode(st, 1);
    if (!sv.valid() || !value.valid() || !(f_.storage[sv.v] == f_.storage[at.v])) break;
    n = value;
  }
  return n;
}

// Do scalars a and b always hold the same value where both are used?
bool IndexProofs::sameValue(NodeId a, NodeId b) const {
  if (a == b || storedValue(a) == storedValue(b)) return true;
  if (g_.op(a) != Op::Load || g_.op(b) != Op::Load) return false;
  NodeId va = operandNode(a, 0), vb = operandNode(b, 0);
  if (!va.valid() || !vb.valid() || f_.elems[va.v] != 1 || f_.elems[vb.v] != 1) return false;
  // Both read the one element of a one-element storage (a cell), of
  // versions that are the same.
  if (!(f_.storage[va.v] == f_.storage[vb.v]) || f_.elems[f_.storage[va.v].v] != 1) return false;
  NodeId xa = f_.version[va.v], xb = f_.version[vb.v];
  return xa.valid() && xb.valid() && (sameVersion(xa, xb) || sameVersion(xb, xa));
}

// The view a chain of `carry` and `after` starts from: every version of a
// view has its extent.
NodeId IndexProofs::versionRoot(NodeId v) const {
  for (int depth = 0; depth < 64 && (g_.op(v) == Op::Carry || g_.op(v) == Op::After); ++depth) {
    NodeId o = operandNode(v, 0);
    if (!o.valid()) break;
    v = o;
  }
  return v;
}

// Do views a and b have the same length at every time both exist?
bool IndexProofs::sameLength(NodeId a, NodeId b) const {
  if (a == b || versionRoot(a) == versionRoot(b)) return true;
  if (g_.op(a) != Op::Deref || g_.op(b) != Op::Deref) return false;
  NodeId ha = operandNode(a, 0), hb = operandNode(b, 0);
  return ha.valid() && hb.valid() && sameValue(ha, hb);
}

// What range r counts: its count operand, or L when that is
// `where (cmplt L 0) 0 (sub L 0)` (a count clamped at 0); none when it is
// a `where` of any other shape.
std::optional<Operand> IndexProofs::countOf(NodeId r) const {
  Operand o = g_.operands(r)[0];
  if (o.isLit() || g_.op(o.node()) != Op::Where) return o;
  NodeId w = o.node(), lt = operandNode(w, 0), sub = operandNode(w, 2);
  if (!lt.valid() || !sub.valid() || !isZero(g_.operands(w)[1]) || g_.op(lt) != Op::Cmplt || g_.op(sub) != Op::Sub ||
      !isZero(g_.operands(lt)[1]) || !isZero(g_.operands(sub)[1]))
    return std::nullopt;
  NodeId l1 = operandNode(lt, 0), l2 = operandNode(sub, 0);
  if (!l1.valid() || !(l1 == l2)) return std::nullopt;
  return Operand::ofNode(l1);
}

// The view V when range r counts `len V`; none otherwise.
NodeId IndexProofs::countedView(NodeId r) const {
  std::optional<Operand> c = countOf(r);
  if (!c || c->isLit() || g_.op(c->node()) != Op::Len) return NodeId::none();
  return operandNode(c->node(), 0);
}

// A non-negative integer literal, or a `const` of one.
bool IndexProofs::constantValue(Operand o, uint64_t &v) const {
  if (!o.isLit() && g_.op(o.node()) == Op::Const) o = g_.operands(o.node())[0];
  if (!o.isLit()) return false;
  const Literal &l = g_.literal(o.lit());
  if (l.kind != Literal::Kind::Int || l.negative) return false;
  v = l.magnitude;
  return true;
}

// Does range r count a constant (c)?
bool IndexProofs::constantCount(NodeId r, uint64_t &c) const {
  std::optional<Operand> o = countOf(r);
  return o && constantValue(*o, c);
}

// Per cell, the least constant count of the `alloc`s stored into it, when
// every store into it is one and its buffer is used only by its first store
// (through a shrink) and the `after` of that store: then every version a
// load can name comes after that store, and the cell's zero (a handle
// whose deref is the empty view) is never read. 0 for any other cell. Two
// passes over the body, once: every question after is a lookup.
void IndexProofs::planAllocs() const {
  const CellPlan &cp = cells();
  const uint32_t nc = cp.cells;
  minAlloc_.assign(nc, UINT64_MAX);
  std::vector<NodeId> buffer(nc, NodeId::none()), first(nc, NodeId::none());
  std::vector<uint32_t> uses(nc, 0);
  for (uint32_t i = 0; i < g_.size(); ++i) {
    const NodeId s{i};
    const uint32_t c = cp.cell[i];
    if (c == CellPlan::kNone) continue;
    if (g_.op(s) == Op::Buffer) buffer[c] = s;
    if (g_.op(s) != Op::Store) continue;
    const NodeId a = operandNode(s, 1), at = operandNode(s, 0);
    uint64_t n = 0;
    if (!a.valid() || g_.op(a) != Op::Alloc || !constantValue(g_.operands(a)[0], n)) n = 0;
    minAlloc_[c] = std::min(minAlloc_[c], n);
    if (buffer[c].valid() && at.valid() && g_.op(at) == Op::Shrink && operandNode(at, 0) == buffer[c]) first[c] = s;
  }
  for (uint32_t i = 0; i < g_.size(); ++i) {
    const NodeId u{i};
    auto ops = g_.operands(u);
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].isLit() || g_.op(ops[k].node()) != Op::Buffer) continue;
      const uint32_t c = cp.cell[ops[k].node().v];
      if (c == CellPlan::kNone) continue;
      ++uses[c];
      const bool shrinkOfFirst = g_.op(u) == Op::Shrink && k == 0 && first[c].valid() && operandNode(first[c], 0) == u;
      const bool afterFirst = g_.op(u) == Op::After && k == 0 && first[c].valid() && operandNode(u, 1) == first[c];
      if (!shrinkOfFirst && !afterFirst) minAlloc_[c] = 0;
    }
  }
  for (uint32_t c = 0; c < nc; ++c)
    if (!first[c].valid() || uses[c] != 2) minAlloc_[c] = 0;
}

// Is `view` a deref of a handle that is always an object of at least c
// elements: loaded from a cell whose least allocation (planAllocs) is c or
// more?
bool IndexProofs::allocatedAtLeast(NodeId view, uint64_t c) const {
  if (g_.op(view) != Op::Deref) return false;
  NodeId h = operandNode(view, 0);
  if (!h.valid() || g_.op(h) != Op::Load) return false;
  if (minAlloc_.empty() && cells().cells > 0) planAllocs();
  const uint32_t cell = cells().cell[h.v];
  return cell != CellPlan::kNone && minAlloc_[cell] >= c && minAlloc_[cell] > 0;
}

// Is v (a version of) `part X 0 H`, whose length is H once it did not
// trap, with H what range r counts, or a constant of at least r's constant
// count? (A read-only array parameter of extent n is such a part:
// lower/func.cpp.)
bool IndexProofs::partCovers(NodeId v, NodeId r) const {
  v = versionRoot(v);
  if (g_.op(v) != Op::Part || !isZero(g_.operands(v)[1])) return false;
  const Operand hi = g_.operands(v)[2];
  std::optional<Operand> c = countOf(r);
  if (!c) return false;
  if (!c->isLit() && !hi.isLit() && c->node() == hi.node()) return true;
  uint64_t count = 0, h = 0;
  return constantValue(*c, count) && constantValue(hi, h) && count <= h;
}

// Is L a length of view v: `len W` of a view W of v's length, or the bound
// H of the `part X 0 H` v is (a version of)?
bool IndexProofs::lengthOf(NodeId l, NodeId v) const {
  if (g_.op(l) == Op::Len) {
    const NodeId w = operandNode(l, 0);
    return w.valid() && sameLength(w, v);
  }
  const NodeId p = versionRoot(v);
  if (g_.op(p) != Op::Part || !isZero(g_.operands(p)[1])) return false;
  const Operand hi = g_.operands(p)[2];
  return !hi.isLit() && hi.node() == l;
}

// Is shrink n (of view v at index x) inside a range whose count is
// `cmplt Y L` (or it cast to an integer: an `if`, `while i < len(xs)`) with
// Y an unsigned value the same as x and L a length of v? That range's body
// runs only when Y < L held as it began, so x is in bounds.
bool IndexProofs::guardedByCompare(NodeId n, NodeId v, NodeId x) const {
  for (NodeId r = g_.parent(n); r.valid(); r = g_.parent(r)) {
    if (g_.op(r) != Op::Range || !atMostOnce(r)) continue;
    NodeId c = operandNode(r, 0);
    if (g_.op(c) == Op::Cast) c = operandNode(c, 0);
    if (g_.op(c) != Op::Cmplt) continue;
    const NodeId y = operandNode(c, 0), l = operandNode(c, 1);
    if (y.valid() && l.valid() && isUnsigned(f_.type[y.v]) && sameValue(y, x) && lengthOf(l, v)) return true;
  }
  return false;
}

bool IndexProofs::proven(NodeId n) const {
  if (g_.op(n) != Op::CShrink || f_.elems[n.v] != 1) return false;
  NodeId v = operandNode(n, 0), r = operandNode(n, 1);
  if (!v.valid() || !r.valid()) return false;
  if (guardedByCompare(n, v, r)) return true;
  if (g_.op(r) != Op::Range) return false;
  NodeId counted = countedView(r);
  if (counted.valid() && sameLength(counted, v)) return true;
  if (partCovers(v, r)) return true;
  uint64_t c = 0;
  return constantCount(r, c) && allocatedAtLeast(v, c);
}

const CellPlan &IndexProofs::cells() const {
  if (!cells_) cells_ = planCells(g_, f_);
  return *cells_;
}

bool IndexProofs::cannotTrap(NodeId n) const {
  const Op op = g_.op(n);
  const bool cast = op == Op::CheckedCast;
  if (!cast && op != Op::CheckedAdd && op != Op::CheckedSub && op != Op::CheckedMul && op != Op::CheckedDiv &&
      op != Op::CheckedMod)
    return false;
  const DType t = f_.type[n.v];
  if (!isInteger(t)) return false;
  if (!ranges_) ranges_.emplace(g_, f_);
  const IntType it = IntType::of(t);
  auto ops = g_.operands(n);
  if (cast) {
    if (ops[0].isLit() || !ranges_->analysed(ops[0].node())) return false;  // a float, or a literal
    const IntType from[1] = {IntType::of(f_.type[ops[0].node().v])};
    const ISet a[1] = {ranges_->operandSet(n, 0, from[0])};
    return transfer(Op::Cast, it, from, a).exact;
  }
  const IntType types[2] = {ranges_->operandType(n, 0, it), ranges_->operandType(n, 1, it)};
  const ISet sets[2] = {ranges_->operandSet(n, 0, it), ranges_->operandSet(n, 1, it)};
  if (sets[0].isEmpty() || sets[1].isEmpty()) return true;  // never computed: it never runs
  switch (op) {
    case Op::CheckedAdd: return transfer(Op::Add, it, types, sets).exact;
    case Op::CheckedSub: return transfer(Op::Sub, it, types, sets).exact;
    case Op::CheckedMul: return transfer(Op::Mul, it, types, sets).exact;
    default: {
      const ISet a = sets[0].hull(it), b = sets[1].hull(it);
      const bool zero = b.lo <= 0 && b.hi >= 0;
      const bool minByMinusOne = it.isSigned && b.lo <= -1 && b.hi >= -1 && a.lo <= it.min();
      return !zero && !minByMinusOne;
    }
  }
}

}  // namespace cairn::exec
