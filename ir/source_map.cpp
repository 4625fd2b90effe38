// SourceMap: file name -> text -> lines, and the quoted source line with its
// caret line that `Diags::print` writes under a diagnostic (renderSnippet).
//
// Columns are byte offsets + 1 (both readers count bytes). The caret line
// reproduces the quoted line's layout byte by byte: a tab is expanded to
// spaces up to the next multiple of 8 in both lines (as clang does), a UTF-8
// continuation byte takes no column (one column per code point), a control
// byte shown as `<XX>` takes four, every other byte one. So the caret sits
// under its byte, except after characters wider than one column (CJK, emoji).
#include "ir/source_map.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace cairn {

void SourceMap::add(const std::string &file, std::string text) {
  Entry e;
  e.text = std::move(text);
  files_[file] = std::move(e);
}

const SourceMap::Entry *SourceMap::find(const std::string &file) const {
  auto it = files_.find(file);
  if (it == files_.end()) {
    if (!disk_ || file.empty()) return nullptr;
    Entry e;  // a file that cannot be read stays an empty entry: it has no lines
    std::ifstream f(file, std::ios::binary);
    if (f) {
      f.seekg(0, std::ios::end);
      std::streamoff size = f.tellg();
      if (size >= 0 && uint64_t(size) <= kMaxDiskBytes) {
        f.seekg(0);
        std::ostringstream ss;
        ss << f.rdbuf();
        e.text = ss.str();
      }
    }
    it = files_.emplace(file, std::move(e)).first;
  }
  Entry &e = it->second;
  if (!e.indexed) {
    const std::string &t = e.text;
    size_t pos = t.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    // A final line end closes the last line; it does not open an empty one.
    while (pos < t.size()) {
      size_t nl = t.find_first_of("\r\n", pos);
      if (nl == std::string::npos) nl = t.size();
      e.lines.emplace_back(pos, nl);
      if (nl == t.size()) break;
      pos = nl + (t[nl] == '\r' && nl + 1 < t.size() && t[nl + 1] == '\n' ? 2 : 1);
    }
    e.indexed = true;
  }
  return &e;
}

std::optional<std::string_view> SourceMap::line(const std::string &file, uint32_t line) const {
  const Entry *e = find(file);
  if (!e || line == 0 || line > e->lines.size()) return std::nullopt;
  auto [b, en] = e->lines[line - 1];
  return std::string_view(e->text).substr(b, en - b);
}

namespace {

// Lines longer than this are quoted as a window of kWindow bytes around the
// caret, with "..." where text was left out.
constexpr size_t kMaxQuoted = 256;
constexpr size_t kWindow = 160;
constexpr size_t kTabStop = 8;

bool isWord(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
bool isControl(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }
bool isContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Appends byte `c` of the source line to `shown`, and its columns to
// `caret`: `mark` is what fills them (' ' outside the span, '^' then '~').
// `col` counts the display columns written so far (tab stops every 8).
void put(unsigned char c, char mark, size_t &col, std::string &shown, std::string &caret) {
  size_t w = 1;
  if (c == '\t') {
    w = kTabStop - col % kTabStop;
    shown.append(w, ' ');
  } else if (isControl(c)) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<%02X>", c);
    shown += hex;
    w = 4;
  } else {
    shown += char(c);
    if (isContinuation(c)) return;  // part of the code point before it: no column of its own
  }
  caret += mark;
  caret.append(w - 1, mark == ' ' ? ' ' : '~');
  col += w;
}

}  // namespace

std::string renderSnippet(const SourceMap &src, const std::string &file, Loc loc, Loc end) {
  std::optional<std::string_view> text = src.line(file, loc.line);
  if (!text || loc.col == 0 || loc.col > text->size() + 1) return {};
  std::string_view t = *text;
  size_t b = loc.col - 1;  // the span's first byte: [b, e)
  size_t e = b + 1;
  if (end.line == loc.line && end.col > loc.col) e = end.col - 1;
  else if (end.line > loc.line) e = t.size();
  else if (b < t.size() && (isWord(t[b]) || (t[b] == '%' && b + 1 < t.size() && isWord(t[b + 1]))))
    while (e < t.size() && isWord(t[e])) ++e;  // a word, or a .uir name: `%` and a word
  e = std::max(std::min(e, t.size()), b + 1);  // a caret at the line's end still shows

  size_t from = 0, to = t.size();
  if (t.size() > kMaxQuoted) {
    from = b > kWindow / 2 ? b - kWindow / 2 : 0;
    to = std::min(t.size(), from + kWindow);
    while (from > 0 && from < t.size() && isContinuation(t[from])) ++from;
  }
  std::string shown, caret;
  size_t col = 0;
  if (from > 0) shown += "...", caret += "   ", col = 3;
  for (size_t i = from; i < to; ++i)
    put(static_cast<unsigned char>(t[i]), i < b || i >= e ? ' ' : i == b ? '^' : '~', col, shown, caret);
  if (b >= to) caret += '^';  // the column just past the line's end (or the window's)
  if (to < t.size()) shown += "...";
  while (!caret.empty() && caret.back() == ' ') caret.pop_back();

  std::string num = std::to_string(loc.line);
  std::string gutter = num.size() < 5 ? std::string(5 - num.size(), ' ') + num : num;
  std::string out = gutter + " | " + shown + '\n';
  out += std::string(gutter.size(), ' ') + " | " + caret + '\n';
  return out;
}

}  // namespace cairn
