// The CAIRN lexer (see lexer.hpp for the token language).
//
// Invariants: `i_` only moves forward, and every branch of the main loop
// consumes at least one byte, so lexing terminates in time linear in the
// source. Line and column are recomputed from the bytes consumed: a newline
// ("\n", "\r\n" or a lone "\r") starts a new line, every other byte advances
// the column by one (columns count bytes, as the rest of the tool chain
// does). A leading UTF-8 byte order mark is skipped.
#include "lower/lexer.hpp"

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>

namespace cairn::lex {

std::string_view tokName(Tok t) {
  switch (t) {
    case Tok::Eof: return "end of file";
    case Tok::Ident: return "a name";
    case Tok::IntLit: return "an integer literal";
    case Tok::FloatLit: return "a float literal";
    case Tok::StrLit: return "a string literal";
    case Tok::CharLit: return "a char literal";
    case Tok::KwFn: return "`fn`";
    case Tok::KwStruct: return "`struct`";
    case Tok::KwEnum: return "`enum`";
    case Tok::KwLet: return "`let`";
    case Tok::KwIf: return "`if`";
    case Tok::KwElse: return "`else`";
    case Tok::KwWhile: return "`while`";
    case Tok::KwFor: return "`for`";
    case Tok::KwIn: return "`in`";
    case Tok::KwReturn: return "`return`";
    case Tok::KwBreak: return "`break`";
    case Tok::KwContinue: return "`continue`";
    case Tok::KwMatch: return "`match`";
    case Tok::KwConst: return "`const`";
    case Tok::KwImport: return "`import`";
    case Tok::KwModule: return "`module`";
    case Tok::KwPub: return "`pub`";
    case Tok::KwExtern: return "`extern`";
    case Tok::KwTrue: return "`true`";
    case Tok::KwFalse: return "`false`";
    case Tok::KwTrait: return "`trait`";
    case Tok::KwImpl: return "`impl`";
    case Tok::KwUnsafe: return "`unsafe`";
    case Tok::KwDefer: return "`defer`";
    case Tok::KwZeroed: return "`zeroed`";
    case Tok::KwTry: return "`try`";
    case Tok::LParen: return "`(`";
    case Tok::RParen: return "`)`";
    case Tok::LBrace: return "`{`";
    case Tok::RBrace: return "`}`";
    case Tok::LBracket: return "`[`";
    case Tok::RBracket: return "`]`";
    case Tok::Comma: return "`,`";
    case Tok::Semi: return "`;`";
    case Tok::Colon: return "`:`";
    case Tok::Dot: return "`.`";
    case Tok::DotDot: return "`..`";
    case Tok::FatArrow: return "`=>`";
    case Tok::Arrow: return "`->`";
    case Tok::At: return "`@`";
    case Tok::Assign: return "`=`";
    case Tok::Eq: return "`==`";
    case Tok::Ne: return "`!=`";
    case Tok::Lt: return "`<`";
    case Tok::Le: return "`<=`";
    case Tok::Gt: return "`>`";
    case Tok::Ge: return "`>=`";
    case Tok::Plus: return "`+`";
    case Tok::Minus: return "`-`";
    case Tok::Star: return "`*`";
    case Tok::Slash: return "`/`";
    case Tok::Percent: return "`%`";
    case Tok::Amp: return "`&`";
    case Tok::Pipe: return "`|`";
    case Tok::Caret: return "`^`";
    case Tok::Tilde: return "`~`";
    case Tok::Bang: return "`!`";
    case Tok::AndAnd: return "`&&`";
    case Tok::OrOr: return "`||`";
    case Tok::Shl: return "`<<`";
    case Tok::Shr: return "`>>`";
    case Tok::PlusEq: return "`+=`";
    case Tok::MinusEq: return "`-=`";
    case Tok::StarEq: return "`*=`";
    case Tok::SlashEq: return "`/=`";
    case Tok::PercentEq: return "`%=`";
    case Tok::AmpEq: return "`&=`";
    case Tok::PipeEq: return "`|=`";
    case Tok::CaretEq: return "`^=`";
    case Tok::ShlEq: return "`<<=`";
    case Tok::ShrEq: return "`>>=`";
  }
  return "a token";
}

bool decodeInt(std::string_view text, uint64_t &value) {
  unsigned base = 10;
  size_t i = 0;
  if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) base = 16, i = 2;
  else if (text.size() > 1 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) base = 2, i = 2;
  uint64_t v = 0;
  if (base == 10 && text.size() <= 19) {  // at most 19 digits: below 10^19 < 2^64, so no overflow test
    for (char c : text) {
      if (c == '_') continue;
      unsigned d = unsigned(c) - unsigned('0');
      if (d > 9) return false;
      v = v * 10 + d;
    }
    value = v;
    return true;
  }
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') continue;
    unsigned d = c >= '0' && c <= '9' ? unsigned(c - '0')
                 : c >= 'a' && c <= 'f' ? unsigned(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? unsigned(c - 'A' + 10) : 99;
    if (d >= base) return false;
    if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v)) return false;  // past 64 bits
  }
  value = v;
  return true;
}

namespace {

// Byte classes, so the hot loops test a byte with one table load; bit
// flags, so "a letter or a digit" is one test too.
enum ByteClass : uint8_t { kOther = 0, kIdentStart = 1, kDigit = 2, kPunct = 4 };
constexpr auto kByteClass = [] {
  std::array<ByteClass, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[size_t(c)] = t[size_t(c - 'a' + 'A')] = kIdentStart;
  t['_'] = kIdentStart;
  for (int c = '0'; c <= '9'; ++c) t[size_t(c)] = kDigit;
  // Exactly the bytes that punctAt() below starts a token with.
  for (char c : std::string_view("(){}[],;:.=-@!<>+*/%&|^~")) t[static_cast<unsigned char>(c)] = kPunct;
  return t;
}();

bool isDigit(unsigned char c) { return kByteClass[c] == kDigit; }
bool isIdentChar(unsigned char c) { return (kByteClass[c] & (kIdentStart | kDigit)) != 0; }
bool isHex(unsigned char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

struct Keyword {
  std::string_view text;
  Tok kind;
};
constexpr std::array<Keyword, 26> kKeywords = {{
    {"fn", Tok::KwFn}, {"struct", Tok::KwStruct}, {"enum", Tok::KwEnum}, {"let", Tok::KwLet},
    {"if", Tok::KwIf}, {"else", Tok::KwElse}, {"while", Tok::KwWhile}, {"for", Tok::KwFor},
    {"in", Tok::KwIn}, {"return", Tok::KwReturn}, {"break", Tok::KwBreak}, {"continue", Tok::KwContinue},
    {"match", Tok::KwMatch}, {"const", Tok::KwConst}, {"import", Tok::KwImport}, {"module", Tok::KwModule},
    {"pub", Tok::KwPub}, {"extern", Tok::KwExtern}, {"true", Tok::KwTrue}, {"false", Tok::KwFalse},
    {"trait", Tok::KwTrait}, {"impl", Tok::KwImpl}, {"unsafe", Tok::KwUnsafe}, {"defer", Tok::KwDefer},
    {"zeroed", Tok::KwZeroed}, {"try", Tok::KwTry},
}};
constexpr size_t kMaxKeywordLen = 8;

// A word of at most 8 bytes packed little-endian into one integer, the
// unused high bytes zero. Names hold no NUL byte, so two such words are
// equal exactly when their packings are.
constexpr uint64_t packWord(std::string_view w) {
  uint64_t v = 0;
  for (size_t k = 0; k < w.size(); ++k) v |= uint64_t(static_cast<unsigned char>(w[k])) << (8 * k);
  return v;
}

// kKeywords' indices by first letter (a..z), at most 4 each (UINT8_MAX
// ends a row), so a word is compared only with the keywords it could be.
constexpr auto kKeywordsByLetter = [] {
  std::array<std::array<uint8_t, 4>, 26> t{};
  for (auto &row : t) row.fill(UINT8_MAX);
  for (size_t i = 0; i < kKeywords.size(); ++i) {
    auto &row = t[static_cast<size_t>(kKeywords[i].text[0] - 'a')];
    size_t k = 0;
    while (row[k] != UINT8_MAX) ++k;  // a fifth keyword of a letter fails to compile
    row[k] = static_cast<uint8_t>(i);
  }
  return t;
}();
// kKeywords packed; a keyword longer than 8 bytes fails to compile (packWord's shift would pass 63).
constexpr auto kKeywordWords = [] {
  std::array<uint64_t, kKeywords.size()> t{};
  for (size_t i = 0; i < kKeywords.size(); ++i) t[i] = packWord(kKeywords[i].text);
  return t;
}();

// The keyword spelt by the name src[off, off + len), or Ident.
Tok keywordKind(std::string_view src, size_t off, size_t len) {
  unsigned char first = static_cast<unsigned char>(src[off]);
  if (len < 2 || len > kMaxKeywordLen || first < 'a' || first > 'z') return Tok::Ident;
  uint64_t w;
  if (off + 8 <= src.size()) {  // one load of 8 bytes, the bytes past the name masked off
    std::memcpy(&w, src.data() + off, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    if (len < 8) w &= (uint64_t(1) << (8 * len)) - 1;
  } else {
    w = packWord(src.substr(off, len));
  }
  for (uint8_t k : kKeywordsByLetter[first - 'a']) {
    if (k == UINT8_MAX) break;
    if (kKeywordWords[k] == w) return kKeywords[k].kind;
  }
  return Tok::Ident;
}

// Length of the valid UTF-8 sequence starting at s[i] (2..4), or 0.
size_t utf8Len(std::string_view s, size_t i) {
  auto cont = [&](size_t k) { return k < s.size() && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80; };
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) return 0;  // overlong, surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;
    return 4;
  }
  return 0;
}

std::string byteText(unsigned char c) {
  char buf[16];
  if (c >= 0x21 && c < 0x7f) std::snprintf(buf, sizeof buf, "`%c`", c);
  else std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
  return buf;
}

// The longest punctuation token starting with the bytes c d e: its length
// (0: none) and kind.
constexpr size_t punctAt(unsigned char c, unsigned char d, unsigned char e, Tok &kind) {
  auto two = [&](unsigned char second, Tok two, Tok one) {
    kind = d == second ? two : one;
    return d == second ? size_t(2) : size_t(1);
  };
  switch (c) {
    case '<':
      if (d == '<') return kind = e == '=' ? Tok::ShlEq : Tok::Shl, e == '=' ? 3 : 2;
      return two('=', Tok::Le, Tok::Lt);
    case '>':
      if (d == '>') return kind = e == '=' ? Tok::ShrEq : Tok::Shr, e == '=' ? 3 : 2;
      return two('=', Tok::Ge, Tok::Gt);
    case '.': return two('.', Tok::DotDot, Tok::Dot);
    case '=':
      if (d == '>') return kind = Tok::FatArrow, 2;
      return two('=', Tok::Eq, Tok::Assign);
    case '-':
      if (d == '>') return kind = Tok::Arrow, 2;
      return two('=', Tok::MinusEq, Tok::Minus);
    case '!': return two('=', Tok::Ne, Tok::Bang);
    case '&':
      if (d == '&') return kind = Tok::AndAnd, 2;
      return two('=', Tok::AmpEq, Tok::Amp);
    case '|':
      if (d == '|') return kind = Tok::OrOr, 2;
      return two('=', Tok::PipeEq, Tok::Pipe);
    case '+': return two('=', Tok::PlusEq, Tok::Plus);
    case '*': return two('=', Tok::StarEq, Tok::Star);
    case '/': return two('=', Tok::SlashEq, Tok::Slash);
    case '%': return two('=', Tok::PercentEq, Tok::Percent);
    case '^': return two('=', Tok::CaretEq, Tok::Caret);
    case '(': return kind = Tok::LParen, 1;
    case ')': return kind = Tok::RParen, 1;
    case '{': return kind = Tok::LBrace, 1;
    case '}': return kind = Tok::RBrace, 1;
    case '[': return kind = Tok::LBracket, 1;
    case ']': return kind = Tok::RBracket, 1;
    case ',': return kind = Tok::Comma, 1;
    case ';': return kind = Tok::Semi, 1;
    case ':': return kind = Tok::Colon, 1;
    case '@': return kind = Tok::At, 1;
    case '~': return kind = Tok::Tilde, 1;
    default: return 0;
  }
}

// kPunct bytes are exactly those punctAt() starts a token with, so
// Lexer::lexToken() always consumes a byte.
constexpr bool punctClassMatches() {
  for (int c = 0; c < 256; ++c) {
    Tok k = Tok::Eof;
    if ((kByteClass[size_t(c)] == kPunct) != (punctAt(static_cast<unsigned char>(c), 0, 0, k) != 0)) return false;
  }
  return true;
}
static_assert(punctClassMatches());

class Lexer {
 public:
  Lexer(std::string_view src, Lexed &out, Diags &diags) : s_(src), out_(out), diags_(diags) {}

  void run() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a byte order mark: columns count from after it
    // Spaces and line ends are skipped here, comments by comment(); the
    // rest is a token.
    while (i_ < s_.size()) {
      switch (s_[i_]) {
        case ' ': case '\t': advanceInLine(1); continue;
        case '\n': ++i_, ++line_, col_ = 1; continue;  // advance(1) on a "\n", without its loop
        case '\r': advance(1); continue;
        case '/':
          if (comment()) continue;
          break;
        default: break;
      }
      lexToken();
    }
    uint32_t end = uint32_t(s_.size());
    append(Token{Tok::Eof, end, 0, line_, col_, line_, col_, 0});
    flush();
  }

 private:
  std::string_view s_;
  Lexed &out_;
  Diags &diags_;
  size_t i_ = 0;
  uint32_t line_ = 1, col_ = 1;

  // Tokens are staged in a small array and appended to out_.tokens a block
  // (1 KiB) at a time: a store into the array is always inlined into the
  // hot loop, where vector::push_back often is not (a call per token).
  static constexpr size_t kStaged = 32;
  std::array<Token, kStaged> staged_;
  size_t nStaged_ = 0;
  void append(const Token &t) {
    staged_[nStaged_++] = t;
    if (nStaged_ == kStaged) [[unlikely]]
      flush();
  }
  [[gnu::noinline]] void flush() {
    out_.tokens.insert(out_.tokens.end(), staged_.begin(), staged_.begin() + std::ptrdiff_t(nStaged_));
    nStaged_ = 0;
  }

  unsigned char at(size_t k) const { return k < s_.size() ? static_cast<unsigned char>(s_[k]) : 0; }

  // Consumes n bytes, keeping line and column.
  void advance(size_t n) {
    for (size_t k = 0; k < n && i_ < s_.size(); ++k, ++i_) {
      // "\r\n" is one line end (counted at its "\n"); a lone "\r" is one too.
      bool cr = s_[i_] == '\r' && (i_ + 1 >= s_.size() || s_[i_ + 1] != '\n');
      if (s_[i_] == '\n' || cr) { ++line_; col_ = 1; }
      else ++col_;
    }
  }

  // Consumes n bytes known to hold no line end (names, numerals, punctuation).
  void advanceInLine(size_t n) {
    i_ += n;
    col_ += uint32_t(n);
  }

  void error(uint32_t line, uint32_t col, const std::string &msg) { diags_.error(Loc{line, col}, "E-LEX", msg); }

  // Consumes the comment at i_ (a `/`), if one starts there.
  [[gnu::noinline]] bool comment() {
    if (at(i_ + 1) == '/') {
      while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\r') commentByte();
      return true;
    }
    if (at(i_ + 1) == '*') {
      uint32_t l = line_, cl = col_;
      advance(2);
      bool closed = false;
      while (i_ < s_.size()) {
        if (s_[i_] == '*' && at(i_ + 1) == '/') { advance(2); closed = true; break; }
        commentByte();
      }
      if (!closed) error(l, cl, "unterminated block comment: expected `*/` before the end of the file");
      return true;
    }
    return false;
  }

  // One byte (or UTF-8 sequence) of a comment: NULs and invalid UTF-8 are reported.
  void commentByte() {
    unsigned char c = at(i_);
    if (c == 0) { error(line_, col_, "NUL byte in a comment"); advance(1); return; }
    if (c < 0x80) { advance(1); return; }
    size_t n = utf8Len(s_, i_);
    if (n == 0) { error(line_, col_, "invalid UTF-8 in a comment"); n = 1; }
    advance(n);
  }

  // The token at i_ (which holds no space or comment), appended to the
  // list: the sub-lexers consume its bytes and return its kind.
  void lexToken() {
    const uint32_t off = uint32_t(i_), line = line_, col = col_;
    uint32_t aux = 0;
    Tok kind = Tok::Eof;
    unsigned char c = static_cast<unsigned char>(s_[i_]);
    switch (kByteClass[c]) {
      case kIdentStart: kind = ident(line, col); break;
      case kDigit: kind = number(line, col); break;
      case kPunct: kind = punct(c); break;
      case kOther:
        if (c == '"') {
          kind = Tok::StrLit;
          aux = string(line, col);
        } else if (c == '\'') {
          kind = Tok::CharLit;
          aux = charLit(line, col);
        } else {
          return strayBytes();
        }
        break;
    }
    append(Token{kind, off, uint32_t(i_) - off, line, col, line_, col_, aux});
  }

  // A run of bytes that start no token is reported once.
  [[gnu::noinline]] void strayBytes() {
    uint32_t l = line_, cl = col_;
    unsigned char c = at(i_);
    std::string what = c == 0 ? "a NUL byte" : c >= 0x80 && utf8Len(s_, i_) == 0 ? "invalid UTF-8" : byteText(c);
    while (i_ < s_.size()) {  // c itself starts nothing, so this consumes at least one byte
      unsigned char d = at(i_);
      if (kByteClass[d] != kOther || d == '"' || d == '\'' || d == ' ' || d == '\n' || d == '\t' || d == '\r') break;
      advance(1);
    }
    error(l, cl, "unexpected " + what + " in the source: expected a token");
  }

  Tok ident(uint32_t line, uint32_t col) {
    size_t j = i_;
    while (j < s_.size() && isIdentChar(static_cast<unsigned char>(s_[j]))) ++j;
    size_t off = i_, len = j - i_;
    advanceInLine(len);
    if (len > kMaxIdentLen) {
      error(line, col, "name of " + std::to_string(len) + " characters is too long (the limit is " +
                           std::to_string(kMaxIdentLen) + ")");
    }
    return keywordKind(s_, off, len);
  }

  Tok number(uint32_t line, uint32_t col) {
    const size_t off = i_;
    size_t j = i_;
    bool isFloat = false;
    bool prefixed = at(j) == '0' && (at(j + 1) == 'x' || at(j + 1) == 'X' || at(j + 1) == 'b' || at(j + 1) == 'B');
    if (prefixed) {
      j += 2;
      while (j < s_.size() && (isHex(at(j)) || at(j) == '_')) ++j;
    } else {
      while (j < s_.size() && (isDigit(at(j)) || at(j) == '_')) ++j;
      if (at(j) == '.' && isDigit(at(j + 1))) {
        isFloat = true;
        ++j;
        while (j < s_.size() && (isDigit(at(j)) || at(j) == '_')) ++j;
      }
      if ((at(j) == 'e' || at(j) == 'E') &&
          (isDigit(at(j + 1)) || ((at(j + 1) == '+' || at(j + 1) == '-') && isDigit(at(j + 2))))) {
        isFloat = true;
        j += 2;
        while (j < s_.size() && isDigit(at(j))) ++j;
      }
    }
    // A numeral glued to letters (`12abc`, `0xfz`) is one bad token.
    size_t tail = j;
    while (tail < s_.size() && isIdentChar(at(tail))) ++tail;
    advanceInLine(tail - i_);
    std::string_view text = s_.substr(off, i_ - off);
    if (tail != j) {
      error(line, col, "malformed number `" + std::string(text.substr(0, 64)) + "`");
    } else if (text.size() > kMaxNumberLen) {
      error(line, col, "numeral of " + std::to_string(text.size()) + " characters is too long");
    } else if (prefixed && text.size() == 2) {
      error(line, col, "expected digits after `" + std::string(text) + "`");
    } else if (!isFloat) {
      uint64_t v;
      if (prefixed && (text[1] == 'b' || text[1] == 'B') &&
          text.find_first_not_of("01_", 2) != std::string_view::npos)
        error(line, col, "binary literal `" + std::string(text.substr(0, 64)) + "` has a digit other than 0 or 1");
      else if (!decodeInt(text, v))
        error(line, col, "integer literal `" + std::string(text.substr(0, 64)) + "` does not fit in 64 bits");
    }
    return isFloat ? Tok::FloatLit : Tok::IntLit;
  }

  // Reads one escape after the backslash at i_; appends the byte. False on error (reported).
  bool escape(std::string &bytes) {
    uint32_t l = line_, cl = col_;
    unsigned char e = at(i_ + 1);
    char out = 0;
    switch (e) {
      case 'n': out = '\n'; break;
      case 't': out = '\t'; break;
      case 'r': out = '\r'; break;
      case '0': out = '\0'; break;
      case '\\': out = '\\'; break;
      case '"': out = '"'; break;
      case '\'': out = '\''; break;
      case 'x':
        if (isHex(at(i_ + 2)) && isHex(at(i_ + 3))) {
          auto hv = [](unsigned char h) { return isDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10; };
          bytes += char(hv(at(i_ + 2)) * 16 + hv(at(i_ + 3)));
          advance(4);
          return true;
        }
        error(l, cl, "expected two hex digits after `\\x`");
        advance(2);
        return false;
      default:
        error(l, cl, "unknown escape `\\" + std::string(e >= 0x21 && e < 0x7f ? std::string(1, char(e)) : "?") +
                         "`: expected one of \\n \\t \\r \\0 \\\\ \\\" \\' \\xHH");
        advance(e == '\n' || i_ + 1 >= s_.size() ? 1 : 2);
        return false;
    }
    bytes += out;
    advance(2);
    return true;
  }

  // Body of a quoted literal up to `quote`; stops (unterminated) at a newline
  // or the end. `line`/`col` are the opening quote's.
  bool quotedBody(char quote, std::string &bytes, uint32_t line, uint32_t col) {
    advance(1);  // the opening quote
    while (true) {
      if (i_ >= s_.size() || s_[i_] == '\n' || s_[i_] == '\r') {
        error(line, col, std::string("unterminated ") + (quote == '"' ? "string" : "char") +
                             " literal: expected `" + quote + "` before the end of the line");
        return false;
      }
      unsigned char c = at(i_);
      if (c == static_cast<unsigned char>(quote)) { advance(1); return true; }
      if (c == '\\') { escape(bytes); continue; }
      if (c == 0) { error(line_, col_, "NUL byte in a literal: write `\\0`"); advance(1); continue; }
      if (c >= 0x80) {
        size_t n = utf8Len(s_, i_);
        if (n == 0) { error(line_, col_, "invalid UTF-8 in a literal: write `\\xHH`"); advance(1); continue; }
        bytes.append(s_.substr(i_, n));
        advance(n);
        continue;
      }
      if (bytes.size() < kMaxStringLen) bytes += char(c);
      advance(1);
    }
  }

  // A string literal; returns its index in Lexed::strings (the token's aux).
  [[gnu::noinline]] uint32_t string(uint32_t line, uint32_t col) {
    std::string bytes;
    quotedBody('"', bytes, line, col);
    if (bytes.size() >= kMaxStringLen) error(line, col, "string literal is too long");
    uint32_t index = uint32_t(out_.strings.size());
    out_.strings.push_back(std::move(bytes));
    return index;
  }

  // A char literal; returns its byte (the token's aux).
  [[gnu::noinline]] uint32_t charLit(uint32_t line, uint32_t col) {
    std::string bytes;
    bool ok = quotedBody('\'', bytes, line, col);
    if (ok && bytes.size() != 1) error(line, col, "a char literal holds exactly one byte");
    return bytes.empty() ? 0 : static_cast<unsigned char>(bytes[0]);
  }

  // Punctuation starting with c (a kPunct byte) at i_.
  Tok punct(unsigned char c) {
    Tok kind = Tok::Eof;
    advanceInLine(punctAt(c, at(i_ + 1), at(i_ + 2), kind));
    return kind;
  }
};

}  // namespace

bool lexCairn(std::string_view src, Lexed &out, Diags &diags) {
  out.tokens.clear();
  out.strings.clear();
  size_t before = diags.size();
  if (src.size() >= UINT32_MAX) {
    diags.error(Loc{1, 1}, "E-LEX", "source of " + std::to_string(src.size()) + " bytes is too large (limit 4 GiB)");
    Token eof;
    eof.line = eof.col = eof.endLine = eof.endCol = 1;
    out.tokens.push_back(eof);
    return false;
  }
  // Dense code has about one token per 2.5 bytes; room for one per two
  // means the list is allocated once and never copied while it grows.
  out.tokens.reserve(src.size() / 2 + 1);
  Lexer(src, out, diags).run();
  return diags.size() == before && !diags.truncated();
}

}  // namespace cairn::lex
