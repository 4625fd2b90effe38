// Lesson and quiz validation (see lesson.hpp).
//
// Uses the grader itself to check references and starters, so a lesson that
// passes `cairn lesson check` grades the way students will see it. Quiz
// programs are small; they run under the interpreter's default limits plus a
// step cap, so a broken quiz cannot hang the check.
#include "grade/lesson.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exec/interp.hpp"
#include "grade/authoring.hpp"
#include "grade/exercise.hpp"
#include "grade/grader.hpp"
#include "ir/check.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "oracle/oracle.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

namespace {

constexpr uint64_t kMaxFile = uint64_t{1} << 24;

std::string join(const std::vector<std::string> &v) {
  std::string s;
  for (const std::string &x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The text of a JSON value as a .uir value would print ("5", "-3", "1.5").
std::string answerText(const json &v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (v.is_number_float()) {
    Literal l{Literal::Kind::Float, false, 0, v.get<double>()};
    return literalText(l);
  }
  return v.dump();
}

void checkQuestion(const json &q, const std::string &where, std::vector<std::string> &errs) {
  auto err = [&](const std::string &m) { errs.push_back(where + ": " + m); };
  for (const char *k : {"prompt", "explanation"})
    if (!q.contains(k) || !q[k].is_string() || q[k].get<std::string>().empty()) err(std::string("\"") + k + "\" is missing");
  if (q.contains("hint") && !q["hint"].is_string()) err("\"hint\" must be a string");
  std::string kind = q.value("kind", "");
  if (kind != "choice" && kind != "value" && kind != "line" && kind != "contents") {
    err("\"kind\" must be choice, value, line or contents");
    return;
  }
  if (!q.contains("answer")) {
    err("\"answer\" is missing");
    return;
  }
  const json &ans = q["answer"];
  // The program, when there is one.
  std::string text;
  bool hasProgram = q.contains("program");
  if (hasProgram) {
    const json &p = q["program"];
    if (p.is_string()) text = p.get<std::string>();
    else if (p.is_array() && std::all_of(p.begin(), p.end(), [](const json &l) { return l.is_string(); }))
      for (const json &l : p) text += l.get<std::string>() + "\n";
    else return err("\"program\" must be a string or an array of lines");
  }
  Graph g;
  Diags d;
  Facts facts;
  bool parsed = hasProgram && parseUir(text, g, d);
  bool valid = parsed && validate(g, facts, d);
  if (hasProgram && !parsed) {
    std::string m = "the program does not parse:";
    for (const Diagnostic &x : d.list()) m += " line " + std::to_string(x.loc.line) + ": " + x.message + ";";
    return err(m);
  }
  auto errorOn = [&](uint32_t line, const std::string &rule) {
    for (const Diagnostic &x : d.list())
      if ((line == 0 || x.loc.line == line) && (rule.empty() || x.rule == rule)) return true;
    return false;
  };
  if (q.contains("oracle")) {
    const json &o = q["oracle"];
    if (!hasProgram) return err("\"oracle\" needs a \"program\"");
    if (!o.is_object() || !o.contains("valid") || !o["valid"].is_boolean())
      return err("\"oracle\" must be {\"valid\": BOOL, \"rule\": RULE, \"line\": N}");
    if (o["valid"].get<bool>() != valid)
      err(std::string("the oracle finds the program ") + (valid ? "valid" : "invalid") + ", but the question says " +
          (valid ? "invalid" : "valid"));
    std::string rule = o.value("rule", "");
    uint32_t line = o.contains("line") && o["line"].is_number_unsigned() ? o["line"].get<uint32_t>() : 0;
    if (!valid && (!rule.empty() || line) && !errorOn(line, rule))
      err("the oracle reports no " + (rule.empty() ? std::string("error") : "[" + rule + "] error") +
          (line ? " on line " + std::to_string(line) : ""));
  }
  if (kind == "choice") {
    if (!q.contains("choices") || !q["choices"].is_array() || q["choices"].size() < 2)
      return err("a choice question needs at least two \"choices\"");
    std::set<std::string> seen;
    for (const json &c : q["choices"])
      if (!c.is_string() || !seen.insert(c.get<std::string>()).second) err("the choices must be distinct strings");
    if (!ans.is_number_unsigned() || ans.get<size_t>() >= q["choices"].size())
      err("\"answer\" must be the index (from 0) of one of the " + std::to_string(q["choices"].size()) + " choices");
    return;
  }
  if (!hasProgram) return err("a " + kind + " question needs a \"program\"");
  if (kind == "line") {
    size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    if (!ans.is_number_unsigned() || ans.get<size_t>() < 1 || ans.get<size_t>() > lines)
      return err("\"answer\" must be a line number of the program (1 to " + std::to_string(lines) + ")");
    if (valid) return err("the answer names a wrong line, but the oracle accepts the program");
    if (!errorOn(ans.get<uint32_t>(), "")) err("the oracle reports no error on line " + std::to_string(ans.get<uint32_t>()));
    return;
  }
  if (!valid) return err("the oracle rejects the program, so its " + kind + " cannot be checked");
  RunOptions ro;
  ro.limits.maxSteps = 1000000;
  std::ostringstream trace;
  if (kind == "value") {
    std::string name = q.value("observe", "");
    if (!name.empty() && name[0] == '%') name.erase(0, 1);
    NodeId obs;
    for (uint32_t i = 0; i < g.size(); ++i)
      if (g.name(NodeId{i}) == name) obs = NodeId{i};
    if (!obs.valid() || facts.kind[obs.v] != ResultKind::Scalar)
      return err("\"observe\" must name a scalar node of the program");
    ro.trace = &trace;
    RunResult r = run(g, facts, ro);
    if (r.status != RunResult::Status::Ok) return err("the program does not run: " + r.message);
    std::string lead = "line " + std::to_string(g.loc(obs).line) + ": %" + name + " = ";
    std::istringstream in(trace.str());
    std::string got;
    for (std::string l; std::getline(in, l);)
      if (l.rfind(lead, 0) == 0 && l.find("  -> ") != std::string::npos) got = l.substr(l.rfind("  -> ") + 5);
    if (got != answerText(ans))
      err("%" + name + " holds " + (got.empty() ? std::string("nothing (it never ran)") : got) + ", but the answer is " +
          answerText(ans));
    return;
  }
  // contents
  if (!ans.is_object() || ans.empty()) return err("\"answer\" must map slots to their final contents");
  RunResult r = run(g, facts, ro);
  if (r.status != RunResult::Status::Ok) return err("the program does not run: " + r.message);
  for (auto &[k, want] : ans.items()) {
    const SlotResult *s = nullptr;
    for (const SlotResult &x : r.slots)
      if (std::to_string(x.slot) == k) s = &x;
    if (!s) {
      err("the program has no slot " + k);
      continue;
    }
    std::vector<std::string> got, exp;
    for (Bits b : s->values) got.push_back(bitsText(b, s->type));
    if (want.is_array())
      for (const json &v : want) exp.push_back(answerText(v));
    if (got != exp) err("slot " + k + " ends as [" + join(got) + "], but the answer is [" + join(exp) + "]");
  }
}

// "" when `text` parses and prints back byte for byte (`cairn fmt`), else why not.
std::string notCanonical(const std::string &path, const std::string &text) {
  Graph g;
  Diags d;
  if (!parseUir(text, g, d)) return "";  // the grading checks say why it does not parse
  if (printUir(g) == text) return "";
  return path + " is not in canonical form (run `cairn fmt -i " + path + "`)";
}

// The reference with only its slot buffers (and what their sizes need):
// a program that leaves every slot as the test set it. "" when it cannot be
// cut out (a slot buffer inside a loop).
std::string unchangedProgram(const std::string &referenceText) {
  Graph g;
  Diags d;
  if (!parseUir(referenceText, g, d)) return "";
  std::vector<char> keep(g.size(), 0);
  std::vector<NodeId> work;
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::Buffer && g.slot(NodeId{i}) >= 0) work.push_back(NodeId{i});
  while (!work.empty()) {
    NodeId n = work.back();
    work.pop_back();
    if (keep[n.v]) continue;
    if (g.parent(n).valid() || g.op(n) == Op::Store || g.op(n) == Op::End) return "";
    keep[n.v] = 1;
    for (const Operand &o : g.operands(n))
      if (!o.isLit()) work.push_back(o.node());
  }
  std::string text;
  for (uint32_t i = 0; i < g.size(); ++i)
    if (keep[i]) text += nodeText(g, NodeId{i}) + "\n";
  return text;
}

// Whether every case of every data test expects zeros in each slot it checks.
bool zerosPass(const Exercise &ex) {
  for (const Test &t : ex.tests)
    for (const Case &c : t.cases)
      for (const auto &[slot, want] : c.expect)
        for (Bits b : want.values)
          if (!sameValue(0, b, want.type, t.tolerance)) return false;
  return true;
}

// Warnings: trivially wrong programs that pass every test of the exercise.
void trivialVariants(const Exercise &ex, std::ostream &out, LessonCheckSummary &sum) {
  auto warn = [&](const std::string &m) {
    out << "  warning: " << ex.id << ": " << m << "\n";
    ++sum.warnings;
  };
  std::string unchanged = unchangedProgram(ex.referenceText);
  if (!unchanged.empty()) {
    GradeResult r = gradeSource(ex, "unchanged.uir", unchanged, false, ex.limits);
    bool all = r.status == GradeResult::Status::Graded;
    for (size_t i = 0; all && i < r.tests.size(); ++i) all = r.tests[i].passed || r.tests[i].requirement;
    if (all) warn("a program that leaves the slots unchanged passes every test; add a test whose expected contents differ from its input");
  }
  if (zerosPass(ex)) warn("a program that leaves every checked slot zero passes every test; add a test that expects a nonzero value");
}

void checkExercise(const std::string &dir, std::ostream &out, LessonCheckSummary &sum) {
  ++sum.exercises;
  Exercise ex;
  std::vector<std::string> errs;
  if (!loadExercise(dir, ex, errs)) {
    for (const std::string &e : errs) out << "  error: " << e << "\n";
    sum.errors += errs.size();
    return;
  }
  size_t before = sum.errors;
  auto bad = [&](const std::string &m) {
    out << "  error: " << ex.id << ": " << m << "\n";
    ++sum.errors;
  };
  std::string statement, why;
  if (!readFileCapped(ex.statement, kMaxFile, statement, why)) bad(why);
  else if (statement.find_first_not_of(" \t\r\n") == std::string::npos) bad(ex.statement + ": the statement is empty");
  size_t cases = 0;
  for (const Test &t : ex.tests) cases += t.cases.size();
  Limits lim = ex.limits;
  if (!ex.released) {
    std::string m = notCanonical(ex.referencePath, ex.referenceText);
    if (!m.empty()) bad(m);
  }
  if (std::string m = notCanonical(ex.starterPath, ex.starterText); !m.empty()) bad(m);
  if (ex.released) {
    if (sum.errors == before)
      out << "  ok    exercise " << ex.id << " (a released copy, no reference): " << ex.tests.size() << " tests (" << cases
          << " cases)\n";
    return;
  }
  GradeResult ref = gradeSource(ex, ex.referencePath, ex.referenceText, false, lim);
  if (ref.status != GradeResult::Status::Graded) bad("the reference was not graded: " + ref.message);
  for (const TestResult &t : ref.tests)
    if (!t.passed) bad("the reference fails its own test \"" + t.name + "\": " + t.failure);
  trivialVariants(ex, out, sum);
  GradeResult st = gradeSource(ex, ex.starterPath, ex.starterText, false, lim);
  std::vector<std::string> fails;
  if (st.status != GradeResult::Status::Graded) {
    std::string m = "the starter must be valid .uir, but it was " + std::string(statusName(st.status));
    for (const Diagnostic &x : st.diags.list()) m += "; line " + std::to_string(x.loc.line) + ": " + x.message;
    bad(m + (st.message.empty() ? "" : ": " + st.message));
  } else {
    for (const TestResult &t : st.tests)
      if (!t.passed) fails.push_back(t.name);
    if (fails.empty()) bad("the starter passes every test; it must fail at least one");
    for (const std::string &n : ex.starterFails)
      if (std::find(fails.begin(), fails.end(), n) == fails.end())
        bad("the starter should fail \"" + n + "\" (starter_fails), but passes it");
  }
  if (sum.errors == before)
    out << "  ok    exercise " << ex.id << ": the reference passes " << ex.tests.size() << " tests (" << cases
        << " cases); the starter fails " << fails.size() << " (" << join(fails) << ")\n";
}

void checkLesson(const fs::path &l, std::ostream &out, LessonCheckSummary &sum, std::set<fs::path> &listed) {
  std::error_code ec;
  ++sum.lessons;
  std::string file = (l / "lesson.json").string(), text, why;
  json j;
  if (readFileCapped(file, kMaxFile, text, why)) j = json::parse(text, nullptr, false);
  if (!j.is_object()) {
    out << "error: " << file << ": " << (why.empty() ? "not a JSON object" : why) << "\n";
    ++sum.errors;
    return;
  }
  out << l.string() << ": " << (j.contains("title") && j["title"].is_string() ? j["title"].get<std::string>() : "(no title)")
      << "\n";
  auto bad = [&](const std::string &m) {
    out << "  error: " << file << ": " << m << "\n";
    ++sum.errors;
  };
  std::vector<std::string> keyErrs;
  checkKeys(j, {"format", "version", "id", "title", "week", "lesson", "text", "exercises", "quiz"}, file, keyErrs);
  for (const std::string &e : keyErrs) {
    out << "  error: " << e << "\n";
    ++sum.errors;
  }
  if (!j.contains("format") || j["format"] != "cairn-lesson" || !j.contains("version") || j["version"] != 1)
    bad("\"format\" must be \"cairn-lesson\" and \"version\" 1");
  for (const char *k : {"id", "title", "text"})
    if (!j.contains(k) || !j[k].is_string()) bad(std::string("\"") + k + "\" must be a string");
  if (j.contains("text") && j["text"].is_string() && !fs::is_regular_file(l / j["text"].get<std::string>(), ec))
    bad("the lesson text " + (l / j["text"].get<std::string>()).string() + " does not exist");
  if (!j.contains("exercises") || !j["exercises"].is_array()) {
    bad("\"exercises\" must be an array of folders");
  } else {
    for (const json &e : j["exercises"]) {
      if (!e.is_string()) {
        bad("\"exercises\" must list folder names");
        continue;
      }
      fs::path ed = l / e.get<std::string>();
      listed.insert(ed.lexically_normal());
      if (!fs::is_regular_file(ed / "exercise.json", ec)) bad(ed.string() + " has no exercise.json");
      else checkExercise(ed.string(), out, sum);
    }
  }
  if (!j.contains("quiz")) return;
  if (!j["quiz"].is_string()) return bad("\"quiz\" must be a file name");
  std::vector<std::string> errs;
  size_t n = checkQuiz((l / j["quiz"].get<std::string>()).string(), errs);
  sum.questions += n;
  for (const std::string &e : errs) out << "  error: " << e << "\n";
  sum.errors += errs.size();
  if (errs.empty()) out << "  ok    quiz: " << n << " questions, every answer checked\n";
}

}  // namespace

size_t checkQuiz(const std::string &path, std::vector<std::string> &errors) {
  std::string text, why;
  if (!readFileCapped(path, kMaxFile, text, why)) {
    errors.push_back(why);
    return 0;
  }
  json q = json::parse(text, nullptr, false);
  if (q.is_discarded() || !q.is_object()) {
    errors.push_back(path + ": not a JSON object");
    return 0;
  }
  if (q.value("format", "") != "cairn-quiz" || !q.contains("version") || q["version"] != 1)
    errors.push_back(path + ": \"format\" must be \"cairn-quiz\" and \"version\" 1");
  if (!q.contains("questions") || !q["questions"].is_array() || q["questions"].empty()) {
    errors.push_back(path + ": \"questions\" must be a non-empty array");
    return 0;
  }
  std::set<std::string> ids;
  size_t n = 0;
  for (const json &x : q["questions"]) {
    ++n;
    std::string where = path + ": question " + std::to_string(n);
    if (!x.is_object()) {
      errors.push_back(where + ": not an object");
      continue;
    }
    if (!x.contains("id") || !x["id"].is_string() || !ids.insert(x["id"].get<std::string>()).second)
      errors.push_back(where + ": \"id\" must be a unique string");
    else where += " (" + x["id"].get<std::string>() + ")";
    try {
      checkQuestion(x, where, errors);
    } catch (const InternalError &) {
      throw;  // a bug in cairn, not in the lesson: exit 70 (tools/main.cpp)
    } catch (const std::exception &e) {
      errors.push_back(where + ": " + e.what());
    }
  }
  return n;
}

bool checkLessons(const std::string &dir, std::ostream &out, LessonCheckSummary &sum) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    out << "error: " << dir << ": no such folder\n";
    return false;
  }
  std::vector<fs::path> lessons, exercises;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == "lesson.json") lessons.push_back(it->path().parent_path());
    if (it->path().filename() == "exercise.json") exercises.push_back(it->path().parent_path());
  }
  std::sort(lessons.begin(), lessons.end());
  std::sort(exercises.begin(), exercises.end());
  std::set<fs::path> listed;
  for (const fs::path &l : lessons) {
    try {
      checkLesson(l, out, sum, listed);
    } catch (const InternalError &) {
      throw;  // a bug in cairn, not in the lesson: exit 70 (tools/main.cpp)
    } catch (const std::exception &e) {
      out << "  error: " << (l / "lesson.json").string() << ": " << e.what() << "\n";
      ++sum.errors;
    }
  }
  for (const fs::path &e : exercises)
    if (!listed.count(e.lexically_normal())) {
      out << e.string() << ": an exercise no lesson lists\n";
      checkExercise(e.string(), out, sum);
    }
  if (lessons.empty() && exercises.empty()) {
    out << "error: " << dir << ": no lesson.json or exercise.json under it\n";
    ++sum.errors;
  }
  return true;
}

}  // namespace cairn::grade
