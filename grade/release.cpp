// The students' copy of a lesson (see release.hpp).
//
// Works from the manifests' JSON, so the copy keeps the author's keys and
// order for what it keeps; the loaded exercise supplies the cases of visible
// generated tests. A file name that leaves the lesson's or the exercise's
// folder ("../reference.uir", an absolute path) is refused, so nothing but
// the named files can end up in the copy.
#include "grade/release.hpp"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grade/authoring.hpp"
#include "grade/exercise.hpp"
#include "grade/lesson.hpp"
#include "ir/check.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

namespace {

// A value as the manifest writes it: a JSON integer when the text is one,
// else the .uir literal text as a string ("1.5", "nan").
json valueJson(const std::string &text) {
  json j = json::parse(text, nullptr, false);
  return j.is_number_integer() || j.is_number_unsigned() ? j : json(text);
}

json caseJson(const Case &c) {
  json in = json::object(), ex = json::object();
  for (const auto &[slot, lits] : c.input) {
    json a = json::array();
    for (const Literal &l : lits) a.push_back(valueJson(literalText(l)));
    in[std::to_string(slot)] = std::move(a);
  }
  for (const auto &[slot, d] : c.expect) {
    json a = json::array();
    for (Bits b : d.values) a.push_back(valueJson(bitsText(b, d.type)));
    ex[std::to_string(slot)] = std::move(a);
  }
  json o = {{"expect", ex}};
  if (!in.empty()) o["input"] = in;
  return o;
}

bool isVisible(const json &t) {
  std::vector<std::string> errs;
  return parseVisibility(t, Visibility::Visible, "", errs) == Visibility::Visible && errs.empty();
}

class Releaser {
 public:
  Releaser(const fs::path &out, std::ostream &log, std::string &why) : out_(out), log_(log), why_(why) {}

  bool lesson(const fs::path &dir) {
    json l;
    if (!readJson(dir / "lesson.json", l)) return false;
    if (!writeJson(out_ / "lesson.json", l)) return false;
    if (!copy(dir, l["text"].get<std::string>())) return false;
    if (l.contains("quiz") && !copy(dir, l["quiz"].get<std::string>())) return false;
    for (const json &e : l["exercises"])
      if (!exercise(dir, e.get<std::string>())) return false;
    return true;
  }

 private:
  fs::path out_;
  std::ostream &log_;
  std::string &why_;

  bool fail(std::string m) {
    why_ = std::move(m);
    return false;
  }
  static bool inside(const std::string &rel) {
    fs::path p = fs::path(rel).lexically_normal();
    return !rel.empty() && p.is_relative() && !p.empty() && *p.begin() != "..";
  }
  bool readJson(const fs::path &p, json &j) {
    std::string text, why;
    if (!readFileCapped(p.string(), uint64_t{1} << 24, text, why)) return fail(why);
    j = json::parse(text, nullptr, false);
    return j.is_discarded() ? fail(p.string() + ": not JSON") : true;
  }
  bool writeJson(const fs::path &p, const json &j) { return write(p, j.dump(2) + "\n"); }
  bool write(const fs::path &p, const std::string &text) {
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) return fail(p.string() + ": cannot write");
    log_ << "wrote " << p.string() << "\n";
    return true;
  }
  // Copies DIR/REL to the same place under the copy's folder.
  bool copy(const fs::path &dir, const std::string &rel, const fs::path &sub = {}) {
    if (!inside(rel)) return fail((dir / rel).string() + ": a file outside its folder cannot be released");
    std::string text, why;
    if (!readFileCapped((dir / rel).string(), uint64_t{1} << 24, text, why)) return fail(why);
    return write(out_ / sub / fs::path(rel).lexically_normal(), text);
  }

  bool exercise(const fs::path &lessonDir, const std::string &name) {
    if (!inside(name)) return fail(name + ": an exercise outside the lesson's folder cannot be released");
    fs::path dir = lessonDir / name;
    json m;
    if (!readJson(dir / "exercise.json", m)) return false;
    Exercise ex;
    std::vector<std::string> errs;
    if (!loadExercise(dir.string(), ex, errs)) return fail(errs.empty() ? dir.string() + ": cannot load" : errs[0]);
    json tests = json::array();
    for (const json &t : m["tests"]) {
      if (!isVisible(t)) continue;
      if (!t.contains("generate")) {
        tests.push_back(t);
        continue;
      }
      const Test *loaded = nullptr;
      for (const Test &x : ex.tests)
        if (x.name == t["name"]) loaded = &x;
      if (!loaded) return fail(dir.string() + ": test " + t["name"].dump() + " was not loaded");
      json f = t;
      f.erase("generate");
      f["cases"] = json::array();
      for (const Case &c : loaded->cases) f["cases"].push_back(caseJson(c));
      tests.push_back(std::move(f));
    }
    if (tests.empty()) return fail(dir.string() + ": no visible test, so the released exercise would have none");
    m["tests"] = std::move(tests);
    if (m.contains("require")) {
      json req = json::array();
      for (const json &r : m["require"])
        if (isVisible(r)) req.push_back(r);
      if (req.empty()) m.erase("require");
      else m["require"] = std::move(req);
    }
    m.erase("hidden_tests");
    m.erase("starter_fails");
    m["reference"] = nullptr;
    fs::path sub = fs::path(name).lexically_normal();
    if (!writeJson(out_ / sub / "exercise.json", m)) return false;
    return copy(dir, m.value("statement", "statement.md"), sub) && copy(dir, m.value("starter", "starter.uir"), sub);
  }
};

}  // namespace

ReleaseStatus releaseLesson(const std::string &dir, const std::string &outDir, std::ostream &log, std::string &why) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / "lesson.json", ec)) {
    why = dir + ": no lesson.json (give a lesson's folder, e.g. lessons/w2l2)";
    return ReleaseStatus::UsageError;
  }
  if (fs::exists(outDir, ec) && !(fs::is_directory(outDir, ec) && fs::is_empty(outDir, ec))) {
    why = outDir + ": exists and is not an empty folder";
    return ReleaseStatus::UsageError;
  }
  std::ostringstream check;
  LessonCheckSummary sum;
  if (!checkLessons(dir, check, sum) || sum.errors) {
    log << check.str() << "lesson release: the lesson has " << sum.errors << " problem(s); nothing was written\n";
    return ReleaseStatus::LessonBroken;
  }
  try {
    if (Releaser(outDir, log, why).lesson(dir)) return ReleaseStatus::Written;
  } catch (const InternalError &) {
    throw;  // a bug in cairn, not in the files: exit 70 (tools/main.cpp)
  } catch (const std::exception &e) {
    why = std::string("cannot release the lesson: ") + e.what();
  }
  return ReleaseStatus::UsageError;
}

}  // namespace cairn::grade
