// Renderings of an assignment's grade: text, JSON and one Gradescope
// results.json over every exercise (see assignment.hpp).
//
// Each exercise's part is rendered by report.cpp's functions, so hidden
// tests stay hidden here exactly as there; this file only prefixes test
// names with the file they grade, scales points by the weight, and adds the
// late policy's line. The Gradescope `score` is the total after the late
// policy (Gradescope takes it over the sum of the tests when present).
#include <cmath>
#include <sstream>

#include "grade/assignment.hpp"
#include "grade/report.hpp"

using nlohmann::json;

namespace cairn::grade {

namespace {

// Points rounded to a millionth, so 0.9 * 6 prints as 5.4, not 5.3999999.
double pts(double x) { return std::round(x * 1e6) / 1e6; }

std::string partLine(const AssignmentPartResult &p) {
  const AssignmentPart &a = *p.part;
  std::string s = a.file + " (" + a.exercise.id + (a.weight != 1 ? ", weight " + pointsText(a.weight) : "") +
                  "): " + pointsText(p.result.score * a.weight) + "/" + pointsText(p.result.maxScore * a.weight);
  if (p.result.status == GradeResult::Status::Rejected) s += ": not graded: " + p.result.message;
  else if (p.result.status == GradeResult::Status::Invalid) s += ": the oracle rejected the program";
  else if (p.result.status == GradeResult::Status::Error) s += ": the grader failed: " + p.result.message;
  if (!p.note.empty()) s += " (" + p.note + ")";
  return s + "\n";
}

std::string summary(const AssignmentResult &r) {
  std::string s = r.title + "\n";
  for (const AssignmentPartResult &p : r.parts) s += "  " + partLine(p);
  if (!r.lateNote.empty()) s += r.lateNote + "\n";
  s += "Total: " + pointsText(r.score()) + "/" + pointsText(r.maxScore) + "\n";
  return s;
}

}  // namespace

std::string renderAssignmentText(const AssignmentResult &r) {
  std::string s = summary(r);
  for (const AssignmentPartResult &p : r.parts) s += "\n== " + p.part->file + "\n" + renderText(p.result);
  return s;
}

json renderAssignmentJson(const AssignmentResult &r) {
  json parts = json::array();
  for (const AssignmentPartResult &p : r.parts) {
    parts.push_back({{"exercise", p.part->exercise.id},
                     {"file", p.part->file},
                     {"found", p.found.empty() ? json(nullptr) : json(p.found)},
                     {"note", p.note},
                     {"weight", p.part->weight},
                     {"score", pts(p.result.score * p.part->weight)},
                     {"max_score", pts(p.result.maxScore * p.part->weight)},
                     {"result", renderJson(p.result)}});
  }
  return {{"format", "cairn-assignment-grade"},
          {"version", 1},
          {"title", r.title},
          {"score", pts(r.score())},
          {"max_score", pts(r.maxScore)},
          {"raw_score", pts(r.rawScore)},
          {"late_multiplier", r.multiplier},
          {"late_note", r.lateNote},
          {"all_passed", r.allPassed()},
          {"exercises", std::move(parts)}};
}

json renderAssignmentGradescope(const AssignmentResult &r) {
  json tests = json::array();
  for (const AssignmentPartResult &p : r.parts) {
    json one = renderGradescope(p.result);
    for (json &t : one["tests"]) {
      t["name"] = p.part->file + ": " + t["name"].get<std::string>();
      t["score"] = pts(t["score"].get<double>() * p.part->weight);
      t["max_score"] = pts(t["max_score"].get<double>() * p.part->weight);
      if (!p.note.empty() && t["max_score"].get<double>() == 0) t["output"] = p.note + "\n" + t["output"].get<std::string>();
      tests.push_back(std::move(t));
    }
  }
  return {{"score", pts(r.score())},
          {"max_score", pts(r.maxScore)},
          {"output", summary(r)},
          {"visibility", "visible"},
          {"stdout_visibility", "hidden"},
          {"tests", std::move(tests)}};
}

}  // namespace cairn::grade
