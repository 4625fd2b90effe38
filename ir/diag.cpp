// Rendering of diagnostics as compiler-style text (with or without the
// quoted source lines) and as JSON.
#include "ir/diag.hpp"

#include <algorithm>
#include <ostream>

#include <nlohmann/json.hpp>

#include "ir/source_map.hpp"

namespace cairn {

Diagnostic &Diags::error(Loc loc, std::string rule, std::string message) {
  if (full()) {
    ++dropped_;
    sink_ = Diagnostic{};
    return sink_;
  }
  list_.push_back(Diagnostic{loc, std::move(rule), std::move(message), {}, {}, {}});
  return list_.back();
}

void Diags::sort() {
  std::stable_sort(list_.begin(), list_.end(), [](const Diagnostic &a, const Diagnostic &b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
}

void Diags::print(std::ostream &os, const std::string &file) const {
  static const SourceMap kNoSource;
  print(os, file, kNoSource);
}

void Diags::print(std::ostream &os, const std::string &file, const SourceMap &src) const {
  for (const auto &d : list_) {
    const std::string &df = d.file.empty() ? file : d.file;
    os << df << ':' << d.loc.line << ':' << d.loc.col << ": error: " << d.message << " [" << d.rule << "]\n";
    os << renderSnippet(src, df, d.loc, d.end);
    for (const auto &n : d.notes) {
      const std::string &nf = n.file.empty() ? df : n.file;
      os << nf << ':' << n.loc.line << ':' << n.loc.col << ": note: " << n.message << '\n';
      os << renderSnippet(src, nf, n.loc, n.end);
    }
  }
  if (dropped_ > 0)
    os << file << ": note: " << dropped_ << " more error(s) not shown (limit " << kLimit << ")\n";
}

namespace {
void addEnd(nlohmann::json &j, Loc end) {
  if (end.line == 0) return;
  j["end_line"] = end.line;
  j["end_col"] = end.col;
}
}  // namespace

nlohmann::json Diags::toJson() const {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto &d : list_) {
    nlohmann::json notes = nlohmann::json::array();
    for (const auto &n : d.notes) {
      nlohmann::json jn = {{"line", n.loc.line}, {"col", n.loc.col}, {"message", n.message}};
      addEnd(jn, n.end);
      notes.push_back(std::move(jn));
    }
    nlohmann::json jd = {{"line", d.loc.line}, {"col", d.loc.col}, {"rule", d.rule}, {"code", d.rule},
                         {"message", d.message}, {"notes", notes}};
    addEnd(jd, d.end);
    arr.push_back(std::move(jd));
  }
  return arr;
}

}  // namespace cairn
