// Module text: declaration lines here, function bodies through the flat
// reader (ir/parser.cpp) with their file line numbers.
//
// The reader splits the text at declaration lines (a first word `func` or
// `extern`), so a broken declaration never swallows the next function, and
// every body is read even when an earlier one has errors. It scans each
// line once and never recurses; no input makes it throw.
#include "ir/module.hpp"

#include <ostream>
#include <sstream>

#include "ir/parser.hpp"
#include "ir/printer.hpp"

namespace cairn {

namespace {

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// The declaration keyword a line starts with ("func", "extern"), or "".
std::string_view declWord(std::string_view line) {
  std::string_view t = trimLeft(line);
  for (std::string_view w : {std::string_view("func"), std::string_view("extern")})
    if (t.starts_with(w) && (t.size() == w.size() || t[w.size()] == ' ' || t[w.size()] == '\t' || t[w.size()] == '(' ||
                             t[w.size()] == '"'))
      return w;
  return {};
}

std::string shown(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 30)) out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  return s.size() > 30 ? out + "..." : out;
}

// One declaration line, after its keyword.
class DeclReader {
 public:
  DeclReader(std::string_view ln, uint32_t line, size_t start, Diags &d) : ln_(ln), line_(line), i_(start), d_(d) {}

  bool read(Function &f) {
    skip();
    if (f.external && at('"')) {
      ++i_;
      size_t s = i_;
      while (i_ < ln_.size() && ln_[i_] != '"') {
        unsigned char c = static_cast<unsigned char>(ln_[i_]);
        if (c < 0x21 || c >= 0x7f || c == '\\') return fail("a symbol is printable ASCII without blanks or `\\`");
        ++i_;
      }
      if (i_ >= ln_.size() || i_ == s) return fail("expected a symbol and a closing `\"`");
      f.symbol = std::string(ln_.substr(s, i_ - s));
      ++i_;
      skip();
    }
    size_t s = i_;
    while (i_ < ln_.size() && isNameChar(ln_[i_])) ++i_;
    if (i_ == s) return fail("expected a function name");
    f.name = std::string(ln_.substr(s, i_ - s));
    if (f.symbol.empty()) f.symbol = f.name;
    skip();
    if (!at('(')) return fail("expected `(` and the parameter types");
    ++i_;
    skip();
    if (at(')')) {
      ++i_;
    } else {
      for (;;) {
        ParamSig p;
        std::string_view w = word();
        if (w == "ro" || w == "rw") {
          p.mode = w == "ro" ? ParamSig::Mode::Ro : ParamSig::Mode::Rw;
          skip();
          w = word();
        }
        auto t = parseDType(w);
        if (!t) return fail("expected a parameter type (a dtype, `ro T[]` or `rw T[]`)");
        p.type = *t;
        if (p.mode != ParamSig::Mode::Scalar) {
          if (ln_.substr(i_, 2) != "[]") return fail("expected `[]` after a view's element type");
          i_ += 2;
        }
        f.sig.params.push_back(p);
        skip();
        if (at(',')) {
          ++i_;
          skip();
          continue;
        }
        if (at(')')) {
          ++i_;
          break;
        }
        return fail("expected `,` or `)`");
      }
    }
    skip();
    if (ln_.substr(i_, 2) == "->") {
      i_ += 2;
      skip();
      auto t = parseDType(word());
      if (!t) return fail("expected a return type after `->`");
      f.sig.ret = *t;
      skip();
    }
    if (at('#')) {
      std::string_view c = ln_.substr(i_ + 1);
      if (!c.empty() && c.front() == ' ') c.remove_prefix(1);
      while (!c.empty() && (c.back() == ' ' || c.back() == '\t' || c.back() == '\r')) c.remove_suffix(1);
      f.comment = std::string(c);
      return true;
    }
    if (i_ < ln_.size()) return fail("unexpected text after the declaration");
    return true;
  }

 private:
  bool at(char c) const { return i_ < ln_.size() && ln_[i_] == c; }
  void skip() {
    while (i_ < ln_.size() && (ln_[i_] == ' ' || ln_[i_] == '\t')) ++i_;
  }
  std::string_view word() {
    size_t s = i_;
    while (i_ < ln_.size() && isNameChar(ln_[i_])) ++i_;
    return ln_.substr(s, i_ - s);
  }
  bool fail(const std::string &what) {
    std::string_view rest = ln_.substr(std::min(i_, ln_.size()));
    d_.error(Loc{line_, static_cast<uint32_t>(i_) + 1}, "syntax",
             what + (rest.empty() ? ", found the end of the line" : ", found `" + shown(rest.substr(0, rest.find(' '))) + "`"));
    return false;
  }
  std::string_view ln_;
  uint32_t line_;
  size_t i_;
  Diags &d_;
};

struct LineRef {
  size_t begin, end;  // [begin, end) without the newline
  uint32_t number;
};

}  // namespace

int Module::find(std::string_view name) const {
  for (size_t i = 0; i < funcs.size(); ++i)
    if (funcs[i].name == name) return static_cast<int>(i);
  return -1;
}

bool looksLikeModule(std::string_view text) {
  if (needsPlainText(text)) return looksLikeModule(plainText(text));
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view t = trimLeft(text.substr(pos, nl - pos));
    while (!t.empty() && (t.back() == '\r' || t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    if (!t.empty() && t.front() != '#') return !declWord(t).empty();
    pos = nl + 1;
  }
  return false;
}

bool parseModule(std::string_view text, Module &m, Diags &diags) {
  if (needsPlainText(text)) return parseModule(plainText(text), m, diags);  // BOM, CRLF, CR
  size_t before = diags.size();
  // Declaration lines, in order.
  std::vector<LineRef> decls;
  uint32_t number = 1;
  for (size_t pos = 0; pos <= text.size() && !diags.full(); ++number) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view ln = text.substr(pos, nl - pos);
    if (!declWord(ln).empty()) decls.push_back({pos, nl, number});
    if (nl == text.size()) break;
    pos = nl + 1;
  }
  // Before the first declaration: comments only.
  {
    size_t end = decls.empty() ? text.size() : decls[0].begin;
    std::string_view head = text.substr(0, end);
    uint32_t ln = 1;
    for (size_t pos = 0; pos < head.size(); ++ln) {
      size_t nl = head.find('\n', pos);
      if (nl == std::string_view::npos) nl = head.size();
      std::string_view t = trimLeft(head.substr(pos, nl - pos));
      while (!t.empty() && (t.back() == '\r' || t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
      if (!t.empty() && t.front() == '#') {
        t.remove_prefix(1);
        if (!t.empty() && t.front() == ' ') t.remove_prefix(1);
        m.comments.emplace_back(t);
      } else if (!t.empty()) {
        diags.error(Loc{ln, 1}, "syntax", "expected `func` or `extern` before the first node of a module, found `" + shown(t) + "`");
      }
      pos = nl + 1;
    }
  }
  for (size_t k = 0; k < decls.size() && !diags.full(); ++k) {
    const LineRef &d = decls[k];
    std::string_view ln = text.substr(d.begin, d.end - d.begin);
    if (!ln.empty() && ln.back() == '\r') ln.remove_suffix(1);
    Function f;
    std::string_view word = declWord(ln);
    f.external = word == "extern";
    size_t start = ln.size() - trimLeft(ln).size() + word.size();
    f.loc = Loc{d.number, static_cast<uint32_t>(ln.size() - trimLeft(ln).size()) + 1};
    DeclReader(ln, d.number, start, diags).read(f);
    size_t bodyBegin = d.end < text.size() ? d.end + 1 : text.size();
    size_t bodyEnd = k + 1 < decls.size() ? decls[k + 1].begin : text.size();
    std::string_view body = text.substr(bodyBegin, bodyEnd > bodyBegin ? bodyEnd - bodyBegin : 0);
    parseUir(body, f.body, diags, d.number + 1);
    if (f.external && f.body.size() > 0)
      diags.error(f.body.loc(NodeId{0}), "syntax", "an extern has no body: `" + f.name + "` is declared with `extern`");
    m.funcs.push_back(std::move(f));
  }
  return diags.size() == before && !diags.truncated();
}

std::string signatureText(const Function &f) {
  std::string s = f.name + "(";
  for (size_t i = 0; i < f.sig.params.size(); ++i) {
    const ParamSig &p = f.sig.params[i];
    if (i) s += ", ";
    if (p.mode == ParamSig::Mode::Ro) s += "ro ";
    if (p.mode == ParamSig::Mode::Rw) s += "rw ";
    s += dtypeName(p.type);
    if (p.mode != ParamSig::Mode::Scalar) s += "[]";
  }
  s += ")";
  if (f.sig.ret != DType::None) {
    s += " -> ";
    s += dtypeName(f.sig.ret);
  }
  return s;
}

void printModule(std::ostream &os, const Module &m) {
  for (const auto &c : m.comments) os << "# " << c << '\n';
  for (const Function &f : m.funcs) {
    for (const auto &c : f.comments) os << "# " << c << '\n';
    os << (f.external ? "extern " : "func ");
    if (f.external && f.symbol != f.name && !f.symbol.empty()) os << '"' << f.symbol << "\" ";
    os << signatureText(f);
    if (!f.comment.empty()) os << "  # " << f.comment;
    os << '\n';
    std::string body = printUir(f.body);
    size_t pos = 0;
    while (pos < body.size()) {
      size_t nl = body.find('\n', pos);
      if (nl == std::string::npos) nl = body.size();
      os << "  " << std::string_view(body).substr(pos, nl - pos) << '\n';
      pos = nl + 1;
    }
  }
}

std::string printModule(const Module &m) {
  std::ostringstream os;
  printModule(os, m);
  return os.str();
}

}  // namespace cairn
