// Assignments: several exercises graded from one submission folder into one
// result (`cairn grade --assignment A.json SUBMISSION_DIR`), with a late
// policy applied from Gradescope's submission metadata.
//
// The manifest (format: lessons/README.md, "Assignments"):
//   {"format": "cairn-assignment", "version": 1, "title": "...",
//    "exercises": [{"exercise": "w2l2/swap", "file": "swap.uir", "weight": 1}, ...],
//    "late": {"penalty_per_day": 0.1, "max_days": 3, "grace_minutes": 5}}
// An exercise is a path relative to the manifest's folder, or a name under
// the lesson roots. Each exercise's points are multiplied by its weight.
//
// Reading the submission folder: the file named in the manifest, or else the
// one regular file of that name anywhere below the folder (students upload
// folders); never through a symbolic link, never outside the folder. A file
// that is missing, misnamed, a link or ambiguous is a result whose tests all
// fail with a sentence saying what was found, so a results.json is always
// written. Nothing here throws; problems with the manifest are messages.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grade/exercise.hpp"
#include "grade/grader.hpp"

namespace cairn::grade {

struct LatePolicy {
  double penaltyPerDay = 0;  // fraction of the score lost per started day late
  double maxDays = -1;       // past it the score is 0; -1: no such limit
  double graceMinutes = 0;   // lateness under this is on time
};

struct AssignmentPart {
  std::string spec;  // as written in the manifest
  std::string file;  // the submission file it grades
  double weight = 1;
  Exercise exercise;
};

struct Assignment {
  std::string path, title;
  std::vector<AssignmentPart> parts;
  std::optional<LatePolicy> late;
};

// Reads and checks the manifest and every exercise it names. False with one
// message per problem.
bool loadAssignment(const std::string &path, const std::vector<std::string> &lessonRoots, Assignment &a,
                    std::vector<std::string> &errors);

// Lateness, from Gradescope's submission_metadata.json.
struct Lateness {
  bool known = false;     // the metadata gave a submission time and a due date
  double secondsLate = 0;  // <= 0: on time
  std::string due, submitted;  // as written in the metadata
};

// Reads the metadata; false with `why` when it is not JSON or a date in it
// is malformed (a missing due date is `known = false`, not an error).
bool readLateness(const std::string &path, Lateness &out, std::string &why);

// Parses an ISO 8601 time with an offset ("2026-12-01T23:59:00.000000-08:00",
// "...Z") to seconds since the epoch.
bool parseIsoTime(const std::string &s, double &epochSeconds);

struct AssignmentPartResult {
  const AssignmentPart *part = nullptr;
  std::string found;  // the path read, relative to the submission folder ("" when none)
  std::string note;   // how the file was found, when not at its exact name
  GradeResult result;
};

struct AssignmentResult {
  std::string title;
  std::vector<AssignmentPartResult> parts;
  double rawScore = 0, maxScore = 0;  // weighted, before the late policy
  double multiplier = 1;              // the late policy's factor
  std::string lateNote;               // what the late policy did, "" when nothing
  double score() const { return rawScore * multiplier; }
  bool allPassed() const;
};

// Grades every part. `limits` maps an exercise's own limits to the ones
// used (the command line's flags over them); null keeps them. `late`, when
// known, applies the manifest's late policy.
AssignmentResult gradeAssignment(const Assignment &a, const std::string &submissionDir,
                                 const std::function<Limits(const Limits &)> &limits, const Lateness *late);

std::string renderAssignmentText(const AssignmentResult &r);
nlohmann::json renderAssignmentJson(const AssignmentResult &r);
nlohmann::json renderAssignmentGradescope(const AssignmentResult &r);

}  // namespace cairn::grade
