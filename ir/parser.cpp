// The .uir reader: one line, one node.
//
//   line    := [ '%' NAME '=' OP item* ] [ '#' comment ]
//   item    := operand | KEY '=' value | 'parallel'
//   operand := '%' NAME | literal       value := WORD | '[' WORD* ']' | '"' chars '"'
//
// Module ops (ir/module.hpp) read here too: `fn=NAME`, `msg="TEXT"` (with
// \" \\ and \xNN escapes) and `cols=[T... own]`; whether they are allowed
// in the graph at hand is the oracle's business (rule `module`).
//
// The reader checks syntax, attribute spelling and names (defined once,
// before use); everything about kinds, dtypes and ordering is the oracle's.
// It scans the bytes once and never recurses, so deep or long inputs cost
// only linear time and no stack. Names are resolved through NameTable:
// dense arrays for numbered names (%v12), an open-address table keyed by
// the names themselves for the rest; no allocation per node.
#include "ir/parser.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <memory>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ir/name_table.hpp"

namespace cairn {

bool takesDType(Op op) {
  switch (op) {
    case Op::Buffer: case Op::Cast: case Op::Const: case Op::Param: case Op::VParam: case Op::Call: case Op::Deref:
    case Op::CheckedCast: return true;
    default: return false;
  }
}

namespace {

using uirnames::isNameChar;
using uirnames::NameTable;

// What the user wrote, shown safely: control bytes and non-ASCII as \xNN,
// long tokens cut.
std::string shown(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 40)) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char *hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > 40) out += "...";
  return out;
}

struct Pending {
  NodeId node;
  uint32_t index;
  std::string_view name;
  Loc loc;
};

class Parser {
 public:
  Parser(std::string_view text, Graph &g, Diags &d, uint32_t firstLine)
      : text_(text), g_(g), d_(d), names_(g), firstLine_(firstLine) {}

  void run() {
    // One node a line, at most: size the tables once.
    size_t lines = 0, nameBytes = 0;
    measure(lines, nameBytes);
    names_.reserve(lines);
    g_.reserve(lines);
    g_.reserveNames(nameBytes);
    hasCR_ = text_.find('\r') != std::string_view::npos;
    // Text as editors write it: a leading UTF-8 byte order mark is skipped
    // (columns count from the byte after it), and "\r\n", "\n" and a lone
    // "\r" each end a line.
    size_t pos = text_.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    pf_ = pos;
    uint32_t line = firstLine_;
    std::vector<std::string> above;
    // Every line is read even past the diagnostics' limit, so the count of
    // the errors left out is exact (Diags counts them without storing).
    while (pos <= text_.size()) {
      prefetchAhead(pos);
      size_t nl = lineEnd(pos);
      std::string_view ln = text_.substr(pos, nl - pos);
      parseLine(ln, line, above);
      if (nl == text_.size()) break;
      pos = nextLine(nl);
      ++line;
    }
    for (auto &c : above) g_.trailingComments().push_back(std::move(c));
    resolveDeferred();
    resolvePending();
  }

 private:
  // ---- lines ----
  // How many lines the text has at most (its "\n" count, plus one), and
  // about how many bytes the names at their starts take: the graph's
  // capacity (a hint: the graph grows past it). The newlines are counted
  // eight bytes at a time; the name bytes a line, exactly over kSample
  // bytes at the start, middle and end of the text, and the largest rate
  // of the three scaled to every line (generated names grow longer down the
  // text: %v9 ... %v9999999). So this pass over a text far larger than the
  // cache reads it once, fast.
  static constexpr size_t kSample = size_t{1} << 14;
  void measure(size_t &lines, size_t &nameBytes) const {
    lines = 1 + countNewlines(text_);
    if (text_.size() <= 3 * kSample) {
      nameBytes = sampleNames(0, text_.size()).bytes;
      return;
    }
    double rate = 0;
    for (size_t at : {size_t{0}, text_.size() / 2, text_.size() - kSample}) {
      Sample sm = sampleNames(at, kSample);
      rate = std::max(rate, static_cast<double>(sm.bytes) / static_cast<double>(std::max<size_t>(sm.lines, 1)));
    }
    nameBytes = std::min(text_.size(), static_cast<size_t>(rate * static_cast<double>(lines) * 1.0625) + 64);
  }
  struct Sample {
    size_t lines = 0, bytes = 0;
  };
  // The lines that start in [at, at + len) (after the first line break, when
  // `at` is not the text's start) and the bytes of the names they define.
  Sample sampleNames(size_t at, size_t len) const {
    Sample sm;
    const char *p = text_.data() + at, *e = text_.data() + std::min(text_.size(), at + len);
    if (at != 0 && ((p = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(e - p)))) == nullptr || ++p == e))
      return sm;
    for (;;) {
      ++sm.lines;
      while (p != e && (*p == ' ' || *p == '\t')) ++p;
      if (p != e && *p == '%') {
        const char *s = ++p;
        p = uirnames::nameEnd(p, text_.data() + text_.size());  // to the name's end, past e if need be
        sm.bytes += static_cast<size_t>(p - s);
      }
      if (p >= e || (p = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(e - p)))) == nullptr) return sm;
      if (++p == e) return sm;
    }
  }
  // Where the line at `pos` ends: its "\r" or "\n", or the end of the text.
  size_t lineEnd(size_t pos) const {
    const char *b = text_.data(), *e = b + text_.size();
    if (pos >= text_.size()) return text_.size();
    if (!hasCR_) {
      const void *nl = std::memchr(b + pos, '\n', text_.size() - pos);
      return nl ? static_cast<size_t>(static_cast<const char *>(nl) - b) : text_.size();
    }
    const char *p = b + pos;
    while (p != e && *p != '\n' && *p != '\r') ++p;
    return static_cast<size_t>(p - b);
  }
  size_t nextLine(size_t nl) const { return nl + (text_[nl] == '\r' && nl + 1 < text_.size() && text_[nl + 1] == '\n' ? 2 : 1); }

  // Keeps a second cursor kLookahead lines in front of the parse at `pos`
  // and prefetches the table slots of every `%NAME` on the lines it passes,
  // so the lookups of those lines find their slots in cache. Each name's
  // extent and key go into a ring (ahead_) that readName takes them from,
  // so neither is computed twice. Only a hint: it decides nothing (a `%`
  // in a comment or a string leaves an entry that nothing takes).
  static constexpr size_t kLookahead = 16;
  void prefetchAhead(size_t pos) {
    if (!names_.manyHashed()) return;  // numbered names, or a table that stays in cache
    if (pf_ < pos) pf_ = pos, pfLines_ = 0;  // (never: the cursor leads)
    if (pfLines_ > 0) --pfLines_;
    const char *end = text_.data() + text_.size();
    while (pfLines_ < kLookahead && pf_ <= text_.size()) {
      size_t nl = lineEnd(pf_);
      const char *p = text_.data() + pf_, *e = text_.data() + nl;
      while (p != e && (p = static_cast<const char *>(std::memchr(p, '%', static_cast<size_t>(e - p)))) != nullptr) {
        const char *s = ++p;
        p = uirnames::nameEnd(p, end);  // never past e: a line ends in a byte that is no name character
        if (p == s) continue;
        const uint64_t k = NameTable::key(s, static_cast<size_t>(p - s), end);
        names_.prefetch(std::string_view(s, static_cast<size_t>(p - s)), k);
        if (aheadEnd_ - aheadNext_ < kAhead) ahead_[aheadEnd_++ % kAhead] = Ahead{s, static_cast<uint32_t>(p - s), k};
      }
      pf_ = nl == text_.size() ? text_.size() + 1 : nextLine(nl);
      ++pfLines_;
    }
  }
  // A name found ahead: where it starts, its length and its key.
  struct Ahead {
    const char *at;
    uint32_t len;
    uint64_t key;
  };
  static constexpr size_t kAhead = 256;  // a power of 2; when full, names go unrecorded
  Ahead ahead_[kAhead];
  size_t aheadNext_ = 0, aheadEnd_ = 0;  // the entries not yet taken: [next, end), counted

  // ---- one line ----
  void parseLine(std::string_view ln, uint32_t line, std::vector<std::string> &above) {
    line_ = line;
    ln_ = ln;
    i_ = 0;
    skipSpace();
    if (i_ == ln_.size()) return;
    if (ln_[i_] == '#') {
      above.emplace_back(trimRight(ln_.substr(i_ + 1)));
      return;
    }
    Loc start = here();
    if (ln_[i_] != '%') return err(start, "expected `%NAME = OP ...` or a `#` comment", ln_.substr(i_));
    ++i_;
    uint64_t key = 0;
    std::string_view name = readName(key);
    if (name.empty()) return err(here(), "expected a name after `%`", rest());
    skipSpace();
    if (i_ >= ln_.size() || ln_[i_] != '=') return err(here(), "expected `=` after `%" + std::string(name) + "`", rest());
    ++i_;
    skipSpace();
    Loc opLoc = here();
    std::string_view opWord = readWord();
    Op op;
    if (opWord.empty()) return err(opLoc, "expected an op name", rest());
    if (!parseOp(opWord, text_.data() + text_.size(), op)) return err(opLoc, "unknown op `" + shown(opWord) + "`", {}, true);

    NodeId prior = names_.insertIfAbsent(name, key, NodeId{g_.size()});
    NodeId n = g_.addNode(op, name, start);
    if (prior.valid())
      d_.error(start, "name", "%" + std::string(name) + " is defined twice")
          .note(g_.loc(prior), "%" + std::string(name) + " is first defined here");
    if (!above.empty()) {
      g_.comments(n).above = std::move(above);
      above.clear();
    }
    if (op == Op::Reduce) {
      skipSpace();
      Loc wl = here();
      std::string_view w = readWord();
      Op r;
      if (w.empty() || !parseOp(w, r) || !(r == Op::Add || r == Op::Mul || r == Op::Max || r == Op::Min ||
                                            r == Op::And || r == Op::Or || r == Op::Xor))
        return err(wl, "expected the reduce op (add, mul, max, min, and, or, xor)", w.empty() ? rest() : w);
      g_.setReduceOp(n, r);
    }
    parseItems(n);
  }

  void parseItems(NodeId n) {
    Op op = g_.op(n);
    const bool cached = names_.cached();  // the table is unchanged until the next line's definition
    bool sawDType = false, sawShape = false, sawSlot = false, sawData = false, sawPar = false, sawText = false, sawCols = false;
    for (;;) {
      skipSpace();
      if (i_ >= ln_.size()) break;
      char c = ln_[i_];
      if (c == '#') {
        g_.comments(n).trailing = std::string(trimRight(ln_.substr(i_ + 1)));
        break;
      }
      Loc at = here();
      if (c == '%') {
        ++i_;
        uint64_t key = 0;
        std::string_view ref = readName(key);
        if (ref.empty()) return err(here(), "expected a name after `%`", rest());
        if (!atItemEnd()) return err(here(), "unexpected character after `%" + std::string(ref) + "`", rest());
        const NameTable::Ref r = NameTable::ref(ref, key);
        NodeId target;
        if (cached) target = names_.find(ref, r);
        if (cached || names_.findNear(ref, r, target)) {  // looked up now (see defer)
          const bool before = target.valid() && target.v < n.v;
          if (before || cached) {
            g_.addOperand(n, Operand::ofNode(before ? target : NodeId::none()), at.col);
            if (!before) pending_.push_back(Pending{n, static_cast<uint32_t>(g_.operands(n).size() - 1), ref, at});
            continue;
          }
        }
        g_.addOperand(n, Operand::ofNode(NodeId::none()), at.col);  // set by resolve()
        defer(Pending{n, static_cast<uint32_t>(g_.operands(n).size() - 1), ref, at}, r);
        continue;
      }
      if (ln_.substr(i_).starts_with("msg=\"")) {
        if (op != Op::Guard) return err(at, "unknown attribute `msg=` for `" + std::string(opInfo(op).name) + "`", {}, true);
        if (sawText) return err(at, "`msg=` is given twice", {}, true);
        sawText = true;
        i_ += 5;
        std::string msg;
        if (!readQuoted(msg)) return;
        g_.setText(n, std::move(msg));
        if (!atItemEnd()) return err(here(), "unexpected character after the closing `\"`", rest());
        continue;
      }
      std::string_view word = readItem();
      size_t eq = word.find('=');
      if (eq == std::string_view::npos) {
        if (word == "parallel") {
          if (op != Op::Range) return err(at, "`parallel` applies only to `range`", {}, true);
          if (sawPar) return err(at, "`parallel` is given twice", {}, true);
          sawPar = true;
          g_.setParallel(n, true);
          continue;
        }
        auto lit = parseLiteral(word);
        if (!lit) return err(at, "expected an operand (`%NAME` or a literal) or an attribute", word);
        g_.addOperand(n, Operand::ofLit(g_.addLiteral(*lit)), at.col);
        continue;
      }
      std::string_view key = word.substr(0, eq), val = word.substr(eq + 1);
      Loc vloc{line_, at.col + static_cast<uint32_t>(eq) + 1};
      if (key == "dtype" && takesDType(op)) {
        if (sawDType) return err(at, "`dtype=` is given twice", {}, true);
        sawDType = true;
        auto t = parseDType(val);
        if (!t) return err(vloc, "expected a dtype (bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64)", val);
        g_.setDType(n, *t);
      } else if (key == "slot" && op == Op::Buffer) {
        if (sawSlot) return err(at, "`slot=` is given twice", {}, true);
        sawSlot = true;
        int64_t s = 0;
        auto [p, ec] = std::from_chars(val.data(), val.data() + val.size(), s);
        if (val.empty() || ec != std::errc() || p != val.data() + val.size() || s < 0 || s > INT32_MAX)
          return err(vloc, "expected a slot number (0 to 2147483647)", val);
        g_.setSlot(n, s);
      } else if (key == "shape" && (op == Op::Shrink || op == Op::CShrink)) {
        if (sawShape) return err(at, "`shape=` is given twice", {}, true);
        sawShape = true;
        g_.setShapeGiven(n);
        if (!parseList(val, vloc, [&](std::string_view item, Loc il) {
              int64_t d = 0;
              auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
              if (ec != std::errc() || p != item.data() + item.size() || d < 0) {
                err(il, "expected a dimension (a non-negative integer)", item);
                return false;
              }
              g_.addDim(n, d);
              return true;
            }))
          return;
      } else if (key == "data" && op == Op::Buffer) {
        if (sawData) return err(at, "`data=` is given twice", {}, true);
        sawData = true;
        g_.markHasData(n);
        if (!parseList(val, vloc, [&](std::string_view item, Loc il) {
              auto lit = parseLiteral(item);
              if (!lit) {
                err(il, "expected a literal in `data=[...]`", item);
                return false;
              }
              g_.addData(n, *lit);
              return true;
            }))
          return;
      } else if (key == "fn" && op == Op::Call) {
        if (sawText) return err(at, "`fn=` is given twice", {}, true);
        sawText = true;
        bool okName = !val.empty();
        for (char ch : val) okName = okName && isNameChar(static_cast<unsigned char>(ch));
        if (!okName) return err(vloc, "expected a function name (letters, digits, `_`, `.`)", val);
        g_.setText(n, std::string(val));
      } else if (key == "cols" && op == Op::Alloc) {
        if (sawCols) return err(at, "`cols=` is given twice", {}, true);
        sawCols = true;
        if (!parseList(val, vloc, [&](std::string_view item, Loc il) {
              if (item == "own") {
                g_.addDim(n, Graph::kOwnColumn);
                return true;
              }
              auto t = parseDType(item);
              if (!t) {
                err(il, "expected a column type (a dtype or `own`)", item);
                return false;
              }
              g_.addDim(n, static_cast<int64_t>(*t));
              return true;
            }))
          return;
      } else {
        return err(at, "unknown attribute `" + shown(key) + "=` for `" + std::string(opInfo(op).name) + "`", {}, true);
      }
    }
    if (op == Op::Call && !sawText) d_.error(g_.loc(n), "syntax", "`call` needs `fn=NAME`");
    if (op == Op::Guard && !sawText) d_.error(g_.loc(n), "syntax", "`guard` needs `msg=\"TEXT\"`");
    if (op == Op::Alloc && !sawCols) d_.error(g_.loc(n), "syntax", "`alloc` needs `cols=[T...]`");
    if (takesDType(op) && op != Op::Call && !sawDType)
      d_.error(g_.loc(n), "syntax", "`" + std::string(opInfo(op).name) + "` needs `dtype=T`");
    if ((op == Op::Shrink || op == Op::CShrink) && !sawShape)
      d_.error(g_.loc(n), "syntax", "`" + std::string(opInfo(op).name) + "` needs `shape=[...]` (`shape=[]` for one element)");
  }

  // `[a b c]` or `[a, b, c]`; `val` is the text after `=`, which readItem
  // extended to the closing bracket.
  template <class F>
  bool parseList(std::string_view val, Loc at, F &&each) {
    if (val.empty() || val.front() != '[') {
      err(at, "expected `[`", val);
      return false;
    }
    if (val.back() != ']') {
      err(Loc{at.line, at.col + static_cast<uint32_t>(val.size())}, "expected `]` to close the list", {});
      return false;
    }
    size_t k = 1, end = val.size() - 1;
    while (k < end) {
      while (k < end && (val[k] == ' ' || val[k] == '\t' || val[k] == ',')) ++k;
      size_t s = k;
      while (k < end && val[k] != ' ' && val[k] != '\t' && val[k] != ',') ++k;
      if (k > s && !each(val.substr(s, k - s), Loc{at.line, at.col + static_cast<uint32_t>(s)})) return false;
    }
    return true;
  }

  // ---- operands, resolved a few names late ----
  // Once the name table outgrows the cache (NameTable::cached), a reference
  // is looked up kDeferred references after it is read, its slot prefetched
  // when read: on a graph far larger than the cache the lookup then finds
  // the slot there, with no second scan of the text. (Before that, and for
  // a reference near the last definition of its prefix (NameTable::findNear), which
  // the cache holds anyway, parseItems looks it up at once, which costs
  // less than the ring; one that fails then still takes the ring, so
  // pending_ keeps the order of the text.) A lookup
  // that late can see names defined after the reference; node ids follow
  // the lines, so a name defined before its use has the smaller id, and any
  // other answer is an error (resolvePending says which). The table only
  // grows, so the references looked up at once all come before the
  // deferred ones, and pending_ stays in the order of the text.
  static constexpr size_t kDeferred = 32;  // a power of 2
  struct Deferred {
    Pending ref;
    NameTable::Ref name;
  };
  Deferred deferred_[kDeferred];
  size_t deferNext_ = 0, deferEnd_ = 0;  // [next, end), counted
  void defer(const Pending &ref, const NameTable::Ref &r) {
    if (deferEnd_ - deferNext_ == kDeferred) resolve(deferred_[deferNext_++ % kDeferred]);
    names_.prefetch(r);
    deferred_[deferEnd_++ % kDeferred] = Deferred{ref, r};
  }
  void resolveDeferred() {
    while (deferNext_ != deferEnd_) resolve(deferred_[deferNext_++ % kDeferred]);
  }
  void resolve(const Deferred &d) {
    NodeId target = names_.find(d.ref.name, d.name);
    if (target.valid() && target.v < d.ref.node.v) g_.setOperand(d.ref.node, d.ref.index, Operand::ofNode(target));
    else pending_.push_back(d.ref);
  }

  void resolvePending() {
    for (const Pending &p : pending_) {
      NodeId def = names_.find(p.name, NameTable::key(p.name));
      std::string nm = "%" + std::string(p.name);
      if (!def.valid()) {
        d_.error(p.loc, "name", nm + " is not defined");
      } else if (def == p.node) {
        d_.error(p.loc, "name", nm + " is used in its own definition");
      } else {
        d_.error(p.loc, "name", nm + " is used before it is defined").note(g_.loc(def), nm + " is defined here");
      }
    }
  }

  // ---- lexing within a line ----
  Loc here() const { return Loc{line_, static_cast<uint32_t>(i_) + 1}; }
  std::string_view rest() const { return ln_.substr(i_); }
  void skipSpace() {
    while (i_ < ln_.size() && (ln_[i_] == ' ' || ln_[i_] == '\t')) ++i_;
  }
  bool atItemEnd() const { return i_ >= ln_.size() || ln_[i_] == ' ' || ln_[i_] == '\t' || ln_[i_] == '#'; }
  // The name at i_ and its key (from the ring when prefetchAhead saw it).
  std::string_view readName(uint64_t &key) {
    const char *at = ln_.data() + i_;
    while (aheadNext_ != aheadEnd_ && ahead_[aheadNext_ % kAhead].at < at) ++aheadNext_;
    if (aheadNext_ != aheadEnd_ && ahead_[aheadNext_ % kAhead].at == at) {
      const Ahead &a = ahead_[aheadNext_++ % kAhead];
      i_ += a.len;
      key = a.key;
      return std::string_view(at, a.len);
    }
    const char *e = uirnames::nameEnd(at, text_.data() + text_.size());  // (as in prefetchAhead)
    i_ += static_cast<size_t>(e - at);
    key = NameTable::key(at, static_cast<size_t>(e - at), text_.data() + text_.size());
    return std::string_view(at, static_cast<size_t>(e - at));
  }
  std::string_view readWord() {
    size_t s = i_;
    i_ = static_cast<size_t>(uirnames::nameEnd(ln_.data() + i_, text_.data() + text_.size()) - ln_.data());
    return ln_.substr(s, i_ - s);
  }
  // An item runs to the next blank, except that `[` runs to its `]`.
  std::string_view readItem() {
    size_t s = i_;
    while (i_ < ln_.size() && ln_[i_] != ' ' && ln_[i_] != '\t' && ln_[i_] != '#') {
      if (ln_[i_] == '[') {  // to the `]`, but never into a comment
        size_t close = ln_.find_first_of("]#", i_);
        i_ = close == std::string_view::npos || ln_[close] == '#' ? (close == std::string_view::npos ? ln_.size() : close)
                                                                   : close + 1;
        break;
      }
      ++i_;
    }
    return ln_.substr(s, i_ - s);
  }
  // The rest of a quoted string, after its opening `"`: up to the closing
  // one, decoding \" \\ and \xNN.
  bool readQuoted(std::string &out) {
    while (i_ < ln_.size() && ln_[i_] != '"') {
      char c = ln_[i_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= ln_.size()) break;
      char e = ln_[i_++];
      if (e == '"' || e == '\\') {
        out += e;
      } else if (e == 'x' && i_ + 2 <= ln_.size() && std::isxdigit(static_cast<unsigned char>(ln_[i_])) &&
                 std::isxdigit(static_cast<unsigned char>(ln_[i_ + 1]))) {
        out += static_cast<char>(std::stoi(std::string(ln_.substr(i_, 2)), nullptr, 16));
        i_ += 2;
      } else {
        err(Loc{line_, static_cast<uint32_t>(i_) - 1}, "unknown escape in a string (use \\\" \\\\ or \\xNN)", {}, true);
        return false;
      }
    }
    if (i_ >= ln_.size()) {
      err(here(), "expected `\"` to close the string", {}, true);
      return false;
    }
    ++i_;
    return true;
  }
  static std::string_view trimRight(std::string_view s) {
    // '\r' too: a comment ending in CRs would print as a line the reader strips.
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    return s;
  }

  // One error per line: after it the rest of the line is skipped.
  void err(Loc at, const std::string &what, std::string_view found, bool noFound = false) {
    std::string msg = what;
    if (!noFound) {
      std::string_view f = found;
      while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
      while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
      msg += f.empty() ? ", found the end of the line" : ", found `" + shown(f.substr(0, f.find_first_of(" \t"))) + "`";
    }
    d_.error(at, "syntax", msg);
    i_ = ln_.size();
  }

  std::string_view text_;
  bool hasCR_ = false;
  size_t pf_ = 0, pfLines_ = 0;  // the prefetch cursor, and how many lines it leads by
  Graph &g_;
  Diags &d_;
  NameTable names_;
  std::vector<Pending> pending_;
  std::string_view ln_;
  size_t i_ = 0;
  uint32_t line_ = 0;
  uint32_t firstLine_ = 1;
};


}  // namespace

// The count of "\n" in t: sixteen bytes at a time with SSE2 (every
// x86-64), then, and elsewhere, eight bytes a word: the bytes equal to '\n'
// become zero bytes, and ~(((b & 0x7F) + 0x7F) | b | 0x7F) has the high
// bit of exactly those set. Their lowest bits are summed a byte a lane,
// in runs of at most 255 words so no lane overflows (no popcount: the
// build targets x86-64 without it).
size_t countNewlines(std::string_view t) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kLow7 = 0x7F7F7F7F7F7F7F7Full;
  size_t n = 0, i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time: each lane of acc counts its newlines (up to
  // 255 rounds), and _mm_sad_epu8 sums the lanes in two halves.
  const __m128i nl = _mm_set1_epi8('\n');
  while (i + 16 <= t.size()) {
    __m128i acc = _mm_setzero_si128();
    for (int run = 0; run < 255 && i + 16 <= t.size(); ++run, i += 16)
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(t.data() + i)), nl));
    const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    n += static_cast<size_t>(_mm_cvtsi128_si32(sums)) + static_cast<size_t>(_mm_extract_epi16(sums, 4));
  }
#endif
  while (i + 8 <= t.size()) {
    uint64_t lanes = 0;
    for (int run = 0; run < 255 && i + 8 <= t.size(); ++run, i += 8) {
      uint64_t w;
      std::memcpy(&w, t.data() + i, 8);
      w ^= kOnes * '\n';
      lanes += (~(((w & kLow7) + kLow7) | w | kLow7)) >> 7;
    }
    uint64_t pairs = (lanes & 0x00FF00FF00FF00FFull) + ((lanes >> 8) & 0x00FF00FF00FF00FFull);  // 4 lanes of 16 bits
    n += static_cast<size_t>((pairs * 0x0001000100010001ull) >> 48);
  }
  for (; i < t.size(); ++i) n += t[i] == '\n';
  return n;
}

bool needsPlainText(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" || text.find('\r') != std::string_view::npos;
}

std::string plainText(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') out += text[i];
    else if (i + 1 == text.size() || text[i + 1] != '\n') out += '\n';
  }
  return out;
}

bool parseUir(std::string_view text, Graph &g, Diags &diags, uint32_t firstLine) {
  size_t before = diags.size();
  Parser(text, g, diags, firstLine).run();
  buildRegions(g, diags);
  return diags.size() == before && !diags.truncated();
}

void buildRegions(Graph &g, Diags &diags) {
  std::vector<NodeId> open;
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    g.setParent(n, open.empty() ? NodeId::none() : open.back());
    if (g.op(n) == Op::Range) {
      open.push_back(n);
    } else if (g.op(n) == Op::End) {
      auto ops = g.operands(n);
      NodeId r = ops.empty() || ops[0].isLit() ? NodeId::none() : ops[0].node();
      if (open.empty()) {
        diags.error(g.loc(n), "loop", "`end` with no open `range`");
        continue;
      }
      if (r.valid() && r != open.back() && g.op(r) == Op::Range) {
        diags.error(g.loc(n), "loop", "`end` closes %" + std::string(g.name(r)) + " but the innermost open loop is %" +
                                          std::string(g.name(open.back())))
            .note(g.loc(open.back()), "%" + std::string(g.name(open.back())) + " opens here");
      }
      open.pop_back();
      g.setParent(n, open.empty() ? NodeId::none() : open.back());
    }
  }
  for (NodeId r : open)
    diags.error(g.loc(r), "loop", "the loop of %" + std::string(g.name(r)) + " is never closed by an `end`");
}

}  // namespace cairn
