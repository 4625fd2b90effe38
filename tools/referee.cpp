// The referee's ordering half: the lesson's rules decided by definition.
//
// What a version is written by, who sequences it and in which order things
// may run are all computed here from the graph alone (see referee.hpp for
// what is taken from the oracle's structure layer). The old-version rule is
// decided by search, not by a cycle test: for each region, the loads and
// events that must be ordered are placed one at a time, every placement
// respecting the data dependences between them (transitively, through
// nodes that are not placed) and the rule "a load of V before each event
// that overwrites V"; the program is fine iff some complete placement
// exists. The search remembers which sets of members it has already
// placed, so it is exact and visits each such set once.
#include "tools/referee.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

#include "ir/parser.hpp"
#include "tools/referee_impl.hpp"

namespace cairn {

bool RefereeVerdict::violates(std::string_view rule) const {
  return std::any_of(findings.begin(), findings.end(), [&](const RefereeFinding &f) { return f.rule == rule; });
}
bool RefereeVerdict::undecidedOn(std::string_view rule) const {
  return std::any_of(undecided.begin(), undecided.end(), [&](const RefereeFinding &f) { return f.rule == rule; });
}
std::set<std::string> RefereeVerdict::rules() const {
  std::set<std::string> s;
  for (const auto &f : findings) s.insert(f.rule);
  return s;
}

std::string verdictText(const Graph &g, const RefereeVerdict &v) {
  std::ostringstream os;
  if (!v.judged()) return "referee: not judged (the structure layer rejects the program)\n";
  auto line = [&](const char *what, const RefereeFinding &f) {
    os << "referee: " << what << " [" << f.rule << "]";
    if (f.node.valid() && f.node.v < g.size()) os << " at %" << g.name(f.node) << " (line " << g.loc(f.node).line << ")";
    os << ": " << f.message << '\n';
  };
  for (const auto &f : v.findings) line("broken", f);
  for (const auto &f : v.undecided) line("undecided", f);
  if (v.findings.empty() && v.undecided.empty()) os << "referee: valid (" << v.proven << " obligations proven)\n";
  return os.str();
}

namespace ref {

void deriveViews(Ctx &c) {
  const Graph &g = c.g;
  uint32_t n = g.size();
  c.root.assign(n, NodeId::none());
  c.buf.assign(n, NodeId::none());
  c.endOf.assign(n, NodeId::none());
  // Operands refer to earlier nodes only, so one pass in id order suffices.
  for (uint32_t i = 0; i < n; ++i) {
    NodeId x{i};
    switch (g.op(x)) {
      case Op::Buffer: c.root[i] = x; c.buf[i] = x; break;
      case Op::After:
      case Op::Carry: c.root[i] = x; c.buf[i] = c.buf[c.opnd(x, 0).v]; break;
      case Op::Shrink:
      case Op::CShrink: c.root[i] = c.root[c.opnd(x, 0).v]; c.buf[i] = c.buf[c.opnd(x, 0).v]; break;
      case Op::Store:
      case Op::Load: c.root[i] = c.root[c.opnd(x, 0).v]; c.buf[i] = c.buf[c.opnd(x, 0).v]; break;
      case Op::End: c.endOf[c.rangeOfEnd(x).v] = x; break;
      default: break;
    }
  }
}

namespace {

class Ordering {
 public:
  explicit Ordering(Ctx &c) : c_(c), g_(c.g) {}

  void run() {
    c_.listed.assign(g_.size(), NodeId::none());
    writes_.assign(g_.size(), {});
    collectWrites();
    sequencing();
    oneStore();
    oldVersions();
  }

 private:
  // ---- what each event writes ----
  void collectWrites() {
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId e{i};
      if (g_.op(e) == Op::Store) {
        writes_[i] = {c_.root[i]};
      } else if (g_.op(e) == Op::End) {
        NodeId r = c_.rangeOfEnd(e);
        auto ops = g_.operands(e);
        if (g_.parallel(r)) {
          for (size_t k = 1; k < ops.size(); ++k) {
            NodeId ev = ops[k].node();
            c_.listed[ev.v] = e;
            for (NodeId v : writes_[ev.v]) {
              if (std::find(writes_[i].begin(), writes_[i].end(), v) != writes_[i].end())
                c_.find("one-store-per-version", ev, "a second event of one parallel loop writes " + c_.nm(v), {e});
              else
                writes_[i].push_back(v);
            }
          }
        } else {
          // The carries of a serial body are the versions its loop writes.
          for (uint32_t j = r.v + 1; j < i; ++j)
            if (g_.op(NodeId{j}) == Op::Carry && g_.parent(NodeId{j}) == r) writes_[i].push_back(c_.opnd(NodeId{j}, 0));
        }
      }
    }
  }

  bool isEvent(NodeId e) const { return g_.op(e) == Op::Store || g_.op(e) == Op::End; }
  bool writesV(NodeId e, NodeId v) const {
    return std::find(writes_[e.v].begin(), writes_[e.v].end(), v) != writes_[e.v].end();
  }

  // ---- store-sequenced, after-version, loop ----
  void sequencing() {
    std::map<std::pair<uint32_t, uint32_t>, std::vector<NodeId>> afters;  // (event, version) -> correct afters
    std::vector<uint8_t> wrong(g_.size(), 0);
    std::vector<int> correct(g_.size(), 0);
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId a{i};
      if (g_.op(a) != Op::After) continue;
      NodeId v = c_.opnd(a, 0), e = c_.opnd(a, 1);
      if (!writesV(e, v)) {
        wrong[e.v] = 1;
        c_.find("after-version", a, c_.nm(e) + " does not write " + c_.nm(v), {e});
        continue;
      }
      afters[{e.v, v.v}].push_back(a);
      ++correct[e.v];
    }
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId e{i};
      if (!isEvent(e)) continue;
      if (g_.op(e) == Op::Store && !c_.inParallelBody(e) && g_.parent(c_.root[i]) != g_.parent(e)) {
        // No `after` could sequence such a store (it would have to be in two
        // regions at once), so, as the docs' precedence has it, it is this
        // error alone.
        c_.find("loop", e, "a store in a serial body writes " + c_.nm(c_.root[i]) + ", a version from outside it");
        continue;
      }
      if (c_.listed[i].valid()) {
        if (correct[i] > 0) c_.find("store-sequenced", e, "listed by its loop's end and also sequenced by an after", {c_.listed[i]});
        continue;
      }
      if (c_.inParallelBody(e)) {
        if (!writes_[i].empty() && !wrong[i])
          c_.find("store-sequenced", e, "in a parallel body but not listed by its end", {c_.endOf[g_.parent(e).v]});
        continue;
      }
      for (NodeId v : writes_[i]) {
        auto it = afters.find({e.v, v.v});
        size_t k = it == afters.end() ? 0 : it->second.size();
        if (k == 0 && !wrong[i]) c_.find("store-sequenced", e, "no after sequences its write into " + c_.nm(v));
        if (k > 1) c_.find("store-sequenced", e, std::to_string(k) + " afters sequence its write into " + c_.nm(v), it->second);
      }
    }
  }

  // ---- one-store-per-version; also who overwrites each version ----
  void oneStore() {
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId e{i};
      if (!isEvent(e) || c_.listed[i].valid()) continue;  // counted through its loop's end
      for (NodeId v : writes_[i]) {
        auto &w = writers_[v.v];
        if (!w.empty()) c_.find("one-store-per-version", e, c_.nm(v) + " is already written by " + c_.nm(w[0]), {w[0]});
        w.push_back(e);
      }
    }
  }

  // ---- old-version-order ----
  static uint32_t key(NodeId r) { return r.valid() ? r.v : UINT32_MAX; }
  NodeId regionOf(NodeId x) const { return g_.op(x) == Op::End ? g_.parent(c_.rangeOfEnd(x)) : g_.parent(x); }
  // The member of region r containing x (a nested loop stands for all of
  // its body); none when x is not inside r.
  NodeId memberIn(NodeId x, NodeId r) const {
    if (g_.op(x) == Op::End) x = c_.rangeOfEnd(x);
    while (x.valid() && g_.parent(x) != r) x = g_.parent(x);
    return x;
  }
  std::vector<NodeId> chain(NodeId r) const {  // r and the regions around it, innermost first
    std::vector<NodeId> v;
    for (; r.valid(); r = g_.parent(r)) v.push_back(r);
    v.push_back(NodeId::none());
    return v;
  }
  NodeId lowestCommon(NodeId a, NodeId b) const {
    auto ca = chain(a), cb = chain(b);
    for (NodeId x : ca)
      if (std::find(cb.begin(), cb.end(), x) != cb.end()) return x;
    return NodeId::none();
  }

  struct Need {
    NodeId first, then, load;  // members of one region: `first` must run before `then`
  };

  void oldVersions() {
    std::map<uint32_t, std::vector<Need>> needs;  // region -> order constraints
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId load{i};
      if (g_.op(load) != Op::Load) continue;
      NodeId v = c_.root[i];
      auto it = writers_.find(v.v);
      if (it == writers_.end()) continue;
      for (NodeId e : it->second) {
        for (int guard = 0; guard < 1000; ++guard) {
          NodeId r = lowestCommon(regionOf(load), regionOf(e));
          NodeId ml = memberIn(load, r), me = memberIn(e, r);
          if (ml != me) {
            needs[key(r)].push_back({ml, me, load});
            break;
          }
          // The load is inside the loop whose `end` (e) overwrites v.
          NodeId loop = c_.rangeOfEnd(e);
          if (!g_.parallel(loop)) {
            c_.find("old-version-order", load,
                    c_.nm(load) + " reads " + c_.nm(v) + " inside the serial loop " + c_.nm(loop) + " that overwrites it", {loop});
            break;
          }
          // Within a parallel loop the lane rule governs other lanes; in its
          // own lane the load must precede the inner event writing v.
          NodeId inner = NodeId::none();
          auto ops = g_.operands(e);
          for (size_t k = 1; k < ops.size() && !inner.valid(); ++k)
            if (writesV(ops[k].node(), v)) inner = ops[k].node();
          if (!inner.valid()) break;
          e = inner;
        }
      }
    }
    if (needs.empty()) return;
    liftDataEdges();
    for (auto &[r, list] : needs) searchRegion(list);
  }

  // Data dependences between members of one region: x uses y. Uses inside
  // a loop are the loop's; an `end`'s operands and a reduced value are
  // inside their loop; a loop index is used only inside its own loop.
  void liftDataEdges() {
    succ_.assign(g_.size(), {});
    for (uint32_t i = 0; i < g_.size(); ++i) {
      NodeId x{i};
      Op op = g_.op(x);
      if (op == Op::End) continue;
      auto ops = g_.operands(x);
      for (size_t k = 0; k < ops.size(); ++k) {
        if (ops[k].isLit() || (op == Op::Reduce && k == 1)) continue;
        NodeId y = ops[k].node();
        if (g_.op(y) == Op::Range) continue;
        NodeId r = regionOf(y);
        NodeId a = memberIn(y, r), b = memberIn(x, r);
        if (a.valid() && b.valid() && a != b) succ_[a.v].push_back(b);
      }
    }
  }

  void searchRegion(const std::vector<Need> &list) {
    std::vector<NodeId> mem;  // the constrained members
    for (const Need &n : list)
      for (NodeId x : {n.first, n.then})
        if (std::find(mem.begin(), mem.end(), x) == mem.end()) mem.push_back(x);
    NodeId blame = list[0].load;
    for (const Need &n : list) blame = n.load.v < blame.v ? n.load : blame;
    size_t m = mem.size();
    if (m > c_.o.maxOrderMembers || m > 24) {
      c_.undecided("old-version-order", blame, std::to_string(m) + " members to order in one region: too many to search");
      return;
    }
    auto idx = [&](NodeId x) { return static_cast<size_t>(std::find(mem.begin(), mem.end(), x) - mem.begin()); };
    std::vector<uint32_t> pred(m, 0);  // bit j of pred[k]: member j must be placed before member k
    // Data dependences, transitively (through any node of the region).
    std::vector<uint8_t> seen(g_.size(), 0);
    for (size_t k = 0; k < m; ++k) {
      std::fill(seen.begin(), seen.end(), 0);
      std::vector<NodeId> stack{mem[k]};
      while (!stack.empty()) {
        NodeId x = stack.back();
        stack.pop_back();
        for (NodeId y : succ_[x.v]) {
          if (seen[y.v]) continue;
          seen[y.v] = 1;
          stack.push_back(y);
          size_t j = idx(y);
          if (j < m && j != k) pred[j] |= 1u << k;
        }
      }
    }
    for (const Need &n : list) pred[idx(n.then)] |= 1u << idx(n.first);
    // Search the placements: a state is the set of members placed so far.
    const uint32_t full = m == 32 ? UINT32_MAX : (1u << m) - 1;
    std::vector<uint8_t> visited(size_t{1} << m, 0);
    std::vector<uint32_t> stack{0};
    visited[0] = 1;
    while (!stack.empty()) {
      uint32_t s = stack.back();
      stack.pop_back();
      if (s == full) return;  // every member placed: a valid order exists
      for (size_t k = 0; k < m; ++k) {
        uint32_t b = 1u << k;
        if ((s & b) || (pred[k] & ~s)) continue;  // placed already, or waits for an unplaced member
        uint32_t t = s | b;
        if (!visited[t]) {
          visited[t] = 1;
          stack.push_back(t);
        }
      }
    }
    std::string who;
    std::vector<NodeId> involved;
    for (const Need &n : list) {
      who += " " + c_.nm(n.load) + "<" + c_.nm(n.then);
      involved.push_back(n.load);
    }
    c_.find("old-version-order", blame, "no order of the region runs every load before the overwrite of its version:" + who, involved);
  }

  Ctx &c_;
  const Graph &g_;
  std::vector<std::vector<NodeId>> writes_;                     // event -> versions it writes
  std::unordered_map<uint32_t, std::vector<NodeId>> writers_;   // version -> events writing it
  std::vector<std::vector<NodeId>> succ_;                       // lifted data edges
};

}  // namespace
}  // namespace ref

RefereeVerdict referee(const Graph &g, const RefereeOptions &opts) {
  RefereeVerdict v;
  ref::Ctx c(g, opts, v);
  Diags d;
  if (!checkStructure(g, c.f, d)) {
    v.status = RefereeVerdict::Status::Unstructured;
    return v;
  }
  ref::deriveViews(c);
  ref::Ordering(c).run();
  ref::judgeBounds(c);
  if (opts.lanes) ref::judgeLanes(c);
  return v;
}

RefereeVerdict refereeText(std::string_view text, const RefereeOptions &opts) {
  Graph g;
  Diags d;
  if (!parseUir(text, g, d)) {
    RefereeVerdict v;
    v.status = RefereeVerdict::Status::Unstructured;
    return v;
  }
  return referee(g, opts);
}

Agreement compareWithOracle(std::string_view text, const RefereeOptions &opts) {
  Agreement a;
  Graph g;
  Diags d;
  Facts f;
  if (!parseUir(text, g, d)) return a;
  a.oracleValid = validate(g, f, d);
  RefereeVerdict v = referee(g, opts);
  if (!v.judged()) return a;
  std::set<std::string> oracle;
  for (const auto &dg : d.list()) oracle.insert(dg.rule);
  std::set<std::string> found = v.rules();
  std::string missed, extra, conservative;
  for (const auto &r : found)
    if (!oracle.count(r)) missed += " " + r, a.missed.push_back(r);
  // Finer: each finding must be matched by a diagnostic of its rule that
  // touches one of its nodes' lines (at its location or at one of its notes).
  for (const auto &fd : v.findings) {
    if (!oracle.count(fd.rule)) continue;  // already missed
    std::set<uint32_t> lines{g.loc(fd.node).line};
    for (NodeId r : fd.related)
      if (r.valid()) lines.insert(g.loc(r).line);
    bool hit = false;
    for (const auto &dg : d.list()) {
      if (dg.rule != fd.rule) continue;
      hit = hit || lines.count(dg.loc.line);
      for (const auto &n : dg.notes) hit = hit || lines.count(n.loc.line);
    }
    if (!hit) missed += " " + fd.rule + " (at %" + std::string(g.name(fd.node)) + ", line " + std::to_string(g.loc(fd.node).line) + ")";
    if (!hit && std::find(a.missed.begin(), a.missed.end(), fd.rule) == a.missed.end()) a.missed.push_back(fd.rule);
  }
  std::sort(a.missed.begin(), a.missed.end());
  for (const auto &r : oracle) {
    if (found.count(r)) continue;
    bool lenient = r == "bounds" || r == "lane";
    (lenient ? conservative : extra) += " " + r;
    using S = Agreement::Standing;
    if (lenient) a.refused.push_back({r, !v.findings.empty() ? S::Broken : v.valid() ? S::Proven : S::Undecided});
  }
  if (missed.empty() && extra.empty()) {
    a.kind = conservative.empty() ? Agreement::Kind::Agree : Agreement::Kind::Conservative;
    if (conservative.empty()) return a;
  } else {
    a.kind = Agreement::Kind::Disagree;
    a.unsound = a.oracleValid && !v.findings.empty();
  }
  std::ostringstream os;
  if (a.unsound) os << "UNSOUND ACCEPT: the oracle accepts a program the referee finds broken (with a witness below)\n";
  if (!missed.empty()) os << "the referee finds broken, the oracle does not report:" << missed << '\n';
  if (!extra.empty()) os << "the oracle reports, the referee finds no violation of:" << extra << '\n';
  if (!conservative.empty()) {
    os << "the oracle reports, the referee finds no violation (a conservative refusal):";
    const char *standing[] = {" (the program is proven valid)", " (nothing broken, but not every value tried)",
                              " (the program is broken otherwise)"};
    for (const auto &r : a.refused) os << " " << r.rule << standing[static_cast<int>(r.program)];
    os << '\n';
  }
  os << "--- oracle (" << (a.oracleValid ? "valid" : "invalid") << "):\n";
  d.sort();
  d.print(os, "prog.uir");
  os << "--- referee:\n" << verdictText(g, v) << "--- program:\n" << text;
  a.detail = os.str();
  return a;
}

}  // namespace cairn
