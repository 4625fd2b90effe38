// Tests of the authoring keys of exercise.json (visibility, hint, tolerance,
// partial, require, sizes that follow a slot, hidden_tests, unknown keys),
// the lesson check's canonical-form and trivial-variant findings, `lesson
// release`, and the rule that a hidden test's data appears in no output:
// every format is searched for the hidden values.
//
// Each key has a correct use (it loads and grades as documented in
// lessons/README.md) and a wrong use (the loader names the key and the file).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "grade/batch.hpp"
#include "grade/exercise.hpp"
#include "grade/grader.hpp"
#include "grade/lesson.hpp"
#include "grade/release.hpp"
#include "grade/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace cairn;
using namespace cairn::grade;
using nlohmann::json;
using namespace cairn::grade::testing;

namespace {



struct Dir {
  fs::path p;
  Dir() {
    static int n = 0;
    p = fs::temp_directory_path() / ("cairn-authoring-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::create_directories(p);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
  void write(const std::string &rel, const std::string &text) const {
    fs::create_directories((p / rel).parent_path());
    std::ofstream(p / rel, std::ios::binary) << text;
  }
};

// b[1] = b[0] + b[1] over two i32s.
const char *kAddRef =
    "%b = buffer 2 dtype=i32 slot=0\n%p0 = shrink %b 0 shape=[]\n%p1 = shrink %b 1 shape=[]\n%x0 = load %p0\n"
    "%x1 = load %p1\n%t = add %x0 %x1\n%s = store %p1 %t\n%b1 = after %b %s\n";

// An exercise folder `ex` in `d` with the given manifest (the part after
// "tests": ...), reference and starter.
fs::path makeExercise(const Dir &d, const std::string &rest, const std::string &ref = kAddRef,
                      const std::string &starter = "%b = buffer 2 dtype=i32 slot=0\n") {
  d.write("ex/exercise.json", R"({"format": "cairn-exercise", "version": 1, "title": "T", )" + rest + "}");
  d.write("ex/statement.md", "Do it.\n");
  d.write("ex/starter.uir", starter);
  d.write("ex/reference.uir", ref);
  return d.p / "ex";
}

std::vector<std::string> errorsOf(const std::string &rest, const std::string &ref = kAddRef) {
  Dir d;
  Exercise ex;
  std::vector<std::string> errs;
  loadExercise(makeExercise(d, rest, ref).string(), ex, errs);
  return errs;
}

bool mentions(const std::vector<std::string> &errs, const std::string &what) {
  for (const std::string &e : errs)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

std::string all(const std::vector<std::string> &errs) {
  std::string s;
  for (const std::string &e : errs) s += e + "\n";
  return s;
}

const TestResult &named(const GradeResult &r, const std::string &name) {
  for (const TestResult &t : r.tests)
    if (t.name == name) return t;
  static TestResult none;
  ADD_FAILURE() << "no test " << name;
  return none;
}

GradeResult gradeIn(const fs::path &dir, const std::string &text) {
  Exercise ex;
  std::vector<std::string> errs;
  EXPECT_TRUE(loadExercise(dir.string(), ex, errs)) << all(errs);
  return gradeSource(ex, "sub.uir", text, false, ex.limits);
}

const std::string kVisibleTest = R"({"name": "v", "input": {"0": [1, 2]}, "expect": {"0": [1, 3]}})";

}  // namespace

// ---- hidden means hidden ------------------------------------------------------------

namespace {

// Values no output may show: the hidden tests' inputs and expected contents.
const char *kSecrets[] = {"2147483647", "987654321", "1159829326", "31415926"};

const std::string kHiddenTests =
    R"("tests": [)" + kVisibleTest + R"(,
  {"name": "extremes", "visible": false, "hint": "Think about the largest i32.",
   "input": {"0": [2147483647, -987654321]}, "expect": {"0": [2147483647, 1159829326]}},
  {"name": "later", "visibility": "after_due_date", "input": {"0": [31415926, 0]}, "expect": {"0": [31415926, 31415926]}}])";

// Submissions that fail the hidden tests in each way a value could leak.
std::vector<std::string> leakySubmissions() {
  std::string head = "%b = buffer 2 dtype=i32 slot=0\n%p0 = shrink %b 0 shape=[]\n%p1 = shrink %b 1 shape=[]\n"
                     "%x0 = load %p0\n%x1 = load %p1\n";
  return {
      // traps on a loaded index: the interpreter's message quotes it
      head + "%v = checked_shrink %b %x0 shape=[]\n%y = load %v\n%t = add %y %x1\n%s = store %p1 %t\n%b1 = after %b %s\n",
      // a buffer sized by a loaded value (negative for the hidden input)
      head + "%z = buffer %x1 dtype=i32\n%t = add %x0 %x1\n%s = store %p1 %t\n%b1 = after %b %s\n",
      // a wrong result
      head + "%t = sub %x0 %x1\n%s = store %p1 %t\n%b1 = after %b %s\n",
      // another number of elements
      "%b = buffer 3 dtype=i32 slot=0\n",
      // a dynamic buffer of the wrong size
      "%n = const 5 dtype=i64\n%b = buffer %n dtype=i32 slot=0\n",
      // divides by a loaded value
      head + "%t = idiv %x0 %x0\n%s = store %p1 %t\n%b1 = after %b %s\n",
  };
}

void expectNoSecret(const std::string &what, const std::string &text) {
  for (const char *s : kSecrets) EXPECT_EQ(text.find(s), std::string::npos) << what << " shows " << s << ":\n" << text;
}

}  // namespace

TEST(HiddenData, NoOutputFormatShowsAHiddenValue) {
  Dir d;
  fs::path ex = makeExercise(d, kHiddenTests);
  int i = 0;
  for (const std::string &sub : leakySubmissions()) {
    GradeResult r = gradeIn(ex, sub);
    ASSERT_EQ(r.status, GradeResult::Status::Graded) << renderText(r);
    EXPECT_FALSE(named(r, "extremes").passed) << sub;
    std::string id = "submission " + std::to_string(i++);
    expectNoSecret(id + " text", renderText(r));
    expectNoSecret(id + " --json", renderJson(r).dump());
    expectNoSecret(id + " --gradescope", renderGradescope(r).dump());
    EXPECT_NE(renderText(r).find("hint: Think about the largest i32."), std::string::npos) << renderText(r);
  }
  // The trap names the kind and the line, no value.
  GradeResult trap = gradeIn(ex, leakySubmissions()[0]);
  EXPECT_EQ(named(trap, "extremes").failure, "the program trapped: an index out of bounds at line 6");
  GradeResult neg = gradeIn(ex, leakySubmissions()[1]);
  EXPECT_EQ(named(neg, "extremes").failure, "the program trapped: a negative buffer size at line 6");
  // The visible test still shows its data.
  EXPECT_NE(renderText(gradeIn(ex, leakySubmissions()[2])).find("input     slot 0 = [1 2]"), std::string::npos);
}

TEST(HiddenData, BatchResultsShowNoHiddenValue) {
  Dir d;
  fs::path exDir = makeExercise(d, kHiddenTests);
  Exercise ex;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise(exDir.string(), ex, errs)) << all(errs);
  int i = 0;
  for (const std::string &sub : leakySubmissions()) d.write("subs/s" + std::to_string(i++) + ".uir", sub);
  for (bool gs : {false, true})
    for (bool jsonl : {false, true}) {
      BatchOptions o;
      o.input = (d.p / "subs").string();
      o.outDir = (d.p / ("out" + std::to_string(gs) + std::to_string(jsonl))).string();
      o.jobs = 2;
      o.gradescope = gs;
      o.jsonl = jsonl;
      BatchSummary sum;
      std::string why;
      ASSERT_TRUE(gradeBatch(ex, ex.limits, o, sum, why)) << why;
      size_t files = 0;
      for (auto &f : fs::recursive_directory_iterator(o.outDir))
        if (f.is_regular_file()) {
          ++files;
          expectNoSecret(f.path().string(), slurp(f.path()));
        }
      EXPECT_GE(files, 2u);
    }
}

// ---- visibility ---------------------------------------------------------------------------

TEST(Authoring, VisibilityMapsToGradescope) {
  Dir d;
  GradeResult r = gradeIn(makeExercise(d, kHiddenTests), "%b = buffer 2 dtype=i32 slot=0\n");
  json g = renderGradescope(r);
  ASSERT_EQ(g["tests"].size(), 4u);
  EXPECT_EQ(g["tests"][1]["visibility"], "visible");
  EXPECT_EQ(g["tests"][2]["visibility"], "hidden");
  EXPECT_EQ(g["tests"][3]["visibility"], "after_due_date");
  json j = renderJson(r);
  EXPECT_EQ(j["tests"][2]["visibility"], "after_due_date");
  EXPECT_FALSE(j["tests"][2]["visible"].get<bool>());
  EXPECT_FALSE(j["tests"][2].contains("input"));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "a", "visibility": "secret", "expect": {"0": [1, 2]}}])"),
                       "\"visibility\" must be \"visible\", \"hidden\", \"after_due_date\" or \"after_published\""));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "a", "visible": true, "visibility": "hidden", "expect": {"0": [1, 2]}}])"),
                       "give \"visibility\" or \"visible\", not both"));
}

// ---- hint ----------------------------------------------------------------------------------

TEST(Authoring, HintShownOnFailureOnly) {
  Dir d;
  fs::path ex = makeExercise(d, R"("tests": [{"name": "v", "hint": "Add b[0].", "input": {"0": [1, 2]}, "expect": {"0": [1, 3]}}])");
  GradeResult bad = gradeIn(ex, "%b = buffer 2 dtype=i32 slot=0\n");
  EXPECT_EQ(named(bad, "v").hint, "Add b[0].");
  EXPECT_NE(renderGradescope(bad)["tests"][1]["output"].get<std::string>().find("hint: Add b[0]."), std::string::npos);
  EXPECT_EQ(renderJson(bad)["tests"][0]["hint"], "Add b[0].");
  GradeResult good = gradeIn(ex, kAddRef);
  EXPECT_EQ(renderText(good).find("hint:"), std::string::npos);
  EXPECT_TRUE(renderJson(good)["tests"][0]["hint"].is_null());
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "a", "hint": 5, "expect": {"0": [1, 2]}}])"), "\"hint\" must be a non-empty string"));
}

// ---- tolerance -------------------------------------------------------------------------------

namespace {
Bits f64(double d) {
  Bits b;
  std::memcpy(&b, &d, 8);
  return b;
}
Bits f32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
}  // namespace

TEST(Authoring, ToleranceRule) {
  Tolerance none, abs{1e-6, -1, -1}, rel{-1, 1e-9, -1}, ulps{-1, -1, 4};
  EXPECT_FALSE(sameValue(f64(1.0), f64(1.0 + 1e-9), DType::F64, none));
  EXPECT_TRUE(sameValue(f64(1.0), f64(1.0 + 1e-9), DType::F64, abs));
  EXPECT_FALSE(sameValue(f64(1.0), f64(1.0 + 1e-5), DType::F64, abs));
  EXPECT_TRUE(sameValue(f64(1e12), f64(1e12 + 100), DType::F64, rel));
  EXPECT_FALSE(sameValue(f64(1e12), f64(1e12 + 10000), DType::F64, rel));
  EXPECT_TRUE(sameValue(f64(1.0), f64(std::nextafter(std::nextafter(1.0, 2.0), 2.0)), DType::F64, ulps));
  EXPECT_TRUE(sameValue(f32(1.0f), f32(std::nextafter(1.0f, 2.0f)), DType::F32, ulps));
  EXPECT_FALSE(sameValue(f32(1.0f), f32(1.001f), DType::F32, ulps));
  EXPECT_TRUE(sameValue(f64(0.0), f64(-0.0), DType::F64, ulps));  // 0 ulps apart
  EXPECT_TRUE(sameValue(f64(NAN), f64(-NAN), DType::F64, none));  // both NaN
  EXPECT_FALSE(sameValue(f64(NAN), f64(1.0), DType::F64, Tolerance{1e300, 1e300, 1000}));
  EXPECT_FALSE(sameValue(f64(INFINITY), f64(1e308), DType::F64, Tolerance{1e300, 1e300, -1}));
  EXPECT_TRUE(sameValue(f64(-INFINITY), f64(-INFINITY), DType::F64, none));
  EXPECT_FALSE(sameValue(5, 6, DType::I32, abs));  // integers: exact
}

TEST(Authoring, ToleranceInTheManifest) {
  const std::string ref = "%b = buffer 1 dtype=f64 slot=0\n%p = shrink %b 0 shape=[]\n%x = load %p\n%t = fdiv %x 3.0\n"
                          "%s = store %p %t\n%b1 = after %b %s\n";
  const std::string close = "%b = buffer 1 dtype=f64 slot=0\n%p = shrink %b 0 shape=[]\n%x = load %p\n%t = mul %x 0.3333333333\n"
                            "%s = store %p %t\n%b1 = after %b %s\n";
  Dir d;
  fs::path loose = makeExercise(d, R"("tolerance": {"abs": 1e-6}, "tests": [{"name": "third", "input": {"0": [1.0]}, "expect": {"0": [0.3333333333333333]}},
    {"name": "strict", "tolerance": {"ulps": 0}, "input": {"0": [1.0]}, "expect": {"0": [0.3333333333333333]}}])",
                                ref);
  GradeResult r = gradeIn(loose, close);
  EXPECT_TRUE(named(r, "third").passed) << renderText(r);
  EXPECT_FALSE(named(r, "strict").passed);  // the test's tolerance replaces the exercise's
  EXPECT_TRUE(mentions(errorsOf(R"("tolerance": {"abs": 1}, "tests": [)" + kVisibleTest + "]"),
                       "\"tolerance\" applies to float slots, and the reference has none"));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "a", "tolerance": {"abso": 1}, "expect": {"0": [1.0]}}])", ref),
                       "unknown key \"abso\" (allowed: abs, rel, ulps)"));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "a", "tolerance": {"rel": -1}, "expect": {"0": [1.0]}}])", ref),
                       "\"rel\" must be a finite number >= 0"));
}

// ---- partial ------------------------------------------------------------------------------------

TEST(Authoring, PartialScoresTheFractionOfCases) {
  Dir d;
  // Cases where b[0] = 0 pass a program that stores b[1] unchanged.
  fs::path ex = makeExercise(d, R"("tests": [{"name": "p", "points": 4, "partial": true, "cases": [
      {"input": {"0": [0, 1]}, "expect": {"0": [0, 1]}}, {"input": {"0": [1, 1]}, "expect": {"0": [1, 2]}},
      {"input": {"0": [0, 5]}, "expect": {"0": [0, 5]}}, {"input": {"0": [2, 1]}, "expect": {"0": [2, 3]}}]},
    {"name": "whole", "cases": [{"input": {"0": [0, 1]}, "expect": {"0": [0, 1]}}, {"input": {"0": [1, 1]}, "expect": {"0": [1, 2]}}]}])");
  GradeResult r = gradeIn(ex, "%b = buffer 2 dtype=i32 slot=0\n");
  const TestResult &p = named(r, "p");
  EXPECT_FALSE(p.passed);
  EXPECT_DOUBLE_EQ(p.score, 2);
  EXPECT_EQ(p.failedCases, 2u);
  EXPECT_EQ(p.failure, "2 of 4 cases failed; the first, case 2 of 4: slot 0 differs at element 1: expected 2, got 1");
  EXPECT_DOUBLE_EQ(named(r, "whole").score, 0);
  EXPECT_DOUBLE_EQ(r.score, 2);
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "a", "partial": true, "expect": {"0": [1, 2]}}])"),
                       "\"partial\" needs a test of several cases"));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "a", "partial": 1, "expect": {"0": [1, 2]}}])"), "\"partial\" must be true or false"));
}

// ---- require ---------------------------------------------------------------------------------------

TEST(Authoring, RequireChecksTheGraph) {
  Dir d;
  fs::path ex = makeExercise(d, R"("tests": [)" + kVisibleTest + R"(], "require": [
      {"op": "store", "max": 1, "points": 2, "hint": "One store suffices."},
      {"name": "a parallel loop", "op": "parallel range", "min": 1, "visibility": "hidden"}])");
  GradeResult r = gradeIn(ex, kAddRef);
  ASSERT_EQ(r.tests.size(), 3u);
  EXPECT_TRUE(named(r, "at most 1 store").passed);
  const TestResult &par = named(r, "a parallel loop");
  EXPECT_FALSE(par.passed);
  EXPECT_EQ(par.failure, "the program has 0 parallel range nodes; the exercise requires at least 1");
  EXPECT_DOUBLE_EQ(r.score, 3);
  EXPECT_DOUBLE_EQ(r.maxScore, 4);
  std::string twice = std::string(kAddRef) + "%p2 = shrink %b1 0 shape=[]\n%s2 = store %p2 %t\n%b2 = after %b1 %s2\n";
  EXPECT_EQ(named(gradeIn(ex, twice), "at most 1 store").failure,
            "the program has 2 `store` nodes; the exercise allows at most 1");
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [)" + kVisibleTest + R"(], "require": [{"op": "stor", "max": 1}])"),
                       "\"op\" must name an op of .uir"));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [)" + kVisibleTest + R"(], "require": [{"op": "store"}])"), "give \"min\", \"max\" or both"));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [)" + kVisibleTest + R"(], "require": [{"op": "store", "max": 1, "most": 2}])"),
                       "require 1: unknown key \"most\""));
}

// ---- a size that follows a slot ------------------------------------------------------------------

namespace {
// Sums slot 0 (length from slot 1) into slot 2.
const char *kSumRef =
    "%nb = buffer 1 dtype=i64 slot=1\n%np = shrink %nb 0 shape=[]\n%n = load %np\n%b = buffer %n dtype=i32 slot=0\n"
    "%o = buffer 1 dtype=i32 slot=2\n%op = shrink %o 0 shape=[]\n%i = range %n\n  %c = carry %o\n"
    "  %cp = shrink %c 0 shape=[]\n  %acc = load %cp\n  %e = shrink %b %i shape=[]\n  %v = load %e\n  %t = add %acc %v\n"
    "  %s = store %cp %t\n  %c1 = after %c %s\n%end = end %i %c1\n%o1 = after %o %end\n";
}  // namespace

TEST(Authoring, SizeFollowsAGeneratedSlot) {
  Dir d;
  fs::path ex = makeExercise(d, R"("tests": [{"name": "g", "generate": {"seed": 5, "cases": 30, "check": [2], "slots": {
      "1": {"min": 0, "max": 9}, "0": {"size": {"slot": "1", "index": 0}, "min": -5, "max": 5}}}}])",
                             kSumRef, kSumRef);
  Exercise e;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise(ex.string(), e, errs)) << all(errs);
  std::set<uint64_t> sizes;
  for (const Case &c : e.tests[0].cases) {
    ASSERT_EQ(c.input.at(1).size(), 1u);
    EXPECT_EQ(c.input.at(0).size(), c.input.at(1)[0].magnitude);
    sizes.insert(c.input.at(0).size());
  }
  EXPECT_GT(sizes.size(), 3u);  // the size varies with the drawn value
  EXPECT_NE(e.tests[0].about.find("slot 0: slot 1[0] values in [-5, 5]"), std::string::npos) << e.tests[0].about;
  auto gen = [](const std::string &slots) {
    return R"("tests": [{"name": "g", "generate": {"cases": 3, "slots": {)" + slots + "}}]";
  };
  EXPECT_TRUE(mentions(errorsOf(gen(R"("0": {"size": {"slot": "1"}}, "2": {}, "1": {"min": 0, "max": 99999999}})"), kSumRef),
                       "its size follows slot 1[0], so slot 1's \"min\" and \"max\" must lie within 0 and 16777216"));
  EXPECT_TRUE(mentions(errorsOf(gen(R"("0": {"size": {"slot": "1"}}})"), kSumRef), "which this test does not generate"));
  EXPECT_TRUE(mentions(errorsOf(gen(R"("0": {"size": {"slot": "1", "index": 1}}, "1": {"min": 0, "max": 3}})"), kSumRef),
                       "does not always have 2 element(s)"));
  EXPECT_TRUE(mentions(errorsOf(gen(R"("0": {"size": {"slot": "1", "at": 0}}, "1": {"min": 0, "max": 3}})"), kSumRef),
                       "unknown key \"at\""));
}

// ---- unknown keys, hidden_tests --------------------------------------------------------------------

TEST(Authoring, UnknownKeysAnywhereAreErrors) {
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [)" + kVisibleTest + R"(], "starter_fail": [])"), "unknown key \"starter_fail\""));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "g", "generate": {"seeds": 1, "slots": {"0": {}}}}])"), "generate: unknown key \"seeds\""));
  EXPECT_TRUE(mentions(errorsOf(R"("tests": [{"name": "g", "generate": {"slots": {"0": {"maximum": 3}}}}])"),
                       "generate slot 0: unknown key \"maximum\""));
  std::vector<std::string> e = errorsOf(R"("tests": [)" + kVisibleTest + R"(], "extra": 1)");
  EXPECT_TRUE(mentions(e, "exercise.json: unknown key \"extra\"")) << all(e);
}

TEST(Authoring, HiddenTestsFile) {
  Dir d;
  fs::path ex = makeExercise(d, R"("tests": [)" + kVisibleTest + R"(], "hidden_tests": "hidden.json")");
  d.write("ex/hidden.json", R"([{"name": "h", "input": {"0": [2147483647, -987654321]}, "expect": {"0": [2147483647, 1159829326]}},
                               {"name": "h2", "visibility": "after_published", "input": {"0": [1, 1]}, "expect": {"0": [1, 2]}}])");
  Exercise e;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise(ex.string(), e, errs)) << all(errs);
  ASSERT_EQ(e.tests.size(), 3u);
  EXPECT_EQ(e.tests[1].visibility, Visibility::Hidden);
  EXPECT_EQ(e.tests[2].visibility, Visibility::AfterPublished);
  d.write("ex/hidden.json", R"([{"name": "h", "visible": true, "expect": {"0": [1, 2]}}])");
  ASSERT_FALSE(loadExercise(ex.string(), e, errs));
  EXPECT_TRUE(mentions(errs, "hidden.json: test \"h\": a test in the hidden-tests file cannot be visible")) << all(errs);
  fs::remove(d.p / "ex/hidden.json");
  errs.clear();
  ASSERT_FALSE(loadExercise(ex.string(), e, errs));
  EXPECT_TRUE(mentions(errs, "(the hidden tests)")) << all(errs);
}

// ---- lesson check: canonical form, trivial variants, lesson.json keys ---------------------------------

namespace {
std::string checkOf(const fs::path &dir, LessonCheckSummary &sum) {
  std::ostringstream out;
  EXPECT_TRUE(checkLessons(dir.string(), out, sum));
  return out.str();
}
}  // namespace

TEST(LessonAuthoring, ReferenceAndStarterMustBeCanonical) {
  Dir d;
  std::string loose = kAddRef;
  loose.replace(loose.find("%t = add"), 8, "%t  = add");
  makeExercise(d, R"("tests": [)" + kVisibleTest + "]", loose);
  LessonCheckSummary sum;
  std::string out = checkOf(d.p, sum);
  EXPECT_NE(out.find("reference.uir is not in canonical form (run `cairn fmt -i "), std::string::npos) << out;
  EXPECT_EQ(sum.errors, 1u) << out;
  Dir ok;
  makeExercise(ok, R"("tests": [)" + kVisibleTest + "]");
  LessonCheckSummary s2;
  out = checkOf(ok.p, s2);
  EXPECT_EQ(s2.errors, 0u) << out;
  EXPECT_EQ(s2.warnings, 0u) << out;
}

TEST(LessonAuthoring, WarnsWhenATriviallyWrongProgramPasses) {
  Dir d;  // every expected content is the input: "unchanged" passes
  makeExercise(d, R"("tests": [{"name": "a", "input": {"0": [0, 1]}, "expect": {"0": [0, 1]}}, {"name": "b", "input": {"0": [0, 7]}, "expect": {"0": [0, 7]}}])",
               kAddRef, "%b = buffer 2 dtype=i32 slot=0\n%p = shrink %b 0 shape=[]\n%s = store %p 9\n%b1 = after %b %s\n");
  LessonCheckSummary sum;
  std::string out = checkOf(d.p, sum);
  EXPECT_NE(out.find("/ex: a program that leaves the slots unchanged passes every test"), std::string::npos) << out;
  EXPECT_EQ(sum.errors, 0u) << out;
  Dir z;  // every expected content is zero
  makeExercise(z, R"("tests": [{"name": "a", "input": {"0": [0, 0]}, "expect": {"0": [0, 0]}}, {"name": "b", "input": {"0": [-3, 3]}, "expect": {"0": [-3, 0]}}])",
               kAddRef, "%b = buffer 2 dtype=i32 slot=0\n%p = shrink %b 0 shape=[]\n%s = store %p 9\n%b1 = after %b %s\n");
  LessonCheckSummary s2;
  out = checkOf(z.p, s2);
  EXPECT_EQ(out.find("leaves every checked slot zero"), std::string::npos) << out;  // -3 is not zero
  EXPECT_EQ(s2.warnings, 0u) << out;
  Dir z2;
  makeExercise(z2, R"("tests": [{"name": "a", "input": {"0": [0, 0]}, "expect": {"0": [0, 0]}}, {"name": "b", "input": {"0": [0, 0]}, "expect": {"0": [0, 0]}}])",
               kAddRef, "%b = buffer 2 dtype=i32 slot=0\n%p = shrink %b 0 shape=[]\n%s = store %p 9\n%b1 = after %b %s\n");
  LessonCheckSummary s3;
  out = checkOf(z2.p, s3);
  EXPECT_NE(out.find("/ex: a program that leaves every checked slot zero passes every test"), std::string::npos) << out;
}

TEST(LessonAuthoring, UnknownLessonKey) {
  Dir d;
  fs::copy(kRoot + "/lessons/w2l2", d.p / "w2l2", fs::copy_options::recursive);
  json l = json::parse(slurp(d.p / "w2l2/lesson.json"));
  l["exercices"] = json::array();
  std::ofstream(d.p / "w2l2/lesson.json") << l.dump();
  LessonCheckSummary sum;
  std::string out = checkOf(d.p, sum);
  EXPECT_NE(out.find("lesson.json: unknown key \"exercices\""), std::string::npos) << out;
}

// ---- lesson release ------------------------------------------------------------------------------------------

TEST(LessonRelease, WritesOnlyWhatStudentsMaySee) {
  Dir d;
  fs::copy(kRoot + "/lessons/w2l2", d.p / "w2l2", fs::copy_options::recursive);
  // Move one hidden test of swap into a hidden-tests file.
  json m = json::parse(slurp(d.p / "w2l2/swap/exercise.json"));
  json extremes = m["tests"][3];
  m["tests"].erase(3);
  m["hidden_tests"] = "hidden.json";
  std::ofstream(d.p / "w2l2/swap/exercise.json") << m.dump(2);
  std::ofstream(d.p / "w2l2/swap/hidden.json") << json::array({extremes}).dump();
  std::ostringstream log;
  std::string why;
  fs::path out = d.p / "release";
  ASSERT_EQ(releaseLesson((d.p / "w2l2").string(), out.string(), log, why), ReleaseStatus::Written) << why << log.str();
  for (const char *f : {"lesson.json", "lesson.md", "quiz.json", "swap/exercise.json", "swap/statement.md", "swap/starter.uir",
                        "running_total/exercise.json", "running_total/starter.uir"})
    EXPECT_TRUE(fs::is_regular_file(out / f)) << f;
  for (auto &f : fs::recursive_directory_iterator(out)) {
    std::string name = f.path().filename().string();
    EXPECT_TRUE(name != "reference.uir" && name != "hidden.json") << f.path();
    if (!f.is_regular_file()) continue;
    std::string text = slurp(f.path());
    for (const char *s : {"extremes", "wraps", "zero first", "\"random\"", "small values", "2024", "hidden_tests", "starter_fails",
                          "2147483647", "reference.uir"})
      EXPECT_EQ(text.find(s), std::string::npos) << f.path() << " has " << s;
  }
  // The copy loads and grades: the reference passes its visible tests, the starter fails one.
  Exercise ex;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise((out / "swap").string(), ex, errs)) << all(errs);
  EXPECT_TRUE(ex.released);
  EXPECT_EQ(ex.tests.size(), 3u);
  GradeResult r = gradeSource(ex, "ref", slurp(d.p / "w2l2/swap/reference.uir"), false, ex.limits);
  EXPECT_TRUE(r.allPassed()) << renderText(r);
  LessonCheckSummary sum;
  std::string check = checkOf(out, sum);
  EXPECT_EQ(sum.errors, 0u) << check;
  // A second release into the same folder is refused; a broken lesson writes nothing.
  EXPECT_EQ(releaseLesson((d.p / "w2l2").string(), out.string(), log, why), ReleaseStatus::UsageError);
  std::ofstream(d.p / "w2l2/swap/starter.uir") << slurp(d.p / "w2l2/swap/reference.uir");
  EXPECT_EQ(releaseLesson((d.p / "w2l2").string(), (d.p / "r2").string(), log, why), ReleaseStatus::LessonBroken);
  EXPECT_FALSE(fs::exists(d.p / "r2"));
}

TEST(LessonRelease, VisibleGeneratedTestBecomesCases) {
  Dir d;
  d.write("l/lesson.json", R"({"format": "cairn-lesson", "version": 1, "id": "l", "title": "L", "text": "l.md", "exercises": ["ex"]})");
  d.write("l/l.md", "Text.\n");
  Dir tmp;
  fs::path ex = makeExercise(tmp, R"("tests": [{"name": "gen", "generate": {"seed": 9, "cases": 5, "slots": {"0": {"min": -9, "max": 9}}}},
     {"name": "secret", "visible": false, "generate": {"seed": 31337, "cases": 5, "slots": {"0": {}}}}])");
  fs::copy(ex, d.p / "l/ex", fs::copy_options::recursive);
  std::ostringstream log;
  std::string why;
  ASSERT_EQ(releaseLesson((d.p / "l").string(), (d.p / "out").string(), log, why), ReleaseStatus::Written) << why << log.str();
  json m = json::parse(slurp(d.p / "out/ex/exercise.json"));
  ASSERT_EQ(m["tests"].size(), 1u);
  EXPECT_EQ(m["tests"][0]["cases"].size(), 5u);
  EXPECT_FALSE(m["tests"][0].contains("generate"));
  EXPECT_TRUE(m["reference"].is_null());
  EXPECT_EQ(slurp(d.p / "out/ex/exercise.json").find("31337"), std::string::npos);
  Exercise a, b;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise((d.p / "l/ex").string(), a, errs)) << all(errs);
  ASSERT_TRUE(loadExercise((d.p / "out/ex").string(), b, errs)) << all(errs);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(a.tests[0].cases[i].input, b.tests[0].cases[i].input);
    EXPECT_EQ(a.tests[0].cases[i].expect.at(0).values, b.tests[0].cases[i].expect.at(0).values);
  }
}

// ---- the shipped running total catches the division trick ------------------------------------------------

TEST(LessonAuthoring, RunningTotalCatchesTheDivisionTrick) {
  Exercise ex;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise(kRoot + "/lessons/w2l2/running_total", ex, errs)) << all(errs);
  GradeResult r = gradeSource(ex, "trick", slurp(kRoot + "/tests/grade/submissions/running_total_division_trick.uir"), false, ex.limits);
  ASSERT_EQ(r.status, GradeResult::Status::Graded) << renderText(r);
  for (const TestResult &t : r.tests) EXPECT_EQ(t.passed, t.name != "small values") << t.name << ": " << t.failure;
}
