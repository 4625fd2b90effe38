// Effect rows, bottom-up over the call graph, and the checks that read them.
//
// A function's row is its own effects (lower/check/flow*.cpp) joined with
// its callees' rows, each callee's read:p / write:p renamed to what the call
// passed for p: read:x / write:x for a borrow x of the caller, nothing
// caller-visible (local_read / local_write) for the caller's own storage.
// An extern's row is what it declares, plus ffi:SYMBOL, ffi_precondition
// when it takes a borrow, and read:/write: of its views. Rows are computed
// to a fixed point in the order of the call graph's strongly connected
// components (Boost.Graph, callees first); a component that is a cycle of
// calls adds diverge to every member.
//
// Checked here: E-EXTERN-EFFECTS (an extern states its effects) and
// E-EFFECT-CEILING (a row within its declared ceiling). E-EFFECT-ORDER
// reads the rows too (lower/check/order.cpp).
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

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

// The row an extern declares, completed as the page says.
static FnRow externRow(lower::Lowering &L, uint32_t i) {
  FnRow r;
  const FnInst &f = L.fns[i];
  const ast::Item &it = L.prog.item(f.item);
  Loc at = it.span.loc();
  auto add = [&](const std::string &l) {
    r.effects.insert(l);
    r.why.emplace(l, std::make_pair(at, "declared by the extern " + it.name));
  };
  for (const ast::EffectLabel &l : it.effects) add(labelText(l));
  add("ffi:" + (it.symbol.empty() ? it.name : it.symbol));
  for (const FnInst::P &p : f.params) {
    if (p.k == FnInst::P::Value) continue;
    add("ffi_precondition");
    add((p.rw ? "write:" : "read:") + p.name);
  }
  return r;
}

static std::string rename(const std::string &label, const CallSite &site) {
  const size_t colon = label.find(':');
  const std::string_view kind = std::string_view(label).substr(0, colon);  // the whole label when it has no ':'
  if (kind == "local_read" || kind == "local_write") return "";
  if (kind != "read" && kind != "write") return label;
  auto r = site.rename.find(label.substr(colon + 1));
  if (r == site.rename.end() || r->second == "local") return "";
  std::string out(kind);
  return out.append(":").append(r->second, 2);
}

static void computeRows(CheckContext &cx) {
  lower::Lowering &L = cx.L;
  size_t n = L.fns.size();
  cx.rows.assign(n, FnRow{});
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  G g(n);
  std::vector<char> selfLoop(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const CallSite &s : cx.sums[i].calls)
      if (s.callee >= 0) {
        boost::add_edge(i, static_cast<size_t>(s.callee), g);
        if (static_cast<size_t>(s.callee) == i) selfLoop[i] = 1;
      }
  std::vector<int> comp(n);
  int ncomp = n ? boost::strong_components(g, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, g))) : 0;
  std::vector<std::vector<uint32_t>> members(ncomp);
  for (size_t i = 0; i < n; ++i) members[comp[i]].push_back(static_cast<uint32_t>(i));
  for (size_t i = 0; i < n; ++i) {
    FnRow &r = cx.rows[i];
    if (L.prog.item(L.fns[i].item).isExtern) {
      r = externRow(L, static_cast<uint32_t>(i));
      continue;
    }
    for (const auto &[l, at] : cx.sums[i].own) {
      r.effects.insert(l);
      r.why.emplace(l, std::make_pair(at, std::string()));
    }
  }
  // Components are numbered callees first (reverse topological order).
  for (int c = 0; c < ncomp; ++c) {
    bool cycle = members[c].size() > 1 || selfLoop[members[c][0]];
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t i : members[c]) {
        FnRow &r = cx.rows[i];
        if (cycle && r.effects.insert("diverge").second) {
          r.why.emplace("diverge", std::make_pair(L.prog.item(L.fns[i].item).span.loc(), "a cycle of calls"));
          changed = true;
        }
        for (const CallSite &s : cx.sums[i].calls) {
          if (s.callee < 0) continue;
          r.calls.insert(L.fns[s.callee].name);
          for (const std::string &l : cx.rows[s.callee].effects) {
            std::string m = rename(l, s);
            if (m.empty() || !r.effects.insert(m).second) continue;
            r.why.emplace(m, std::make_pair(s.at, "the call " + s.text));
            changed = true;
          }
        }
      }
    }
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
      const auto &w = cx.rows[i].why[l];
      d->note(w.first, l + " enters here" + (w.second.empty() ? "" : ", through " + w.second));
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

void checkOrder(CheckContext &cx, uint32_t fnIdx);  // order.cpp

bool checkProgram(lower::Lowering &L, Diags &diags, std::vector<FnRow> *rowsOut, std::vector<MoveEvent> *moves) {
  size_t before = diags.size();
  CheckContext cx{L, diags, {}, {}, {}, moves};
  cx.sums.resize(L.fns.size());
  checkExterns(cx);
  for (uint32_t i = 0; i < L.fns.size(); ++i) {
    if (L.prog.item(L.fns[i].item).isExtern) continue;
    BodyCheck(cx, i).run();
  }
  computeRows(cx);
  checkCeilings(cx);
  for (uint32_t i = 0; i < L.fns.size(); ++i)
    if (cx.sums[i].checked) checkOrder(cx, i);
  if (rowsOut) {
    for (uint32_t i = 0; i < L.fns.size(); ++i) cx.rows[i].unsafeBlocks = cx.sums[i].unsafeBlocks;
    *rowsOut = std::move(cx.rows);
  }
  return diags.size() == before;
}

}  // namespace cairn::check
