// Canonical text of a graph: `%name = op operands attributes`, one node a line.
#include "ir/printer.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string_view>

namespace cairn {

std::string escapeMsg(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      static const char *hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool unescapeMsg(std::string_view s, std::string &text) {
  auto hexv = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  text.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      text += s[i];
      continue;
    }
    if (i + 1 >= s.size()) return false;
    char e = s[++i];
    if (e == '"' || e == '\\') {
      text += e;
    } else if (e == 'x' && i + 2 < s.size() && hexv(s[i + 1]) >= 0 && hexv(s[i + 2]) >= 0) {
      text += static_cast<char>(hexv(s[i + 1]) * 16 + hexv(s[i + 2]));
      i += 2;
    } else {
      return false;
    }
  }
  return true;
}

namespace {

void nodeLine(const Graph &g, NodeId n, std::string &out) {
  Op op = g.op(n);
  out += '%';
  out += g.name(n);
  out += " = ";
  out += opInfo(op).name;
  if (op == Op::Reduce) {
    out += ' ';
    out += opInfo(g.reduceOp(n)).name;
  }
  for (Operand o : g.operands(n)) {
    out += ' ';
    if (o.isLit()) {
      out += literalText(g.literal(o.lit()));
    } else {
      out += '%';
      out += g.name(o.node());
    }
  }
  if (op == Op::Range && g.parallel(n)) out += " parallel";
  if (op == Op::Shrink || op == Op::CShrink) {
    out += " shape=[";
    bool first = true;
    for (int64_t d : g.dims(n)) {
      if (!first) out += ' ';
      first = false;
      out += std::to_string(d);
    }
    out += ']';
  }
  if (op == Op::Call) {
    out += " fn=";
    out += g.text(n);
  }
  if (op == Op::Guard) {
    out += " msg=\"";
    out += escapeMsg(g.text(n));
    out += '"';
  }
  if (op == Op::Alloc) {
    out += " cols=[";
    bool first = true;
    for (int64_t c : g.dims(n)) {
      if (!first) out += ' ';
      first = false;
      out += c >= 0 && c < kNumDTypes ? dtypeName(static_cast<DType>(c)) : std::string_view("own");
    }
    out += ']';
  }
  bool typed = op == Op::Buffer || op == Op::Cast || op == Op::Const || op == Op::Param || op == Op::VParam ||
               op == Op::Deref || op == Op::CheckedCast || (op == Op::Call && g.dtype(n) != DType::None);
  if (typed) {
    out += " dtype=";
    out += dtypeName(g.dtype(n));
  }
  if (op == Op::Buffer && g.slot(n) >= 0) out += " slot=" + std::to_string(g.slot(n));
  if (op == Op::Buffer && g.hasData(n)) {
    out += " data=[";
    bool first = true;
    for (const Literal &l : g.data(n)) {
      if (!first) out += ' ';
      first = false;
      out += literalText(l);
    }
    out += ']';
  }
}

}  // namespace

std::string nodeText(const Graph &g, NodeId n) {
  std::string s;
  nodeLine(g, n, s);
  return s;
}

// Loop bodies are indented two spaces a level, up to kMaxIndentLevels: the
// code after each of k early exits nests one level deeper (up to 4000 in
// a CAIRN function), and indenting all of it would make the text grow as
// k^2. The reader ignores indentation, so the cap changes no meaning.
constexpr int kMaxIndentLevels = 32;

void printUir(const Graph &g, std::ostream &os) {
  static const std::string kSpaces(2 * kMaxIndentLevels, ' ');
  std::string line;
  int depth = 0;
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    if (g.op(n) == Op::End && depth > 0) --depth;
    const std::string_view indent(kSpaces.data(), 2 * static_cast<size_t>(std::min(depth, kMaxIndentLevels)));
    if (const NodeComments *c = g.commentsOf(n))
      for (const auto &a : c->above) os << indent << "# " << a << '\n';
    line.clear();
    nodeLine(g, n, line);
    os << indent << line;
    if (const NodeComments *c = g.commentsOf(n); c && !c->trailing.empty()) os << "  # " << c->trailing;
    os << '\n';
    if (g.op(n) == Op::Range) ++depth;
  }
  for (const auto &t : g.trailingComments()) os << "# " << t << '\n';
}

std::string printUir(const Graph &g) {
  std::ostringstream os;
  printUir(g, os);
  return os.str();
}

}  // namespace cairn
