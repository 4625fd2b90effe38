// The lane rule (oracle/lanes.cpp) proven by enumeration. For a family of
// offset shapes f(i) of a `%i = range N parallel` loop (N literal in 1..300,
// or a const count of dtype i32/u8/u16/u32/i64), built from the index,
// casts to every integer dtype, add/sub/neg/mul/shl/shr/idiv/mod/and/min/
// max by constants, mul by loop-invariant values (consts, a loaded value
// masked with `and`, the count) and sums of two such terms: one store at
// f(i); two stores f(i), g(i) into one buffer; a store at f(i) and a load
// at g(i) of that buffer. Each program goes through the oracle (`validate`);
// its offsets are computed concretely by a serial companion program run by
// the interpreter (b[i] = f(i), a serial loop with carry, not the oracle's
// code), for every i < N (and several values of the loaded slot).
//
// Proven, for every accepted program: no element is written by two
// different iterations, and no load reads an element another iteration
// writes (an UNSOUND ACCEPT fails with the program and the two iterations).
// Checked for every refusal: a message never claims "every iteration writes
// the same element" when two iterations write different ones, and a claimed
// form `C*%i + r, where r is in [lo, hi]` holds of the enumerated offsets.
// Printed, not failed: conservative refusals (race-free by enumeration), by
// kind (LANE_DUMP=1 lists each one, and each false message, on stderr).
// Buffers are 2^62 elements and signed offsets get a bias of 2^61, so
// bounds rarely refuse; programs refused for bounds are not accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "exec/interp.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

namespace cairn {
namespace {

using i128 = __int128;

struct IntDt {
  const char *name;
  int bits;
  bool sgn;
};
const IntDt kDts[] = {{"i8", 8, true},   {"i16", 16, true},  {"i32", 32, true},  {"i64", 64, true},
                      {"u8", 8, false},  {"u16", 16, false}, {"u32", 32, false}, {"u64", 64, false}};
const IntDt &dtOf(const std::string &n) {
  for (const auto &d : kDts)
    if (n == d.name) return d;
  return kDts[3];
}
i128 wrapTo(i128 v, const IntDt &t) {
  i128 m = i128{1} << t.bits, r = v % m;
  if (r < 0) r += m;
  return t.sgn && r >= m / 2 ? r - m : r;
}
std::string s128(i128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  std::string s;
  for (; v != 0; v /= 10) s += char('0' + int(neg ? -(v % 10) : v % 10));
  if (neg) s += '-';
  return {s.rbegin(), s.rend()};
}
const i128 kBias = i128{1} << 61;  // signed offsets: cast to i64 + 2^61
const char *kSize = "4611686018427387904";  // 2^62 elements: bounds rarely refuse

// One step applied to the value so far. op: cast add sub rsub (`sub C x`)
// neg mul shl shr idiv mod and min max, and with an invariant INV (by kind
// c, Render::inv): inv (`mul x INV`), modinv (`mod x INV`), mininv (`min INV x`).
struct Stage {
  std::string op;
  i128 c = 0;
  std::string dt;  // cast
};
using Term = std::vector<Stage>;  // applied to the index, in order
struct Expr {
  Term a, b;
  char comb = 0;  // 0: f = a; '+' or '-': f = a comb b
};
enum class Form { One, TwoStores, StoreLoad };
struct Count {
  int n;
  std::string dt;  // empty: a literal count
};
struct Case {
  Form form = Form::One;
  Expr f, g;
  Count cnt{1, ""};
};

std::vector<Stage> stageList() {
  std::vector<Stage> s;
  for (const auto &d : kDts) s.push_back({"cast", 0, d.name});
  auto add = [&](const char *op, std::initializer_list<long long> cs) {
    for (long long c : cs) s.push_back({op, c, ""});
  };
  add("add", {1, 3, 255, 256, -1, -200});
  add("sub", {1, 256});
  add("rsub", {0, 1, 255, 1000});
  add("neg", {0});
  add("mul", {-1, 2, 3, 255, 256, -256});
  add("shl", {1, 2, 8, 31, 63, 64});
  add("shr", {1, 2, 8, 63});
  add("idiv", {2, 3, 4, -2});
  add("mod", {7, 256});
  add("and", {7, 255, -4});
  add("min", {5, 100});
  add("max", {0, -3});
  add("inv", {0, 1, 2, 3, 4, 5});  // const 3, const 0, const -1, (ld & 7), (ld & 7) + 1, the count
  add("modinv", {4, 5});            // mod x INV (a bound INV - 1)
  add("mininv", {3, 4, 5});         // min INV x (a bound INV)
  return s;
}

// Renders the shapes of one case as .uir lines: invariants before the loop
// (pre), the offsets' computation in the body; equal subterms share a node.
class Render {
 public:
  explicit Render(const Count &c) : cnt_(c), idx_{"%i", c.dt.empty() ? "i64" : c.dt} {}
  struct Val {
    std::string name, dt;
  };
  std::optional<Val> expr(const Expr &e) {
    auto a = term(e.a);
    if (!a || !e.comb) return bias(a);
    auto b = term(e.b);
    if (!b) return std::nullopt;
    if (b->dt != a->dt) b = line("cast " + b->name + " dtype=" + a->dt, a->dt, "c" + b->name + a->dt);
    return bias(line(std::string(e.comb == '+' ? "add " : "sub ") + a->name + " " + b->name, a->dt, a->name + e.comb + b->name));
  }
  // The value of invariant `name` when the loaded slot holds d (nullopt: not an invariant of ours).
  std::optional<i128> invValue(const std::string &name, i128 d) const {
    if (name == "%n") return cnt_.n;
    auto it = invs_.find(name);
    if (it == invs_.end()) return std::nullopt;
    const IntDt &t = dtOf(it->second.second);
    switch (it->second.first) {
      case 0: return wrapTo(3, t);
      case 1: return 0;
      case 2: return wrapTo(-1, t);
      case 3: return wrapTo(d, t) & 7;
      case 4: return (wrapTo(d, t) & 7) + 1;
      default: return wrapTo(cnt_.n, t);
    }
  }
  std::vector<std::string> pre, body;
  bool loads = false;
  std::string idxDt() const { return idx_.dt; }

 private:
  std::optional<Val> line(const std::string &rhs, const std::string &dt, const std::string &key) {
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    Val v{"%t" + std::to_string(memo_.size()), dt};
    body.push_back("  " + v.name + " = " + rhs);
    return memo_[key] = v;
  }
  std::optional<Val> bias(std::optional<Val> v) {
    if (!v || !dtOf(v->dt).sgn) return v;
    if (v->dt != "i64") v = line("cast " + v->name + " dtype=i64", "i64", "c" + v->name + "i64");
    return line("add " + v->name + " " + s128(kBias), "i64", "b" + v->name);
  }
  std::optional<Val> term(const Term &t) {
    std::optional<Val> v = idx_;
    for (const auto &s : t)
      if (!(v = stage(*v, s))) return v;
    return v;
  }
  std::optional<Val> stage(const Val &x, const Stage &s) {
    if (s.op == "cast") return line("cast " + x.name + " dtype=" + s.dt, s.dt, "c" + x.name + s.dt);
    if (s.op == "neg") return line("neg " + x.name, x.dt, "n" + x.name);
    if (s.op == "inv" || s.op == "modinv" || s.op == "mininv") {
      if (s.op == "modinv" && (s.c < 4 || (s.c == 5 && wrapTo(cnt_.n, dtOf(x.dt)) == 0))) return std::nullopt;  // may trap
      std::string n = inv(int(s.c), x.dt);
      if (s.op == "mininv") return line("min " + n + " " + x.name, x.dt, n + "min" + x.name);  // at most the invariant
      return line((s.op == "inv" ? "mul " : "mod ") + x.name + " " + n, x.dt, x.name + s.op + n);
    }
    std::string lit = s128(wrapTo(s.c, dtOf(x.dt)));
    if ((s.op == "idiv" || s.op == "mod") && lit == "0") return std::nullopt;  // would trap
    if (s.op == "rsub") return line("sub " + lit + " " + x.name, x.dt, lit + "-" + x.name);
    return line(s.op + " " + x.name + " " + lit, x.dt, x.name + s.op + lit);
  }
  std::string inv(int kind, const std::string &dt) {
    static const char *names[] = {"%k3_", "%k0_", "%km_", "%m_", "%m1_", "%n_"};
    std::string n = names[kind] + dt;
    if (kind == 5 && cnt_.dt == dt) return "%n";
    if (invs_.count(n)) return n;
    invs_[n] = {kind, dt};
    if (kind <= 2) pre.push_back(n + " = const " + (kind == 0 ? "3" : kind == 1 ? "0" : s128(wrapTo(-1, dtOf(dt)))) + " dtype=" + dt);
    if (kind == 3 || kind == 4) {
      loads = true;
      if (kind == 4) inv(3, dt);
      if (kind == 3) pre.push_back("%mc_" + dt + " = cast %ld dtype=" + dt);
      pre.push_back(kind == 3 ? n + " = and %mc_" + dt + " 7" : n + " = add %m_" + dt + " 1");
    }
    if (kind == 5)
      pre.push_back(n + " = " + (cnt_.dt.empty() ? "const " + s128(wrapTo(cnt_.n, dtOf(dt))) : "cast %n") + " dtype=" + dt);
    return n;
  }
  Count cnt_;
  Val idx_;
  std::map<std::string, Val> memo_;
  std::map<std::string, std::pair<int, std::string>> invs_;
};

// The subject (the parallel loop under test) and its serial companion
// (o0[i] = f(i), o1[i] = g(i)), sharing the rendered lines.
struct Built {
  bool ok = false;
  std::string subject, companion;
  std::string fdt, gdt;  // the offsets' dtypes
  bool loads = false;
  std::optional<Render> r;
};

Built build(const Case &c) {
  Built b;
  b.r.emplace(c.cnt);
  Render &r = *b.r;
  auto f = r.expr(c.f);
  std::optional<Render::Val> g;
  if (c.form != Form::One) g = r.expr(c.g);
  if (!f || (c.form != Form::One && !g)) return b;
  b.ok = true;
  b.fdt = f->dt;
  b.gdt = g ? g->dt : "";
  b.loads = r.loads;
  std::string n = std::to_string(c.cnt.n), head, body;
  if (r.loads) head += "%sl = buffer 1 dtype=i64 slot=1 data=[5]\n%slp = shrink %sl 0 shape=[]\n%ld = load %slp\n";
  if (!c.cnt.dt.empty()) head += "%n = const " + n + " dtype=" + c.cnt.dt + "\n";
  for (const auto &l : r.pre) head += l + "\n";
  for (const auto &l : r.body) body += l + "\n";
  std::string count = c.cnt.dt.empty() ? n : "%n";
  std::string s = "%b = buffer " + std::string(kSize) + " dtype=u8 slot=0\n" + head + "%i = range " + count + " parallel\n" + body;
  if (c.form == Form::One) s += "  %p = shrink %b " + f->name + " shape=[]\n  %s = store %p 1\n%e = end %i %s\n";
  if (c.form == Form::StoreLoad)
    s += "  %q = shrink %b " + g->name + " shape=[]\n  %x = load %q\n  %p = shrink %b " + f->name +
         " shape=[]\n  %s = store %p %x\n%e = end %i %s\n";
  if (c.form == Form::TwoStores)
    s += "  %j = range 1\n    %bc = carry %b\n    %p = shrink %bc " + f->name + " shape=[]\n    %s1 = store %p 1\n" +
         "    %b2 = after %bc %s1\n    %q = shrink %b2 " + g->name + " shape=[]\n    %s2 = store %q 2\n" +
         "    %b3 = after %b2 %s2\n  %ej = end %j %b3\n%e = end %i %ej\n";
  b.subject = s + "%b1 = after %b %e\n";
  std::string k = "%o0 = buffer " + n + " dtype=" + f->dt + " slot=0\n";
  if (g) k += "%o1 = buffer " + n + " dtype=" + g->dt + " slot=2\n";
  k += head + "%i = range " + count + "\n  %c0 = carry %o0\n" + (g ? "  %c1 = carry %o1\n" : "") + body;
  k += "  %w0 = shrink %c0 %i shape=[]\n  %s0 = store %w0 " + f->name + "\n  %a0 = after %c0 %s0\n";
  if (g) k += "  %w1 = shrink %c1 %i shape=[]\n  %s1 = store %w1 " + g->name + "\n  %a1 = after %c1 %s1\n";
  k += std::string("%e = end %i %a0") + (g ? " %a1" : "") + "\n%r0 = after %o0 %e\n" + (g ? "%r1 = after %o1 %e\n" : "");
  b.companion = k;
  return b;
}

std::string diagText(const Diags &d) {
  std::string s;
  for (const auto &x : d.list()) s += std::to_string(x.loc.line) + ": [" + x.rule + "] " + x.message + "\n";
  return s;
}

// The offsets of every iteration, by running the companion: one run per
// value of the loaded slot (data) when the shape loads one.
struct Run {
  i128 data;
  std::vector<i128> f, g;
};
std::vector<i128> slotValues(const RunResult &rr, int64_t slot, const std::string &dt) {
  std::vector<i128> out;
  for (const auto &s : rr.slots)
    if (s.slot == slot)
      for (Bits v : s.values) out.push_back(dtOf(dt).sgn ? i128(int64_t(v)) : i128(uint64_t(v)));
  return out;
}
std::vector<Run> evaluate(const Built &b, std::string &err) {
  Graph g;
  Facts f;
  Diags d;
  if (!parseUir(b.companion, g, d) || !validate(g, f, d)) {
    err = "the companion is invalid:\n" + b.companion + diagText(d);
    return {};
  }
  ProgramPtr p = compile(g, f);
  std::vector<Run> runs;
  std::vector<i128> datas = b.loads ? std::vector<i128>{5, 0, 1, 7, 8, -1} : std::vector<i128>{5};
  for (i128 dv : datas) {
    RunOptions o;
    if (b.loads) o.slotData[1] = {*parseLiteral(s128(dv))};
    RunResult rr = execute(*p, o);
    if (rr.status != RunResult::Status::Ok) {
      err = "the companion did not run: " + rr.message + "\n" + b.companion;
      return {};
    }
    runs.push_back({dv, slotValues(rr, 0, b.fdt), b.gdt.empty() ? std::vector<i128>{} : slotValues(rr, 2, b.gdt)});
  }
  return runs;
}

// The first race of one run: two iterations writing one element, or a load
// reading an element another iteration writes; "" when there is none.
std::string race(const Run &r, Form form) {
  std::vector<std::pair<i128, size_t>> w;
  for (size_t i = 0; i < r.f.size(); ++i) w.push_back({r.f[i], i});
  if (form == Form::TwoStores)
    for (size_t i = 0; i < r.g.size(); ++i) w.push_back({r.g[i], i});
  std::sort(w.begin(), w.end());
  for (size_t k = 1; k < w.size(); ++k)
    if (w[k].first == w[k - 1].first && w[k].second != w[k - 1].second)
      return "iterations " + std::to_string(w[k - 1].second) + " and " + std::to_string(w[k].second) + " both write element " +
             s128(w[k].first);
  if (form != Form::StoreLoad) return "";
  for (size_t i = 0; i < r.g.size(); ++i) {
    auto it = std::lower_bound(w.begin(), w.end(), std::pair<i128, size_t>{r.g[i], 0});
    for (; it != w.end() && it->first == r.g[i]; ++it)
      if (it->second != i)
        return "iteration " + std::to_string(i) + " loads element " + s128(r.g[i]) + ", which iteration " +
               std::to_string(it->second) + " writes";
  }
  return "";
}

std::optional<i128> parseInt(const std::string &s, size_t &pos) {
  bool neg = pos < s.size() && s[pos] == '-';
  size_t p = pos + (neg ? 1 : 0), start = p;
  i128 v = 0;
  for (; p < s.size() && isdigit(static_cast<unsigned char>(s[p])); ++p) v = v * 10 + (s[p] - '0');
  if (p == start) return std::nullopt;
  pos = p;
  return neg ? -v : v;
}

// A claim of a store's lane message that is false of run r; "" when true.
std::string falseClaim(const std::string &m, const Run &r, const Case &c, const Render &rd) {
  std::vector<const std::vector<i128> *> offs{&r.f};
  if (c.form == Form::TwoStores) offs.push_back(&r.g);
  // A message about one store's own offset ("the offset of %s2") is checked against that store only.
  if (m.find("the offset of %s1 ") != std::string::npos) offs = {&r.f};
  if (m.find("the offset of %s2 ") != std::string::npos && c.form == Form::TwoStores) offs = {&r.g};
  if (m.find("every iteration writes the same element") != std::string::npos)
    for (auto *o : offs)
      for (size_t i = 1; i < o->size(); ++i)
        if ((*o)[i] != (*o)[0])
          return "claims every iteration writes the same element, but iterations 0 and " + std::to_string(i) + " write " +
                 s128((*o)[0]) + " and " + s128((*o)[i]);
  size_t at = m.find("the offset is ");
  if (at == std::string::npos) at = m.find("the offset does not depend");
  if (at == std::string::npos) return "";
  size_t rr = m.find("r is in [", at);
  if (rr == std::string::npos && (rr = m.find("offset is in [", at)) != std::string::npos) rr += 5;  // no coefficient
  if (rr == std::string::npos) return "";
  i128 coef = 0;
  size_t star = m.find("*%i + r", at);
  if (star != std::string::npos && star < rr) {
    std::string tok = m.substr(at + 14, star - at - 14);
    size_t p = 0;
    if (auto v = parseInt(tok, p); v && p == tok.size()) coef = *v;
    else if (auto w = rd.invValue(tok, r.data)) coef = *w;
    else return "";
  }
  size_t p = rr + 9;
  auto lo = parseInt(m, p);
  p += 2;
  auto hi = parseInt(m, p);
  if (!lo || !hi) return "unparsed range in: " + m;
  bool oneRun = m.compare(p, 16, "] within one run") == 0;
  i128 mn = 0, mx = 0;
  bool first = true;
  for (auto *o : offs)
    for (size_t i = 0; i < o->size(); ++i) {
      i128 v = (*o)[i] - coef * i128(i);
      if (!oneRun && (v < *lo || v > *hi))
        return "claims r = offset - " + s128(coef) + "*i is in [" + s128(*lo) + ", " + s128(*hi) + "], but at i = " +
               std::to_string(i) + " it is " + s128(v);
      mn = first ? v : std::min(mn, v), mx = first ? v : std::max(mx, v), first = false;
    }
  if (oneRun && mx - mn > *hi - *lo)
    return "claims r = offset - " + s128(coef) + "*i spans [" + s128(*lo) + ", " + s128(*hi) + "] in one run, but it spans [" +
           s128(mn) + ", " + s128(mx) + "]";
  return "";
}

// s with its names and numbers blanked, cut at n characters.
std::string blank(const std::string &s, size_t n) {
  std::string out;
  for (size_t k = 0; k < s.size() && out.size() < n;) {
    bool name = s[k] == '%', num = isdigit(static_cast<unsigned char>(s[k]));
    out += name ? "%x" : num ? "#" : s.substr(k, 1);
    for (++k; (name || num) && k < s.size() && (isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_'); ++k) {}
  }
  return out;
}

// A refusal's kind: where the form was lost (the op) and why, or the message.
std::string category(const std::string &m, const std::string &subject) {
  size_t at = m.find(" through %t");
  if (at == std::string::npos) {
    at = m.find("element of %b: ");
    return blank(at == std::string::npos ? m.substr(m.find(", ") + 2) : m.substr(at + 15), 100);
  }
  std::string name = m.substr(at + 9, m.find(',', at) - at - 9);
  size_t op = subject.find("  " + name + " = ") + name.size() + 5;
  size_t why = m.find(", which ", at) + 8, end = m.find_first_of("(;", why);
  return "lost at `" + subject.substr(op, subject.find(' ', op) - op) + "`, which " + blank(m.substr(why, end - why), 100);
}

struct Stats {
  long programs = 0, accepted = 0, boundsOnly = 0, refusedRacy = 0, conservative = 0, laneOnlyRaces = 0, falseMsgs = 0;
  struct Example {
    long count = 0;
    int n = 0;  // the example's loop count (the largest seen)
    std::string text;
  };
  std::map<std::string, Example> byMsg;  // conservative refusals
  std::vector<std::string> failures;
  void fail(std::string s) {
    if (failures.size() < 8) failures.push_back(std::move(s));
  }
};

void runCase(const Case &c, Stats &st) {
  Built b = build(c);
  if (!b.ok) return;
  ++st.programs;
  Graph g;
  Facts f;
  Diags d;
  if (!parseUir(b.subject, g, d)) return st.fail("the subject does not parse:\n" + b.subject + diagText(d));
  bool valid = validate(g, f, d);
  std::vector<std::string> lanes;
  for (const auto &x : d.list()) {
    if (x.rule == "lane") lanes.push_back(x.message);
    else if (x.rule != "bounds") return st.fail("the subject is refused for " + x.rule + ":\n" + b.subject + diagText(d));
  }
  std::string err;
  std::vector<Run> runs = evaluate(b, err);
  if (runs.empty()) return st.fail(err);
  std::string racy;
  for (const Run &r : runs)
    if (racy.empty() && !(racy = race(r, c.form)).empty() && b.loads) racy += " (loaded slot = " + s128(r.data) + ")";
  if (valid) {
    ++st.accepted;
    if (!racy.empty()) st.fail("UNSOUND ACCEPT: " + racy + " in\n" + b.subject);
    return;
  }
  if (lanes.empty()) {  // refused for bounds only: not an accept
    ++st.boundsOnly;
    st.laneOnlyRaces += !racy.empty();
    return;
  }
  for (const auto &m : lanes)
    if (m.find("two iterations may write") != std::string::npos)
      for (const Run &r : runs)
        if (std::string why = falseClaim(m, r, c, *b.r); !why.empty()) {
          ++st.falseMsgs;
          if (getenv("LANE_DUMP")) std::cerr << "FALSE " << why << "\n" << m << "\n" << b.subject << "\n";
          return st.fail("FALSE MESSAGE: " + why + "\nmessage: " + m + "\nin\n" + b.subject);
        }
  if (!racy.empty()) return void(++st.refusedRacy);
  ++st.conservative;
  auto &e = st.byMsg[category(lanes[0], b.subject)];
  if (e.count++ == 0 || c.cnt.n > e.n) e.n = c.cnt.n, e.text = b.subject;
  if (getenv("LANE_DUMP")) std::cerr << "CONSERVATIVE " << lanes[0] << "\n" << b.subject << "\n";
}

void report(const char *what, const Stats &st, double secs) {
  std::cout << "[lane] " << what << ": " << st.programs << " programs in " << secs << " s: " << st.accepted << " accepted, "
            << st.refusedRacy << " refused with a race, " << st.conservative << " refused although race-free, " << st.boundsOnly
            << " refused for bounds only (" << st.laneOnlyRaces << " of them racy), " << st.falseMsgs << " false messages\n";
  std::vector<std::pair<long, std::string>> cats;
  for (const auto &[k, v] : st.byMsg) cats.push_back({v.count, k});
  std::sort(cats.rbegin(), cats.rend());
  for (size_t k = 0; k < cats.size() && k < 12; ++k) std::cout << "  " << cats[k].first << " x " << cats[k].second << "\n";
  for (size_t k = 0; k < cats.size() && k < 2; ++k) std::cout << "  e.g. (" << cats[k].second << "):\n" << st.byMsg.at(cats[k].second).text;
  for (const auto &f : st.failures) ADD_FAILURE() << f;
}

// The counts a shape runs under: literal 2, 300 and two from a list, and one
// dynamic count of a dtype from a list.
std::vector<Count> countsFor(size_t id) {
  static const int lits[] = {1, 3, 7, 128, 129, 200, 255, 256, 257, 299};
  static const char *dyn[] = {"i32", "u8", "u16", "u32", "i64"};
  static const int dyns[] = {2, 100, 255, 256, 300};
  int dn = dyns[(id / 5) % 5];
  if (std::string(dyn[id % 5]) == "u8") dn = std::min(dn, 255);
  std::vector<Count> v{{2, ""}, {300, ""}, {lits[id % 10], ""}, {dn, dyn[id % 5]}};
  if (lits[(id / 10 + 5) % 10] != lits[id % 10]) v.push_back({lits[(id / 10 + 5) % 10], ""});
  return v;
}

template <class F>
void runAll(const char *what, size_t n, F make) {
  auto t0 = std::chrono::steady_clock::now();
  Stats st;
  for (size_t id = 0; id < n; ++id)
    for (const Count &cnt : countsFor(id)) {
      Case c = make(id);
      c.cnt = cnt;
      runCase(c, st);
    }
  report(what, st, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

Term randomTerm(std::mt19937_64 &rng, const std::vector<Stage> &all, size_t lo, size_t hi) {
  Term t(std::uniform_int_distribution<size_t>(lo, hi)(rng));
  for (auto &s : t) s = all[rng() % all.size()];
  return t;
}

TEST(LaneExhaustive, SystematicShapes) {  // every composition of up to two stages
  std::vector<Stage> all = stageList();
  size_t n = all.size();
  runAll("depth <= 2", n + n * n, [&](size_t id) {
    Case c;
    if (id < n) c.f.a = {all[id]};
    else c.f.a = {all[(id - n) / n], all[(id - n) % n]};
    return c;
  });
}

TEST(LaneExhaustive, RandomShapes) {  // deeper compositions, and sums of two terms
  std::vector<Stage> all = stageList();
  std::mt19937_64 rng(20240611);
  std::vector<Case> cases(3000);
  for (size_t k = 0; k < cases.size(); ++k) {
    if (k % 3 == 2) {
      cases[k].f = {randomTerm(rng, all, 0, 2), randomTerm(rng, all, 0, 2), (rng() & 1) ? '+' : '-'};
    } else {
      cases[k].f.a = randomTerm(rng, all, 3, 4);
    }
  }
  runAll("random depth 3-4 and sums", cases.size(), [&](size_t id) { return cases[id]; });
}

TEST(LaneExhaustive, SumsOfTwoTerms) {  // a strided term (constant or invariant) plus any one stage
  std::vector<Stage> all = stageList();
  std::vector<Term> strides = {{}, {{"mul", 2, ""}}, {{"mul", -1, ""}}, {{"mul", 256, ""}}, {{"inv", 3, ""}},
                               {{"inv", 4, ""}}, {{"inv", 5, ""}}};
  size_t n = all.size();
  runAll("stride + one stage", strides.size() * n * 2, [&](size_t id) {
    Case c;
    c.f = {strides[id / (2 * n)], {all[(id / 2) % n]}, id % 2 ? '-' : '+'};
    return c;
  });
}

// f = c1*i + r1 and g = c2*i + r2 (systematic), and random f with g = f + d.
Case pairCase(size_t id, std::mt19937_64 &rng, const std::vector<Stage> &all) {
  static const long long cs[] = {1, 2, 3, -1, -2}, rs[] = {0, 1, 2, -1};
  Case c;
  c.form = id % 2 ? Form::StoreLoad : Form::TwoStores;
  size_t k = id / 2;
  if (k < 400) {
    auto aff = [](long long m, long long r) { return Term{{"mul", m, ""}, {"add", r, ""}}; };
    c.f.a = aff(cs[k % 5], rs[(k / 5) % 4]);
    c.g.a = aff(cs[(k / 20) % 5], rs[(k / 100) % 4]);
    return c;
  }
  c.f.a = randomTerm(rng, all, 1, 3);
  c.g.a = c.f.a;
  long long d = static_cast<long long>(rng() % 5) - 2;
  if (k % 3 == 0) c.g.a = randomTerm(rng, all, 1, 3);
  else if (d != 0 || k % 3 == 1) c.g.a.push_back({"add", d, ""});
  return c;
}

TEST(LaneExhaustive, TwoStoresAndLoads) {
  std::vector<Stage> all = stageList();
  std::mt19937_64 rng(7);
  std::vector<Case> cases;
  for (size_t id = 0; id < 2000; ++id) cases.push_back(pairCase(id, rng, all));
  runAll("two stores, store + load", cases.size(), [&](size_t id) { return cases[id]; });
}

// Shapes the rule must accept (and one it must refuse), from the issue.
std::string laneVerdict(const std::string &count, const std::string &body, const std::string &off) {
  std::string t = "%b = buffer 1000 dtype=i32 slot=0\n%i = range " + count + " parallel\n" + body + "  %p = shrink %b " + off +
                  " shape=[]\n  %s = store %p 1\n%e = end %i %s\n%b1 = after %b %e\n";
  Graph g;
  Facts f;
  Diags d;
  bool ok = parseUir(t, g, d) && validate(g, f, d);
  return ok ? "ok" : diagText(d);
}

TEST(LaneExhaustive, Precision) {
  EXPECT_EQ(laneVerdict("2", "  %j = sub 1 %i\n", "%j"), "ok");
  EXPECT_EQ(laneVerdict("10", "  %n = neg %i\n  %j = add %n 9\n", "%j"), "ok");
  EXPECT_EQ(laneVerdict("300", "  %m = mul %i 2\n  %j = idiv %m 2\n", "%j"), "ok");
  EXPECT_EQ(laneVerdict("200", "  %j = cast %i dtype=u8\n", "%j"), "ok");
  std::string v = laneVerdict("300", "  %j = cast %i dtype=u8\n", "%j");
  EXPECT_NE(v.find("[lane] in the parallel loop of %i, two iterations may write the same element of %b"), std::string::npos) << v;
  EXPECT_NE(v.find("wraps once %i > 255"), std::string::npos) << v;
  EXPECT_EQ(laneVerdict("200", "  %m = mul %i 4\n  %a = add %m 3\n  %j = shr %a 2\n", "%j"), "ok");
}

}  // namespace
}  // namespace cairn
