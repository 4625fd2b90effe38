// Look-ups in the table of diagnostic codes (lower/check/rules.hpp). The
// rows themselves are data, in lower/check/rules_table.cpp.
#include "lower/check/rules.hpp"

#include <algorithm>
#include <cctype>

namespace cairn::rules {

namespace detail {
extern const Rule kTable[];
extern const size_t kTableSize;
}  // namespace detail

std::span<const Rule> all() { return {detail::kTable, detail::kTableSize}; }

namespace {
std::string upper(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

const Rule *find(std::string_view code) {
  std::string want = upper(code);
  for (const Rule &r : all())
    if (r.code == want) return &r;
  return nullptr;
}

std::vector<std::string_view> nearest(std::string_view code, size_t max) {
  std::string want = upper(code);
  if (want.rfind("E-", 0) != 0) want = "E-" + want;  // `moved` means E-MOVED
  std::vector<std::pair<size_t, std::string_view>> scored;
  for (const Rule &r : all()) {
    bool contains = want.size() > 2 && (r.code.find(want.substr(2)) != std::string_view::npos ||
                                        want.find(r.code.substr(2)) != std::string::npos);
    scored.emplace_back(contains ? 0 : editDistance(want, r.code), r.code);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string_view> out;
  for (size_t i = 0; i < scored.size() && out.size() < max; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace cairn::rules
