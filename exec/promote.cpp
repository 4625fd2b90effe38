// planCells (exec/promote.hpp): scalar promotion of one-element frame
// buffers in a validated module function, in three steps.
//
//  1. Cells. A `buffer 1` of literal size (a frame buffer, isFrameBuffer)
//     is a cell when every use of it and of its family (its carries,
//     afters and one-element shrinks, all of which name the same storage)
//     is one of: `carry`/`after` of it (operand 0), a one-element `shrink`
//     of it (proven in bounds, so at offset 0) or `checked_shrink` at the
//     literal offset 0, a `load`/`store` of it, or an `end` operand. A cell
//     passed to a call, printed, measured, split or returned stays memory.
//     The engine keeps every version of a storage in place, so one register
//     per cell holds exactly what the memory would.
//  2. Aliases. The text order is the run order, so position = node id. A
//     load of a cell may be the cell's register itself when no write of the
//     cell (a store, or the buffer's own zeroing) lies after the load and
//     at or before its last use. A use inside a loop nested deeper than the
//     load lasts to that loop's `end`; a `reduce` reads its value at its
//     loop's `end`, and a `range` reads its count at every iteration's end.
//  3. Stores straight into the cell. A store's value X, computed by one
//     instruction into a fresh register, used once (by the store), in the
//     same loop body, may be computed into the cell's register instead,
//     when between X and the store nothing reads or writes the cell and no
//     alias of the cell before X is still used after X.
//
// Every decision errs towards memory: a cell not promoted runs as before.
#include "exec/promote.hpp"

#include <algorithm>

#include "exec/emit_module_c.hpp"
#include "exec/program.hpp"

namespace cairn::exec {

namespace {

constexpr uint32_t kNone = CellPlan::kNone;
constexpr uint32_t kNever = UINT32_MAX;  // a use whose end cannot be bounded

bool isCellBuffer(const Graph &g, NodeId n) {
  if (!isFrameBuffer(g, n) || g.dtype(n) == DType::None) return false;
  return g.literal(g.operands(n)[0].lit()).magnitude == 1;
}

bool zeroLiteral(const Graph &g, Operand o) {
  if (!o.isLit()) return false;
  const Literal &l = g.literal(o.lit());
  return l.kind == Literal::Kind::Int && l.magnitude == 0;
}

// Ops whose value is one instruction writing a fresh register (step 3).
bool computesIntoRegister(const Graph &g, NodeId n, const CellPlan &p) {
  switch (g.op(n)) {
    case Op::Cast: case Op::CheckedCast: case Op::Where: case Op::Len:
    case Op::And: case Op::Or: case Op::Xor:
    case Op::CheckedAdd: case Op::CheckedSub: case Op::CheckedMul: case Op::CheckedDiv: case Op::CheckedMod:
      return true;
    case Op::Call: return g.dtype(n) != DType::None;
    case Op::Load: return p.cell[n.v] == kNone;
    default: return aluIndex(g.op(n)) >= 0;
  }
}

class Planner {
 public:
  Planner(const Graph &g, const Facts &f) : g_(g), f_(f) {}

  CellPlan run() {
    const uint32_t n = g_.size();
    p_.cell.assign(n, kNone);
    p_.alias.assign(n, 0);
    p_.into.assign(n, kNone);
    findCells();
    if (p_.cells == 0) return std::move(p_);
    endOf_.assign(n, kNone);
    uses_.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      NodeId u{i};
      if (g_.op(u) == Op::End && !g_.operands(u)[0].isLit()) endOf_[g_.operands(u)[0].node().v] = i;
      for (Operand o : g_.operands(u))
        if (!o.isLit()) ++uses_[o.node().v];
    }
    lastUse_.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) noteUses(NodeId{i});
    writes_.assign(p_.cells, {});
    loads_.assign(p_.cells, {});
    aliasEnd_.assign(p_.cells, {});
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t c = p_.cell[i];
      if (c == kNone) continue;
      Op op = g_.op(NodeId{i});
      if (op == Op::Store || op == Op::Buffer) writes_[c].push_back(i);
      else if (op == Op::Load) loads_[c].push_back(i);
    }
    for (uint32_t c = 0; c < p_.cells; ++c) planAliases(c);
    for (uint32_t i = 0; i < n; ++i)
      if (g_.op(NodeId{i}) == Op::Store && p_.cell[i] != kNone) planInto(NodeId{i});
    return std::move(p_);
  }

 private:
  // Step 1: members and their uses; a family with any other use is dropped.
  void findCells() {
    const uint32_t n = g_.size();
    std::vector<uint32_t> member(n, kNone);
    std::vector<uint8_t> bad;
    for (uint32_t i = 0; i < n; ++i) {
      NodeId u{i};
      if (g_.op(u) == Op::Buffer && isCellBuffer(g_, u)) {
        member[i] = static_cast<uint32_t>(bad.size());
        p_.cell[i] = member[i];
        bad.push_back(0);
      }
      auto ops = g_.operands(u);
      for (size_t k = 0; k < ops.size(); ++k) {
        if (ops[k].isLit() || member[ops[k].node().v] == kNone) continue;
        const uint32_t c = member[ops[k].node().v];
        switch (g_.op(u)) {
          case Op::Carry: case Op::After:
            if (k == 0) member[i] = p_.cell[i] = c;
            else bad[c] = 1;
            break;
          case Op::End:
            if (k == 0) bad[c] = 1;
            break;
          case Op::Shrink: case Op::CShrink:
            if (k == 0 && f_.elems[i] == 1 && (g_.op(u) == Op::Shrink || zeroLiteral(g_, ops[1])))
              member[i] = p_.cell[i] = c;
            else bad[c] = 1;
            break;
          case Op::Load: case Op::Store:
            if (k == 0) p_.cell[i] = c;
            else bad[c] = 1;
            break;
          default: bad[c] = 1;
        }
      }
    }
    // Renumber the good cells densely.
    std::vector<uint32_t> renum(bad.size(), kNone);
    for (size_t c = 0; c < bad.size(); ++c)
      if (!bad[c]) renum[c] = p_.cells++;
    for (uint32_t &c : p_.cell)
      if (c != kNone) c = renum[c];
  }

  // The last position at which user u reads its operand; kNever when the
  // use is outside the loop that holds the value's definition `def`.
  uint32_t useEnd(NodeId u, NodeId def) const {
    uint32_t at = u.v;
    NodeId inner = g_.parent(u);  // the innermost loop around the read
    if (g_.op(u) == Op::Reduce) {
      NodeId e = g_.operands(u)[0].node();
      at = e.v;
      inner = g_.operands(e)[0].node();
    } else if (g_.op(u) == Op::Range) {
      at = endOf_[u.v];
      inner = u;
    }
    const NodeId home = g_.parent(def);
    NodeId outer = NodeId::none();
    for (NodeId r = inner; !(r == home); r = g_.parent(r)) {
      if (!r.valid()) return kNever;
      outer = r;
    }
    if (outer.valid()) at = std::max(at, endOf_[outer.v]);
    return at == kNone ? kNever : at;
  }

  void noteUses(NodeId u) {
    for (Operand o : g_.operands(u)) {
      if (o.isLit()) continue;
      NodeId d = o.node();
      if (g_.op(d) != Op::Load || p_.cell[d.v] == kNone) continue;
      uint32_t e = useEnd(u, d);
      lastUse_[d.v] = std::max({lastUse_[d.v], d.v, e});
    }
  }

  // Is there a position in `sorted` with lo < x < hi?
  static bool anyBetween(const std::vector<uint32_t> &sorted, uint32_t lo, uint32_t hi) {
    auto it = std::upper_bound(sorted.begin(), sorted.end(), lo);
    return it != sorted.end() && *it < hi;
  }

  // Step 2.
  // Also fills aliasEnd_[c]: per load of c (in position order), the last
  // use of any alias among it and the loads before it.
  void planAliases(uint32_t c) {
    uint32_t reach = 0;
    for (uint32_t l : loads_[c]) {
      uint32_t end = std::max(lastUse_[l], l);
      if (end != kNever && !anyBetween(writes_[c], l, end + 1)) {
        p_.alias[l] = 1;
        reach = std::max(reach, end);
      }
      aliasEnd_[c].push_back(reach);
    }
  }

  // Step 3, for store s.
  void planInto(NodeId s) {
    const uint32_t c = p_.cell[s.v];
    Operand val = g_.operands(s)[1];
    if (val.isLit()) return;
    NodeId x = val.node();
    if (uses_[x.v] != 1 || !(g_.parent(x) == g_.parent(s)) || x.v >= s.v || p_.into[x.v] != kNone ||
        !computesIntoRegister(g_, x, p_))
      return;
    if (anyBetween(writes_[c], x.v, s.v) || anyBetween(loads_[c], x.v, s.v)) return;
    const auto &ls = loads_[c];
    size_t before = static_cast<size_t>(std::lower_bound(ls.begin(), ls.end(), x.v) - ls.begin());
    if (before > 0 && aliasEnd_[c][before - 1] > x.v) return;
    p_.into[x.v] = c;
  }

  const Graph &g_;
  const Facts &f_;
  CellPlan p_;
  std::vector<uint32_t> endOf_, uses_, lastUse_;
  std::vector<std::vector<uint32_t>> writes_, loads_;
  std::vector<std::vector<uint32_t>> aliasEnd_;
};

}  // namespace

CellPlan planCells(const Graph &g, const Facts &f) { return Planner(g, f).run(); }

}  // namespace cairn::exec
