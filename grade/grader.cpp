// Grading one submission: limits, oracle, tests, and the loads' versions.
//
// Assumes the exercise was loaded by loadExercise (its cases carry expected
// contents in the reference's dtypes). Everything about the submission is
// checked before it is used: its slots may be missing, of another dtype or
// size; each mismatch fails the test with a sentence, never a crash. The
// whole function body is wrapped so that an exception (out of memory
// included) becomes an Error result for this submission alone.
#include "grade/grader.hpp"

#include <chrono>
#include <cmath>
#include <cstring>

#include "exec/interp.hpp"
#include "ir/check.hpp"
#include "ir/json.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "oracle/oracle.hpp"

namespace cairn::grade {

bool GradeResult::allPassed() const {
  if (status != Status::Graded) return false;
  for (const TestResult &t : tests)
    if (!t.passed) return false;
  return true;
}

size_t GradeResult::passedCount() const {
  size_t n = 0;
  for (const TestResult &t : tests) n += t.passed;
  return n;
}

const char *statusName(GradeResult::Status s) {
  switch (s) {
    case GradeResult::Status::Graded: return "graded";
    case GradeResult::Status::Invalid: return "invalid";
    case GradeResult::Status::Rejected: return "rejected";
    case GradeResult::Status::Error: return "error";
  }
  return "error";
}

namespace {

std::string pct(const Graph &g, NodeId n) {
  std::string s = "%";
  s += g.name(n);
  return s;
}

// Lines that define a node: not blank, not a comment. Counted without
// parsing, so a million-line submission is refused in one pass over bytes.
// Lines end as the reader ends them ("\n", "\r\n", a lone "\r"; a leading
// byte order mark skipped).
uint64_t countNodeLines(std::string_view text) {
  uint64_t n = 0;
  size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < text.size()) {
    size_t end = text.find_first_of("\r\n", i);
    if (end == std::string_view::npos) end = text.size();
    size_t k = i;
    while (k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r')) ++k;
    if (k < end && text[k] != '#') ++n;
    i = end + 1;
  }
  return n;
}

struct SubSlot {
  NodeId buffer;
  DType type;
  int64_t size;  // -1: dynamic
};

std::string valueText(const Literal &l, DType t) {
  if (t != DType::None)
    if (auto b = literalBits(l, t)) return bitsText(*b, t);
  return literalText(l);
}

// A trap's message for a test that must not show data: what kind of trap
// and where, never a value, index or size ("the program trapped: an index
// out of bounds at line 7"). Limits name only the limit.
std::string dataFreeTrap(const RunResult &run) {
  const std::string &m = run.message;
  std::string at = run.loc.line > 0 ? " at line " + std::to_string(run.loc.line) : "";
  if (m.rfind("exceeded the", 0) == 0 || m == "out of memory")
    return m + (run.loc.line > 0 ? " (at line " + std::to_string(run.loc.line) + ")" : "");
  std::string kind = m.find("division by zero") != std::string::npos ? "a division by zero"
                     : m.find("out of bounds") != std::string::npos  ? "an index out of bounds"
                     : m.find("is negative") != std::string::npos    ? "a negative buffer size"
                     : "";
  size_t lim = m.find("exceeds the limit of ");
  if (lim != std::string::npos) {  // the limit is the grader's, the size may be the test's
    size_t end = m.find(" elements", lim);
    kind = "a buffer " + m.substr(lim, end == std::string::npos ? std::string::npos : end + 9 - lim);
  }
  if (kind.empty()) return "the program trapped" + at;
  return "the program trapped: " + kind + at;
}

class Grader {
 public:
  Grader(const Exercise &ex, const Limits &lim, GradeResult &r) : ex_(ex), lim_(lim), r_(r) {}

  void run(std::string_view text, bool json, Graph *keep) {
    r_.maxScore = ex_.maxScore();
    for (const Test &t : ex_.tests) {
      TestResult tr;
      tr.name = t.name;
      tr.visibility = t.visibility;
      tr.visible = t.visible;
      tr.requirement = t.require.has_value();
      tr.points = t.points;
      tr.cases = t.cases.size();
      r_.tests.push_back(std::move(tr));
    }
    if (text.size() > lim_.maxBytes)
      return reject("the submission is " + std::to_string(text.size()) + " bytes; the limit is " +
                    std::to_string(lim_.maxBytes) + " bytes");
    if (!json) {
      uint64_t lines = countNodeLines(text);
      if (lines > lim_.maxNodes)
        return reject("the program has " + std::to_string(lines) + " lines that define nodes; the limit is " +
                      std::to_string(lim_.maxNodes) + " nodes");
    }
    Graph local;
    Graph &g = keep ? *keep : local;
    Facts facts;
    bool parsed = json ? parseJsonGraph(text, g, r_.diags) : parseUir(text, g, r_.diags);
    r_.nodes = g.size();
    if (g.size() > lim_.maxNodes)
      return reject("the program has " + std::to_string(g.size()) + " nodes; the limit is " +
                    std::to_string(lim_.maxNodes) + " nodes");
    if (!parsed || !validate(g, facts, r_.diags)) {
      r_.status = GradeResult::Status::Invalid;
      r_.diags.sort();
      // A cycle: an old-version-order error that lists its arrows as notes
      // (the serial-loop form of the rule names the loop instead).
      for (const Diagnostic &d : r_.diags.list())
        for (const Note &n : d.notes) r_.cycle |= d.rule == "old-version-order" && n.message.rfind("arrow ", 0) == 0;
      for (TestResult &t : r_.tests) t.failure = "not run: the oracle rejected the program";
      return;
    }
    ProgramPtr prog = compile(g, facts);
    CAIRN_CHECK(prog, "grade: compile returned no program");
    for (uint32_t i = 0; i < g.size(); ++i) {
      NodeId n{i};
      if (g.op(n) != Op::Buffer || g.slot(n) < 0) continue;
      int64_t size = -1;
      auto ops = g.operands(n);
      if (!ops.empty() && ops[0].isLit()) size = static_cast<int64_t>(g.literal(ops[0].lit()).magnitude);
      slots_[g.slot(n)] = SubSlot{n, g.dtype(n), size};
    }
    g_ = &g;
    r_.status = GradeResult::Status::Graded;
    bool anyFailed = false;
    for (size_t i = 0; i < ex_.tests.size(); ++i) {
      runTest(ex_.tests[i], r_.tests[i], *prog);
      anyFailed |= !r_.tests[i].passed;
    }
    if (anyFailed) r_.loads = describeLoads(g, facts);
  }

 private:
  const Exercise &ex_;
  const Limits &lim_;
  GradeResult &r_;
  const Graph *g_ = nullptr;
  std::map<int64_t, SubSlot> slots_;

  void reject(std::string why) {
    r_.status = GradeResult::Status::Rejected;
    r_.message = std::move(why);
    for (TestResult &t : r_.tests) t.failure = "not run: " + r_.message;
  }
  void error(std::string why) {
    r_.status = GradeResult::Status::Error;
    r_.message = std::move(why);
    for (TestResult &t : r_.tests) t.failure = "not run: " + r_.message;
  }

  std::string where(NodeId n) const { return pct(*g_, n) + " (line " + std::to_string(g_->loc(n).line) + ")"; }

  // Checks the case's input against the submission's slots; "" when fine.
  std::string checkInput(const Case &c, bool visible) const {
    for (const auto &[slot, vals] : c.input) {
      auto it = slots_.find(slot);
      std::string k = std::to_string(slot);
      if (it == slots_.end()) return "your program has no buffer bound to slot " + k + " (the test sets its data)";
      const SubSlot &s = it->second;
      if (s.size >= 0 && static_cast<uint64_t>(s.size) != vals.size())
        return visible ? "the test gives slot " + k + " " + std::to_string(vals.size()) + " values, but " + where(s.buffer) +
                             " has " + std::to_string(s.size) + " elements"
                       : "the test gives slot " + k + " another number of values than the " + std::to_string(s.size) +
                             " elements of " + where(s.buffer);
      for (size_t e = 0; e < vals.size(); ++e)
        if (!literalBits(vals[e], s.type))
          return "the test's value " + (visible ? literalText(vals[e]) + " " : std::string()) + "for slot " + k +
                 " does not fit " + std::string(dtypeName(s.type)) + ", the dtype of " + where(s.buffer);
    }
    return "";
  }

  void show(const Case &c, const RunResult *run, TestResult &tr) const {
    tr.input.clear();
    tr.expected.clear();
    tr.actual.clear();
    for (const auto &[slot, vals] : c.input) {
      auto it = slots_.find(slot);
      DType t = it == slots_.end() ? DType::None : it->second.type;
      for (const Literal &l : vals) tr.input[slot].push_back(valueText(l, t));
    }
    for (const auto &[slot, d] : c.expect) {
      auto &v = tr.expected[slot];
      for (Bits b : d.values) v.push_back(bitsText(b, d.type));
    }
    if (run && run->status == RunResult::Status::Ok)
      for (const SlotResult &s : run->slots)
        if (c.expect.count(s.slot)) {
          auto &v = tr.actual[s.slot];
          for (Bits b : s.values) v.push_back(bitsText(b, s.type));
        }
  }

  // Compares one run against the case; "" when it matches.
  std::string compare(const Case &c, const RunResult &run, TestResult &tr, const Test &t) const {
    bool visible = t.visible;
    for (const auto &[slot, want] : c.expect) {
      std::string k = std::to_string(slot);
      const SlotResult *got = nullptr;
      for (const SlotResult &s : run.slots)
        if (s.slot == slot) got = &s;
      if (!got) return "your program has no buffer bound to slot " + k + ", which the test checks";
      if (got->type != want.type)
        return "slot " + k + " holds " + std::string(dtypeName(got->type)) + " values; the exercise expects " +
               std::string(dtypeName(want.type));
      if (got->values.size() != want.values.size())
        return "slot " + k + " has " + std::to_string(got->values.size()) + " elements; expected " +
               (visible ? std::to_string(want.values.size()) : std::string("another number"));
      for (size_t e = 0; e < want.values.size(); ++e) {
        if (sameValue(got->values[e], want.values[e], want.type, t.tolerance)) continue;
        tr.diffSlot = slot;
        tr.diffIndex = e;
        std::string m = "slot " + k + " differs at element " + std::to_string(e);
        if (visible)
          m += ": expected " + bitsText(want.values[e], want.type) + ", got " + bitsText(got->values[e], got->type);
        return m;
      }
    }
    return "";
  }

  std::string trapText(const RunResult &run, bool visible) const {
    if (run.status == RunResult::Status::UsageError && !visible)
      return "the test's data for a slot does not fit your program's buffer (another number of elements)";
    if (!visible) return dataFreeTrap(run);
    if (run.status == RunResult::Status::UsageError) {
      // The interpreter words it for `cairn run --slot`; here the test gives the data.
      std::string m = run.message;
      for (size_t p; (p = m.find("--slot gave")) != std::string::npos;) m.replace(p, 11, "the test gives");
      return m;
    }
    std::string m = run.message;
    bool limit = m.rfind("exceeded", 0) == 0 || m.find("exceeds the limit") != std::string::npos;
    if (!limit && m.rfind("trap", 0) != 0) m = "trap: " + m;
    if (run.loc.line > 0) m += " (at line " + std::to_string(run.loc.line) + ")";
    return m;
  }

  void runTest(const Test &t, TestResult &tr, const Program &prog) {
    tr.ran = true;
    if (t.require) {
      tr.failure = checkRequirement(*g_, *t.require);
      return score(t, tr, tr.failure.empty() ? 1.0 : 0.0);
    }
    RunOptions o;
    o.limits.maxElements = lim_.maxElements;
    o.limits.maxSteps = lim_.maxSteps;
    o.limits.maxSeconds = lim_.timeout;
    std::string first;
    int64_t diffSlot = -1;  // the first failing case's, which later cases must not overwrite
    size_t diffIndex = 0;
    for (size_t i = 0; i < t.cases.size(); ++i) {
      const Case &c = t.cases[i];
      std::string why = checkInput(c, t.visible);
      RunResult run;
      if (why.empty()) {
        o.slotData = c.input;
        run = execute(prog, o);
        why = run.status == RunResult::Status::Ok ? compare(c, run, tr, t) : trapText(run, t.visible);
      }
      if (!why.empty() && ++tr.failedCases == 1) {
        tr.failedCase = i + 1;
        diffSlot = tr.diffSlot;
        diffIndex = tr.diffIndex;
        first = t.generated || t.cases.size() > 1 ? "case " + std::to_string(i + 1) + " of " + std::to_string(t.cases.size()) + ": " + why
                                   : why;
        if (t.visible) show(c, &run, tr);
        if (!t.partial) break;
      }
      if (i == 0 && t.visible && why.empty()) show(c, &run, tr);
    }
    if (tr.failedCases == 0) return score(t, tr, 1.0);
    tr.diffSlot = diffSlot;
    tr.diffIndex = diffIndex;
    tr.failure = t.partial ? std::to_string(tr.failedCases) + " of " + std::to_string(t.cases.size()) +
                                 " cases failed; the first, " + first
                           : first;
    size_t passed = t.cases.size() - tr.failedCases;
    score(t, tr, t.partial ? static_cast<double>(passed) / static_cast<double>(t.cases.size()) : 0.0);
  }

  void score(const Test &t, TestResult &tr, double fraction) {
    tr.passed = fraction == 1.0;
    tr.score = t.points * fraction;
    r_.score += tr.score;
    if (!tr.passed) tr.hint = t.hint;
  }
};

// The element a view names, when every shrink offset on its way to the
// version is a literal: its offset from the start of the buffer.
std::optional<uint64_t> staticOffset(const Graph &g, NodeId view) {
  uint64_t off = 0;
  NodeId n = view;
  for (int guard = 0; guard < 1 << 20; ++guard) {
    Op op = g.op(n);
    if (op != Op::Shrink && op != Op::CShrink) return off;
    auto ops = g.operands(n);
    if (ops.size() < 2 || !ops[1].isLit() || ops[0].isLit()) return std::nullopt;
    const Literal &l = g.literal(ops[1].lit());
    if (l.kind != Literal::Kind::Int || l.negative) return std::nullopt;
    off += l.magnitude;
    n = ops[0].node();
  }
  return std::nullopt;
}

std::string elementName(const Graph &g, NodeId buffer, std::optional<uint64_t> off) {
  std::string s(g.name(buffer));
  return off ? s + "[" + std::to_string(*off) + "]" : s + "[?]";
}

}  // namespace

std::vector<LoadRead> describeLoads(const Graph &g, const Facts &facts) {
  std::vector<LoadRead> out;
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId L{i};
    if (g.op(L) != Op::Load || g.operands(L).empty() || g.operands(L)[0].isLit()) continue;
    NodeId view = g.operands(L)[0].node(), V = facts.version[i], B = facts.storage[i];
    if (!V.valid() || !B.valid()) continue;
    LoadRead lr;
    lr.loc = g.loc(L);
    lr.text = nodeText(g, L);
    auto off = staticOffset(g, view);
    lr.element = off ? elementName(g, B, off) : "";
    std::string elem = off ? lr.element : "an element of " + std::string(g.name(B)) + " chosen at run time";
    lr.version = pct(g, V);
    // The store that made V, and the event that overwrites it.
    std::string made, next;
    bool wroteSame = false, overwritesSame = false;
    Op vop = g.op(V);
    if (vop == Op::Buffer) {
      made = lr.version + " is the initial version";
    } else if (vop == Op::Carry) {
      made = lr.version + " is the version carried into this iteration of the loop";
    } else if (vop == Op::After && g.operands(V).size() == 2 && !g.operands(V)[1].isLit()) {
      NodeId e = g.operands(V)[1].node();
      if (g.op(e) == Op::Store && !g.operands(e)[0].isLit()) {
        auto so = staticOffset(g, g.operands(e)[0].node());
        wroteSame = off && so && *so == *off;
        made = lr.version + " is the version after the store at line " + std::to_string(g.loc(e).line) +
               (wroteSame ? " (which wrote " + lr.element + ")" : "");
      } else {
        made = lr.version + " is the version after the loop that ends at line " + std::to_string(g.loc(e).line);
      }
    }
    NodeId succ = facts.successor(V);
    if (succ.valid() && g.operands(succ).size() == 2 && !g.operands(succ)[1].isLit()) {
      NodeId e = g.operands(succ)[1].node();
      std::string nv = pct(g, succ);
      if (g.op(e) == Op::Store && !g.operands(e)[0].isLit()) {
        auto so = staticOffset(g, g.operands(e)[0].node());
        overwritesSame = !off || !so || *so == *off;
        std::string what = so ? elementName(g, B, so) : "an element chosen at run time";
        next = "the store at line " + std::to_string(g.loc(e).line) + (overwritesSame && off && so ? " overwrites " : " writes ") +
               what + " in the next version, " + nv;
      } else {
        next = "the loop that ends at line " + std::to_string(g.loc(e).line) + " writes the next version, " + nv;
      }
    } else {
      next = "no store follows it: it is the final version";
    }
    lr.age = overwritesSame && off ? "old" : (wroteSame ? "new" : "");
    lr.description = "line " + std::to_string(lr.loc.line) + ": `" + lr.text + "` reads " +
                     (lr.age.empty() ? elem : "the " + lr.age + " " + elem) + " from " + lr.version + ": " + made +
                     ", and " + next + ".";
    out.push_back(std::move(lr));
  }
  return out;
}

GradeResult gradeSource(const Exercise &ex, std::string_view shown, std::string_view text, bool json, const Limits &limits,
                  Graph *keepGraph) {
  auto t0 = std::chrono::steady_clock::now();
  GradeResult r;
  r.exercise = ex.id;
  r.title = ex.title;
  r.submission = std::string(shown);
  try {
    Grader(ex, limits, r).run(text, json, keepGraph);
  } catch (const std::bad_alloc &) {
    r.status = GradeResult::Status::Error;
    r.message = "out of memory";
    r.score = 0;
  } catch (const InternalError &e) {  // kept to this submission (see grader.hpp), with where it happened
    r.status = GradeResult::Status::Error;
    r.message = "internal error: " + std::string(e.what()) + " (at " + e.file() + ":" + std::to_string(e.line()) + ")";
    r.score = 0;
  } catch (const std::exception &e) {
    r.status = GradeResult::Status::Error;
    r.message = std::string("internal error: ") + e.what();
    r.score = 0;
  }
  if (r.status == GradeResult::Status::Error)
    for (TestResult &t : r.tests) {
      t.passed = false;
      t.score = 0;
      if (t.failure.empty()) t.failure = "not run: " + r.message;
    }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

GradeResult gradeFile(const Exercise &ex, const std::string &path, const Limits &limits, Graph *keepGraph) {
  std::string text, why;
  bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (!readFileCapped(path, limits.maxBytes, text, why)) {
    GradeResult r = gradeSource(ex, path, "", false, limits);
    r.status = GradeResult::Status::Rejected;
    r.message = why;
    for (TestResult &t : r.tests) {
      t.passed = false;
      t.score = 0;
      t.ran = false;
      t.failure = "not run: " + why;
    }
    r.score = 0;
    return r;
  }
  return gradeSource(ex, path, text, json, limits, keepGraph);
}

}  // namespace cairn::grade
