// Text, JSON and Gradescope renderings of a grade (see report.hpp).
//
// All three are built from the same GradeResult, so they always agree. The
// text form is what a student reads in a terminal; the Gradescope form puts
// the same blocks in each test's `output`. JSON numbers: integers exact,
// floats as JSON numbers, NaN and infinities as strings (as `cairn run`).
//
// Every rendering is bounded, whatever the submission: each line of a
// diagnostic or a load at most kMaxLine bytes, at most Diags::kLimit
// errors and kMaxNotes notes per error, kMaxLoads loads, kMaxValues values
// per slot in text (kMaxJsonValues in JSON), and the text (or a Gradescope
// output) at most kMaxFeedback bytes; each cut says what it left out.
#include "grade/report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace cairn::grade {

using nlohmann::json;

namespace {
constexpr size_t kMaxLine = 200, kMaxNotes = 50, kMaxLoads = 50, kMaxValues = 64, kMaxJsonValues = 1000;
constexpr size_t kMaxFeedback = 64 * 1024;
}  // namespace

std::string pointsText(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", p);
  return buf;
}

namespace {

// At most `max` bytes, cut at a character boundary, "..." when cut.
std::string capped(const std::string &s, size_t max = kMaxLine) {
  if (s.size() <= max) return s;
  size_t n = max - 3;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "...";
}

// At most kMaxValues values: a window around `mark` (or the start), with
// "..." and the count of values left out at either end.
std::string slotLine(const std::vector<std::string> &v, size_t *starts = nullptr, size_t mark = SIZE_MAX) {
  size_t from = 0, to = v.size();
  if (v.size() > kMaxValues) {
    size_t centre = mark < v.size() ? mark : 0;
    from = centre > kMaxValues / 2 ? centre - kMaxValues / 2 : 0;
    to = std::min(v.size(), from + kMaxValues);
    from = to - kMaxValues;
  }
  std::string s = "[";
  if (from) s += "(" + std::to_string(from) + " values) ... ";
  for (size_t i = from; i < to; ++i) {
    if (i > from) s += ' ';
    if (starts && i == mark) *starts = s.size();
    s += capped(v[i], 40);
  }
  if (to < v.size()) s += " ... (" + std::to_string(v.size() - to) + " more values)";
  return s + "]";
}

// A value text as JSON: a number when it is one, else the string.
json valueJson(const std::string &s) {
  if (s == "nan" || s == "-nan" || s == "inf" || s == "-inf") return s;
  json j = json::parse(s, nullptr, false);
  return j.is_number() ? j : json(s);
}

// The first kMaxJsonValues values of each slot; `cut` counts the rest.
json slotsJson(const SlotText &m, size_t &cut) {
  json o = json::object();
  for (const auto &[slot, vals] : m) {
    json a = json::array();
    for (size_t i = 0; i < vals.size() && i < kMaxJsonValues; ++i) a.push_back(valueJson(vals[i]));
    if (vals.size() > kMaxJsonValues) cut += vals.size() - kMaxJsonValues;
    o[std::to_string(slot)] = std::move(a);
  }
  return o;
}

// As Diags::print, with every message capped, at most kMaxNotes notes per
// error, and the exact count of the errors past the limit.
std::string diagText(const GradeResult &r) {
  std::string s;
  const std::string file = capped(r.submission);
  for (const Diagnostic &d : r.diags.list()) {
    s += file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": error: " + capped(d.message) + " [" +
         d.rule + "]\n";
    for (size_t k = 0; k < d.notes.size() && k < kMaxNotes; ++k)
      s += file + ":" + std::to_string(d.notes[k].loc.line) + ":" + std::to_string(d.notes[k].loc.col) +
           ": note: " + capped(d.notes[k].message) + "\n";
    if (d.notes.size() > kMaxNotes) s += file + ": note: and " + std::to_string(d.notes.size() - kMaxNotes) + " more notes\n";
  }
  if (r.diags.dropped())
    s += file + ": note: " + std::to_string(r.diags.dropped()) + " more error(s) not shown (limit " +
         std::to_string(Diags::kLimit) + ")\n";
  return s;
}

json diagsJson(const GradeResult &r) {
  json arr = json::array();
  for (const Diagnostic &d : r.diags.list()) {
    json notes = json::array();
    for (size_t k = 0; k < d.notes.size() && k < kMaxNotes; ++k)
      notes.push_back({{"line", d.notes[k].loc.line}, {"col", d.notes[k].loc.col}, {"message", capped(d.notes[k].message)}});
    arr.push_back({{"line", d.loc.line}, {"col", d.loc.col}, {"rule", d.rule}, {"message", capped(d.message)}, {"notes", notes}});
  }
  return arr;
}

// Whether the loads' versions can explain a failure: some test failed on
// wrong values (not a trap, a limit, or a slot of another dtype or size).
bool loadsExplain(const GradeResult &r) {
  if (r.loads.empty()) return false;
  for (const TestResult &t : r.tests)
    if (t.ran && !t.passed && t.diffSlot >= 0) return true;
  return false;
}

std::string loadsText(const GradeResult &r, const std::string &indent) {
  if (!loadsExplain(r)) return "";
  std::string s = "Which versions your loads read:\n";
  for (size_t k = 0; k < r.loads.size() && k < kMaxLoads; ++k) s += indent + capped(r.loads[k].description, 2 * kMaxLine) + "\n";
  if (r.loads.size() > kMaxLoads) s += indent + "and " + std::to_string(r.loads.size() - kMaxLoads) + " more loads\n";
  return s;
}

// At most kMaxFeedback bytes, cut at a line end, with a note saying so.
std::string bounded(std::string s) {
  if (s.size() <= kMaxFeedback) return s;
  size_t cut = s.rfind('\n', kMaxFeedback - 200);
  cut = cut == std::string::npos ? kMaxFeedback - 200 : cut + 1;
  size_t left = s.size() - cut;
  s.resize(cut);
  return s + "(the feedback was cut at " + std::to_string(cut) + " bytes; " + std::to_string(left) + " more bytes left out)\n";
}

std::string header(const GradeResult &r) {
  return "Grading " + r.exercise + (r.title.empty() ? "" : " (" + r.title + ")") + ": " + capped(r.submission) + "\n";
}

std::string scoreLine(const GradeResult &r) {
  return "Score: " + pointsText(r.score) + "/" + pointsText(r.maxScore) + " (" + std::to_string(r.passedCount()) +
         " of " + std::to_string(r.tests.size()) + " tests passed)\n";
}

std::string verdict(const GradeResult &r) {
  switch (r.status) {
    case GradeResult::Status::Graded:
      return "The oracle accepts the program (" + std::to_string(r.nodes) + " nodes).\n";
    case GradeResult::Status::Invalid:
      return std::string("The oracle rejected the program, so no test ran") +
             (r.cycle ? " (the cycle's arrows are listed as notes)" : "") + ":\n" + diagText(r);
    case GradeResult::Status::Rejected: return "The submission was not graded: " + capped(r.message, 2 * kMaxLine) + "\n";
    case GradeResult::Status::Error: return "The grader failed on this submission: " + capped(r.message, 2 * kMaxLine) + "\n";
  }
  return "";
}

}  // namespace

std::string testDetail(const TestResult &t, const std::string &indent) {
  std::string s;
  if (!t.passed && !t.failure.empty()) s += indent + capped(t.failure, 2 * kMaxLine) + "\n";
  if (!t.passed && !t.hint.empty()) s += indent + "hint: " + capped(t.hint, 2 * kMaxLine) + "\n";
  if (!t.visible || !t.ran) return s;
  auto block = [&](const char *label, const SlotText &m, bool mark) {
    for (const auto &[slot, vals] : m) {
      std::string lead = indent + label + "slot " + std::to_string(slot) + " = ";
      size_t at = SIZE_MAX;
      bool here = mark && slot == t.diffSlot;
      s += lead + slotLine(vals, here ? &at : nullptr, here ? t.diffIndex : SIZE_MAX) + "\n";
      if (here && at != SIZE_MAX && t.diffIndex < vals.size())
        s += std::string(lead.size() + at, ' ') + std::string(std::max<size_t>(vals[t.diffIndex].size(), 1), '^') + "\n";
    }
  };
  block("input     ", t.input, false);
  block("expected  ", t.expected, !t.passed);
  if (!t.actual.empty() || !t.passed) block("actual    ", t.actual, !t.passed);
  return s;
}

std::string renderText(const GradeResult &r, const ExplainFiles *explain) {
  std::string s = header(r) + verdict(r);
  if (r.status == GradeResult::Status::Graded) {
    s += "\n";
    for (const TestResult &t : r.tests) {
      s += std::string(t.passed ? "PASS  " : "FAIL  ") + t.name + (t.visible ? "" : " (hidden)") + "  [" +
           pointsText(t.score) + "/" + pointsText(t.points) + "]";
      // One line when the test sets and checks the same one slot; otherwise
      // each slot's input and result on its own labeled line.
      if (t.passed && t.visible && t.input.size() == 1 && t.actual.size() == 1 &&
          t.input.begin()->first == t.actual.begin()->first) {
        s += "  slot " + std::to_string(t.input.begin()->first) + ": " + slotLine(t.input.begin()->second) + " -> " +
             slotLine(t.actual.begin()->second) + "\n";
        continue;
      }
      s += "\n" + testDetail(t, "      ");
    }
    if (loadsExplain(r)) s += "\n" + loadsText(r, "  ");
  }
  if (explain) {
    if (!explain->dot.empty()) s += "\nThe picture: " + explain->dot + (explain->svg.empty() ? "" : " and " + explain->svg) + "\n";
    if (!explain->note.empty()) s += (explain->dot.empty() ? "\n" : "") + explain->note + "\n";
  }
  return bounded(std::move(s)) + "\n" + scoreLine(r);
}

json renderJson(const GradeResult &r, const ExplainFiles *explain) {
  json j;
  j["format"] = "cairn-grade";
  j["version"] = 1;
  j["exercise"] = r.exercise;
  j["title"] = r.title;
  j["submission"] = r.submission;
  j["status"] = statusName(r.status);
  j["message"] = r.message;
  j["valid"] = r.status == GradeResult::Status::Graded;
  j["score"] = r.score;
  j["max_score"] = r.maxScore;
  j["passed"] = r.passedCount();
  j["failed"] = r.tests.size() - r.passedCount();
  j["nodes"] = r.nodes;
  j["diagnostics"] = diagsJson(r);
  json tests = json::array();
  size_t values = 0;  // slot values left out
  for (const TestResult &t : r.tests) {
    json x;
    x["name"] = t.name;
    x["visible"] = t.visible;
    x["visibility"] = visibilityName(t.visibility);
    x["hint"] = t.hint.empty() ? json(nullptr) : json(t.hint);
    x["status"] = t.passed ? "passed" : (t.ran ? "failed" : "not-run");
    x["score"] = t.score;
    x["max_score"] = t.points;
    x["cases"] = t.cases;
    x["failed_case"] = t.failedCase ? json(t.failedCase) : json(nullptr);
    x["failure"] = t.passed ? json(nullptr) : json(capped(t.failure, 2 * kMaxLine));
    if (t.visible && t.ran) {
      x["input"] = slotsJson(t.input, values);
      x["expected"] = slotsJson(t.expected, values);
      x["actual"] = slotsJson(t.actual, values);
    }
    if (t.diffSlot >= 0 && t.visible) {
      json d;
      d["slot"] = t.diffSlot;
      d["index"] = t.diffIndex;
      auto e = t.expected.find(t.diffSlot), a = t.actual.find(t.diffSlot);
      d["expected"] = e != t.expected.end() && t.diffIndex < e->second.size() ? valueJson(e->second[t.diffIndex]) : json(nullptr);
      d["actual"] = a != t.actual.end() && t.diffIndex < a->second.size() ? valueJson(a->second[t.diffIndex]) : json(nullptr);
      x["first_difference"] = d;
    }
    tests.push_back(std::move(x));
  }
  j["tests"] = std::move(tests);
  json loads = json::array();
  size_t shownLoads = loadsExplain(r) ? std::min(r.loads.size(), kMaxLoads) : 0;
  for (size_t k = 0; k < shownLoads; ++k) {
    const LoadRead &l = r.loads[k];
    loads.push_back({{"line", l.loc.line},
                     {"col", l.loc.col},
                     {"text", capped(l.text)},
                     {"element", l.element.empty() ? json(nullptr) : json(capped(l.element))},
                     {"version", capped(l.version)},
                     {"reads", l.age.empty() ? json(nullptr) : json(l.age)},
                     {"description", capped(l.description, 2 * kMaxLine)}});
  }
  j["loads"] = std::move(loads);
  size_t cutLoads = shownLoads ? r.loads.size() - shownLoads : 0;
  if (r.diags.dropped() || cutLoads || values) {
    j["omitted"] = {{"diagnostics", r.diags.dropped()},
                    {"loads", cutLoads},
                    {"values", values},
                    {"note", "the output is bounded: at most " + std::to_string(Diags::kLimit) + " diagnostics, " +
                                 std::to_string(kMaxLoads) + " loads and " + std::to_string(kMaxJsonValues) +
                                 " values per slot; these counts were left out"}};
  }
  if (explain) j["explain"] = {{"dot", explain->dot}, {"svg", explain->svg}, {"note", explain->note}};
  j["seconds"] = r.seconds;
  return j;
}

json renderGradescope(const GradeResult &r) {
  json j;
  j["score"] = r.score;
  j["max_score"] = r.maxScore;
  j["output"] = bounded(header(r) + verdict(r)) + scoreLine(r);
  j["visibility"] = "visible";
  j["stdout_visibility"] = "hidden";
  json tests = json::array();
  bool valid = r.status == GradeResult::Status::Graded;
  tests.push_back({{"name", "The oracle accepts the program"},
                   {"score", 0},
                   {"max_score", 0},
                   {"status", valid ? "passed" : "failed"},
                   {"output", bounded(verdict(r))},
                   {"visibility", "visible"}});
  std::string loads = loadsText(r, "  ");
  for (const TestResult &t : r.tests) {
    std::string out = testDetail(t, "");
    if (t.passed) out = "passed\n" + out;
    else if (!loads.empty() && t.diffSlot >= 0) out += "\n" + loads;  // only under the failures they explain
    tests.push_back({{"name", t.name},
                     {"score", t.score},
                     {"max_score", t.points},
                     {"status", t.passed ? "passed" : "failed"},
                     {"output", bounded(std::move(out))},
                     {"visibility", visibilityName(t.visibility)}});
  }
  j["tests"] = std::move(tests);
  return j;
}

}  // namespace cairn::grade
