// Visibility, tolerance and structural requirements (see authoring.hpp and
// exercise.hpp).
//
// The tolerance rule, as lessons/README.md states it: two float elements
// match when their bits are equal, or both are NaN, or neither is NaN nor
// infinite and |got - want| <= abs, or |got - want| <= rel * |want|, or they
// are at most `ulps` representable values apart in their dtype (+0 and -0
// are 0 apart). A NaN never matches a number, an infinity only itself.
#include "grade/authoring.hpp"

#include <cmath>
#include <cstring>

#include "ir/printer.hpp"

namespace cairn::grade {

using nlohmann::json;

const char *visibilityName(Visibility v) {
  switch (v) {
    case Visibility::Visible: return "visible";
    case Visibility::Hidden: return "hidden";
    case Visibility::AfterDueDate: return "after_due_date";
    case Visibility::AfterPublished: return "after_published";
  }
  return "hidden";
}

namespace {

// Float bits mapped onto a line where adjacent floats differ by 1.
int64_t ordered(uint64_t bits, int width) {
  uint64_t sign = uint64_t{1} << (width - 1), mag = bits & (sign - 1);
  return (bits & sign) ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
}

double asDouble(Bits b, DType t) {
  if (t == DType::F32) {
    float f;
    uint32_t u = static_cast<uint32_t>(b);
    std::memcpy(&f, &u, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

}  // namespace

bool sameValue(Bits got, Bits want, DType t, const Tolerance &tol) {
  if (t != DType::F32 && t != DType::F64) return got == want;
  int width = t == DType::F32 ? 32 : 64;
  if (width == 32) got &= 0xffffffffu, want &= 0xffffffffu;
  if (got == want) return true;
  double g = asDouble(got, t), w = asDouble(want, t);
  if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
  if (std::isinf(g) || std::isinf(w)) return false;
  double d = std::fabs(g - w);
  if (tol.abs >= 0 && d <= tol.abs) return true;
  if (tol.rel >= 0 && d <= tol.rel * std::fabs(w)) return true;
  if (tol.ulps >= 0) {
    int64_t a = ordered(got, width), b = ordered(want, width);
    uint64_t gap = a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b) : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
    if (gap <= static_cast<uint64_t>(tol.ulps)) return true;
  }
  return false;
}

void checkKeys(const json &obj, std::initializer_list<const char *> allowed, const std::string &where,
               std::vector<std::string> &errs) {
  if (!obj.is_object()) return;
  for (auto &[k, v] : obj.items()) {
    bool ok = false;
    for (const char *a : allowed) ok |= k == a;
    if (ok) continue;
    std::string list;
    for (const char *a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    errs.push_back(where + ": unknown key \"" + k + "\" (allowed: " + list + ")");
  }
}

Visibility parseVisibility(const json &t, Visibility dflt, const std::string &where, std::vector<std::string> &errs) {
  if (t.contains("visible") && t.contains("visibility")) {
    errs.push_back(where + ": give \"visibility\" or \"visible\", not both");
    return Visibility::Hidden;
  }
  if (t.contains("visible")) {
    if (t["visible"].is_boolean()) return t["visible"].get<bool>() ? Visibility::Visible : Visibility::Hidden;
    errs.push_back(where + ": \"visible\" must be true or false");
    return Visibility::Hidden;
  }
  if (!t.contains("visibility")) return dflt;
  const json &v = t["visibility"];
  for (Visibility x : {Visibility::Visible, Visibility::Hidden, Visibility::AfterDueDate, Visibility::AfterPublished})
    if (v.is_string() && v.get<std::string>() == visibilityName(x)) return x;
  errs.push_back(where + ": \"visibility\" must be \"visible\", \"hidden\", \"after_due_date\" or \"after_published\", not " +
                 v.dump());
  return Visibility::Hidden;
}

Tolerance parseTolerance(const json &v, const std::string &where, std::vector<std::string> &errs) {
  Tolerance t;
  std::string w = where + ": \"tolerance\"";
  if (!v.is_object() || v.empty()) {
    errs.push_back(w + " must be an object: {\"abs\": X}, {\"rel\": X} or {\"ulps\": N}");
    return t;
  }
  checkKeys(v, {"abs", "rel", "ulps"}, w, errs);
  for (const char *k : {"abs", "rel"})
    if (v.contains(k)) {
      if (!v[k].is_number() || !(v[k].get<double>() >= 0) || !std::isfinite(v[k].get<double>()))
        errs.push_back(w + ": \"" + k + "\" must be a finite number >= 0");
      else (k[0] == 'a' ? t.abs : t.rel) = v[k].get<double>();
    }
  if (v.contains("ulps")) {
    if (!v["ulps"].is_number_unsigned() && !(v["ulps"].is_number_integer() && v["ulps"].get<int64_t>() >= 0))
      errs.push_back(w + ": \"ulps\" must be an integer >= 0");
    else t.ulps = v["ulps"].get<int64_t>();
  }
  return t;
}

namespace {

bool knownWhat(const std::string &what) {
  Op op;
  return what == "parallel range" || what == "serial range" || parseOp(what, op);
}

int64_t countWhat(const Graph &g, const std::string &what) {
  Op want = Op::Range;
  bool range = what == "parallel range" || what == "serial range";
  if (!range && !parseOp(what, want)) return 0;
  int64_t n = 0;
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId x{i};
    if (g.op(x) != want) continue;
    if (range && g.parallel(x) != (what == "parallel range")) continue;
    ++n;
  }
  return n;
}

std::string plural(int64_t n, const std::string &what) {
  std::string w = what.find(' ') == std::string::npos ? "`" + what + "`" : what;
  return std::to_string(n) + " " + w + (n == 1 ? " node" : " nodes");
}

}  // namespace

std::string checkRequirement(const Graph &g, const Requirement &r) {
  int64_t n = countWhat(g, r.what);
  if (r.min >= 0 && n < r.min)
    return "the program has " + plural(n, r.what) + "; the exercise requires at least " + std::to_string(r.min);
  if (r.max >= 0 && n > r.max)
    return "the program has " + plural(n, r.what) + "; the exercise allows at most " + std::to_string(r.max);
  return "";
}

Test parseRequirement(const json &v, size_t index, const std::string &where, std::vector<std::string> &errs) {
  Test t;
  std::string w = where + ": require " + std::to_string(index + 1);
  if (!v.is_object()) {
    errs.push_back(w + ": must be an object {\"op\", \"min\", \"max\", ...}");
    return t;
  }
  checkKeys(v, {"name", "op", "min", "max", "points", "visibility", "visible", "hint"}, w, errs);
  Requirement r;
  r.what = v.contains("op") && v["op"].is_string() ? v["op"].get<std::string>() : "";
  if (!knownWhat(r.what))
    errs.push_back(w + ": \"op\" must name an op of .uir (\"store\", \"buffer\", ...), \"parallel range\" or "
                       "\"serial range\", not " + (v.contains("op") ? v["op"].dump() : std::string("nothing")));
  for (const char *k : {"min", "max"})
    if (v.contains(k)) {
      if (!v[k].is_number_integer() || v[k].get<int64_t>() < 0) errs.push_back(w + ": \"" + k + "\" must be an integer >= 0");
      else (k[1] == 'i' ? r.min : r.max) = v[k].get<int64_t>();
    }
  if (r.min < 0 && r.max < 0) errs.push_back(w + ": give \"min\", \"max\" or both");
  if (r.min >= 0 && r.max >= 0 && r.min > r.max) errs.push_back(w + ": \"min\" is above \"max\"");
  if (v.contains("name") && !v["name"].is_string()) errs.push_back(w + ": \"name\" must be a string");
  std::string bound = r.min == r.max ? "exactly " + std::to_string(r.min)
                      : r.max < 0   ? "at least " + std::to_string(r.min)
                      : r.min < 0   ? "at most " + std::to_string(r.max)
                                    : std::to_string(r.min) + " to " + std::to_string(r.max);
  t.name = v.contains("name") && v["name"].is_string() ? v["name"].get<std::string>() : bound + " " + r.what;
  t.visibility = parseVisibility(v, Visibility::Visible, w, errs);
  t.visible = t.visibility == Visibility::Visible;
  if (v.contains("points") && (!v["points"].is_number() || v["points"].get<double>() < 0))
    errs.push_back(w + ": \"points\" must be a non-negative number");
  else t.points = v.value("points", 1.0);
  if (v.contains("hint") && !v["hint"].is_string()) errs.push_back(w + ": \"hint\" must be a string");
  else t.hint = v.value("hint", "");
  t.about = "the program has " + bound + " " + r.what + (r.what.find(' ') == std::string::npos ? " node(s)" : "(s)");
  t.require = r;
  return t;
}

}  // namespace cairn::grade
