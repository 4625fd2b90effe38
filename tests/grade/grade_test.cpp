// Golden tests of the grader on the shipped exercises (lessons/w2l2), its
// reports against their schemas, the exercise loader's checks, the quiz
// checker, and the pictures (dot --versions, the cycle of --explain).
//
// Assumes CAIRN_SOURCE_DIR (set by tests/grade/CMakeLists.txt) is the
// repository root. Every test reads only files of the repository and
// temporary folders it creates; nothing here measures time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "grade/exercise.hpp"
#include "grade/explain.hpp"
#include "grade/grader.hpp"
#include "grade/lesson.hpp"
#include "grade/report.hpp"
#include "test_support.hpp"
#include "ir/dot.hpp"
#include "ir/parser.hpp"
#include "schema_check.hpp"

namespace fs = std::filesystem;
using namespace cairn;
using namespace cairn::grade;
using nlohmann::json;
using namespace cairn::grade::testing;

namespace {



const Exercise &exercise(const std::string &name) {
  static std::map<std::string, Exercise> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  Exercise ex;
  std::vector<std::string> errs;
  bool ok = loadExercise(kRoot + "/lessons/w2l2/" + name, ex, errs);
  EXPECT_TRUE(ok) << (errs.empty() ? "" : errs[0]);
  return cache[name] = std::move(ex);
}

GradeResult gradeText(const std::string &ex, const std::string &text, Graph *g = nullptr) {
  const Exercise &e = exercise(ex);
  return gradeSource(e, "sub.uir", text, false, e.limits, g);
}

GradeResult gradeSubmission(const std::string &ex, const std::string &file) {
  return gradeText(ex, slurp(kRoot + "/tests/grade/submissions/" + file));
}

const TestResult &test(const GradeResult &r, const std::string &name) {
  for (const TestResult &t : r.tests)
    if (t.name == name) return t;
  static TestResult none;
  ADD_FAILURE() << "no test " << name;
  return none;
}

json schema(const std::string &name) { return json::parse(slurp(kRoot + "/docs/" + name)); }

void expectSchemas(const GradeResult &r) {
  static const json ours = schema("grade.schema.json"), gs = schema("gradescope.schema.json");
  ExplainFiles files{"x.dot", "", "note"};
  for (const json &j : {renderJson(r), renderJson(r, &files)}) {
    auto errs = schema_check::validate(ours, j);
    EXPECT_TRUE(errs.empty()) << errs[0] << "\n" << j.dump(2);
  }
  json g = renderGradescope(r);
  auto errs = schema_check::validate(gs, g);
  EXPECT_TRUE(errs.empty()) << errs[0] << "\n" << g.dump(2);
  // Gradescope's score is the sum of the tests' scores.
  double sum = 0, max = 0;
  for (const json &t : g["tests"]) {
    sum += t["score"].get<double>();
    max += t["max_score"].get<double>();
  }
  EXPECT_DOUBLE_EQ(sum, g["score"].get<double>());
  EXPECT_DOUBLE_EQ(max, g["max_score"].get<double>());
}

}  // namespace

// ---- the shipped exercises ---------------------------------------------------------

TEST(Exercises, LoadWithExpandedCases) {
  const Exercise &s = exercise("swap");
  EXPECT_EQ(s.id, "w2l2/swap");
  EXPECT_EQ(s.title, "Swap two elements in place");
  ASSERT_EQ(s.tests.size(), 5u);
  EXPECT_EQ(s.tests[4].cases.size(), 50u);
  EXPECT_FALSE(s.tests[3].visible);
  EXPECT_DOUBLE_EQ(s.maxScore(), 6);
  EXPECT_EQ(exercise("running_total").tests.size(), 7u);
}

TEST(Exercises, GeneratedCasesAreDeterministic) {
  Exercise a, b;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise(kRoot + "/lessons/w2l2/swap", a, errs));
  ASSERT_TRUE(loadExercise(kRoot + "/lessons/w2l2/swap", b, errs));
  ASSERT_EQ(a.tests[4].cases.size(), b.tests[4].cases.size());
  for (size_t i = 0; i < a.tests[4].cases.size(); ++i)
    EXPECT_EQ(a.tests[4].cases[i].input, b.tests[4].cases[i].input);
  // The values come from the stated range, and differ between cases.
  EXPECT_NE(a.tests[4].cases[0].input, a.tests[4].cases[1].input);
  for (const Case &c : a.tests[4].cases)
    for (const Literal &l : c.input.at(0)) EXPECT_LE(l.magnitude, 1000000000u);
}

TEST(Exercises, ReferencesPassEveryTest) {
  for (const char *name : {"swap", "running_total"}) {
    const Exercise &e = exercise(name);
    GradeResult r = gradeText(name, e.referenceText);
    ASSERT_EQ(r.status, GradeResult::Status::Graded) << name;
    EXPECT_TRUE(r.allPassed()) << name;
    EXPECT_DOUBLE_EQ(r.score, e.maxScore());
    EXPECT_TRUE(r.loads.empty());  // only listed for failures
    expectSchemas(r);
  }
}

TEST(Exercises, StartersFailTheNamedTests) {
  for (const char *name : {"swap", "running_total"}) {
    const Exercise &e = exercise(name);
    GradeResult r = gradeText(name, e.starterText);
    ASSERT_EQ(r.status, GradeResult::Status::Graded) << name;
    std::vector<std::string> failed;
    for (const TestResult &t : r.tests)
      if (!t.passed) failed.push_back(t.name);
    EXPECT_EQ(failed, e.starterFails) << name;
    expectSchemas(r);
  }
}

TEST(Exercises, SwapStarterDoesHalfTheJob) {
  GradeResult r = gradeText("swap", exercise("swap").starterText);
  const TestResult &t = test(r, "example");
  EXPECT_EQ(t.failure, "slot 0 differs at element 1: expected 1, got 2");
  EXPECT_EQ(t.actual.at(0), (std::vector<std::string>{"2", "2", "3", "4"}));
  EXPECT_EQ(t.expected.at(0), (std::vector<std::string>{"2", "1", "3", "4"}));
  EXPECT_EQ(t.input.at(0), (std::vector<std::string>{"1", "2", "3", "4"}));
  EXPECT_EQ(t.diffSlot, 0);
  EXPECT_EQ(t.diffIndex, 1u);
  EXPECT_TRUE(test(r, "equal elements").passed);
}

// ---- typical wrong submissions -------------------------------------------------------

TEST(Feedback, ForgotAfter) {
  GradeResult r = gradeSubmission("swap", "swap_forgot_after.uir");
  ASSERT_EQ(r.status, GradeResult::Status::Invalid);
  ASSERT_FALSE(r.diags.list().empty());
  EXPECT_EQ(r.diags.list()[0].rule, "store-sequenced");
  EXPECT_EQ(r.diags.list()[0].loc.line, 10u);
  std::string text = renderText(r);
  EXPECT_NE(text.find("a store that no after sequences has no effect"), std::string::npos) << text;
  EXPECT_NE(text.find("sub.uir:10:1: error:"), std::string::npos) << text;
  EXPECT_NE(text.find("so no test ran"), std::string::npos);
  EXPECT_EQ(text.find("PASS"), std::string::npos);
  for (const TestResult &t : r.tests) EXPECT_FALSE(t.ran);
  EXPECT_EQ(r.score, 0);
  expectSchemas(r);
}

TEST(Feedback, TwoStoresIntoOneVersion) {
  GradeResult r = gradeSubmission("swap", "swap_two_stores_one_version.uir");
  ASSERT_EQ(r.status, GradeResult::Status::Invalid);
  EXPECT_EQ(r.diags.list()[0].rule, "one-store-per-version");
  std::string text = renderText(r);
  EXPECT_NE(text.find("a second store into version %b"), std::string::npos) << text;
  EXPECT_NE(text.find("note: %s0 already writes into %b"), std::string::npos) << text;
  EXPECT_NE(text.find("chain them"), std::string::npos) << text;
  expectSchemas(r);
}

TEST(Feedback, ReadTheNewVersionWhereTheOldWasNeeded) {
  GradeResult r = gradeSubmission("swap", "swap_reads_new_version.uir");
  ASSERT_EQ(r.status, GradeResult::Status::Graded);
  EXPECT_FALSE(test(r, "example").passed);
  bool found = false;
  for (const LoadRead &l : r.loads)
    if (l.loc.line == 10) {
      found = true;
      EXPECT_EQ(l.age, "new");
      EXPECT_EQ(l.element, "b[0]");
      EXPECT_EQ(l.version, "%b1");
      EXPECT_NE(l.description.find("reads the new b[0] from %b1"), std::string::npos) << l.description;
    }
  EXPECT_TRUE(found);
  std::string text = renderText(r);
  EXPECT_NE(text.find("Which versions your loads read:"), std::string::npos);
  EXPECT_NE(text.find("expected 1, got 2"), std::string::npos) << text;
  expectSchemas(r);
}

TEST(Feedback, ReadTheOldVersionWhereTheNewWasNeeded) {
  GradeResult r = gradeSubmission("running_total", "running_total_reads_old_version.uir");
  ASSERT_EQ(r.status, GradeResult::Status::Graded);
  EXPECT_EQ(test(r, "example").failure, "slot 0 differs at element 2: expected 6, got 5");
  EXPECT_TRUE(test(r, "zero first").passed);
  bool found = false;
  for (const LoadRead &l : r.loads)
    if (l.loc.line == 12) {
      found = true;
      EXPECT_EQ(l.age, "old");
      EXPECT_EQ(l.version, "%b");
      EXPECT_NE(l.description.find("reads the old b[1] from %b"), std::string::npos) << l.description;
      EXPECT_NE(l.description.find("the store at line 9 overwrites b[1]"), std::string::npos) << l.description;
    }
  EXPECT_TRUE(found);
  json g = renderGradescope(r);
  bool inOutput = false;
  for (const json &t : g["tests"])
    inOutput |= t["output"].get<std::string>().find("reads the old b[1]") != std::string::npos;
  EXPECT_TRUE(inOutput);
  expectSchemas(r);
}

TEST(Feedback, OldVersionCycleListsItsArrows) {
  Graph g;
  GradeResult r = gradeText("swap", slurp(kRoot + "/tests/grade/submissions/swap_old_version_cycle.uir"), &g);
  ASSERT_EQ(r.status, GradeResult::Status::Invalid);
  EXPECT_TRUE(r.cycle);
  std::string text = renderText(r);
  EXPECT_NE(text.find("a load of an old buffer version is needed after that version was overwritten"), std::string::npos);
  EXPECT_NE(text.find("arrow 1/8: %y (line 14) must come before %s0 (line 7)"), std::string::npos) << text;
  std::string dot = cycleDot(g, r.diags);
  EXPECT_NE(dot.find("digraph cycle"), std::string::npos);
  EXPECT_NE(dot.find("1. %y reads %b, which %s0 overwrites"), std::string::npos) << dot;
  EXPECT_NE(dot.find("%y = load %v\\nline 14"), std::string::npos) << dot;
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '>'), 8) << dot;  // eight arrows
  expectSchemas(r);
}

TEST(Feedback, HiddenTestsShowNoData) {
  GradeResult r = gradeText("swap", exercise("swap").starterText);
  const TestResult &t = test(r, "extremes");
  EXPECT_FALSE(t.passed);
  EXPECT_EQ(t.failure, "slot 0 differs at element 1");
  EXPECT_TRUE(t.input.empty() && t.expected.empty() && t.actual.empty());
  json j = renderJson(r);
  for (const json &x : j["tests"])
    if (!x["visible"].get<bool>()) {
      EXPECT_FALSE(x.contains("input"));
      EXPECT_FALSE(x.contains("first_difference"));
    }
  EXPECT_EQ(renderText(r).find("2147483647"), std::string::npos);
}

TEST(Feedback, WrongSlotShapeAndDtype) {
  GradeResult small = gradeText("swap", "%b = buffer 3 dtype=i32 slot=0\n");
  ASSERT_EQ(small.status, GradeResult::Status::Graded);
  EXPECT_EQ(test(small, "example").failure, "the test gives slot 0 4 values, but %b (line 1) has 3 elements");
  GradeResult other = gradeText("swap", "%b = buffer 4 dtype=i64 slot=0\n");
  EXPECT_EQ(test(other, "example").failure, "slot 0 holds i64 values; the exercise expects i32");
  GradeResult none = gradeText("swap", "%b = buffer 4 dtype=i32 slot=1\n");
  EXPECT_EQ(test(none, "example").failure, "your program has no buffer bound to slot 0 (the test sets its data)");
  GradeResult narrow = gradeText("swap", "%b = buffer 4 dtype=i8 slot=0\n");
  EXPECT_NE(test(narrow, "random").failure.find("does not fit i8"), std::string::npos) << test(narrow, "random").failure;
  for (const GradeResult *r : {&small, &other, &none, &narrow}) expectSchemas(*r);
}

TEST(Feedback, TrapIsATestFailure) {
  std::string text = slurp(kRoot + "/lessons/w2l2/swap/reference.uir") +
                     "%z = const 0 dtype=i32\n%w = idiv %x0 %z\n%o = buffer 1 dtype=i32\n%oq = shrink %o 0 shape=[]\n"
                     "%os = store %oq %w\n%o1 = after %o %os\n";
  GradeResult r = gradeText("swap", text);
  ASSERT_EQ(r.status, GradeResult::Status::Graded) << renderText(r);
  EXPECT_EQ(test(r, "example").failure, "trap: division by zero (at line 14)");
  // "random" is hidden: the trap's kind and line, no value.
  EXPECT_EQ(test(r, "random").failure, "case 1 of 50: the program trapped: a division by zero at line 14");
}

// ---- the exercise format ---------------------------------------------------------------

namespace {

struct TempDir {
  fs::path p;
  TempDir() {
    p = fs::temp_directory_path() / ("cairn-grade-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::create_directories(p);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
  static int &counter() {
    static int c = 0;
    return c;
  }
  void write(const std::string &rel, const std::string &text) const {
    fs::create_directories((p / rel).parent_path());
    std::ofstream(p / rel, std::ios::binary) << text;
  }
};

std::vector<std::string> loadErrors(const std::string &manifest) {
  TempDir d;
  d.write("ex/exercise.json", manifest);
  d.write("ex/statement.md", "Do it.\n");
  d.write("ex/starter.uir", "%b = buffer 2 dtype=i32 slot=0\n");
  d.write("ex/reference.uir", "%b = buffer 2 dtype=u8 slot=0 data=[1 2]\n");
  Exercise ex;
  std::vector<std::string> errs;
  loadExercise((d.p / "ex").string(), ex, errs);
  return errs;
}

bool mentions(const std::vector<std::string> &errs, const std::string &what) {
  for (const std::string &e : errs)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(ExerciseFormat, ReportsEveryProblem) {
  const std::string head = R"({"format": "cairn-exercise", "version": 1, "title": "T", "tests": )";
  EXPECT_TRUE(loadErrors(head + R"([{"name": "a", "input": {"0": [3, 4]}, "expect": {"0": [3, 4]}}]})").empty());
  EXPECT_TRUE(mentions(loadErrors("not json"), "not a JSON object"));
  EXPECT_TRUE(mentions(loadErrors(head + "[]}"), "\"tests\" must be a non-empty array"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "expect": {"1": [1, 2]}}]})"), "\"1\" is not a slot of the reference"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "expect": {"0": [1]}}]})"), "1 values, but the reference's buffer has 2"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "expect": {"0": [1, 300]}}]})"), "300 is not a value of u8"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "input": {"0": [1, 2]}}]})"), "\"expect\" must map slots"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "expect": {"0": [1, 2]}}, {"name": "a", "expect": {"0": [1, 2]}}]})"),
                       "two tests are named \"a\""));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "g", "generate": {"slots": {"0": {"size": 3}}}}]})"),
                       "the reference's buffer has 2 elements"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "g", "generate": {"slots": {"0": {"min": -1}}}}]})"), "0 <= min <= max <= 255"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "g", "generate": {"cases": 0, "slots": {"0": {}}}}]})"), "\"cases\" must be between"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "expect": {"0": [1, 2]}, "extra": 1}]})"), "unknown key \"extra\""));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "expect": {"0": [1, 2]}}], "starter_fails": ["b"]})"), "which is not a test"));
  EXPECT_TRUE(mentions(loadErrors(head + R"([{"name": "a", "expect": {"0": [1, 2]}}], "limits": {"max_steps": -1}})"), "non-negative"));
}

TEST(ExerciseFormat, GeneratorUsesTheWholeDtypeRangeByDefault) {
  TempDir d;
  d.write("ex/exercise.json", R"({"format": "cairn-exercise", "version": 1, "title": "T",
    "tests": [{"name": "g", "generate": {"seed": 3, "cases": 40, "slots": {"0": {}}}}]})");
  d.write("ex/statement.md", "x\n");
  d.write("ex/starter.uir", "%b = buffer 2 dtype=u8 slot=0\n");
  d.write("ex/reference.uir", "%b = buffer 2 dtype=u8 slot=0\n");
  Exercise ex;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise((d.p / "ex").string(), ex, errs)) << errs[0];
  uint64_t hi = 0;
  for (const Case &c : ex.tests[0].cases)
    for (const Literal &l : c.input.at(0)) hi = std::max(hi, l.magnitude);
  EXPECT_LE(hi, 255u);
  EXPECT_GT(hi, 128u);
  EXPECT_NE(ex.tests[0].about.find("40 random cases (seed 3), slot 0: 2 values in [0, 255]"), std::string::npos) << ex.tests[0].about;
}

TEST(ExerciseFormat, ResolvesNames) {
  std::string why;
  std::vector<std::string> roots = {kRoot + "/lessons"};
  EXPECT_EQ(fs::path(resolveExercise("w2l2/swap", roots, why)), fs::path(kRoot + "/lessons/w2l2/swap"));
  EXPECT_EQ(fs::path(resolveExercise("running_total", roots, why)), fs::path(kRoot + "/lessons/w2l2/running_total"));
  EXPECT_EQ(resolveExercise(kRoot + "/lessons/w2l2/swap/exercise.json", roots, why), kRoot + "/lessons/w2l2/swap");
  EXPECT_EQ(resolveExercise("nope", roots, why), "");
  EXPECT_NE(why.find("no exercise `nope`"), std::string::npos);
  EXPECT_EQ(resolveExercise(kRoot + "/lessons", roots, why), "");
}

// ---- lessons and quizzes ------------------------------------------------------------------

TEST(LessonCheck, ShippedLessonsPass) {
  std::ostringstream out;
  LessonCheckSummary sum;
  ASSERT_TRUE(checkLessons(kRoot + "/lessons", out, sum));
  EXPECT_EQ(sum.errors, 0u) << out.str();
  EXPECT_EQ(sum.lessons, 1u);
  EXPECT_EQ(sum.exercises, 2u);
  EXPECT_EQ(sum.questions, 6u);
}

TEST(LessonCheck, WrongQuizAnswersAreFound) {
  json q = json::parse(slurp(kRoot + "/lessons/w2l2/quiz.json"));
  q["questions"][0]["answer"] = "1";                  // %x holds 0
  q["questions"][1]["answer"] = 7;                    // no such choice
  q["questions"][3]["answer"] = 4;                    // the wrong after is line 5
  q["questions"][4]["answer"] = {{"0", {5, 6}}};      // the contents are [5 5]
  q["questions"][5]["oracle"]["rule"] = "bounds";     // it is a cycle
  q["questions"][2]["program"] = json::array({"%b = oops"});
  TempDir d;
  d.write("quiz.json", q.dump());
  std::vector<std::string> errs;
  EXPECT_EQ(checkQuiz((d.p / "quiz.json").string(), errs), 6u);
  std::string all;
  for (auto &e : errs) all += e + "\n";
  EXPECT_TRUE(mentions(errs, "%x holds 0, but the answer is 1")) << all;
  EXPECT_TRUE(mentions(errs, "one of the 3 choices")) << all;
  EXPECT_TRUE(mentions(errs, "no error on line 4")) << all;
  EXPECT_TRUE(mentions(errs, "ends as [5, 5], but the answer is [5, 6]")) << all;
  EXPECT_TRUE(mentions(errs, "no [bounds] error")) << all;
  EXPECT_TRUE(mentions(errs, "does not parse")) << all;
}

TEST(LessonCheck, StarterThatPassesIsAProblem) {
  TempDir d;
  fs::create_directories(d.p / "w9");
  fs::copy(kRoot + "/lessons/w2l2/swap", d.p / "w9/swap", fs::copy_options::recursive);
  fs::copy_file(d.p / "w9/swap/reference.uir", d.p / "w9/swap/starter.uir", fs::copy_options::overwrite_existing);
  std::ostringstream out;
  LessonCheckSummary sum;
  ASSERT_TRUE(checkLessons(d.p.string(), out, sum));
  EXPECT_GE(sum.errors, 1u);
  EXPECT_NE(out.str().find("the starter passes every test"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("an exercise no lesson lists"), std::string::npos) << out.str();
}

// ---- pictures ---------------------------------------------------------------------------------

TEST(Dot, VersionsOfOneBufferGetOneColourEach) {
  Graph g;
  Diags d;
  ASSERT_TRUE(parseUir(slurp(kRoot + "/lessons/w2l2/swap/reference.uir"), g, d));
  std::string plain = printDot(g), same = printDot(g, DotOptions{});
  EXPECT_EQ(plain, same);  // off by default: the picture is unchanged
  DotOptions o;
  o.versionsOf = "%b";
  std::string dot = printDot(g, o);
  EXPECT_NE(dot.find("label=\"versions of %b: %b, %b1, %b2\""), std::string::npos) << dot;
  // Three versions: three fill colours, and the after edges in their colours.
  for (const char *c : {"#a6cee3", "#b2df8a", "#fdbf6f"}) EXPECT_NE(dot.find(c), std::string::npos) << c;
  EXPECT_NE(dot.find("penwidth=2.5, tooltip=\"the version it builds on\""), std::string::npos);
  EXPECT_EQ(dot.find("#d62728"), std::string::npos);  // the plain red after edge is replaced
  EXPECT_EQ(printDot(g, o), dot);                    // deterministic
  EXPECT_FALSE(findBuffer(g, "nope").valid());
  o.highlightLines = {9};
  EXPECT_NE(printDot(g, o).find("color=\"#d62728\", penwidth=3"), std::string::npos);
}
