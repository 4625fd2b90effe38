// Assignments: the manifest, finding each exercise's file in a submission
// folder, grading, and the late policy (see assignment.hpp).
//
// Invariants: every part of a loaded assignment has a loaded exercise and a
// distinct file name; a graded AssignmentResult has one part result per part,
// in manifest order, each a full GradeResult (a missing file is a Rejected
// result whose tests all failed), so every rendering lists every test.
#include "grade/assignment.hpp"
#include "grade/report.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

namespace {

constexpr uint64_t kMaxManifestBytes = 1 << 20;

bool onlyKeys(const json &o, std::initializer_list<const char *> keys, const std::string &where,
              std::vector<std::string> &errors) {
  bool ok = true;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (std::none_of(keys.begin(), keys.end(), [&](const char *k) { return it.key() == k; })) {
      errors.push_back(where + ": unknown key \"" + it.key() + "\"");
      ok = false;
    }
  }
  return ok;
}

// A file name as a manifest may give it: relative, no `..`, no empty part.
bool plainRelative(const std::string &f) {
  if (f.empty() || f[0] == '/' || f.find('\\') != std::string::npos) return false;
  for (const auto &part : fs::path(f))
    if (part == ".." || part == "." || part.empty()) return false;
  return true;
}

bool readLate(const json &l, const std::string &where, LatePolicy &p, std::vector<std::string> &errors) {
  if (!l.is_object()) {
    errors.push_back(where + ": \"late\" must be an object");
    return false;
  }
  bool ok = onlyKeys(l, {"penalty_per_day", "max_days", "grace_minutes"}, where + ": late", errors);
  auto num = [&](const char *k, double lo, double hi, double &out) {
    if (!l.contains(k)) return;
    if (!l[k].is_number() || l[k].get<double>() < lo || l[k].get<double>() > hi) {
      errors.push_back(where + ": late." + k + " must be a number in [" + pointsText(lo) + ", " + pointsText(hi) + "]");
      ok = false;
      return;
    }
    out = l[k].get<double>();
  };
  num("penalty_per_day", 0, 1, p.penaltyPerDay);
  num("max_days", 0, 3650, p.maxDays);
  num("grace_minutes", 0, 1440, p.graceMinutes);
  return ok;
}

bool readPart(const json &e, const std::string &where, const std::string &base, const std::vector<std::string> &roots,
              AssignmentPart &p, std::vector<std::string> &errors) {
  if (!e.is_object()) {
    errors.push_back(where + ": must be an object {\"exercise\", \"file\", \"weight\"}");
    return false;
  }
  bool ok = onlyKeys(e, {"exercise", "file", "weight"}, where, errors);
  if (!e.contains("exercise") || !e["exercise"].is_string() || !e.contains("file") || !e["file"].is_string()) {
    errors.push_back(where + ": \"exercise\" and \"file\" must be strings");
    return false;
  }
  p.spec = e["exercise"].get<std::string>();
  p.file = e["file"].get<std::string>();
  if (!plainRelative(p.file)) {
    errors.push_back(where + ": \"file\" must be a relative path inside the submission, without `..`: " + p.file);
    ok = false;
  }
  if (e.contains("weight")) {
    if (!e["weight"].is_number() || !(e["weight"].get<double>() > 0) || !std::isfinite(e["weight"].get<double>())) {
      errors.push_back(where + ": \"weight\" must be a positive number");
      ok = false;
    } else {
      p.weight = e["weight"].get<double>();
    }
  }
  // A path relative to the manifest's folder first (never to the working
  // directory), then a name under the lesson roots.
  std::error_code ec;
  std::string why, dir;
  if (fs::path(p.spec).is_relative() && fs::is_regular_file(fs::path(base) / p.spec / "exercise.json", ec))
    dir = (fs::path(base) / p.spec).string();
  else
    dir = resolveExercise(p.spec, roots, why);
  if (dir.empty()) {
    errors.push_back(where + ": " + why);
    return false;
  }
  std::vector<std::string> exErrors;
  if (!loadExercise(dir, p.exercise, exErrors)) {
    for (const std::string &m : exErrors) errors.push_back(where + ": " + m);
    return false;
  }
  return ok;
}

}  // namespace

bool loadAssignment(const std::string &path, const std::vector<std::string> &lessonRoots, Assignment &a,
                    std::vector<std::string> &errors) {
  a = Assignment{};
  a.path = path;
  std::string text, why;
  if (!readFileCapped(path, kMaxManifestBytes, text, why)) {
    errors.push_back(why);
    return false;
  }
  json m = json::parse(text, nullptr, false);
  if (m.is_discarded() || !m.is_object()) {
    errors.push_back(path + ": not a JSON object");
    return false;
  }
  size_t before = errors.size();
  onlyKeys(m, {"format", "version", "title", "exercises", "late"}, path, errors);
  if (m.value("format", "") != "cairn-assignment") errors.push_back(path + ": \"format\" must be \"cairn-assignment\"");
  if (!m.contains("version") || m["version"] != 1) errors.push_back(path + ": \"version\" must be 1");
  a.title = m.contains("title") && m["title"].is_string() ? m["title"].get<std::string>() : "";
  if (a.title.empty()) errors.push_back(path + ": \"title\" is missing");
  if (m.contains("late")) {
    LatePolicy p;
    if (readLate(m["late"], path, p, errors)) a.late = p;
  }
  if (!m.contains("exercises") || !m["exercises"].is_array() || m["exercises"].empty()) {
    errors.push_back(path + ": \"exercises\" must be a non-empty array");
    return false;
  }
  std::string base = fs::path(path).parent_path().string();
  if (base.empty()) base = ".";
  std::set<std::string> files;
  for (size_t i = 0; i < m["exercises"].size(); ++i) {
    AssignmentPart p;
    std::string where = path + ": exercises[" + std::to_string(i) + "]";
    if (!readPart(m["exercises"][i], where, base, lessonRoots, p, errors)) continue;
    if (!files.insert(p.file).second) errors.push_back(where + ": the file " + p.file + " is named twice");
    a.parts.push_back(std::move(p));
  }
  return errors.size() == before;
}

namespace {

// The file of one part: its exact path, else the one regular file with that
// base name anywhere under the folder. Links are never followed.
bool findPartFile(const fs::path &root, const std::string &file, std::string &found, std::string &note,
                  std::string &why) {
  std::error_code ec;
  fs::path exact = root;
  fs::file_status st;
  for (const auto &part : fs::path(file)) {  // no link anywhere on the way
    exact /= part;
    st = fs::symlink_status(exact, ec);
    if (!ec && fs::is_symlink(st)) {
      why = exact.lexically_relative(root).string() + " is a symbolic link; only regular files are graded";
      return false;
    }
  }
  if (!ec && fs::is_regular_file(st)) {
    found = file;
    return true;
  }
  if (!ec && fs::exists(st)) {
    why = file + " is not a regular file (a folder, a FIFO or a device); only regular files are graded";
    return false;
  }
  std::string base = fs::path(file).filename().string();
  std::vector<std::string> same, near, all;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    fs::file_status s = it->symlink_status(ec);
    if (ec || !fs::is_regular_file(s)) continue;
    std::string rel = fs::relative(it->path(), root, ec).string();
    std::string name = it->path().filename().string();
    if (all.size() < 20) all.push_back(rel);
    if (name == base) same.push_back(rel);
    else if (std::equal(name.begin(), name.end(), base.begin(), base.end(),
                        [](char x, char y) { return std::tolower((unsigned char)x) == std::tolower((unsigned char)y); }))
      near.push_back(rel);
  }
  std::sort(same.begin(), same.end());
  if (same.size() == 1) {
    found = same[0];
    note = "found at " + same[0] + "; the assignment asks for " + file;
    return true;
  }
  if (same.size() > 1) {
    why = "your submission has " + std::to_string(same.size()) + " files named " + base + " (" + same[0] + ", " +
          same[1] + (same.size() > 2 ? ", ..." : "") + "); keep one, at " + file;
    return false;
  }
  why = "your submission has no file " + file;
  if (!near.empty()) why += "; it has " + near[0] + ": rename it to " + file + " (names are case-sensitive)";
  else if (all.empty()) why += " (it has no files at all)";
  else {
    std::sort(all.begin(), all.end());
    why += " (it has: ";
    for (size_t i = 0; i < all.size() && i < 5; ++i) why += (i ? ", " : "") + all[i];
    why += all.size() > 5 ? ", ...)" : ")";
  }
  return false;
}

// Reads a regular file without following a link at its last component.
bool readNoFollow(const fs::path &p, uint64_t limit, std::string &out, std::string &why) {
  std::error_code ec;
  fs::file_status st = fs::symlink_status(p, ec);
  if (ec || !fs::is_regular_file(st)) {
    why = "not a regular file";
    return false;
  }
  return readFileCapped(p.string(), limit, out, why);
}

GradeResult notGraded(const Exercise &ex, const std::string &shown, const std::string &why) {
  GradeResult r = gradeSource(ex, shown, "", false, ex.limits);
  r.status = GradeResult::Status::Rejected;
  r.message = why;
  for (TestResult &t : r.tests) {
    t.passed = t.ran = false;
    t.score = 0;
    t.failure = "not run: " + why;
  }
  r.score = 0;
  return r;
}

}  // namespace

bool AssignmentResult::allPassed() const {
  return std::all_of(parts.begin(), parts.end(), [](const AssignmentPartResult &p) { return p.result.allPassed(); });
}

AssignmentResult gradeAssignment(const Assignment &a, const std::string &submissionDir,
                                 const std::function<Limits(const Limits &)> &limits, const Lateness *late) {
  AssignmentResult out;
  out.title = a.title;
  std::error_code ec;
  bool dirOk = fs::is_directory(fs::symlink_status(submissionDir, ec)) && !ec;
  for (const AssignmentPart &p : a.parts) {
    AssignmentPartResult pr;
    pr.part = &p;
    Limits lim = limits ? limits(p.exercise.limits) : p.exercise.limits;
    std::string why, text;
    if (!dirOk) {
      pr.result = notGraded(p.exercise, p.file, "no submission folder was found (" + submissionDir + ")");
    } else if (!findPartFile(submissionDir, p.file, pr.found, pr.note, why)) {
      pr.result = notGraded(p.exercise, p.file, why);
    } else if (!readNoFollow(fs::path(submissionDir) / pr.found, lim.maxBytes, text, why)) {
      pr.result = notGraded(p.exercise, pr.found, pr.found + ": " + why);
    } else {
      bool asJson = pr.found.size() >= 5 && pr.found.compare(pr.found.size() - 5, 5, ".json") == 0;
      pr.result = gradeSource(p.exercise, pr.found, text, asJson, lim);
    }
    out.rawScore += pr.result.score * p.weight;
    out.maxScore += pr.result.maxScore * p.weight;
    out.parts.push_back(std::move(pr));
  }
  if (a.late && late && late->known && late->secondsLate > a.late->graceMinutes * 60) {
    double days = std::ceil((late->secondsLate - a.late->graceMinutes * 60) / 86400.0);
    bool tooLate = a.late->maxDays >= 0 && days > a.late->maxDays;
    out.multiplier = tooLate ? 0 : std::max(0.0, 1 - a.late->penaltyPerDay * days);
    out.lateNote = "Submitted " + pointsText(days) + " started day(s) late (submitted " + late->submitted + ", due " +
                   late->due + "): " +
                   (tooLate ? "past the last accepted day (" + pointsText(a.late->maxDays) + "), so the score is 0"
                            : pointsText(a.late->penaltyPerDay * 100) + "% off per started day") +
                   "; " + pointsText(out.rawScore) + " -> " + pointsText(out.score()) + " points.";
  }
  return out;
}

bool parseIsoTime(const std::string &s, double &epoch) {
  int y, mo, d, h, mi, sec;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6 || s.size() < 19) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || h < 0 || mi < 0 || sec < 0) return false;
  size_t i = 19;
  double frac = 0;
  if (i < s.size() && s[i] == '.') {
    size_t j = i + 1;
    while (j < s.size() && std::isdigit((unsigned char)s[j])) ++j;
    if (j == i + 1) return false;
    frac = std::stod("0" + s.substr(i, j - i));
    i = j;
  }
  int offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
    int oh, om;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59) return false;
    offset = (s[i] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return false;  // an offset is required: a bare local time is ambiguous
  }
  if (i != s.size()) return false;
  // Days from the civil date (H. Hinnant's algorithm), independent of TZ.
  y -= mo <= 2;
  int era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = static_cast<unsigned>(y - era * 400);
  unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  double days = era * 146097.0 + doe - 719468.0;
  epoch = days * 86400 + h * 3600 + mi * 60 + sec + frac - offset;
  return true;
}

bool readLateness(const std::string &path, Lateness &out, std::string &why) {
  out = Lateness{};
  std::string text;
  if (!readFileCapped(path, kMaxManifestBytes * 16, text, why)) return false;
  json m = json::parse(text, nullptr, false);
  if (m.is_discarded() || !m.is_object()) {
    why = path + ": not a JSON object";
    return false;
  }
  auto str = [](const json &o, const char *k) {
    return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
  };
  out.submitted = str(m, "created_at");
  out.due = m.contains("assignment") ? str(m["assignment"], "due_date") : "";
  // An extension: a user's own due date, where the metadata has one (the
  // latest of a group's).
  double due = 0, sub = 0, best = -1e300;
  if (m.contains("users") && m["users"].is_array())
    for (const json &u : m["users"]) {
      std::string d = u.is_object() && u.contains("assignment") ? str(u["assignment"], "due_date") : "";
      double t;
      if (!d.empty() && parseIsoTime(d, t) && t > best) best = t, out.due = d;
    }
  if (out.submitted.empty() || out.due.empty()) return true;
  if (!parseIsoTime(out.submitted, sub) || !parseIsoTime(out.due, due)) {
    why = path + ": a time is not ISO 8601 with an offset: " + (parseIsoTime(out.submitted, sub) ? out.due : out.submitted);
    return false;
  }
  out.known = true;
  out.secondsLate = sub - due;
  return true;
}

}  // namespace cairn::grade
