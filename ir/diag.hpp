// Diagnostics are values: collected in a list, each with a location, the rule
// it enforces and notes at the other places involved. Nothing here prints
// until a front end asks; user errors live here, internal bugs are asserts.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/graph.hpp"

namespace cairn {

struct Note {
  Loc loc;
  std::string message;
  std::string file;  // empty: the file being reported on (multi-file front ends set it)
};

struct Diagnostic {
  Loc loc;
  std::string rule;  // e.g. "syntax", "one-store-per-version"; see docs/uir.md
  std::string message;
  std::vector<Note> notes;
  std::string file;  // empty: the file being reported on (multi-file front ends set it)
  Diagnostic &note(Loc l, std::string m, std::string f = {}) {
    notes.push_back({l, std::move(m), std::move(f)});
    return *this;
  }
};

class Diags {
 public:
  // Past this many errors the list stops growing (binary garbage would
  // otherwise produce one per line); `truncated()` then says so.
  static constexpr size_t kLimit = 200;

  Diagnostic &error(Loc loc, std::string rule, std::string message);
  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }
  bool full() const { return list_.size() >= kLimit; }
  bool truncated() const { return dropped_ > 0; }
  size_t dropped() const { return dropped_; }  // errors past the limit, counted, not kept
  const std::vector<Diagnostic> &list() const { return list_; }
  // Sorts by location (stable), so output order does not depend on which
  // check ran first.
  void sort();

  // `FILE:LINE:COL: error: MESSAGE [rule]` then `FILE:LINE:COL: note: ...`.
  void print(std::ostream &os, const std::string &file) const;
  nlohmann::json toJson() const;

 private:
  std::vector<Diagnostic> list_;
  Diagnostic sink_;
  size_t dropped_ = 0;
};

}  // namespace cairn
