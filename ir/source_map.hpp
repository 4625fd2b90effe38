// The source text diagnostics quote: a map from a file name, as a diagnostic
// names it, to that file's text, split into lines the way both readers (the
// .uir parser and the CAIRN lexer) count them. `Diags::print` takes one to
// print, under each error and note, the source line and a caret line under
// the span (ir/diag.hpp; the format is in docs/uir.md, "Diagnostics").
//
// Invariants: line numbers are 1-based; "\r\n", "\n" and a lone "\r" each
// end a line, and no line returned holds either byte; a leading UTF-8 byte
// order mark is not part of line 1 (columns count from the byte after it,
// as the readers do). A file neither added nor readable has no lines.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.hpp"

namespace cairn {

class SourceMap {
 public:
  // Files larger than this are not read from disk (nor quoted from).
  static constexpr uint64_t kMaxDiskBytes = uint64_t{1} << 30;

  // Registers `text` under `file`; a later add of the same name replaces it.
  void add(const std::string &file, std::string text);
  // With this on, a file not added is read from disk by its name, once,
  // the first time a diagnostic names it (the std modules of CAIRN).
  void readFromDisk(bool on) { disk_ = on; }

  // The line's text without its line end, or nullopt when the file is
  // unknown or `line` is 0 or past its last line. Not thread-safe: the
  // first look-up of a file builds (and keeps) its line index.
  std::optional<std::string_view> line(const std::string &file, uint32_t line) const;

 private:
  struct Entry {
    std::string text;
    std::vector<std::pair<size_t, size_t>> lines;  // [begin, end) of each line, built on first use
    bool indexed = false;
  };
  const Entry *find(const std::string &file) const;
  mutable std::map<std::string, Entry> files_;
  bool disk_ = false;
};

// The two lines printed under a diagnostic at `loc` (clang's layout):
//   "    5 | SOURCE\n      |      ^~~~\n"
// `end` (line 0: unknown) is just past the span's last byte; unknown, the
// span is the token at `loc` (a run of letters, digits and `_`, a .uir name
// `%` and such a run, else one byte); a span past its first line is underlined to that line's end. Tabs
// expand to spaces (stops every 8 columns) in both lines; other control
// bytes print as `<XX>` (hex) in the source line and as as many columns in
// the caret line. Lines past 256 bytes are quoted as a window around the
// caret, with "..." for what is left out. Empty when the
// location is not in `src` (line 0, past the end, a column past the line's
// end plus one).
std::string renderSnippet(const SourceMap &src, const std::string &file, Loc loc, Loc end);

}  // namespace cairn
