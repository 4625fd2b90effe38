// Loading exercises: the manifest, the reference, and the expansion of tests
// into cases (see exercise.hpp; the format is in lessons/README.md).
//
// The manifest is untrusted in the sense that authors make mistakes: every
// field is type-checked and every problem becomes one message naming the
// file and the test. The reference must pass the oracle; its slot buffers
// define the dtypes and sizes the tests are checked against.
#include "grade/exercise.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "grade/authoring.hpp"
#include "grade/generate.hpp"
#include "ir/check.hpp"
#include "ir/data_dir.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

#ifndef CAIRN_LESSONS_DIR
#define CAIRN_LESSONS_DIR ""
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

double Exercise::maxScore() const {
  double s = 0;
  for (const Test &t : tests) s += t.points;
  return s;
}

bool readFileCapped(const std::string &path, uint64_t limit, std::string &out, std::string &why) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    why = path + ": is a directory";
    return false;
  }
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    why = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  out.clear();
  char buf[1 << 16];
  bool ok = true;
  for (;;) {
    size_t got = std::fread(buf, 1, sizeof buf, f);
    if (out.size() + got > limit) {
      why = path + ": larger than " + std::to_string(limit) + " bytes";
      ok = false;
      break;
    }
    out.append(buf, got);
    if (got < sizeof buf) {
      if (std::ferror(f)) {
        why = path + ": cannot read";
        ok = false;
      }
      break;
    }
  }
  std::fclose(f);
  return ok;
}

namespace {

constexpr uint64_t kMaxManifestBytes = uint64_t{1} << 24;
std::optional<Literal> jsonLiteral(const json &v) {
  if (v.is_string()) return parseLiteral(v.get_ref<const std::string &>());
  if (v.is_boolean()) return Literal{Literal::Kind::Bool, false, v.get<bool>() ? 1u : 0u, 0};
  if (v.is_number_unsigned()) return Literal{Literal::Kind::Int, false, v.get<uint64_t>(), 0};
  if (v.is_number_integer()) return intLiteral(v.get<int64_t>());
  if (v.is_number_float()) return Literal{Literal::Kind::Float, false, 0, v.get<double>()};
  return std::nullopt;
}

struct RefSlot {
  NodeId buffer;
  DType type;
  int64_t size;  // -1: dynamic
};

class Loader {
 public:
  Loader(Exercise &ex, std::vector<std::string> &errs) : ex_(ex), errs_(errs) {}

  bool load(const std::string &where) {
    std::error_code ec;
    fs::path dir = where;
    if (fs::is_regular_file(dir, ec)) dir = dir.parent_path();
    if (dir.empty()) dir = ".";
    fs::path manifest = dir / "exercise.json";
    ex_.dir = dir.string();
    fs::path abs = fs::weakly_canonical(dir, ec);
    if (ec) abs = dir;
    std::string leaf = abs.filename().string(), parent = abs.parent_path().filename().string();
    ex_.id = parent.empty() ? leaf : parent + "/" + leaf;
    file_ = manifest.string();
    std::string text, why;
    if (!readFileCapped(file_, kMaxManifestBytes, text, why)) return err(why);
    json m = json::parse(text, nullptr, false);
    if (m.is_discarded() || !m.is_object()) return err(file_ + ": not a JSON object");
    checkKeys(m, {"format", "version", "title", "statement", "starter", "reference", "limits", "tolerance", "tests",
                  "hidden_tests", "require", "starter_fails"},
              file_, errs_);
    if (m.value("format", "") != "cairn-exercise") err(file_ + ": \"format\" must be \"cairn-exercise\"");
    if (!m.contains("version") || m["version"] != 1) err(file_ + ": \"version\" must be 1");
    ex_.title = str(m, "title", "");
    if (ex_.title.empty()) err(file_ + ": \"title\" is missing");
    ex_.statement = path(dir, str(m, "statement", "statement.md"));
    ex_.starterPath = path(dir, str(m, "starter", "starter.uir"));
    ex_.released = m.contains("reference") && m["reference"].is_null();
    ex_.referencePath = ex_.released ? "" : path(dir, str(m, "reference", "reference.uir"));
    if (!fs::is_regular_file(ex_.statement, ec)) err(ex_.statement + ": no such file (the statement)");
    if (!readFileCapped(ex_.starterPath, kMaxManifestBytes, ex_.starterText, why)) {
      if (ex_.released) return err(why);
      err(why);
    }
    if (!ex_.released && !readFileCapped(ex_.referencePath, kMaxManifestBytes, ex_.referenceText, why)) return err(why);
    limits(m);
    if (!reference()) return false;
    if (m.contains("tolerance")) {
      tolerance_ = parseTolerance(m["tolerance"], file_, errs_);
      floatSlotsNeeded(file_);
    }
    if (!m.contains("tests") || !m["tests"].is_array() || m["tests"].empty())
      return err(file_ + ": \"tests\" must be a non-empty array");
    for (const json &t : m["tests"]) test(t, Visibility::Visible);
    if (m.contains("hidden_tests")) hiddenTests(dir, m["hidden_tests"]);
    if (m.contains("require")) {
      if (!m["require"].is_array()) err(file_ + ": \"require\" must be an array of {\"op\", \"min\", \"max\"}");
      else
        for (size_t i = 0; i < m["require"].size(); ++i) ex_.tests.push_back(parseRequirement(m["require"][i], i, file_, errs_));
    }
    std::set<std::string> names;
    for (const Test &t : ex_.tests)
      if (!names.insert(t.name).second) err(file_ + ": two tests are named \"" + t.name + "\"");
    if (m.contains("starter_fails")) {
      const json &sf = m["starter_fails"];
      if (!sf.is_array()) err(file_ + ": \"starter_fails\" must be an array of test names");
      else
        for (const json &n : sf) {
          if (!n.is_string() || !names.count(n.get<std::string>()))
            err(file_ + ": \"starter_fails\" names " + n.dump() + ", which is not a test");
          else ex_.starterFails.push_back(n.get<std::string>());
        }
    }
    return errs_.empty();
  }

 private:
  Exercise &ex_;
  std::vector<std::string> &errs_;
  std::string file_;
  Graph ref_;
  Facts facts_;
  ProgramPtr prog_;
  std::map<int64_t, RefSlot> slots_;
  Tolerance tolerance_;  // the exercise's

  // `hidden_tests`: a file of the exercise's folder holding a JSON array of
  // tests, hidden unless they say otherwise (never "visible").
  void hiddenTests(const fs::path &dir, const json &name) {
    if (!name.is_string() || name.get<std::string>().empty()) {
      err(file_ + ": \"hidden_tests\" must name a file of the exercise's folder");
      return;
    }
    ex_.hiddenTestsPath = path(dir, name.get<std::string>());
    std::string text, why;
    if (!readFileCapped(ex_.hiddenTestsPath, kMaxManifestBytes, text, why)) {
      err(why + " (the hidden tests)");
      return;
    }
    json a = json::parse(text, nullptr, false);
    if (a.is_discarded() || !a.is_array() || a.empty()) {
      err(ex_.hiddenTestsPath + ": must be a non-empty JSON array of tests");
      return;
    }
    std::string saved = file_;
    file_ = ex_.hiddenTestsPath;
    for (const json &t : a) {
      test(t, Visibility::Hidden);
      if (!ex_.tests.empty() && ex_.tests.back().visible)
        err(file_ + ": test \"" + ex_.tests.back().name + "\": a test in the hidden-tests file cannot be visible");
    }
    file_ = saved;
  }

  bool err(std::string m) {
    errs_.push_back(std::move(m));
    return false;
  }
  static std::string str(const json &o, const char *key, const char *dflt) {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : dflt;
  }
  static std::string path(const fs::path &dir, const std::string &rel) { return (dir / rel).lexically_normal().string(); }

  void limits(const json &m) {
    if (!m.contains("limits")) return;
    const json &l = m["limits"];
    if (!l.is_object()) {
      err(file_ + ": \"limits\" must be an object");
      return;
    }
    Limits &x = ex_.limits;
    for (auto &[k, v] : l.items()) {
      bool num = v.is_number() && v.get<double>() >= 0;
      if (k == "timeout" && num) x.timeout = v.get<double>();
      else if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
        err(file_ + ": limit \"" + k + "\" must be a non-negative " + (k == "timeout" ? "number" : "integer"));
      else if (k == "max_bytes") x.maxBytes = v.get<uint64_t>();
      else if (k == "max_nodes") x.maxNodes = v.get<uint64_t>();
      else if (k == "max_elements") x.maxElements = v.get<uint64_t>();
      else if (k == "max_steps") x.maxSteps = v.get<uint64_t>();
      else err(file_ + ": unknown limit \"" + k + "\" (max_bytes, max_nodes, max_elements, max_steps, timeout)");
    }
  }

  // The reference's slots (a released copy, which has none: the starter's).
  bool reference() {
    Diags d;
    const std::string &text = ex_.released ? ex_.starterText : ex_.referenceText;
    const std::string &file = ex_.released ? ex_.starterPath : ex_.referencePath;
    if (!parseUir(text, ref_, d) || !validate(ref_, facts_, d)) {
      std::string m = file + (ex_.released ? ": the starter is not valid:" : ": the reference is not valid:");
      for (const Diagnostic &x : d.list())
        m += "\n  line " + std::to_string(x.loc.line) + ": " + x.message + " [" + x.rule + "]";
      return err(m);
    }
    for (uint32_t i = 0; i < ref_.size(); ++i) {
      NodeId n{i};
      if (ref_.op(n) != Op::Buffer || ref_.slot(n) < 0) continue;
      int64_t size = -1;
      auto ops = ref_.operands(n);
      if (!ops.empty() && ops[0].isLit()) size = static_cast<int64_t>(ref_.literal(ops[0].lit()).magnitude);
      slots_[ref_.slot(n)] = RefSlot{n, ref_.dtype(n), size};
    }
    if (slots_.empty()) return err(file + ": the program binds no buffer to a slot, so there is nothing to check");
    if (!ex_.released) prog_ = compile(ref_, facts_);
    return true;
  }

  // "0" -> 0, with the slot checked against the reference.
  const RefSlot *slotOf(const std::string &key, const std::string &where) {
    int64_t k = -1;
    try {
      size_t used = 0;
      k = std::stoll(key, &used);
      if (used != key.size()) k = -1;
    } catch (...) {
    }
    auto it = slots_.find(k);
    if (k < 0 || it == slots_.end()) {
      err(where + ": \"" + key + "\" is not a slot of the reference");
      return nullptr;
    }
    return &it->second;
  }

  bool values(const json &arr, const RefSlot &s, const std::string &where, std::vector<Literal> &out) {
    if (!arr.is_array()) return err(where + ": expected an array of values");
    if (s.size >= 0 && static_cast<int64_t>(arr.size()) != s.size)
      return err(where + ": " + std::to_string(arr.size()) + " values, but the reference's buffer has " +
                 std::to_string(s.size));
    for (const json &v : arr) {
      auto lit = jsonLiteral(v);
      if (!lit || !literalBits(*lit, s.type))
        return err(where + ": " + v.dump() + " is not a value of " + std::string(dtypeName(s.type)));
      out.push_back(*lit);
    }
    return true;
  }

  // Runs the reference on `c.input`; fills c.expect for `check` (all slots when empty).
  bool expectFromReference(Case &c, const std::vector<int64_t> &check, const std::string &where) {
    RunOptions o;
    o.slotData = c.input;
    o.limits.maxElements = ex_.limits.maxElements;
    o.limits.maxSteps = ex_.limits.maxSteps;
    RunResult r = execute(*prog_, o);
    if (r.status != RunResult::Status::Ok)
      return err(where + ": the reference fails on this input: " + r.message + " (line " + std::to_string(r.loc.line) + ")");
    for (const SlotResult &s : r.slots)
      if (check.empty() || std::find(check.begin(), check.end(), s.slot) != check.end())
        c.expect[s.slot] = SlotData{s.type, s.values};
    return true;
  }

  void test(const json &t, Visibility dflt) {
    std::string where = file_ + ": test";
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) {
      err(where + ": each test needs a \"name\"");
      return;
    }
    Test x;
    x.name = t["name"];
    where += " \"" + x.name + "\"";
    checkKeys(t, {"name", "visible", "visibility", "points", "hint", "tolerance", "partial", "input", "expect", "cases",
                  "generate"},
              where, errs_);
    x.visibility = parseVisibility(t, dflt, where, errs_);
    x.visible = x.visibility == Visibility::Visible;
    if (t.contains("points") && (!t["points"].is_number() || t["points"].get<double>() < 0))
      err(where + ": \"points\" must be a non-negative number");
    else x.points = t.value("points", 1.0);
    if (t.contains("hint") && (!t["hint"].is_string() || t["hint"].get<std::string>().empty()))
      err(where + ": \"hint\" must be a non-empty string");
    else x.hint = t.value("hint", "");
    if (t.contains("partial") && !t["partial"].is_boolean()) err(where + ": \"partial\" must be true or false");
    else x.partial = t.value("partial", false);
    x.tolerance = t.contains("tolerance") ? parseTolerance(t["tolerance"], where, errs_) : tolerance_;
    if (t.contains("tolerance")) floatSlotsNeeded(where);
    if (t.contains("generate")) {
      if (t.contains("input") || t.contains("expect") || t.contains("cases"))
        err(where + ": a generated test has no \"input\", \"expect\" or \"cases\"");
      if (ex_.released) err(where + ": a generated test needs the reference, and this exercise has none");
      else generate(t["generate"], x, where);
    } else if (t.contains("cases")) {
      if (t.contains("input") || t.contains("expect")) err(where + ": a test with \"cases\" has no \"input\" or \"expect\"");
      if (!t["cases"].is_array() || t["cases"].empty()) err(where + ": \"cases\" must be a non-empty array of {\"input\", \"expect\"}");
      else
        for (size_t i = 0; i < t["cases"].size(); ++i) {
          std::string cw = where + " case " + std::to_string(i + 1);
          checkKeys(t["cases"][i], {"input", "expect"}, cw, errs_);
          fixed(t["cases"][i], x, cw);
        }
    } else {
      fixed(t, x, where);
    }
    if (x.partial && x.cases.size() < 2) err(where + ": \"partial\" needs a test of several cases (generated, or \"cases\")");
    ex_.tests.push_back(std::move(x));
  }

  // A tolerance only applies to float slots: one must exist.
  void floatSlotsNeeded(const std::string &where) {
    for (const auto &[k, s] : slots_)
      if (isFloat(s.type)) return;
    err(where + ": \"tolerance\" applies to float slots, and the reference has none");
  }

  void fixed(const json &t, Test &x, const std::string &where) {
    Case c;
    if (t.contains("input")) {
      if (!t["input"].is_object()) err(where + ": \"input\" must map slots to arrays");
      else
        for (auto &[k, v] : t["input"].items())
          if (const RefSlot *s = slotOf(k, where)) values(v, *s, where + " input slot " + k, c.input[std::stoll(k)]);
    }
    if (!t.contains("expect") || !t["expect"].is_object() || t["expect"].empty()) {
      err(where + ": \"expect\" must map slots to their expected final contents");
      return;
    }
    for (auto &[k, v] : t["expect"].items()) {
      const RefSlot *s = slotOf(k, where);
      std::vector<Literal> lits;
      if (!s || !values(v, *s, where + " expect slot " + k, lits)) continue;
      SlotData d{s->type, {}};
      for (const Literal &l : lits) d.values.push_back(*literalBits(l, s->type));
      c.expect[std::stoll(k)] = std::move(d);
    }
    x.cases.push_back(std::move(c));
  }

  void generate(const json &g, Test &x, const std::string &where) {
    x.generated = true;
    std::map<int64_t, GenSlot> slots;
    for (const auto &[k, s] : slots_) slots[k] = GenSlot{s.type, s.size};
    Drawn d;
    if (!drawCases(g, slots, where, d, errs_)) return;
    x.about = d.about;
    for (size_t i = 0; i < d.inputs.size(); ++i) {
      Case c;
      c.input = std::move(d.inputs[i]);
      if (!expectFromReference(c, d.check, where + " case " + std::to_string(i + 1))) return;
      x.cases.push_back(std::move(c));
    }
  }
};

}  // namespace

bool loadExercise(const std::string &dir, Exercise &ex, std::vector<std::string> &errors) {
  ex = Exercise{};
  try {
    Loader l(ex, errors);
    return l.load(dir) && errors.empty();
  } catch (const InternalError &) {
    throw;  // a bug in cairn, not in the files: exit 70 (tools/main.cpp)
  } catch (const std::exception &e) {
    errors.push_back(dir + ": cannot load the exercise: " + e.what());
    return false;
  }
}

std::vector<std::string> lessonRoots(const std::string &flag) {
  std::vector<std::string> roots;
  auto add = [&](const std::string &r) {
    if (!r.empty() && std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
  };
  add(flag);
  if (const char *e = std::getenv("CAIRN_LESSONS")) add(e);
  add("lessons");
  add(installedDataDir("lessons"));
  add(CAIRN_LESSONS_DIR);
  return roots;
}

std::string resolveExercise(const std::string &spec, const std::vector<std::string> &roots, std::string &why) {
  std::error_code ec;
  fs::path p = spec;
  if (fs::is_regular_file(p, ec) && p.filename() == "exercise.json") return p.parent_path().empty() ? "." : p.parent_path().string();
  if (fs::is_directory(p, ec) && fs::is_regular_file(p / "exercise.json", ec)) return p.string();
  if (fs::is_directory(p, ec)) {
    why = spec + ": the folder has no exercise.json";
    return "";
  }
  for (const std::string &root : roots) {
    if (!fs::is_directory(root, ec)) continue;
    if (fs::is_regular_file(fs::path(root) / spec / "exercise.json", ec)) return (fs::path(root) / spec).string();
    // A short name: any exercise folder whose path ends with it.
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (it.depth() > 4) it.disable_recursion_pending();
      if (it->path().filename() != "exercise.json") continue;
      fs::path rel = it->path().parent_path().lexically_relative(root);
      std::string r = rel.generic_string();
      if (r == spec || (r.size() > spec.size() && r.compare(r.size() - spec.size(), spec.size(), spec) == 0 &&
                        r[r.size() - spec.size() - 1] == '/'))
        found.push_back(it->path().parent_path().string());
    }
    std::sort(found.begin(), found.end());
    if (found.size() == 1) return found[0];
    if (found.size() > 1) {
      why = "exercise `" + spec + "` is ambiguous under " + root + ":";
      for (auto &f : found) why += " " + f;
      return "";
    }
  }
  why = "no exercise `" + spec + "` (give a folder with exercise.json, or a name under:";
  for (auto &r : roots) why += " " + r;
  why += ")";
  return "";
}

}  // namespace cairn::grade
