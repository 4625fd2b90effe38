// Diagnostics are values: collected in a list, each with a location (and,
// when known, where its span ends), the rule it enforces and notes at the
// other places involved. Nothing here prints until a front end asks; user
// errors live here, internal bugs are asserts. Printed with a SourceMap
// (ir/source_map.hpp), each error and note is followed by its source line
// and a caret line, as clang prints them.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/graph.hpp"

namespace cairn {

class SourceMap;

struct Note {
  Loc loc;
  std::string message;
  std::string file;  // empty: the file being reported on (multi-file front ends set it)
  Loc end;           // just past the span's last byte; line 0: unknown
};

struct Diagnostic {
  Loc loc;
  std::string rule;  // e.g. "syntax", "one-store-per-version"; see docs/uir.md
  std::string message;
  std::vector<Note> notes;
  std::string file;  // empty: the file being reported on (multi-file front ends set it)
  Loc end;           // just past the span's last byte; line 0: unknown (the printer underlines the token at loc)
  Diagnostic &note(Loc l, std::string m, std::string f = {}, Loc e = {}) {
    notes.push_back({l, std::move(m), std::move(f), e});
    return *this;
  }
  Diagnostic &span(Loc e) {
    end = e;
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
  // The same lines, each error and note followed by its source line and a
  // caret line under its span when `src` holds that line (docs/uir.md,
  // "Diagnostics"); the first line of each stays as above, byte for byte.
  void print(std::ostream &os, const std::string &file, const SourceMap &src) const;
  // [{line, col, rule, code, message, notes: [{line, col, message}]}], with
  // end_line/end_col where the end is known; `code` repeats `rule`.
  nlohmann::json toJson() const;

 private:
  std::vector<Diagnostic> list_;
  Diagnostic sink_;
  size_t dropped_ = 0;
};

}  // namespace cairn
