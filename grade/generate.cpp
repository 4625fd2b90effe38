// Drawing the inputs of generated tests (see generate.hpp).
//
// Each slot's spec is checked on its own (size, min, max against the dtype
// and the reference's static size), then the size links: a driven slot's
// size comes from one element of a driving slot of the same test, which must
// be an integer slot drawn with a fixed size, not itself driven, whose range
// lies within 0 and the 2^24-element cap (and, for a static buffer, is that
// size). Unknown keys are errors, as everywhere in the manifest.
#include "grade/generate.hpp"

#include <algorithm>

#include "grade/authoring.hpp"

namespace cairn::grade {

using nlohmann::json;

Literal intLiteral(int64_t v) {
  Literal l;
  l.kind = Literal::Kind::Int;
  l.negative = v < 0;
  l.magnitude = v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  return l;
}

namespace {

constexpr int64_t kMaxCases = 100000;
constexpr int64_t kMaxSize = int64_t{1} << 24;

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

struct Spec {
  int64_t slot = 0;
  GenSlot s;
  int64_t sizeLo = 0, sizeHi = 0;
  int64_t sizeSlot = -1, sizeIndex = 0;  // the driving slot, when the size follows one
  int64_t lo = 0, hi = 0;
  double flo = -1000, fhi = 1000;
};

bool slotKey(const std::string &key, int64_t &k) {
  try {
    size_t used = 0;
    k = std::stoll(key, &used);
    return used == key.size() && k >= 0;
  } catch (...) {
    return false;
  }
}

class Drawer {
 public:
  Drawer(const std::map<int64_t, GenSlot> &slots, const std::string &where, std::vector<std::string> &errs)
      : slots_(slots), where_(where), errs_(errs) {}

  bool run(const json &g, Drawn &out) {
    if (!g.is_object() || !g.contains("slots") || !g["slots"].is_object() || g["slots"].empty())
      return err(where_ + ": \"generate\" needs \"slots\": {\"K\": {\"size\", \"min\", \"max\"}}");
    checkKeys(g, {"seed", "cases", "slots", "check"}, where_ + " generate", errs_);
    uint64_t seed = g.contains("seed") && g["seed"].is_number_integer() ? g["seed"].get<uint64_t>() : 1;
    int64_t count = g.contains("cases") && g["cases"].is_number_integer() ? g["cases"].get<int64_t>() : 20;
    if (count < 1 || count > kMaxCases) return err(where_ + ": \"cases\" must be between 1 and " + std::to_string(kMaxCases));
    if (g.contains("check")) {
      if (!g["check"].is_array()) err(where_ + ": \"check\" must be an array of slots");
      else
        for (const json &k : g["check"]) {
          int64_t n = -1;
          std::string key = k.is_number_integer() ? std::to_string(k.get<int64_t>()) : k.is_string() ? k.get<std::string>() : k.dump();
          if (slotKey(key, n) && slots_.count(n)) out.check.push_back(n);
          else err(where_ + ": \"" + key + "\" is not a slot of the reference");
        }
    }
    out.about = std::to_string(count) + " random cases (seed " + std::to_string(seed) + ")";
    for (auto &[k, v] : g["slots"].items()) {
      Spec sp;
      if (spec(k, v, sp)) specs_.push_back(sp);
    }
    link();
    if (!errs_.empty()) return false;
    for (const Spec &sp : specs_) out.about += ", slot " + std::to_string(sp.slot) + ": " + aboutOf(sp);
    Rng rng{seed};
    for (int64_t i = 0; i < count; ++i) out.inputs.push_back(draw(rng));
    return true;
  }

 private:
  const std::map<int64_t, GenSlot> &slots_;
  std::string where_;
  std::vector<std::string> &errs_;
  std::vector<Spec> specs_;

  bool err(std::string m) {
    errs_.push_back(std::move(m));
    return false;
  }

  bool size(const json &z, Spec &sp, const std::string &sw) {
    if (z.is_number_integer()) {
      sp.sizeLo = sp.sizeHi = z.get<int64_t>();
    } else if (z.is_array() && z.size() == 2 && z[0].is_number_integer() && z[1].is_number_integer()) {
      sp.sizeLo = z[0].get<int64_t>();
      sp.sizeHi = z[1].get<int64_t>();
    } else if (z.is_object()) {
      checkKeys(z, {"slot", "index"}, sw + " size", errs_);
      std::string key = z.contains("slot") ? (z["slot"].is_string() ? z["slot"].get<std::string>() : z["slot"].dump()) : "";
      if (!slotKey(key, sp.sizeSlot)) return err(sw + ": \"size\": {\"slot\": K} must name a slot, as \"1\"");
      if (z.contains("index") && (!z["index"].is_number_integer() || z["index"].get<int64_t>() < 0))
        return err(sw + ": \"size\": \"index\" must be an integer >= 0");
      sp.sizeIndex = z.value("index", int64_t{0});
      return true;
    } else {
      return err(sw + ": \"size\" must be an integer, [min, max] or {\"slot\": K, \"index\": I}");
    }
    if (sp.sizeLo < 0 || sp.sizeHi < sp.sizeLo || sp.sizeHi > kMaxSize)
      return err(sw + (sp.s.size < 0 ? ": the buffer has a dynamic size, so \"size\" is needed" : ": bad \"size\""));
    if (sp.s.size >= 0 && (sp.sizeLo != sp.s.size || sp.sizeHi != sp.s.size))
      return err(sw + ": the reference's buffer has " + std::to_string(sp.s.size) + " elements");
    return true;
  }

  bool spec(const std::string &k, const json &v, Spec &sp) {
    auto it = slots_.end();
    if (slotKey(k, sp.slot)) it = slots_.find(sp.slot);
    if (it == slots_.end()) return err(where_ + ": \"" + k + "\" is not a slot of the reference");
    std::string sw = where_ + " generate slot " + k;
    if (!v.is_object()) return err(sw + ": expected {\"size\", \"min\", \"max\"}");
    checkKeys(v, {"size", "min", "max"}, sw, errs_);
    sp.s = it->second;
    sp.sizeLo = sp.sizeHi = sp.s.size;
    if (v.contains("size") ? !size(v["size"], sp, sw) : !size(json(sp.s.size), sp, sw)) return false;
    DType t = sp.s.type;
    if (isFloat(t)) {
      sp.flo = v.contains("min") && v["min"].is_number() ? v["min"].get<double>() : -1000;
      sp.fhi = v.contains("max") && v["max"].is_number() ? v["max"].get<double>() : 1000;
      if (!(sp.flo <= sp.fhi)) return err(sw + ": \"min\" is above \"max\"");
      return true;
    }
    int64_t tmin = t == DType::Bool ? 0 : intMin(t);
    int64_t tmax = t == DType::Bool ? 1 : static_cast<int64_t>(std::min<uint64_t>(intMaxU(t), INT64_MAX));
    sp.lo = v.contains("min") ? (v["min"].is_number_integer() ? v["min"].get<int64_t>() : tmax) : tmin;
    sp.hi = v.contains("max") ? (v["max"].is_number_integer() ? v["max"].get<int64_t>() : tmin) : tmax;
    if (sp.lo < tmin || sp.hi > tmax || sp.lo > sp.hi)
      return err(sw + ": \"min\" and \"max\" must be integers with " + std::to_string(tmin) + " <= min <= max <= " +
                 std::to_string(tmax) + " (" + std::string(dtypeName(t)) + ")");
    return true;
  }

  // Checks each driven slot against its driver.
  void link() {
    for (Spec &sp : specs_) {
      if (sp.sizeSlot < 0) continue;
      std::string sw = where_ + " generate slot " + std::to_string(sp.slot) + ": its size follows slot " +
                       std::to_string(sp.sizeSlot) + "[" + std::to_string(sp.sizeIndex) + "]";
      auto d = std::find_if(specs_.begin(), specs_.end(), [&](const Spec &x) { return x.slot == sp.sizeSlot; });
      if (d == specs_.end()) err(sw + ", which this test does not generate");
      else if (d->slot == sp.slot || d->sizeSlot >= 0) err(sw + ", whose own size follows a slot");
      else if (isFloat(d->s.type) || d->s.type == DType::Bool) err(sw + ", which is not an integer slot");
      else if (d->sizeLo != d->sizeHi || sp.sizeIndex >= d->sizeLo)
        err(sw + ", but slot " + std::to_string(d->slot) + " does not always have " + std::to_string(sp.sizeIndex + 1) +
            " element(s)");
      else if (d->lo < 0 || d->hi > kMaxSize)
        err(sw + ", so slot " + std::to_string(d->slot) + "'s \"min\" and \"max\" must lie within 0 and " +
            std::to_string(kMaxSize) + " (they are " + std::to_string(d->lo) + " and " + std::to_string(d->hi) + ")");
      else if (sp.s.size >= 0 && (d->lo != sp.s.size || d->hi != sp.s.size))
        err(sw + ", but the reference's buffer has a static size of " + std::to_string(sp.s.size) + " elements");
      else {
        sp.sizeLo = d->lo;
        sp.sizeHi = d->hi;
      }
    }
  }

  std::string aboutOf(const Spec &sp) const {
    std::string range = isFloat(sp.s.type) ? "[" + literalText(Literal{Literal::Kind::Float, false, 0, sp.flo}) + ", " +
                                                 literalText(Literal{Literal::Kind::Float, false, 0, sp.fhi}) + "]"
                                           : "[" + std::to_string(sp.lo) + ", " + std::to_string(sp.hi) + "]";
    std::string size = sp.sizeSlot >= 0 ? "slot " + std::to_string(sp.sizeSlot) + "[" + std::to_string(sp.sizeIndex) + "]"
                       : sp.sizeLo == sp.sizeHi ? std::to_string(sp.sizeLo)
                                                : std::to_string(sp.sizeLo) + " to " + std::to_string(sp.sizeHi);
    return size + " values in " + range;
  }

  void values(Rng &rng, const Spec &sp, int64_t n, std::vector<Literal> &vals) const {
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

  // One case: the slots of fixed size in order, then the driven ones.
  std::map<int64_t, std::vector<Literal>> draw(Rng &rng) const {
    std::map<int64_t, std::vector<Literal>> in;
    for (const Spec &sp : specs_)
      if (sp.sizeSlot < 0) values(rng, sp, rng.between(sp.sizeLo, sp.sizeHi), in[sp.slot]);
    for (const Spec &sp : specs_)
      if (sp.sizeSlot >= 0) {
        const Literal &l = in.at(sp.sizeSlot)[static_cast<size_t>(sp.sizeIndex)];
        values(rng, sp, static_cast<int64_t>(l.magnitude), in[sp.slot]);
      }
    return in;
  }
};

}  // namespace

bool drawCases(const json &g, const std::map<int64_t, GenSlot> &slots, const std::string &where, Drawn &out,
               std::vector<std::string> &errs) {
  size_t before = errs.size();
  return Drawer(slots, where, errs).run(g, out) && errs.size() == before;
}

}  // namespace cairn::grade
