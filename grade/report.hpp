// Rendering a GradeResult: human text, our JSON schema, Gradescope's format.
//
// Schemas: docs/grade.schema.json (ours, "cairn-grade" version 1) and
// docs/gradescope.schema.json (the subset of Gradescope's results.json we
// write). Hidden tests never show data: only passed/failed and a sentence
// that names no value (a trap's message, a limit, a differing index).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "grade/grader.hpp"

namespace cairn::grade {

struct ExplainFiles {
  std::string dot, svg;  // paths written by --explain ("" when none)
  std::string note;      // why nothing was drawn, or how to draw it
};

std::string renderText(const GradeResult &r, const ExplainFiles *explain = nullptr);
nlohmann::json renderJson(const GradeResult &r, const ExplainFiles *explain = nullptr);
nlohmann::json renderGradescope(const GradeResult &r);

// The block of one test as text, without its PASS/FAIL header line: the
// failure, then for visible tests input / expected / actual with a caret
// under the first differing element. Each line starts with `indent`.
std::string testDetail(const TestResult &t, const std::string &indent);

// Points as text: "1", "0.5".
std::string pointsText(double p);

}  // namespace cairn::grade
