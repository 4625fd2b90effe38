// buffersWrittenFirst (exec/first_write.hpp): three passes over the nodes,
// each looking only at operands that name a candidate buffer or one of its
// filling shrinks. A candidate that fails any check is dropped for good.
#include "exec/first_write.hpp"

namespace cairn::exec {

namespace {

NodeId operandNode(const Graph &g, NodeId n, size_t k) {
  auto ops = g.operands(n);
  return k < ops.size() && !ops[k].isLit() ? ops[k].node() : NodeId::none();
}

// Do a buffer's size and a range's count always have the same value?
bool sameCount(const Graph &g, Operand a, Operand b) {
  if (a.isLit() != b.isLit()) return false;
  if (!a.isLit()) return a.node() == b.node();
  const Literal &x = g.literal(a.lit()), &y = g.literal(b.lit());
  return x.kind == Literal::Kind::Int && y.kind == Literal::Kind::Int && x.negative == y.negative &&
         x.magnitude == y.magnitude;
}

class FirstWrites {
 public:
  FirstWrites(const Graph &g, const Facts &f)
      : g_(g), f_(f), ok_(g.size(), false), fill_(g.size()), shrinkOf_(g.size()), endOf_(g.size()) {}

  std::vector<bool> run() {
    bool any = false;
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId n{i};
      if (g_.op(n) == Op::End && operandNode(g_, n, 0).valid()) endOf_[operandNode(g_, n, 0).v] = n;
      if (g_.op(n) == Op::Buffer && !g_.parent(n).valid() && g_.slot(n) < 0 && !(g_.hasData(n) && !g_.data(n).empty()))
        ok_[i] = any = true;
    }
    if (!any) return std::move(ok_);
    forEachUse([&](NodeId user, size_t k, NodeId b) {
      if (ok_[b.v]) useOfBuffer(user, k, b);
    });
    checkAfters();
    forEachUse([&](NodeId user, size_t k, NodeId s) {
      NodeId b = shrinkOf_[s.v];
      if (b.valid() && !(g_.op(user) == Op::Store && k == 0 && g_.parent(user) == g_.parent(s))) ok_[b.v] = false;
    });
    for (uint32_t i = 0; i < g_.size(); ++i)
      if (ok_[i] && !fill_[i].valid()) ok_[i] = false;  // written nowhere: nothing to gain, nothing to prove
    return std::move(ok_);
  }

 private:
  template <class Fn>
  void forEachUse(Fn fn) const {
    for (uint32_t i = 0; i < g_.size(); ++i) {
      auto ops = g_.operands(NodeId{i});
      for (size_t k = 0; k < ops.size(); ++k)
        if (!ops[k].isLit()) fn(NodeId{i}, k, ops[k].node());
    }
  }

  // `user` takes candidate b as its operand k: a filling shrink, the
  // `after` at the fill's end, or a use that drops b.
  void useOfBuffer(NodeId user, size_t k, NodeId b) {
    Op op = g_.op(user);
    if (op == Op::Shrink && k == 0) {
      NodeId r = operandNode(g_, user, 1);
      bool fills = r.valid() && g_.op(r) == Op::Range && g_.parallel(r) && !g_.parent(r).valid() &&
                   g_.parent(user) == r && f_.elems[user.v] == 1 &&
                   sameCount(g_, g_.operands(r)[0], g_.operands(b)[0]) && (!fill_[b.v].valid() || fill_[b.v] == r);
      if (fills) {
        fill_[b.v] = r;
        shrinkOf_[user.v] = b;
        return;
      }
    } else if (op == Op::After && k == 0) {
      // The range may come later in node order: the check waits for it.
      afters_.push_back({user, b});
      return;
    }
    ok_[b.v] = false;
  }

  // The afters of candidates, checked once every fill range is known.
  void checkAfters() {
    for (auto [a, b] : afters_) {
      NodeId e = operandNode(g_, a, 1), r = fill_[b.v];
      if (!r.valid() || !e.valid() || e != endOf_[r.v]) ok_[b.v] = false;
    }
  }

  const Graph &g_;
  const Facts &f_;
  std::vector<bool> ok_;
  std::vector<NodeId> fill_;      // candidate buffer: its fill range
  std::vector<NodeId> shrinkOf_;  // filling shrink: its buffer
  std::vector<NodeId> endOf_;     // range: its end
  std::vector<std::pair<NodeId, NodeId>> afters_;
};

}  // namespace

std::vector<bool> buffersWrittenFirst(const Graph &g, const Facts &f) {
  FirstWrites w(g, f);
  return w.run();
}

}  // namespace cairn::exec
