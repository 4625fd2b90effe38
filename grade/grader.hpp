// Grading one submission against an exercise (see exercise.hpp).
//
// The pipeline: size and node limits (before parsing), the .uir reader, the
// oracle; when the oracle rejects the program, its diagnostics are the
// feedback and no test runs. Otherwise the program is compiled once and every
// case of every test runs in the interpreter under the per-test limits
// (elements, steps, wall time); a trap or an exceeded limit fails that test
// only. The submission is data: it is never compiled or executed natively.
// `gradeSource` never throws: anything unexpected becomes Status::Error
// (a failed internal check, ir/check.hpp, with `internal error: MESSAGE (at
// FILE:LINE)`), so one submission cannot stop a batch.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "grade/exercise.hpp"
#include "ir/diag.hpp"

namespace cairn::grade {

// A slot's contents as text, one string per element (bitsText).
using SlotText = std::map<int64_t, std::vector<std::string>>;

struct TestResult {
  std::string name;
  Visibility visibility = Visibility::Visible;
  bool visible = true, passed = false, ran = false;  // visible: visibility == Visible
  bool requirement = false;  // a `require` check of the graph, not a run
  double points = 0, score = 0;
  size_t cases = 0, failedCase = 0;  // failedCase: 1-based, the first that failed, 0 when none
  size_t failedCases = 0;            // how many failed (all are run when the test is partial)
  std::string failure;  // one line for the student; for other than visible tests it names no value
  std::string hint;     // the test's authored hint, when it failed
  // The case shown: the failing one, else the first. Filled for visible tests.
  SlotText input, expected, actual;
  int64_t diffSlot = -1;  // the first differing element, when contents differ
  size_t diffIndex = 0;
};

// What one load of the submission reads (for failed tests).
struct LoadRead {
  Loc loc;
  std::string text;     // `%y1 = load %p1`
  std::string element;  // "b[1]", or "" when the index is computed at run time
  std::string version;  // "%b"
  std::string age;      // "old", "new" or ""
  std::string description;  // the full sentence
};

struct GradeResult {
  enum class Status { Graded, Invalid, Rejected, Error } status = Status::Error;
  std::string exercise, title, submission;  // submission: the name shown
  std::string message;                      // rejected / error: why
  Diags diags;                              // invalid: the reader's or oracle's
  bool cycle = false;                       // an old-version-order error listing its cycle arrow by arrow
  std::vector<TestResult> tests;
  std::vector<LoadRead> loads;  // when a test failed
  uint32_t nodes = 0;
  double score = 0, maxScore = 0;
  double seconds = 0;  // wall time of the whole grade
  bool allPassed() const;
  size_t passedCount() const;
};

const char *statusName(GradeResult::Status s);

// Grades `text` (the submission's bytes; JSON form when `json`). `shown` is
// the name diagnostics print. `limits` applies (the caller merges the
// exercise's limits with flags). `keepGraph`, when not null, receives the
// parsed graph (for --explain).
GradeResult gradeSource(const Exercise &ex, std::string_view shown, std::string_view text, bool json, const Limits &limits,
                  Graph *keepGraph = nullptr);

// Reads the file (within limits.maxBytes), then grades it; an unreadable or
// too large file is a Rejected result, not an exception.
GradeResult gradeFile(const Exercise &ex, const std::string &path, const Limits &limits, Graph *keepGraph = nullptr);

// Which version each load of a valid graph reads, in source order.
std::vector<LoadRead> describeLoads(const Graph &g, const Facts &facts);

}  // namespace cairn::grade
