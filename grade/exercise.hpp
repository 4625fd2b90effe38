// Exercises of the course, as the grader sees them (format: lessons/README.md).
//
// An exercise is a folder holding `exercise.json` (the manifest), a
// statement, a starter .uir, a reference .uir and the tests, written in the
// manifest. `loadExercise` reads and checks all of it, validates the
// reference with the oracle, compiles it, and expands every test into
// concrete cases: a fixed test is one case (its input slots and expected
// final contents), a generated test is `cases` cases of seeded random slot
// data whose expected contents come from running the reference. The
// expansion is deterministic on every platform (splitmix64, no <random>
// distributions). Problems are returned as strings, never thrown.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/interp.hpp"
#include "ir/dtype.hpp"
#include "ir/graph.hpp"

namespace cairn::grade {

// Per-test limits for untrusted submissions. Bytes and nodes are checked
// once per submission, before the oracle runs; elements, steps and seconds
// bound each test's run in the interpreter.
struct Limits {
  uint64_t maxBytes = uint64_t{1} << 20;   // submission text
  uint64_t maxNodes = 10000;               // lines that define nodes
  uint64_t maxElements = uint64_t{1} << 20;  // all buffers together, per test
  uint64_t maxSteps = 1000000;             // interpreter steps, per test
  double timeout = 1.0;                    // wall seconds, per test
};

// A slot's contents: a dtype and one value per element.
struct SlotData {
  DType type = DType::None;
  std::vector<Bits> values;
};

// One concrete run: the slots the test sets, and the final contents it
// checks (by slot, in the reference's dtype).
struct Case {
  std::map<int64_t, std::vector<Literal>> input;
  std::map<int64_t, SlotData> expect;
};

// Who sees a test, as Gradescope's per-test `visibility`. Only a Visible
// test ever shows its data (input, expected, actual, values in messages);
// the others name no value in any output, whenever they are shown.
enum class Visibility { Visible, Hidden, AfterDueDate, AfterPublished };
const char *visibilityName(Visibility v);  // "visible", "hidden", "after_due_date", "after_published"

// How close a float element must be to the expected one (the manifest's
// `tolerance`, lessons/README.md). A key < 0 was not given. Integer slots
// are always compared exactly.
struct Tolerance {
  double abs = -1, rel = -1;
  int64_t ulps = -1;
  bool given() const { return abs >= 0 || rel >= 0 || ulps >= 0; }
};

// Whether `got` matches `want` (both of dtype `t`): equal bits, or both NaN,
// or (floats, neither NaN nor infinite) within one of `tol`'s bounds.
bool sameValue(Bits got, Bits want, DType t, const Tolerance &tol = {});

// A structural check of the submission's graph (the manifest's `require`):
// how many nodes of an op (or "parallel range", "serial range") it has.
struct Requirement {
  std::string what;
  int64_t min = -1, max = -1;  // < 0: no bound
};

// "" when the graph meets the requirement, else the sentence saying how not.
std::string checkRequirement(const Graph &g, const Requirement &r);

struct Test {
  std::string name;
  Visibility visibility = Visibility::Visible;
  bool visible = true;  // visibility == Visible
  double points = 1;
  bool generated = false;
  bool partial = false;  // score: points x the fraction of cases passed
  std::string hint;      // authored text, shown when the test fails (hidden or not)
  Tolerance tolerance;   // the test's, else the exercise's
  std::optional<Requirement> require;  // a structural check instead of cases
  std::string about;  // generated: "50 cases, seed 7, slot 0: 4 values in [-10, 10]"
  std::vector<Case> cases;
};

struct Exercise {
  std::string id;     // e.g. "w2l2/swap": the lesson folder and the exercise folder
  std::string dir;    // the folder
  std::string title;
  std::string statement, starterPath, referencePath;  // paths
  std::string starterText, referenceText;
  bool released = false;        // a students' copy: no reference ("reference": null)
  std::string hiddenTestsPath;  // the `hidden_tests` file, "" when none
  Limits limits;      // the manifest's limits over the defaults
  std::vector<Test> tests;
  std::vector<std::string> starterFails;  // tests the starter must fail
  double maxScore() const;
};

// Reads the exercise in `dir` (a folder with exercise.json, or the manifest
// itself). On failure returns false with one message per problem.
bool loadExercise(const std::string &dir, Exercise &ex, std::vector<std::string> &errors);

// Finds an exercise from what the user typed: a folder or manifest path, or
// a name (`w2l2/swap`, `swap`) under one of `roots` (the first that has it).
// Returns the folder, or "" with a message in `why`.
std::string resolveExercise(const std::string &spec, const std::vector<std::string> &roots, std::string &why);

// Folders the grader searches for exercise names: --lessons, $CAIRN_LESSONS,
// ./lessons, an installed cairn's PREFIX/share/cairn/lessons, and the source
// tree's lessons/ (compiled in).
std::vector<std::string> lessonRoots(const std::string &flag);

// Reads a file of at most `limit` bytes; false with `why` on failure.
bool readFileCapped(const std::string &path, uint64_t limit, std::string &out, std::string &why);

}  // namespace cairn::grade
