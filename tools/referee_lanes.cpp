// The referee's lane half: the lane rule of each parallel loop, decided from
// its definition by enumeration.
//
// For a parallel loop over i, the accesses that matter are the body's
// stores (at any depth) and its loads of a buffer stored into -- of the
// version the loop writes, or of one made inside it. For each assignment of
// the values from outside the loop (its bound among them), every iteration
// is run in turn: its accesses are evaluated over every assignment of the
// values inside it (inner loop indices, loads), each giving an element of a
// buffer (the sum of the offsets along its view's chain of shrinks). The
// rule is broken when two iterations store into one element, or when an
// iteration loads an element another one stores into. Loops of at most
// RefereeOptions::maxIndexRange iterations are run completely; longer ones
// (and past maxLaneWork recorded accesses) are sampled: both ends and both
// sides of 2^8, 2^16, 2^32..., so that lanes meeting through a wrapping
// cast are among those tried. A clash found is always real; none found is
// a proof only when nothing was sampled.
#include <unordered_map>

#include "tools/referee_eval.hpp"

namespace cairn::ref {

namespace {

struct Access {
  NodeId node, buffer;
  bool store = false;
  std::vector<NodeId> offsets;     // shrinks along the view chain
  std::vector<Enum::IntArg> args;  // their offsets, resolved once the cone is known
};

struct ElemKey {
  uint32_t buffer;
  i128 elem;
  bool operator==(const ElemKey &o) const { return buffer == o.buffer && elem == o.elem; }
};
struct ElemHash {
  size_t operator()(const ElemKey &k) const {
    auto lo = static_cast<uint64_t>(k.elem), hi = static_cast<uint64_t>(k.elem >> 64);
    return std::hash<uint64_t>()(lo * 0x9e3779b97f4a7c15ull ^ hi ^ (uint64_t{k.buffer} << 40));
  }
};

std::string num(i128 v) { return std::to_string(static_cast<long long>(v)); }

class LaneCheck {
 public:
  LaneCheck(Ctx &c, NodeId P, std::vector<Bits> &val) : c_(c), g_(c.g), P_(P), end_(c.endOf[P.v]), val_(val), en_(c, val) {}

  void run() {
    std::vector<NodeId> targets;
    if (!collect(targets)) return;  // stores nothing
    targets.push_back(P_);
    if (!en_.setCone(targets)) {
      c_.undecided("lane", P_, "the parallel loop " + c_.nm(P_) + ": too many values to enumerate");
      return;
    }
    at_ = en_.position(P_);
    for (Access &a : acc_)
      for (NodeId w : a.offsets) a.args.push_back(en_.intArg(w, 1));
    uint64_t outer = 0;  // assignments of the values from outside the loop
    en_.each(0, at_, [&] {
      if (++outer > 4096) over_ = true;
      return !over_ && iterations(false) && !over_;
    });
    if (!broken_ && over_) {
      en_.sampled = true;
      sampling_ = true;
      for (uint32_t s = 0; s < 32 && !broken_; ++s)
        if (en_.randomly(0, at_)) iterations(true);
    }
    if (broken_) c_.find("lane", P_, "the parallel loop " + c_.nm(P_) + ": " + witness_, clash_);
    else if (en_.sampled || over_ || en_.over)
      c_.undecided("lane", P_, "the parallel loop " + c_.nm(P_) + ": no clash found, but not every value was tried");
    else ++c_.out.proven;
  }

 private:
  // Is version v (from outside the loop) one the loop writes: a body store's,
  // or one a nested serial loop carries (its stores write the carry)?
  bool writtenHere(NodeId v) const {
    for (uint32_t k = P_.v + 1; k < end_.v; ++k) {
      NodeId x{k};
      if ((g_.op(x) == Op::Store && c_.root[k] == v) || (g_.op(x) == Op::Carry && c_.opnd(x, 0) == v)) return true;
    }
    return false;
  }

  // The accesses that matter, and the offsets they read; false when the
  // body stores nothing.
  bool collect(std::vector<NodeId> &targets) {
    std::set<uint32_t> stored;
    for (uint32_t j = P_.v + 1; j < end_.v; ++j)
      if (g_.op(NodeId{j}) == Op::Store) stored.insert(c_.buf[j].v);
    if (stored.empty()) return false;
    for (uint32_t j = P_.v + 1; j < end_.v; ++j) {
      NodeId x{j};
      bool st = g_.op(x) == Op::Store;
      if ((!st && g_.op(x) != Op::Load) || !stored.count(c_.buf[j].v)) continue;
      NodeId v = c_.root[j];
      if (!st && !(v.v > P_.v && v.v < end_.v) && !writtenHere(v)) continue;  // a version the loop does not write
      Access a{x, c_.buf[j], st, {}, {}};
      for (NodeId w = c_.opnd(x, 0); g_.op(w) == Op::Shrink || g_.op(w) == Op::CShrink; w = c_.opnd(w, 0)) {
        a.offsets.push_back(w);
        if (!c_.isLit(w, 1)) targets.push_back(c_.opnd(w, 1));
      }
      acc_.push_back(std::move(a));
    }
    return true;
  }

  i128 element(const Access &a) const {
    i128 o = 0;
    for (const auto &x : a.args) o += en_.value(x);
    return o;
  }

  // Every access of iteration `it` (over all values inside it); false to stop.
  bool visit(i128 it) {
    for (const Access &a : acc_) {
      if (!sampling_ && ++work_ > c_.o.maxLaneWork) {
        over_ = true;
        return false;
      }
      i128 o = element(a);
      if (!a.store) {
        reads_.push_back({a.buffer.v, o, it, a.node});
        continue;
      }
      auto [w, fresh] = writer_.emplace(ElemKey{a.buffer.v, o}, it);
      if (fresh || w->second == it) continue;
      broken_ = true;
      blame(a.node, a.buffer);
      witness_ = "iterations " + num(w->second) + " and " + num(it) + " both write element " + num(o) + " of " + c_.nm(a.buffer) +
                 " (" + c_.nm(a.node) + ")";
      return false;
    }
    return true;
  }

  void blame(NodeId node, NodeId buffer) {
    clash_ = {node};
    for (const Access &o : acc_)
      if (o.store && o.buffer == buffer) clash_.push_back(o.node);
  }

  // For the current assignment of the values from outside: every iteration
  // (or a sample), then the loads against the stores. False when broken.
  bool iterations(bool sampling) {
    i128 bound = en_.intOperand(P_, 0);
    if (bound <= 0) return true;
    const i128 cap = sampling ? 16 : static_cast<i128>(c_.o.maxIndexRange);
    std::vector<i128> its;
    if (bound <= cap) {
      for (i128 k = 0; k < bound; ++k) its.push_back(k);
    } else {
      en_.sampled = true;
      its = sampledIterations(bound, sampling ? 16 : 2048);
    }
    writer_.clear();
    reads_.clear();
    const DType t = c_.f.type[P_.v];
    const size_t n = en_.cone().size();
    for (i128 it : its) {
      if (broken_ || (over_ && !sampling)) break;
      if (!sampling && ++work_ > c_.o.maxLaneWork) {  // iterations whose accesses all trap count too
        over_ = true;
        break;
      }
      val_[P_.v] = normalize(static_cast<Bits>(static_cast<int64_t>(it)), t);
      auto leaf = [&] { return visit(it); };
      if (!sampling) {
        en_.resetBudget();
        en_.each(at_ + 1, n, leaf);
        over_ = over_ || en_.over;
      } else {
        for (int s = 0; s < 16 && !broken_; ++s)
          if (en_.randomly(at_ + 1, n)) leaf();
      }
    }
    checkReads();
    return !broken_;
  }

  void checkReads() {
    for (const Read &r : reads_) {
      if (broken_) return;
      auto w = writer_.find(ElemKey{r.buffer, r.elem});
      if (w == writer_.end() || w->second == r.it) continue;
      broken_ = true;
      blame(r.node, NodeId{r.buffer});
      witness_ = "iteration " + num(r.it) + " reads element " + num(r.elem) + " of " + c_.nm(NodeId{r.buffer}) + " (" +
                 c_.nm(r.node) + "), which iteration " + num(w->second) + " writes";
    }
  }

  struct Read {
    uint32_t buffer;
    i128 elem, it;
    NodeId node;
  };

  Ctx &c_;
  const Graph &g_;
  NodeId P_, end_;
  std::vector<Bits> &val_;
  Enum en_;
  size_t at_ = 0;
  std::vector<Access> acc_;
  std::unordered_map<ElemKey, i128, ElemHash> writer_;  // element -> the iteration storing into it
  std::vector<Read> reads_;
  uint64_t work_ = 0;
  bool broken_ = false, over_ = false, sampling_ = false;
  std::string witness_;
  std::vector<NodeId> clash_;  // the accesses that clash
};

}  // namespace

void judgeLanes(Ctx &c) {
  std::vector<Bits> val(c.g.size(), 0);
  for (uint32_t pi = 0; pi < c.g.size(); ++pi) {
    NodeId P{pi};
    if (c.g.op(P) == Op::Range && c.g.parallel(P) && c.endOf[pi].valid()) LaneCheck(c, P, val).run();
  }
}

}  // namespace cairn::ref
