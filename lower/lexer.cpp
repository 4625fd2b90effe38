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
#include <cstdio>

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
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') continue;
    unsigned d = c >= '0' && c <= '9' ? unsigned(c - '0')
                 : c >= 'a' && c <= 'f' ? unsigned(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? unsigned(c - 'A' + 10) : 99;
    if (d >= base) return false;
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  value = v;
  return true;
}

namespace {

bool isIdentStart(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(unsigned char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
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

class Lexer {
 public:
  Lexer(std::string_view src, Lexed &out, Diags &diags) : s_(src), out_(out), diags_(diags) {}

  void run() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a byte order mark: columns count from after it
    while (true) {
      skipSpaceAndComments();
      if (i_ >= s_.size()) break;
      lexToken();
    }
    Token eof;
    eof.kind = Tok::Eof;
    eof.off = uint32_t(s_.size());
    eof.line = eof.endLine = line_;
    eof.col = eof.endCol = col_;
    out_.tokens.push_back(eof);
  }

 private:
  std::string_view s_;
  Lexed &out_;
  Diags &diags_;
  size_t i_ = 0;
  uint32_t line_ = 1, col_ = 1;

  unsigned char at(size_t k) const { return k < s_.size() ? static_cast<unsigned char>(s_[k]) : 0; }
  bool more(size_t k) const { return k < s_.size(); }

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

  void skipSpaceAndComments() {
    while (i_ < s_.size()) {
      unsigned char c = at(i_);
      if (c == ' ' || c == '\t') { advanceInLine(1); continue; }
      if (c == '\r' || c == '\n') { advance(1); continue; }
      if (c == '/' && at(i_ + 1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\r') commentByte();
        continue;
      }
      if (c == '/' && at(i_ + 1) == '*') {
        uint32_t l = line_, cl = col_;
        advance(2);
        bool closed = false;
        while (i_ < s_.size()) {
          if (s_[i_] == '*' && at(i_ + 1) == '/') { advance(2); closed = true; break; }
          commentByte();
        }
        if (!closed) error(l, cl, "unterminated block comment: expected `*/` before the end of the file");
        continue;
      }
      break;
    }
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

  Token start() const {
    Token t;
    t.off = uint32_t(i_);
    t.line = line_;
    t.col = col_;
    return t;
  }
  void finish(Token &t, Tok kind) {
    t.kind = kind;
    t.len = uint32_t(i_ - t.off);
    t.endLine = line_;
    t.endCol = col_;
    out_.tokens.push_back(t);
  }

  void lexToken() {
    unsigned char c = at(i_);
    if (isIdentStart(c)) return ident();
    if (isDigit(c)) return number();
    if (c == '"') return string();
    if (c == '\'') return charLit();
    if (punct()) return;
    // A run of bytes that start no token is reported once.
    uint32_t l = line_, cl = col_;
    std::string what = c == 0 ? "a NUL byte" : c >= 0x80 && utf8Len(s_, i_) == 0 ? "invalid UTF-8" : byteText(c);
    while (i_ < s_.size()) {
      unsigned char d = at(i_);
      if (isIdentStart(d) || isDigit(d) || d == '"' || d == '\'' || d == ' ' || d == '\n' || d == '\t' ||
          d == '\r' || d == '/' || isPunctStart(d))
        break;
      advance(1);
    }
    error(l, cl, "unexpected " + what + " in the source: expected a token");
  }

  static bool isPunctStart(unsigned char d) {
    return std::string_view("(){}[],;:.=-@!<>+*/%&|^~").find(char(d)) != std::string_view::npos && d != 0;
  }

  void ident() {
    Token t = start();
    size_t j = i_;
    while (j < s_.size() && isIdentChar(at(j))) ++j;
    advanceInLine(j - i_);
    std::string_view text = s_.substr(t.off, i_ - t.off);
    if (text.size() > kMaxIdentLen) {
      error(t.line, t.col, "name of " + std::to_string(text.size()) + " characters is too long (the limit is " +
                               std::to_string(kMaxIdentLen) + ")");
    }
    Tok kind = Tok::Ident;
    if (text.size() >= 2 && text.size() <= 8 && text[0] >= 'a' && text[0] <= 'z')  // every keyword's length
      for (uint8_t k : kKeywordsByLetter[static_cast<size_t>(text[0] - 'a')]) {
        if (k == UINT8_MAX) break;
        if (kKeywords[k].text == text) {
          kind = kKeywords[k].kind;
          break;
        }
      }
    finish(t, kind);
  }

  void number() {
    Token t = start();
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
    std::string_view text = s_.substr(t.off, i_ - t.off);
    if (tail != j) {
      error(t.line, t.col, "malformed number `" + std::string(text.substr(0, 64)) + "`");
    } else if (text.size() > kMaxNumberLen) {
      error(t.line, t.col, "numeral of " + std::to_string(text.size()) + " characters is too long");
    } else if (prefixed && text.size() == 2) {
      error(t.line, t.col, "expected digits after `" + std::string(text) + "`");
    } else if (!isFloat) {
      uint64_t v;
      if (prefixed && (text[1] == 'b' || text[1] == 'B') &&
          text.find_first_not_of("01_", 2) != std::string_view::npos)
        error(t.line, t.col, "binary literal `" + std::string(text.substr(0, 64)) + "` has a digit other than 0 or 1");
      else if (!decodeInt(text, v))
        error(t.line, t.col, "integer literal `" + std::string(text.substr(0, 64)) + "` does not fit in 64 bits");
    }
    finish(t, isFloat ? Tok::FloatLit : Tok::IntLit);
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

  // Body of a quoted literal up to `quote`; stops (unterminated) at a newline or the end.
  bool quotedBody(char quote, std::string &bytes, const Token &t) {
    advance(1);  // the opening quote
    while (true) {
      if (i_ >= s_.size() || s_[i_] == '\n' || s_[i_] == '\r') {
        error(t.line, t.col, std::string("unterminated ") + (quote == '"' ? "string" : "char") +
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

  void string() {
    Token t = start();
    std::string bytes;
    quotedBody('"', bytes, t);
    if (bytes.size() >= kMaxStringLen) error(t.line, t.col, "string literal is too long");
    t.aux = uint32_t(out_.strings.size());
    out_.strings.push_back(std::move(bytes));
    finish(t, Tok::StrLit);
  }

  void charLit() {
    Token t = start();
    std::string bytes;
    bool ok = quotedBody('\'', bytes, t);
    if (ok && bytes.size() != 1) error(t.line, t.col, "a char literal holds exactly one byte");
    t.aux = bytes.empty() ? 0 : static_cast<unsigned char>(bytes[0]);
    finish(t, Tok::CharLit);
  }

  // The longest punctuation token at i_: its length (0: none) and kind.
  static size_t punctAt(unsigned char c, unsigned char d, unsigned char e, Tok &kind) {
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

  bool punct() {
    Tok kind = Tok::Eof;
    size_t n = punctAt(at(i_), at(i_ + 1), at(i_ + 2), kind);
    if (n == 0) return false;
    Token t = start();
    advanceInLine(n);
    finish(t, kind);
    return true;
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
  out.tokens.reserve(src.size() / 4 + 1);
  Lexer(src, out, diags).run();
  return diags.size() == before && !diags.truncated();
}

}  // namespace cairn::lex
