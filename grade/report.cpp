// Text, JSON and Gradescope renderings of a grade (see report.hpp).
//
// All three are built from the same GradeResult, so they always agree. The
// text form is what a student reads in a terminal; the Gradescope form puts
// the same blocks in each test's `output`. JSON numbers: integers exact,
// floats as JSON numbers, NaN and infinities as strings (as `cairn run`).
#include "grade/report.hpp"

#include <cstdio>
#include <sstream>

namespace cairn::grade {

using nlohmann::json;

std::string pointsText(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", p);
  return buf;
}

namespace {

std::string slotLine(const std::vector<std::string> &v, size_t *starts = nullptr, size_t mark = SIZE_MAX) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ' ';
    if (starts && i == mark) *starts = s.size();
    s += v[i];
  }
  return s + "]";
}

// A value text as JSON: a number when it is one, else the string.
json valueJson(const std::string &s) {
  if (s == "nan" || s == "-nan" || s == "inf" || s == "-inf") return s;
  json j = json::parse(s, nullptr, false);
  return j.is_number() ? j : json(s);
}

json slotsJson(const SlotText &m) {
  json o = json::object();
  for (const auto &[slot, vals] : m) {
    json a = json::array();
    for (const std::string &v : vals) a.push_back(valueJson(v));
    o[std::to_string(slot)] = std::move(a);
  }
  return o;
}

std::string diagText(const GradeResult &r) {
  std::ostringstream os;
  r.diags.print(os, r.submission);
  if (r.diags.truncated()) os << "(more errors were left out)\n";
  return os.str();
}

std::string loadsText(const GradeResult &r, const std::string &indent) {
  if (r.loads.empty()) return "";
  std::string s = "Which versions your loads read:\n";
  for (const LoadRead &l : r.loads) s += indent + l.description + "\n";
  return s;
}

std::string header(const GradeResult &r) {
  return "Grading " + r.exercise + (r.title.empty() ? "" : " (" + r.title + ")") + ": " + r.submission + "\n";
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
    case GradeResult::Status::Rejected: return "The submission was not graded: " + r.message + "\n";
    case GradeResult::Status::Error: return "The grader failed on this submission: " + r.message + "\n";
  }
  return "";
}

}  // namespace

std::string testDetail(const TestResult &t, const std::string &indent) {
  std::string s;
  if (!t.passed && !t.failure.empty()) s += indent + t.failure + "\n";
  if (!t.passed && !t.hint.empty()) s += indent + "hint: " + t.hint + "\n";
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
      if (t.passed && t.visible && !t.input.empty() && t.input.size() == 1 && t.actual.size() == 1) {
        s += "  slot " + std::to_string(t.input.begin()->first) + ": " + slotLine(t.input.begin()->second) + " -> " +
             slotLine(t.actual.begin()->second) + "\n";
        continue;
      }
      s += "\n" + testDetail(t, "      ");
    }
    if (!r.loads.empty()) s += "\n" + loadsText(r, "  ");
  }
  if (explain) {
    if (!explain->dot.empty()) s += "\nThe picture: " + explain->dot + (explain->svg.empty() ? "" : " and " + explain->svg) + "\n";
    if (!explain->note.empty()) s += (explain->dot.empty() ? "\n" : "") + explain->note + "\n";
  }
  return s + "\n" + scoreLine(r);
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
  j["diagnostics"] = r.diags.toJson();
  json tests = json::array();
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
    x["failure"] = t.passed ? json(nullptr) : json(t.failure);
    if (t.visible && t.ran) {
      x["input"] = slotsJson(t.input);
      x["expected"] = slotsJson(t.expected);
      x["actual"] = slotsJson(t.actual);
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
  for (const LoadRead &l : r.loads)
    loads.push_back({{"line", l.loc.line},
                     {"col", l.loc.col},
                     {"text", l.text},
                     {"element", l.element.empty() ? json(nullptr) : json(l.element)},
                     {"version", l.version},
                     {"reads", l.age.empty() ? json(nullptr) : json(l.age)},
                     {"description", l.description}});
  j["loads"] = std::move(loads);
  if (explain) j["explain"] = {{"dot", explain->dot}, {"svg", explain->svg}, {"note", explain->note}};
  j["seconds"] = r.seconds;
  return j;
}

json renderGradescope(const GradeResult &r) {
  json j;
  j["score"] = r.score;
  j["max_score"] = r.maxScore;
  j["output"] = header(r) + verdict(r) + scoreLine(r);
  j["visibility"] = "visible";
  j["stdout_visibility"] = "hidden";
  json tests = json::array();
  bool valid = r.status == GradeResult::Status::Graded;
  tests.push_back({{"name", "The oracle accepts the program"},
                   {"score", 0},
                   {"max_score", 0},
                   {"status", valid ? "passed" : "failed"},
                   {"output", verdict(r)},
                   {"visibility", "visible"}});
  std::string loads = loadsText(r, "  ");
  for (const TestResult &t : r.tests) {
    std::string out = testDetail(t, "");
    if (t.passed) out = "passed\n" + out;
    else if (!loads.empty()) out += "\n" + loads;
    tests.push_back({{"name", t.name},
                     {"score", t.score},
                     {"max_score", t.points},
                     {"status", t.passed ? "passed" : "failed"},
                     {"output", out},
                     {"visibility", visibilityName(t.visibility)}});
  }
  j["tests"] = std::move(tests);
  return j;
}

}  // namespace cairn::grade
