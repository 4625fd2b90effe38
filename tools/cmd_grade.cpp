// `cairn grade` and `cairn lesson check` (see cmd_grade.hpp).
//
//   cairn grade EXERCISE SUBMISSION [--json | --gradescope] [-o FILE]
//               [--explain | --explain-to PREFIX] [--lessons DIR] [limit flags]
//   cairn grade EXERCISE --batch DIR_OR_JSONL [-o OUTDIR] [-j N] [--gradescope]
//   cairn grade --assignment A.json SUBMISSION_DIR [--json | --gradescope] [-o FILE] [--metadata FILE]
//   cairn grade --merge OUTDIR... -o MERGED
//   cairn lesson check [DIR]
//   cairn lesson release LESSON_DIR -o DIR
//   cairn lesson gradescope ASSIGNMENT -o ZIP [--embed source|binary] [--source DIR]
//
// EXERCISE is a folder with exercise.json or a name under the lesson roots
// (grade/exercise.hpp). Limits: the exercise's, then each flag given.
#include "tools/cmd_grade.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "grade/assignment.hpp"
#include "grade/autograder.hpp"
#include "grade/batch.hpp"
#include "grade/exercise.hpp"
#include "grade/explain.hpp"
#include "grade/grader.hpp"
#include "grade/lesson.hpp"
#include "grade/release.hpp"
#include "grade/report.hpp"
#include "ir/data_dir.hpp"
#include "lower/lower.hpp"

namespace fs = std::filesystem;

namespace cairn {

using namespace grade;

struct GradeCli::State {
  CLI::App *gradeCmd = nullptr, *lesson = nullptr, *check = nullptr, *release = nullptr, *gradescopeCmd = nullptr;
  CLI::Option *explainOpt = nullptr, *explainTo = nullptr, *oBytes = nullptr, *oNodes = nullptr, *oElems = nullptr, *oSteps = nullptr,
              *oTime = nullptr;
  std::string exercise, submission, output, batch, explain, lessons, checkDir = "lessons", releaseDir, releaseOut;
  std::string assignment, metadata, zipOut, embed = "source", sourceDir;
  unsigned totalTimeout = 600;
  std::vector<std::string> merge;
  bool json = false, gradescope = false, jsonl = false, explainFlag = false;
  unsigned jobs = 0;
  Limits flags;

  int runGrade();
  int runBatch(const Exercise &ex, const Limits &lim);
  int runMerge();
  int runCheck();
  int runRelease();
  int runAssignment();
  int runGradescopeZip();
  bool loadAssignmentOrSay(Assignment &a) const;
  Limits merged(const Limits &exercise) const;
};

namespace {

enum Exit : int { kOk = 0, kFail = 1, kUsage = 2 };

void usageError(const std::string &m) { std::cerr << "cairn: error: " << m << '\n'; }

bool writeText(const std::string &out, const std::string &text) {
  if (out.empty() || out == "-") {
    std::cout << text;
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) usageError(out + ": cannot write");
  return static_cast<bool>(f);
}

}  // namespace

GradeCli::GradeCli(CLI::App &app) : s_(std::make_unique<State>()) {
  State &s = *s_;
  auto *g = app.add_subcommand("grade", "Grade a submission (.uir) against a course exercise: the oracle, then every test.");
  s.gradeCmd = g;
  g->add_option("EXERCISE", s.exercise,
                "an exercise folder (with exercise.json) or a name under the lessons folder, e.g. w2l2/swap "
                "(with --assignment: the submission folder; none with --merge)");
  g->add_option("SUBMISSION", s.submission, "the submission: .uir text, or its JSON form when the name ends in .json; "
                                            "`-` reads standard input");
  auto *js = g->add_flag("--json", s.json, "print the result as JSON (schema: docs/grade.schema.json)");
  g->add_flag("--gradescope", s.gradescope,
              "print a Gradescope results.json (score, max_score, tests[] with name, score, max_score, output, "
              "visibility)")
      ->excludes(js);
  g->add_option("-o,--output", s.output, "write the result to FILE (with --batch: the output folder, default grade-results)");
  s.explainOpt = g->add_flag("--explain", s.explainFlag,
                             "for an invalid submission, draw the offending cycle (or the offending lines) as "
                             "Graphviz DOT in PREFIX.dot, and PREFIX.svg when `dot` is installed (PREFIX: "
                             "--explain-to, default the submission's file name + .explain)");
  s.explainTo = g->add_option("--explain-to", s.explain, "--explain, writing PREFIX.dot and PREFIX.svg")
                    ->type_name("PREFIX");
  g->add_option("--batch", s.batch,
                "grade every submission of a folder (*.uir, *.json) or a JSON Lines file ({\"id\", \"source\" or "
                "\"file\"} per line) on all cores; reads only regular files inside the folder (a symbolic link or a FIFO is a "
                "rejected row); writes OUTDIR/results/ID.json, OUTDIR/summary.csv (with each submission's structural "
                "fingerprint) and OUTDIR/batch.json");
  g->add_option("-j,--jobs", s.jobs, "with --batch: threads (default: all cores)");
  g->add_option("--merge", s.merge,
                "join the output folders of batch shards (same exercise, same form, no id twice) into the folder "
                "given by -o, in the order given: summary.csv, results, batch.json")
      ->type_name("OUTDIR...");
  g->add_flag("--jsonl", s.jsonl,
              "with --batch: write all results to OUTDIR/results.jsonl ({\"id\", \"result\"} per line, in input "
              "order) instead of one file each");
  g->add_option("--assignment", s.assignment,
                "grade a submission folder against an assignment manifest (several exercises, weights, a late "
                "policy; lessons/README.md): `cairn grade --assignment A.json SUBMISSION_DIR`")
      ->type_name("A.json");
  g->add_option("--metadata", s.metadata,
                "with --assignment: Gradescope's submission_metadata.json, whose times apply the manifest's late "
                "policy")
      ->type_name("FILE");
  g->add_option("--lessons", s.lessons, "where exercise names are looked up (also $CAIRN_LESSONS, ./lessons)");
  Limits d;
  s.oBytes = g->add_option("--max-bytes", s.flags.maxBytes, "refuse a submission larger than N bytes (default " +
                                                                 std::to_string(d.maxBytes) + ", or the exercise's)");
  s.oNodes = g->add_option("--max-nodes", s.flags.maxNodes, "refuse a program of more than N nodes (default " +
                                                                 std::to_string(d.maxNodes) + ", or the exercise's)");
  s.oElems = g->add_option("--max-elements", s.flags.maxElements,
                           "per test: fail when all buffers together exceed N elements (default " +
                               std::to_string(d.maxElements) + ", or the exercise's)");
  s.oSteps = g->add_option("--max-steps", s.flags.maxSteps, "per test: fail after N interpreter steps (default " +
                                                                 std::to_string(d.maxSteps) + ", or the exercise's)");
  s.oTime = g->add_option("--timeout", s.flags.timeout, "per test: fail after S seconds of wall time (default 1, or the exercise's)")
                ->check(CLI::NonNegativeNumber);
  g->footer(
      "Feedback: an invalid submission gets the oracle's diagnostics and no test runs. Otherwise each test\n"
      "passes or fails; visible tests show their input, the expected and the actual final contents with\n"
      "the first differing element marked, and a failure lists which buffer version each load reads.\n"
      "Exit status: 0 every test passed (--batch: the batch ran; --merge: the shards were joined); 1 the\n"
      "submission is invalid, was refused by a limit, or failed a test; 2 usage or I/O error (--merge:\n"
      "also shards that cannot be joined).");

  s.lesson = app.add_subcommand("lesson", "Course lessons: `cairn lesson check [DIR]`, `cairn lesson release LESSON_DIR -o DIR`, "
                                          "`cairn lesson gradescope A.json -o ZIP`.");
  s.lesson->require_subcommand(1);
  s.check = s.lesson->add_subcommand(
      "check", "Validate every lesson under DIR: references pass their tests, starters are valid and fail a test, "
               "quiz answers are right.");
  s.check->add_option("DIR", s.checkDir, "the lessons folder")->capture_default_str();
  s.check->footer("Warnings (`warning:` lines) do not fail the check.\n"
                  "Exit status: 0 no problem found; 1 problems (each line starting with `error:`); 2 no such folder.");
  s.release = s.lesson->add_subcommand(
      "release", "Write the students' copy of a lesson: lesson.json, its text and quiz, and per exercise the statement, "
                 "the starter and an exercise.json with only the visible tests (no reference, no hidden test).");
  s.release->add_option("LESSON_DIR", s.releaseDir, "the lesson's folder (with lesson.json)")->required();
  s.release->add_option("-o,--output", s.releaseOut, "the folder to write (must not exist, or be empty)")->required();
  s.release->footer("Exit status: 0 written; 1 the lesson fails `cairn lesson check` (nothing written); 2 usage or I/O error.");

  auto *gz = s.lesson->add_subcommand(
      "gradescope", "Write a Gradescope autograder zip (setup.sh, run_autograder, the assignment's exercises and cairn) "
                    "for an assignment manifest.");
  s.gradescopeCmd = gz;
  gz->add_option("ASSIGNMENT", s.assignment, "the assignment manifest (lessons/README.md, \"Assignments\")")->required();
  gz->add_option("-o,--output", s.zipOut, "the zip to write")->required();
  gz->add_option("--embed", s.embed,
                 "source: pack cairn's sources, which setup.sh builds on the image (default); binary: pack this "
                 "cairn, for an image like this machine")
      ->check(CLI::IsMember({"source", "binary"}))
      ->capture_default_str();
  gz->add_option("--source", s.sourceDir, "source mode: the cairn source tree to pack (default: the installed or "
                                          "built-from one)");
  gz->add_option("--total-timeout", s.totalTimeout, "run_autograder's limit on one whole grade, in seconds")
      ->capture_default_str();
  gz->add_option("--lessons", s.lessons, "where exercise names are looked up (also $CAIRN_LESSONS, ./lessons)");
  gz->footer("Exit status: 0 the zip was written; 2 a broken manifest or an I/O error.");
}

GradeCli::~GradeCli() = default;

bool GradeCli::chosen() const {
  return s_->gradeCmd->parsed() || s_->check->parsed() || s_->release->parsed() || s_->gradescopeCmd->parsed();
}

// An exception that escapes is an internal error: tools/main.cpp reports it
// (exit 70), as for every command.
int GradeCli::run() {
  if (s_->release->parsed()) return s_->runRelease();
  if (s_->check->parsed()) return s_->runCheck();
  if (s_->gradescopeCmd->parsed()) return s_->runGradescopeZip();
  return s_->assignment.empty() ? s_->runGrade() : s_->runAssignment();
}

int GradeCli::State::runCheck() {
  LessonCheckSummary sum;
  if (!checkLessons(checkDir, std::cout, sum)) return kUsage;
  std::cout << "lesson check: " << sum.lessons << " lesson(s), " << sum.exercises << " exercise(s), " << sum.questions
            << " quiz question(s): " << (sum.errors ? std::to_string(sum.errors) + " problem(s)" : "ok")
            << (sum.warnings ? ", " + std::to_string(sum.warnings) + " warning(s)" : "") << '\n';
  return sum.errors ? kFail : kOk;
}

int GradeCli::State::runRelease() {
  std::string why;
  switch (releaseLesson(releaseDir, releaseOut, std::cout, why)) {
    case ReleaseStatus::Written:
      std::cout << "lesson release: " << releaseDir << " -> " << releaseOut << '\n';
      return kOk;
    case ReleaseStatus::LessonBroken: return kFail;
    case ReleaseStatus::UsageError: break;
  }
  usageError(why);
  return kUsage;
}

int GradeCli::State::runMerge() {
  if (!exercise.empty() || !submission.empty() || !batch.empty()) {
    usageError("--merge takes only shard folders and -o MERGED (no EXERCISE, SUBMISSION or --batch)");
    return kUsage;
  }
  if (output.empty()) {
    usageError("--merge needs -o MERGED, the folder to write");
    return kUsage;
  }
  size_t rows = 0;
  std::string why;
  if (!mergeBatches(merge, output, rows, why)) {
    usageError(why);
    return kUsage;
  }
  std::cout << "merged " << merge.size() << " shard(s), " << rows << " submission(s), into " << output << '\n';
  return kOk;
}

int GradeCli::State::runGrade() {
  if (!merge.empty()) return runMerge();
  if (exercise.empty()) {
    usageError("an EXERCISE is required (or --assignment A.json, or --merge OUTDIR...)");
    return kUsage;
  }
  if (!metadata.empty()) {
    usageError("--metadata applies to --assignment only");
    return kUsage;
  }
  std::string why;
  std::string dir = resolveExercise(exercise, lessonRoots(lessons), why);
  if (dir.empty()) {
    usageError(why);
    return kUsage;
  }
  Exercise ex;
  std::vector<std::string> errs;
  if (!loadExercise(dir, ex, errs)) {
    usageError("the exercise " + dir + " is broken (run `cairn lesson check`):");
    for (const std::string &e : errs) std::cerr << "  " << e << '\n';
    return kUsage;
  }
  Limits lim = merged(ex.limits);

  if (!batch.empty()) {
    if (!submission.empty()) {
      usageError("give either SUBMISSION or --batch, not both");
      return kUsage;
    }
    return runBatch(ex, lim);
  }
  if (submission.empty()) {
    usageError("a SUBMISSION file (or --batch DIR_OR_JSONL) is required");
    return kUsage;
  }
  if (jsonl || jobs) {
    usageError(std::string(jsonl ? "--jsonl" : "--jobs") + " applies to --batch only");
    return kUsage;
  }

  Graph g;
  GradeResult r;
  if (submission == "-") {
    std::string text;
    char buf[1 << 16];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, stdin)) > 0 && text.size() <= lim.maxBytes) text.append(buf, got);
    size_t first = text.find_first_not_of(" \t\r\n");
    r = gradeSource(ex, "<stdin>", text, first != std::string::npos && text[first] == '{', lim, &g);
  } else {
    std::error_code ec;
    if (!fs::exists(submission, ec)) {
      usageError(submission + ": no such file");
      return kUsage;
    }
    if (fs::is_directory(submission, ec)) {
      usageError(submission + ": is a directory (to grade a folder of submissions, use --batch)");
      return kUsage;
    }
    r = gradeFile(ex, submission, lim, &g);
  }

  ExplainFiles files;
  bool explaining = explainOpt->count() > 0 || explainTo->count() > 0;
  if (explaining) {
    if (r.status != GradeResult::Status::Invalid) {
      files.note = "--explain: the oracle accepts the program (or it was not read), so there is no error to draw.";
    } else if (g.size() == 0 || std::any_of(r.diags.list().begin(), r.diags.list().end(), [](const Diagnostic &d) {
                 return d.rule == "syntax" || d.rule == "json";
               })) {
      files.note = "--explain: the program does not parse, so there is no graph to draw.";
    } else {
      std::string prefix = this->explain;
      if (prefix.empty()) prefix = (submission == "-" ? std::string("stdin") : fs::path(submission).filename().string()) + ".explain";
      std::string dot = r.cycle ? cycleDot(g, r.diags) : "";
      if (dot.empty()) dot = errorDot(g, r.diags);
      files.dot = prefix + ".dot";
      if (!writeText(files.dot, dot)) return kUsage;
      std::string svgWhy;
      if (renderSvg(files.dot, prefix + ".svg", svgWhy)) files.svg = prefix + ".svg";
      else files.note = svgWhy;
    }
  }

  std::string out;
  if (gradescope) out = renderGradescope(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  else if (json) out = renderJson(r, explaining ? &files : nullptr).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  else out = renderText(r, explaining ? &files : nullptr);
  if (!writeText(output, out)) return kUsage;
  return r.allPassed() ? kOk : kFail;
}

Limits GradeCli::State::merged(const Limits &exercise) const {
  Limits lim = exercise;
  if (oBytes->count()) lim.maxBytes = flags.maxBytes;
  if (oNodes->count()) lim.maxNodes = flags.maxNodes;
  if (oElems->count()) lim.maxElements = flags.maxElements;
  if (oSteps->count()) lim.maxSteps = flags.maxSteps;
  if (oTime->count()) lim.timeout = flags.timeout;
  return lim;
}

int GradeCli::State::runBatch(const Exercise &ex, const Limits &lim) {
  if (json) {
    usageError("--batch writes JSON result files already; --json does not apply (use --gradescope for that format)");
    return kUsage;
  }
  BatchOptions o;
  o.input = batch;
  o.outDir = output.empty() ? "grade-results" : output;
  o.jobs = jobs;
  o.gradescope = gradescope;
  o.jsonl = jsonl;
  BatchSummary sum;
  std::string why;
  if (!gradeBatch(ex, lim, o, sum, why)) {
    usageError(why);
    return kUsage;
  }
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.3f s (%.0f submissions/s", sum.seconds, sum.seconds > 0 ? sum.total / sum.seconds : 0.0);
  std::cout << "graded " << sum.total << " submission(s) of " << ex.id << " in " << rate << ", " << sum.threads
            << " thread(s)): " << sum.allPassed << " passed every test, " << sum.someFailed << " failed some, "
            << sum.invalid << " invalid, " << sum.rejected << " rejected, " << sum.errors << " error(s)\n"
            << "summary: " << sum.csv << "\nresults: "
            << (jsonl ? (fs::path(o.outDir) / "results.jsonl").string() : (fs::path(o.outDir) / "results").string() + "/")
            << '\n';
  return kOk;
}

// Loads --assignment's manifest, or prints each of its problems.
bool GradeCli::State::loadAssignmentOrSay(Assignment &a) const {
  std::vector<std::string> errs;
  if (loadAssignment(assignment, lessonRoots(lessons), a, errs)) return true;
  usageError("the assignment " + assignment + " is broken:");
  for (const std::string &e : errs) std::cerr << "  " << e << '\n';
  return false;
}

int GradeCli::State::runAssignment() {
  if (exercise.empty() || !submission.empty()) {
    usageError("--assignment takes one SUBMISSION_DIR: cairn grade --assignment A.json SUBMISSION_DIR");
    return kUsage;
  }
  if (!batch.empty() || !merge.empty() || jsonl || jobs || explainOpt->count() || explainTo->count()) {
    usageError("--batch, --merge, --jsonl, --jobs and --explain do not apply to --assignment");
    return kUsage;
  }
  std::error_code ec;
  if (!fs::is_directory(exercise, ec)) {
    usageError(exercise + ": no such folder (the submission folder to grade)");
    return kUsage;
  }
  Assignment a;
  if (!loadAssignmentOrSay(a)) return kUsage;
  Lateness late;
  std::string metaNote;
  if (!metadata.empty()) {
    if (!fs::is_regular_file(metadata, ec)) {
      usageError(metadata + ": no such file");
      return kUsage;
    }
    std::string why;
    if (!readLateness(metadata, late, why)) {
      // Grade anyway: a student must not lose a grade to a metadata problem.
      std::cerr << "cairn: warning: " << why << "; no late policy applied\n";
      metaNote = "The submission time could not be read, so no late policy was applied.";
      late = Lateness{};
    }
  }
  AssignmentResult r = gradeAssignment(a, exercise, [this](const Limits &l) { return merged(l); },
                                       metadata.empty() ? nullptr : &late);
  if (r.lateNote.empty()) r.lateNote = metaNote;
  std::string out;
  auto dump = [](const nlohmann::json &j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; };
  if (gradescope) out = dump(renderAssignmentGradescope(r));
  else if (json) out = dump(renderAssignmentJson(r));
  else out = renderAssignmentText(r);
  if (!writeText(output, out)) return kUsage;
  return r.allPassed() ? kOk : kFail;
}

int GradeCli::State::runGradescopeZip() {
  Assignment a;
  if (!loadAssignmentOrSay(a)) return kUsage;
  AutograderOptions o;
  o.out = zipOut;
  o.embedBinary = embed == "binary";
  o.sourceDir = sourceDir.empty() ? defaultSourceDir() : sourceDir;
  o.binaryPath = selfExePath();
  o.stdDir = defaultStdDir();
  o.totalTimeout = totalTimeout;
  std::vector<std::string> listing;
  std::string why;
  if (!writeAutograder(a, o, listing, why)) {
    usageError(why);
    return kUsage;
  }
  std::cout << "wrote " << zipOut << ": " << listing.size() << " files, " << a.parts.size() << " exercise(s), "
            << (o.embedBinary ? "this cairn (binary mode)" : "cairn's sources from " + o.sourceDir + " (source mode)")
            << "\nUpload it under Configure Autograder (base image: Ubuntu 24.04 or Debian 12).\n";
  return kOk;
}

}  // namespace cairn
