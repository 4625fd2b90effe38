// Effect rows, bottom-up over the call graph, and the checks that read them.
//
// A function's row is its own effects (lower/check/flow*.cpp) joined with
// its callees' rows, each callee's read:p / write:p renamed to what the call
// passed for p: read:x / write:x for a borrow x of the caller, nothing
// caller-visible (local_read / local_write) for the caller's own storage.
// An extern's row is what it declares, plus ffi:SYMBOL, ffi_precondition
// when it takes a borrow, and read:/write: of its views. Rows are computed
// to a fixed point in the order of the call graph's strongly connected
// components (callees first); a component that is a cycle of calls adds
// diverge to every member.
//
// Checked here: E-EXTERN-EFFECTS (an extern states its effects) and
// E-EFFECT-CEILING (a row within its declared ceiling). E-EFFECT-ORDER
// reads the rows too (lower/check/order.cpp).
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "lower/check/body.hpp"

namespace cairn::check {

Diagnostic *CheckContext::error(uint32_t file, Loc at, const char *code, std::string msg) {
  std::string key = std::to_string(file) + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + code;
  if (!reported.insert(key).second) return nullptr;
  return &L.prog.error(file, at, code, std::move(msg));
}

Diagnostic *CheckContext::error(uint32_t file, const ast::Span &sp, const char *code, std::string msg) {
  Diagnostic *d = error(file, sp.loc(), code, std::move(msg));
  if (d && sp.endLine == sp.line) d->span(Loc{sp.endLine, sp.endCol});
  return d;
}

static std::string labelText(const ast::EffectLabel &l) { return l.arg.empty() ? l.name : l.name + ":" + l.arg; }

// How a label entered row i ("" for the body's own).
static std::string how(CheckContext &cx, uint32_t i, const EffectWhy &w) {
  switch (w.k) {
    case EffectWhy::Own: return "";
    case EffectWhy::Extern: return "declared by the extern " + cx.L.prog.item(cx.L.fns[i].item).name;
    case EffectWhy::Cycle: return "a cycle of calls";
    case EffectWhy::Call: return std::string("the call ").append(w.call->text);
  }
  return "";
}

namespace {

// Every label the rows hold, by id, with what renaming it at a call needs
// worked out once. A row's labels are compared and joined as ids; their
// text is read only to sort a finished row.
struct LabelTable {
  enum Kind : uint8_t { Plain, Local, Read, Write };  // Local: local_read / local_write, never caller-visible
  struct Info {
    Kind kind;
    std::string_view param;  // Read/Write: what follows "read:" / "write:"
  };
  std::deque<std::string> text;  // by id (a deque: the views below stay valid)
  std::vector<std::string_view> view;  // by id: text's
  std::vector<Info> info;        // by id
  std::unordered_map<std::string_view, uint32_t> ids;

  uint32_t id(std::string_view l) {
    if (auto it = ids.find(l); it != ids.end()) return it->second;
    const std::string_view t = text.emplace_back(l);
    const size_t colon = t.find(':');
    const std::string_view kind = t.substr(0, colon);  // the whole label when it has no ':'
    Info in{Plain, {}};
    if (kind == "local_read" || kind == "local_write") in.kind = Local;
    else if (kind == "read" || kind == "write") in = Info{kind == "read" ? Read : Write, t.substr(colon + 1)};
    info.push_back(in);
    view.push_back(t);
    return ids.emplace(t, static_cast<uint32_t>(info.size() - 1)).first->second;
  }
  // The order of their texts, as std::string compares them (labels mostly
  // differ in their first byte).
  bool less(uint32_t a, uint32_t b) const {
    const std::string_view x = view[a], y = view[b];
    if (!x.empty() && !y.empty() && x[0] != y[0])
      return static_cast<unsigned char>(x[0]) < static_cast<unsigned char>(y[0]);
    return x < y;
  }
};

constexpr uint32_t kNone = UINT32_MAX;

// The rows of every instance, bottom-up over the call graph.
struct RowBuilder {
  RowBuilder(CheckContext &c, size_t n) : cx(c), ids(n) {}
  CheckContext &cx;
  LabelTable labels;
  std::vector<std::vector<uint32_t>> ids;  // by instance: its finished row's label ids
  std::vector<uint32_t> seen;              // by label id: 1 + the instance whose row last took it
  std::vector<uint32_t> found;             // the row being built: its label ids, each once, first met first
  std::vector<EffectWhy> foundWhy;         // ... and where each entered
  std::vector<const std::string *> calls;  // ... the names of its callees
  std::vector<uint32_t> order;             // ... found's indices, in the order of their labels
  std::string buf;

  // The label callee label `l` becomes at `site` (kNone: nothing
  // caller-visible is left of it).
  uint32_t rename(uint32_t l, const CallSite &site) {
    const LabelTable::Info in = labels.info[l];
    if (in.kind == LabelTable::Plain) return l;
    if (in.kind == LabelTable::Local) return kNone;
    for (const CallSite::Lent &p : site.rename)
      if (p.param == in.param) {
        if (!p.borrowed) return kNone;
        buf.assign(in.kind == LabelTable::Read ? "read:" : "write:").append(p.root);
        return labels.id(buf);
      }
    return kNone;
  }
  std::string_view renameText(std::string_view l, const CallSite &site) {
    const uint32_t m = rename(labels.id(l), site);
    return m == kNone ? std::string_view() : std::string_view(labels.text[m]);
  }

  void take(uint32_t i, uint32_t l, const EffectWhy &w) {
    if (seen.size() <= l) seen.resize(labels.info.size(), 0);
    if (seen[l] == i + 1) return;  // met before: the first stays
    seen[l] = i + 1;
    found.push_back(l);
    foundWhy.push_back(w);
  }

  void build(uint32_t i);
  void finish(uint32_t i);
  size_t addLabel(uint32_t i, std::string_view label, const EffectWhy &w);
  void externRow(uint32_t i);
  bool joinCallees(uint32_t i);
  void cycleRows(const std::vector<uint32_t> &members);
};

// Row i of a function that calls no member of its own component: its own
// labels, then each callee's (final) row renamed at the call, in call
// order; sorted, each label once with where it first entered.
void RowBuilder::build(uint32_t i) {
  found.clear();
  foundWhy.clear();
  calls.clear();
  for (const auto &[l, at] : cx.sums[i].own) take(i, labels.id(l), EffectWhy{EffectWhy::Own, at});
  for (const CallSite &s : cx.sums[i].calls) {
    if (s.callee < 0) continue;
    const auto callee = static_cast<size_t>(s.callee);
    calls.push_back(&cx.L.fns[callee].name);
    for (uint32_t l : ids[callee])
      if (uint32_t m = rename(l, s); m != kNone) take(i, m, EffectWhy{EffectWhy::Call, s.at, &s});
  }
  order.resize(found.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return labels.less(found[x], found[y]); });
  FnRow &r = cx.rows[i];
  r.effects.reserve(order.size());
  cx.why[i].reserve(order.size());
  ids[i].reserve(order.size());
  for (uint32_t k : order) {
    r.effects.push_back(labels.text[found[k]]);
    cx.why[i].push_back(foundWhy[k]);
    ids[i].push_back(found[k]);
  }
  std::sort(calls.begin(), calls.end(), [](const std::string *x, const std::string *y) { return *x < *y; });
  r.calls.reserve(calls.size());
  for (const std::string *c : calls)
    if (r.calls.empty() || r.calls.back() != *c) r.calls.push_back(*c);
}

// The ids of row i, built by text (an extern's, a cycle's).
void RowBuilder::finish(uint32_t i) {
  ids[i].clear();
  for (const std::string &l : cx.rows[i].effects) ids[i].push_back(labels.id(l));
}

// Adds `label` to row i where it sorts, with `w` beside it, unless the row
// has it; returns its position, or npos when it had it.
size_t RowBuilder::addLabel(uint32_t i, std::string_view label, const EffectWhy &w) {
  std::vector<std::string> &e = cx.rows[i].effects;
  auto at = std::lower_bound(e.begin(), e.end(), label,
                             [](const std::string &x, std::string_view y) { return std::string_view(x) < y; });
  if (at != e.end() && *at == label) return std::string::npos;
  const auto pos = at - e.begin();
  e.emplace(at, label);
  cx.why[i].insert(cx.why[i].begin() + pos, w);
  return static_cast<size_t>(pos);
}

// The row an extern declares, completed as the page says.
void RowBuilder::externRow(uint32_t i) {
  const FnInst &f = cx.L.fns[i];
  const ast::Item &it = cx.L.prog.item(f.item);
  const EffectWhy w{EffectWhy::Extern, it.span.loc()};
  for (const ast::EffectLabel &l : it.effects) addLabel(i, labelText(l), w);
  addLabel(i, "ffi:" + (it.symbol.empty() ? it.name : it.symbol), w);
  for (const FnInst::P &p : f.params) {
    if (p.k == FnInst::P::Value) continue;
    addLabel(i, "ffi_precondition", w);
    addLabel(i, (p.rw ? "write:" : "read:") + p.name, w);
  }
  finish(i);
}

// Joins the rows of i's callees into row i, renamed at each call; true when
// the row grew. A callee's labels are read in sorted order, and when the
// callee is i itself a label added behind the one being read is read too
// in this pass (as iterating a sorted set while inserting into it would).
bool RowBuilder::joinCallees(uint32_t i) {
  bool changed = false;
  for (const CallSite &s : cx.sums[i].calls) {
    if (s.callee < 0) continue;
    const auto callee = static_cast<uint32_t>(s.callee);
    FnRow &r = cx.rows[i];
    const std::string &name = cx.L.fns[callee].name;
    if (auto at = std::lower_bound(r.calls.begin(), r.calls.end(), name); at == r.calls.end() || *at != name)
      r.calls.insert(at, name);
    const EffectWhy w{EffectWhy::Call, s.at, &s};
    for (size_t k = 0; k < cx.rows[callee].effects.size(); ++k) {
      const std::string_view l = renameText(cx.rows[callee].effects[k], s);
      if (l.empty()) continue;
      const size_t pos = addLabel(i, l, w);
      if (pos == std::string::npos) continue;
      if (callee == i && pos <= k) ++k;  // the label being read moved up one
      changed = true;
    }
  }
  return changed;
}

// A cycle of calls, to its fixed point: every member is seeded, then each
// joins its callees until no row grows.
void RowBuilder::cycleRows(const std::vector<uint32_t> &members) {
  lower::Lowering &L = cx.L;
  for (uint32_t i : members)
    if (!L.prog.item(L.fns[i].item).isExtern)
      for (const auto &[l, at] : cx.sums[i].own) addLabel(i, l, EffectWhy{EffectWhy::Own, at});
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i : members) {
      const EffectWhy w{EffectWhy::Cycle, L.prog.item(L.fns[i].item).span.loc()};
      if (addLabel(i, "diverge", w) != std::string::npos) changed = true;
      changed = joinCallees(i) || changed;
    }
  }
  for (uint32_t i : members) finish(i);
}

// The strongly connected components of the call graph (Boost.Graph's, on a
// compressed sparse row graph: no allocation per function), numbered as
// they complete, which is callees first; each lists its members in
// instance order. `cycle[c]`: component c is a cycle of calls (more than
// one member, or one that calls itself).
std::vector<std::vector<uint32_t>> components(CheckContext &cx, std::vector<char> &cycle) {
  const size_t n = cx.L.fns.size();
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // (caller, callee), by caller
  std::vector<char> selfLoop(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const CallSite &s : cx.sums[i].calls)
      if (s.callee >= 0) {
        edges.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(s.callee));
        if (static_cast<size_t>(s.callee) == i) selfLoop[i] = 1;
      }
  using G = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                               boost::no_property, uint32_t, uint32_t>;
  G g(boost::edges_are_sorted, edges.begin(), edges.end(), n);
  std::vector<uint32_t> comp(n);
  size_t ncomp = n ? static_cast<size_t>(boost::strong_components(
                         g, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, g))))
                   : 0;
  std::vector<std::vector<uint32_t>> members(ncomp);
  for (uint32_t i = 0; i < n; ++i) members[comp[i]].push_back(i);
  cycle.assign(ncomp, 0);
  for (size_t c = 0; c < ncomp; ++c) cycle[c] = members[c].size() > 1 || selfLoop[members[c][0]];
  return members;
}

}  // namespace

// Components callees first: a component's rows read only its own and
// those of components before it, which are final. A component of one
// function that does not call itself needs one pass.
static void computeRows(CheckContext &cx) {
  lower::Lowering &L = cx.L;
  const size_t n = L.fns.size();
  cx.rows.assign(n, FnRow{});
  cx.why.assign(n, {});
  std::vector<char> cycle;
  const std::vector<std::vector<uint32_t>> members = components(cx, cycle);
  RowBuilder rb(cx, n);
  for (size_t c = 0; c < members.size(); ++c) {
    const uint32_t i = members[c][0];
    if (cycle[c]) rb.cycleRows(members[c]);
    else if (L.prog.item(L.fns[i].item).isExtern) rb.externRow(i);
    else rb.build(i);
  }
}

// What a ceiling allows: pure allows the page's list and reads of what the
// function was lent; effects(...) allows what it lists and, like pure, the
// function's own frame (local_read, local_write, stack_storage, zero_init).
static bool allowed(const ast::Item &it, const std::string &l) {
  static const std::set<std::string> frame{"local_read", "local_write", "stack_storage", "zero_init"};
  static const std::set<std::string> pure{"trap", "diverge", "local_read", "local_write",
                                          "stack_storage", "zero_init", "ffi_precondition"};
  if (it.ceiling == ast::Ceiling::Pure) return pure.count(l) || l.rfind("read:", 0) == 0;
  if (frame.count(l)) return true;
  for (const ast::EffectLabel &e : it.effects)
    if (labelText(e) == l) return true;
  return false;
}

static void checkCeilings(CheckContext &cx) {
  lower::Lowering &L = cx.L;
  for (size_t i = 0; i < L.fns.size(); ++i) {
    const ast::Item &it = L.prog.item(L.fns[i].item);
    if (it.isExtern || it.ceiling == ast::Ceiling::None || !cx.sums[i].checked) continue;
    std::vector<std::string> over;
    for (const std::string &l : cx.rows[i].effects)
      if (!allowed(it, l)) over.push_back(l);
    if (over.empty()) continue;
    std::string list;
    for (const std::string &l : over) list += (list.empty() ? "" : ", ") + l;
    Diagnostic *d = cx.error(L.fns[i].item.file, it.span.loc(), "E-EFFECT-CEILING",
                             it.name + " exceeds its declared effects. Its row has " + list + ", which " +
                                 (it.ceiling == ast::Ceiling::Pure ? "pure" : "its effects(...)") + " does not allow.");
    if (!d) continue;
    for (const std::string &l : over) {
      const std::vector<std::string> &e = cx.rows[i].effects;
      const EffectWhy &w = cx.why[i][static_cast<size_t>(std::lower_bound(e.begin(), e.end(), l) - e.begin())];
      const std::string through = how(cx, static_cast<uint32_t>(i), w);
      d->note(w.at, l + " enters here" + (through.empty() ? "" : ", through " + through));
    }
  }
}

static void checkExterns(CheckContext &cx) {
  sema::Program &P = cx.L.prog;
  for (uint32_t f = 0; f < P.files.size(); ++f)
    for (ast::ItemId id : P.files[f]->ast.top) {
      const ast::Item &it = P.files[f]->ast.item(id);
      if (it.kind != ast::ItemKind::Fn || !it.isExtern || it.ceiling != ast::Ceiling::None) continue;
      cx.error(f, it.span.loc(), "E-EXTERN-EFFECTS",
               "The checker cannot see the body of the extern " + it.name +
                   ", so its effects are mandatory: declare them, as effects(io), or effects() when it has none.");
    }
}

void checkOrders(CheckContext &cx);  // order.cpp

bool checkProgram(lower::Lowering &L, Diags &diags, std::vector<FnRow> *rowsOut, std::vector<MoveEvent> *moves) {
  size_t before = diags.size();
  CheckContext cx{L, diags, {}, {}, {}, {}, {}, moves};
  cx.sums.resize(L.fns.size());
  checkExterns(cx);
  for (uint32_t i = 0; i < L.fns.size(); ++i) {
    if (L.prog.item(L.fns[i].item).isExtern) continue;
    BodyCheck(cx, i).run();
  }
  computeRows(cx);
  checkCeilings(cx);
  checkOrders(cx);
  if (rowsOut) {
    for (uint32_t i = 0; i < L.fns.size(); ++i) cx.rows[i].unsafeBlocks = cx.sums[i].unsafeBlocks;
    *rowsOut = std::move(cx.rows);
  }
  return diags.size() == before;
}

}  // namespace cairn::check
