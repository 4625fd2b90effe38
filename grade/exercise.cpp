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
constexpr int64_t kMaxCases = 100000;

// Deterministic random numbers: splitmix64.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t between(int64_t lo, int64_t hi) {  // inclusive
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    uint64_t r = next();
    if (span != UINT64_MAX) r %= span + 1;
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
  }
  double real(double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(next() >> 11) * 0x1.0p-53); }
};

Literal intLiteral(int64_t v) {
  Literal l;
  l.kind = Literal::Kind::Int;
  l.negative = v < 0;
  l.magnitude = v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  return l;
}

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
    if (m.value("format", "") != "cairn-exercise") err(file_ + ": \"format\" must be \"cairn-exercise\"");
    if (!m.contains("version") || m["version"] != 1) err(file_ + ": \"version\" must be 1");
    ex_.title = str(m, "title", "");
    if (ex_.title.empty()) err(file_ + ": \"title\" is missing");
    ex_.statement = path(dir, str(m, "statement", "statement.md"));
    ex_.starterPath = path(dir, str(m, "starter", "starter.uir"));
    ex_.referencePath = path(dir, str(m, "reference", "reference.uir"));
    if (!fs::is_regular_file(ex_.statement, ec)) err(ex_.statement + ": no such file (the statement)");
    if (!readFileCapped(ex_.starterPath, kMaxManifestBytes, ex_.starterText, why)) err(why);
    if (!readFileCapped(ex_.referencePath, kMaxManifestBytes, ex_.referenceText, why)) return err(why);
    limits(m);
    if (!reference()) return false;
    if (!m.contains("tests") || !m["tests"].is_array() || m["tests"].empty())
      return err(file_ + ": \"tests\" must be a non-empty array");
    std::set<std::string> names;
    for (const json &t : m["tests"]) {
      test(t);
      if (!ex_.tests.empty() && !names.insert(ex_.tests.back().name).second)
        err(file_ + ": two tests are named \"" + ex_.tests.back().name + "\"");
    }
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

  bool reference() {
    Diags d;
    if (!parseUir(ex_.referenceText, ref_, d) || !validate(ref_, facts_, d)) {
      std::string m = ex_.referencePath + ": the reference is not valid:";
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
    if (slots_.empty()) return err(ex_.referencePath + ": the reference binds no buffer to a slot, so there is nothing to check");
    prog_ = compile(ref_, facts_);
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

  void test(const json &t) {
    std::string where = file_ + ": test";
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) {
      err(where + ": each test needs a \"name\"");
      return;
    }
    Test x;
    x.name = t["name"];
    where += " \"" + x.name + "\"";
    if (t.contains("visible") && !t["visible"].is_boolean()) err(where + ": \"visible\" must be true or false");
    else x.visible = t.value("visible", true);
    if (t.contains("points") && (!t["points"].is_number() || t["points"].get<double>() < 0))
      err(where + ": \"points\" must be a non-negative number");
    else x.points = t.value("points", 1.0);
    for (auto &[k, v] : t.items())
      if (k != "name" && k != "visible" && k != "points" && k != "input" && k != "expect" && k != "generate")
        err(where + ": unknown key \"" + k + "\"");
    if (t.contains("generate")) {
      if (t.contains("input") || t.contains("expect")) err(where + ": a generated test has no \"input\" or \"expect\"");
      generate(t["generate"], x, where);
    } else {
      fixed(t, x, where);
    }
    ex_.tests.push_back(std::move(x));
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
    if (!g.is_object() || !g.contains("slots") || !g["slots"].is_object() || g["slots"].empty()) {
      err(where + ": \"generate\" needs \"slots\": {\"K\": {\"size\", \"min\", \"max\"}}");
      return;
    }
    uint64_t seed = g.contains("seed") && g["seed"].is_number_integer() ? g["seed"].get<uint64_t>() : 1;
    int64_t count = g.contains("cases") && g["cases"].is_number_integer() ? g["cases"].get<int64_t>() : 20;
    if (count < 1 || count > kMaxCases) {
      err(where + ": \"cases\" must be between 1 and " + std::to_string(kMaxCases));
      return;
    }
    std::vector<int64_t> check;
    if (g.contains("check")) {
      if (!g["check"].is_array()) err(where + ": \"check\" must be an array of slots");
      else
        for (const json &k : g["check"])
          if (const RefSlot *s = slotOf(k.is_number_integer() ? std::to_string(k.get<int64_t>()) : k.dump(), where))
            check.push_back(ref_.slot(s->buffer));
    }
    struct Spec {
      int64_t slot;
      RefSlot s;
      int64_t sizeLo, sizeHi;
      int64_t lo, hi;
      double flo, fhi;
    };
    std::vector<Spec> specs;
    x.about = std::to_string(count) + " random cases (seed " + std::to_string(seed) + ")";
    for (auto &[k, v] : g["slots"].items()) {
      const RefSlot *s = slotOf(k, where);
      if (!s) continue;
      std::string sw = where + " generate slot " + k;
      if (!v.is_object()) {
        err(sw + ": expected {\"size\", \"min\", \"max\"}");
        continue;
      }
      Spec sp{std::stoll(k), *s, s->size, s->size, 0, 0, -1000, 1000};
      if (v.contains("size")) {
        const json &z = v["size"];
        if (z.is_number_integer()) sp.sizeLo = sp.sizeHi = z.get<int64_t>();
        else if (z.is_array() && z.size() == 2 && z[0].is_number_integer() && z[1].is_number_integer()) {
          sp.sizeLo = z[0].get<int64_t>();
          sp.sizeHi = z[1].get<int64_t>();
        } else {
          err(sw + ": \"size\" must be an integer or [min, max]");
          continue;
        }
      }
      if (sp.sizeLo < 0 || sp.sizeHi < sp.sizeLo || sp.sizeHi > int64_t{1} << 24) {
        err(sw + (s->size < 0 ? ": the buffer has a dynamic size, so \"size\" is needed" : ": bad \"size\""));
        continue;
      }
      if (s->size >= 0 && (sp.sizeLo != s->size || sp.sizeHi != s->size)) {
        err(sw + ": the reference's buffer has " + std::to_string(s->size) + " elements");
        continue;
      }
      if (isFloat(s->type)) {
        sp.flo = v.contains("min") && v["min"].is_number() ? v["min"].get<double>() : -1000;
        sp.fhi = v.contains("max") && v["max"].is_number() ? v["max"].get<double>() : 1000;
        if (!(sp.flo <= sp.fhi)) err(sw + ": \"min\" is above \"max\"");
      } else {
        int64_t tmin = s->type == DType::Bool ? 0 : intMin(s->type);
        int64_t tmax = s->type == DType::Bool ? 1 : static_cast<int64_t>(std::min<uint64_t>(intMaxU(s->type), INT64_MAX));
        sp.lo = v.contains("min") ? (v["min"].is_number_integer() ? v["min"].get<int64_t>() : tmax) : tmin;
        sp.hi = v.contains("max") ? (v["max"].is_number_integer() ? v["max"].get<int64_t>() : tmin) : tmax;
        if (sp.lo < tmin || sp.hi > tmax || sp.lo > sp.hi) {
          err(sw + ": \"min\" and \"max\" must be integers with " + std::to_string(tmin) + " <= min <= max <= " +
              std::to_string(tmax) + " (" + std::string(dtypeName(s->type)) + ")");
          continue;
        }
      }
      std::string range = isFloat(s->type) ? "[" + literalText(Literal{Literal::Kind::Float, false, 0, sp.flo}) + ", " +
                                                 literalText(Literal{Literal::Kind::Float, false, 0, sp.fhi}) + "]"
                                           : "[" + std::to_string(sp.lo) + ", " + std::to_string(sp.hi) + "]";
      std::string size = sp.sizeLo == sp.sizeHi ? std::to_string(sp.sizeLo)
                                                : std::to_string(sp.sizeLo) + " to " + std::to_string(sp.sizeHi);
      x.about += ", slot " + k + ": " + size + " values in " + range;
      specs.push_back(sp);
    }
    if (!errs_.empty()) return;
    Rng rng{seed};
    for (int64_t i = 0; i < count; ++i) {
      Case c;
      for (const Spec &sp : specs) {
        int64_t n = rng.between(sp.sizeLo, sp.sizeHi);
        std::vector<Literal> &vals = c.input[sp.slot];
        vals.reserve(static_cast<size_t>(n));
        for (int64_t e = 0; e < n; ++e) {
          if (isFloat(sp.s.type)) {
            double d = rng.real(sp.flo, sp.fhi);
            if (sp.s.type == DType::F32) d = static_cast<float>(d);
            vals.push_back(Literal{Literal::Kind::Float, false, 0, d});
          } else {
            vals.push_back(intLiteral(rng.between(sp.lo, sp.hi)));
          }
        }
      }
      if (!expectFromReference(c, check, where + " case " + std::to_string(i + 1))) return;
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
