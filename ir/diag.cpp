// Rendering of diagnostics as compiler-style text and as JSON.
#include "ir/diag.hpp"

#include <algorithm>
#include <ostream>

#include <nlohmann/json.hpp>

namespace cairn {

Diagnostic &Diags::error(Loc loc, std::string rule, std::string message) {
  if (full()) {
    ++dropped_;
    sink_ = Diagnostic{};
    return sink_;
  }
  list_.push_back(Diagnostic{loc, std::move(rule), std::move(message), {}, {}});
  return list_.back();
}

void Diags::sort() {
  std::stable_sort(list_.begin(), list_.end(), [](const Diagnostic &a, const Diagnostic &b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
}

void Diags::print(std::ostream &os, const std::string &file) const {
  for (const auto &d : list_) {
    const std::string &df = d.file.empty() ? file : d.file;
    os << df << ':' << d.loc.line << ':' << d.loc.col << ": error: " << d.message << " [" << d.rule << "]\n";
    for (const auto &n : d.notes)
      os << (n.file.empty() ? df : n.file) << ':' << n.loc.line << ':' << n.loc.col << ": note: " << n.message << '\n';
  }
  if (dropped_ > 0)
    os << file << ": note: " << dropped_ << " more error(s) not shown (limit " << kLimit << ")\n";
}

nlohmann::json Diags::toJson() const {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto &d : list_) {
    nlohmann::json notes = nlohmann::json::array();
    for (const auto &n : d.notes) notes.push_back({{"line", n.loc.line}, {"col", n.loc.col}, {"message", n.message}});
    arr.push_back({{"line", d.loc.line}, {"col", d.loc.col}, {"rule", d.rule}, {"message", d.message}, {"notes", notes}});
  }
  return arr;
}

}  // namespace cairn
