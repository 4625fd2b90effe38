// `cairn lesson check DIR`: validates every lesson under DIR (format:
// lessons/README.md).
//
// For each lesson.json found (recursively, in path order): the lesson text
// exists; every exercise loads (manifest, statement, reference valid under
// the oracle, generated cases computed); the reference passes every one of
// its own tests; the starter is valid .uir and fails at least one test, and
// every test its manifest names in `starter_fails`; the quiz parses, every
// answer is well formed, and answers that can be checked mechanically are:
// a question's program parses, its oracle verdict is what the question says,
// a `line` answer is where the oracle reports the error, a `contents`
// answer is what the interpreter computes, a `value` answer is what the
// observed node holds. Exercises under DIR that no lesson lists are checked
// too. Unknown keys in lesson.json and exercise.json are errors; the
// reference and the starter must be in canonical `cairn fmt` form. A warning
// says when a trivially wrong program (one that leaves the slots unchanged,
// or one that leaves every checked slot zero) passes every test. A released
// copy (no reference) is checked for its starter and format only. One line
// per finding; problems start with "error:", warnings with "warning:".
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace cairn::grade {

struct LessonCheckSummary {
  size_t lessons = 0, exercises = 0, questions = 0, errors = 0;
  size_t warnings = 0;  // lines starting with "warning:"; they do not fail the check
};

// False when DIR cannot be read (usage error); otherwise true, with
// `sum.errors` counting the problems found.
bool checkLessons(const std::string &dir, std::ostream &out, LessonCheckSummary &sum);

// Checks one quiz file; appends problems to `errors`, returns the number of
// questions read.
size_t checkQuiz(const std::string &path, std::vector<std::string> &errors);

}  // namespace cairn::grade
