// JSON export and import of a .uir graph; the schema is in docs/uir.md.
//
// Import mirrors what the text reader enforces, so a graph that came from
// JSON prints as .uir that parses back to the same graph: names are made of
// name characters and defined once, operands refer only to earlier nodes,
// attributes appear only on the ops that take them (and the required ones are
// present), comments hold no line breaks. It reads the DOM with is_*() checks
// before every access (no nlohmann exception can escape), never copies a
// subtree (nlohmann's copy recurses), and walks nodes in one flat loop.
#include "ir/json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/parser.hpp"
#include "ir/printer.hpp"

namespace cairn {

using nlohmann::json;

namespace {

bool takesShape(Op op) { return op == Op::Shrink || op == Op::CShrink; }
bool isReduceOp(Op r) {
  return r == Op::Add || r == Op::Mul || r == Op::Max || r == Op::Min || r == Op::And || r == Op::Or || r == Op::Xor;
}

bool validName(const std::string &s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
      return false;
  return true;
}

// A comment is one line; the text reader keeps any other byte (even a CR).
bool validComment(const std::string &s) { return s.find('\n') == std::string::npos; }

// A non-negative JSON integer no larger than `max`.
bool getUnsigned(const json &v, uint64_t max, uint64_t &out) {
  if (v.is_number_unsigned()) {
    out = v.get<uint64_t>();
  } else if (v.is_number_integer()) {
    int64_t s = v.get<int64_t>();
    if (s < 0) return false;
    out = static_cast<uint64_t>(s);
  } else {
    return false;
  }
  return out <= max;
}

// The operand pool and the literal pool share 31-bit indices (Operand::kLitBit).
constexpr uint64_t kMaxNodes = (uint64_t{1} << 31) - 2;
constexpr uint64_t kMaxLiterals = (uint64_t{1} << 31) - 1;
// The graph addresses names, operands, dims and data with 32-bit offsets.
constexpr uint64_t kMaxPool = UINT32_MAX - 1;

class Reader {
 public:
  // `textLocs`, when given, holds where each element of "nodes" starts in
  // the JSON text: schema errors point there, and so does a node's location
  // when it has no "line".
  Reader(Graph &g, Diags &d, const std::vector<Loc> *textLocs) : g_(g), d_(d), textLocs_(textLocs) {}

  void run(const json &j) {
    if (!j.is_object()) return top("the top level must be an object with a \"nodes\" array");
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string &k = it.key();
      if (k != "format" && k != "version" && k != "nodes" && k != "comments")
        return top("unknown top-level key \"" + shownKey(k) + "\" (expected format, version, nodes, comments)");
    }
    if (auto f = j.find("format"); f != j.end() && !(f->is_string() && f->get_ref<const std::string &>() == kJsonFormat))
      return top("\"format\" must be \"" + std::string(kJsonFormat) + "\"");
    if (auto v = j.find("version"); v != j.end()) {
      uint64_t ver = 0;
      if (!getUnsigned(*v, 1000, ver) || ver != static_cast<uint64_t>(kJsonVersion))
        return top("unsupported \"version\" (this reader knows version " + std::to_string(kJsonVersion) + ")");
    }
    auto nodes = j.find("nodes");
    if (nodes == j.end() || !nodes->is_array()) return top("expected a \"nodes\" array");
    if (nodes->size() > kMaxNodes) return top("too many nodes");
    for (size_t i = 0; i < nodes->size() && !d_.full(); ++i)
      if (!node((*nodes)[i], i)) return;
    if (auto c = j.find("comments"); c != j.end()) {
      if (!c->is_array()) return top("\"comments\" must be an array of strings");
      for (const json &s : *c) {
        if (!s.is_string() || !validComment(s.get_ref<const std::string &>()))
          return top("\"comments\" must hold strings without newlines");
        g_.trailingComments().push_back(s.get<std::string>());
      }
    }
  }

 private:
  static std::string shownKey(const std::string &k) {
    std::string s;
    for (unsigned char c : k.substr(0, 40)) s += (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? static_cast<char>(c) : '?';
    return s;
  }
  void top(const std::string &msg) { d_.error(Loc{1, 1}, "json", msg); }

  // Reads node `i`; returns false on an error that leaves the graph unusable
  // for the following nodes (then reading stops: later nodes would only
  // produce echoes). Errors that leave a well-formed node are reported and
  // reading goes on.
  bool node(const json &n, size_t i) {
    Loc fallback = textLocs_ && i < textLocs_->size() ? (*textLocs_)[i]
                                                      : Loc{static_cast<uint32_t>(std::min<size_t>(i + 1, UINT32_MAX)), 1};
    std::string where = "node " + std::to_string(i);
    auto fail = [&](Loc at, const std::string &msg) {
      d_.error(at, "json", where + ": " + msg);
      return false;
    };
    if (!n.is_object()) return fail(fallback, "expected an object");
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string &k = it.key();
      if (k != "name" && k != "op" && k != "operands" && k != "operand_cols" && k != "line" && k != "col" &&
          k != "dtype" && k != "slot" && k != "shape" && k != "data" && k != "parallel" && k != "reduce" &&
          k != "comments" && k != "comment" && k != "fn" && k != "msg" && k != "cols")
        return fail(fallback, "unknown key \"" + shownKey(k) + "\"");
    }
    // Location first, so the other errors can point at it.
    Loc loc = fallback;
    uint64_t u = 0;
    if (auto l = n.find("line"); l != n.end()) {
      if (!getUnsigned(*l, UINT32_MAX, u)) return fail(fallback, "\"line\" must be an integer from 0 to 4294967295");
      loc.line = static_cast<uint32_t>(u);
    }
    if (auto c = n.find("col"); c != n.end()) {
      if (!getUnsigned(*c, UINT32_MAX, u)) return fail(fallback, "\"col\" must be an integer from 0 to 4294967295");
      loc.col = static_cast<uint32_t>(u);
    }
    // Schema errors point into the JSON text when we know where the node is;
    // else at the node's own location.
    Loc at = textLocs_ && i < textLocs_->size() ? fallback : loc;
    auto nm = n.find("name");
    if (nm == n.end() || !nm->is_string() || !validName(nm->get_ref<const std::string &>()))
      return fail(at, "\"name\" must be a non-empty string of letters, digits, '_' and '.'");
    const std::string &name = nm->get_ref<const std::string &>();
    where += " (%" + name + ")";
    namesLen_ += name.size();
    if (namesLen_ > kMaxPool) return fail(at, "the names are too long in total");
    auto opj = n.find("op");
    Op op;
    if (opj == n.end() || !opj->is_string() || !parseOp(opj->get_ref<const std::string &>(), op))
      return fail(at, "\"op\" must name an op of the op table (docs/uir.md)");
    const OpInfo &info = opInfo(op);

    // Check the attributes before the node exists, so a bad one leaves no
    // half-built node behind.
    auto dt = n.find("dtype");
    std::optional<DType> dtype;
    if (dt != n.end()) {
      if (!takesDType(op)) return fail(at, "`" + std::string(info.name) + "` takes no \"dtype\"");
      if (!dt->is_string() || !(dtype = parseDType(dt->get_ref<const std::string &>())))
        return fail(at, "\"dtype\" must be one of bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64");
    } else if (takesDType(op) && op != Op::Call) {  // a call's is optional (a call of a function with no value)
      return fail(at, "`" + std::string(info.name) + "` needs \"dtype\"");
    }
    int64_t slot = -1;
    if (auto s = n.find("slot"); s != n.end()) {
      if (op != Op::Buffer) return fail(at, "only `buffer` takes \"slot\"");
      if (!getUnsigned(*s, INT32_MAX, u)) return fail(at, "\"slot\" must be an integer from 0 to 2147483647");
      slot = static_cast<int64_t>(u);
    }
    bool parallel = false;
    if (auto p = n.find("parallel"); p != n.end()) {
      if (op != Op::Range) return fail(at, "only `range` takes \"parallel\"");
      if (!p->is_boolean()) return fail(at, "\"parallel\" must be true or false");
      parallel = p->get<bool>();
    }
    Op red = Op::Add;
    auto rj = n.find("reduce");
    if (rj != n.end()) {
      if (op != Op::Reduce) return fail(at, "only `reduce` takes \"reduce\"");
      if (!rj->is_string() || !parseOp(rj->get_ref<const std::string &>(), red) || !isReduceOp(red))
        return fail(at, "\"reduce\" must be one of add mul max min and or xor");
    } else if (op == Op::Reduce) {
      return fail(at, "`reduce` needs \"reduce\" (the combining op)");
    }
    // The module attributes: a call's "fn", a guard's "msg" (the text
    // form's escapes: \" \\ \xNN, so any bytes travel as ASCII) and an
    // alloc's "cols" (dtype names and "own").
    std::string text;
    auto fnj = n.find("fn"), msgj = n.find("msg"), colj = n.find("cols");
    if (fnj != n.end()) {
      if (op != Op::Call) return fail(at, "only `call` takes \"fn\"");
      if (!fnj->is_string() || !validName(fnj->get_ref<const std::string &>()))
        return fail(at, "\"fn\" must be a function name (letters, digits, '_' and '.')");
      text = fnj->get<std::string>();
    } else if (op == Op::Call) {
      return fail(at, "`call` needs \"fn\"");
    }
    if (msgj != n.end()) {
      if (op != Op::Guard) return fail(at, "only `guard` takes \"msg\"");
      if (!msgj->is_string() || !unescapeMsg(msgj->get_ref<const std::string &>(), text))
        return fail(at, "\"msg\" must be a string whose escapes are \\\" \\\\ or \\xNN");
    } else if (op == Op::Guard) {
      return fail(at, "`guard` needs \"msg\"");
    }
    std::vector<int64_t> columns;
    if (colj != n.end()) {
      if (op != Op::Alloc) return fail(at, "only `alloc` takes \"cols\"");
      if (!colj->is_array()) return fail(at, "\"cols\" must be an array of column types (dtype names or \"own\")");
      for (const json &c : *colj) {
        std::optional<DType> ct = c.is_string() ? parseDType(c.get_ref<const std::string &>()) : std::nullopt;
        if (c.is_string() && c.get_ref<const std::string &>() == "own") columns.push_back(Graph::kOwnColumn);
        else if (ct) columns.push_back(static_cast<int64_t>(*ct));
        else return fail(at, "\"cols\" must be an array of column types (dtype names or \"own\")");
      }
      dims_ += columns.size();
      if (dims_ > kMaxPool) return fail(at, "too many shape dimensions in total");
    } else if (op == Op::Alloc) {
      return fail(at, "`alloc` needs \"cols\"");
    }
    auto sh = n.find("shape");
    if (sh != n.end()) {
      if (!takesShape(op)) return fail(at, "`" + std::string(info.name) + "` takes no \"shape\"");
      if (!sh->is_array()) return fail(at, "\"shape\" must be an array of non-negative integers");
      for (const json &d : *sh)
        if (!getUnsigned(d, static_cast<uint64_t>(INT64_MAX), u))
          return fail(at, "\"shape\" must be an array of non-negative integers");
      dims_ += sh->size();
      if (dims_ > kMaxPool) return fail(at, "too many shape dimensions in total");
    } else if (takesShape(op)) {
      return fail(at, "`" + std::string(info.name) + "` needs \"shape\" ([] for one element)");
    }
    auto da = n.find("data");
    if (da != n.end()) {
      if (op != Op::Buffer) return fail(at, "only `buffer` takes \"data\"");
      if (!da->is_array()) return fail(at, "\"data\" must be an array of literals");
      data_ += da->size();
      if (data_ > kMaxPool) return fail(at, "too many data elements in total");
    }
    auto ops = n.find("operands");
    if (ops != n.end() && !ops->is_array())
      return fail(at, "\"operands\" must be an array (earlier node indices and literal strings)");
    size_t nops = ops == n.end() ? 0 : ops->size();
    operands_ += nops;
    if (operands_ > kMaxPool) return fail(at, "too many operands in total");
    auto cols = n.find("operand_cols");
    if (cols != n.end() && (!cols->is_array() || cols->size() != nops))
      return fail(at, "\"operand_cols\" must be an array with one column per operand");
    auto cm = n.find("comments");
    if (cm != n.end()) {
      if (!cm->is_array()) return fail(at, "\"comments\" must be an array of strings");
      for (const json &c : *cm)
        if (!c.is_string() || !validComment(c.get_ref<const std::string &>()))
          return fail(at, "\"comments\" must hold strings without newlines");
    }
    auto tc = n.find("comment");
    if (tc != n.end() && (!tc->is_string() || !validComment(tc->get_ref<const std::string &>())))
      return fail(at, "\"comment\" must be a string without newlines");

    // Build the node.
    NodeId id = g_.addNode(op, name, loc);
    if (dtype) g_.setDType(id, *dtype);
    if (op == Op::Buffer) g_.setSlot(id, slot);
    if (op == Op::Range) g_.setParallel(id, parallel);
    if (op == Op::Reduce) g_.setReduceOp(id, red);
    if (!text.empty()) g_.setText(id, std::move(text));
    for (int64_t c : columns) g_.addDim(id, c);
    if (sh != n.end()) {
      g_.setShapeGiven(id);
      for (const json &d : *sh) g_.addDim(id, d.is_number_unsigned() ? static_cast<int64_t>(d.get<uint64_t>()) : d.get<int64_t>());
    }
    for (size_t k = 0; k < nops; ++k) {
      const json &o = (*ops)[k];
      uint32_t col = loc.col;
      if (cols != n.end()) {
        if (!getUnsigned((*cols)[k], UINT32_MAX, u))
          return fail(at, "\"operand_cols\" must hold integers from 0 to 4294967295");
        col = static_cast<uint32_t>(u);
      }
      if (o.is_string()) {
        auto lit = parseLiteral(o.get_ref<const std::string &>());
        if (!lit) return fail(at, "operand " + std::to_string(k) + " is not a literal (\"3\", \"-1.5\", \"nan\", \"true\", ...)");
        if (!addLit()) return fail(at, "too many literals");
        g_.addOperand(id, Operand::ofLit(g_.addLiteral(*lit)), col);
      } else if (o.is_number_integer()) {  // signed or unsigned
        bool neg = o.is_number_integer() && !o.is_number_unsigned() && o.get<int64_t>() < 0;
        uint64_t ref = neg ? 0 : o.get<uint64_t>();
        if (neg || ref >= i)
          return fail(at, "operand " + std::to_string(k) + " must refer to an earlier node (0 to " +
                               (i == 0 ? std::string("none: this is the first node") : std::to_string(i - 1)) + ")");
        g_.addOperand(id, Operand::ofNode(NodeId{static_cast<uint32_t>(ref)}), col);
      } else {
        return fail(at, "operand " + std::to_string(k) + " must be an earlier node's index or a literal string");
      }
    }
    if (da != n.end()) {
      g_.markHasData(id);
      for (const json &v : *da) {
        std::optional<Literal> lit;
        if (v.is_string()) {
          lit = parseLiteral(v.get_ref<const std::string &>());
        } else if (v.is_boolean()) {
          lit = Literal{Literal::Kind::Bool, false, v.get<bool>() ? 1u : 0u, 0};
        } else if (v.is_number_unsigned()) {
          lit = Literal{Literal::Kind::Int, false, v.get<uint64_t>(), 0};
        } else if (v.is_number_integer()) {
          int64_t s = v.get<int64_t>();
          lit = Literal{Literal::Kind::Int, s < 0, s < 0 ? ~static_cast<uint64_t>(s) + 1 : static_cast<uint64_t>(s), 0};
        } else if (v.is_number_float()) {
          lit = Literal{Literal::Kind::Float, false, 0, v.get<double>()};
        }
        if (!lit) return fail(at, "\"data\" must hold literals (strings in .uir syntax, numbers or booleans)");
        g_.addData(id, *lit);
      }
    }
    if (cm != n.end())
      for (const json &c : *cm) g_.comments(id).above.push_back(c.get<std::string>());
    if (tc != n.end()) g_.comments(id).trailing = tc->get<std::string>();

    // Names are defined once (as the text reader demands).
    auto [it, fresh] = byName_.try_emplace(name, id.v);
    if (!fresh)
      d_.error(loc, "name", "%" + name + " is defined twice")
          .note(g_.loc(NodeId{it->second}), "%" + name + " is first defined here");
    return true;
  }

  bool addLit() { return ++lits_ <= kMaxLiterals; }

  Graph &g_;
  Diags &d_;
  const std::vector<Loc> *textLocs_;
  std::unordered_map<std::string, uint32_t> byName_;
  uint64_t namesLen_ = 0, dims_ = 0, data_ = 0, operands_ = 0, lits_ = 0;
};

// Where each element of the top-level "nodes" array starts in `text`, which
// has already parsed as JSON (so strings and brackets are balanced). A flat
// scan with a depth counter; no recursion.
std::vector<Loc> nodeTextLocs(std::string_view text) {
  std::vector<Loc> out;
  Loc at{1, 1};
  int depth = 0;
  bool inNodes = false, expectElement = false;
  std::string lastKey;  // the last string seen at depth 1
  for (size_t k = 0; k < text.size(); ++k) {
    char c = text[k];
    Loc here = at;
    if (c == '\n') {
      ++at.line;
      at.col = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++at.col;  // count UTF-8 continuation bytes with their lead byte
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (inNodes && expectElement && depth == 2 && c != ']') out.push_back(here);
    expectElement = false;
    if (c == '"') {
      size_t start = k + 1, e = start;
      while (e < text.size() && text[e] != '"') e += text[e] == '\\' ? 2 : 1;
      if (depth == 1) lastKey.assign(text.substr(start, std::min(e, text.size()) - start));
      for (size_t m = k + 1; m <= e && m < text.size(); ++m)
        if ((static_cast<unsigned char>(text[m]) & 0xC0) != 0x80) ++at.col;
      k = e;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      if (c == '[' && depth == 2 && lastKey == "nodes") inNodes = expectElement = true;
    } else if (c == '}' || c == ']') {
      if (depth == 2) inNodes = false;
      --depth;
    } else if (c == ',' && inNodes && depth == 2) {
      expectElement = true;
    }
  }
  return out;
}

}  // namespace

json graphToJson(const Graph &g) {
  json nodes = json::array();
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    Op op = g.op(n);
    json o = json::object();
    o["name"] = std::string(g.name(n));
    o["op"] = std::string(opInfo(op).name);
    json operands = json::array(), cols = json::array();
    auto ops = g.operands(n);
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].isLit()) operands.push_back(literalText(g.literal(ops[k].lit())));
      else operands.push_back(ops[k].node().v);
      cols.push_back(g.operandCol(n, k));
    }
    o["operands"] = std::move(operands);
    if (takesDType(op) && g.dtype(n) != DType::None) o["dtype"] = std::string(dtypeName(g.dtype(n)));
    if (op == Op::Buffer && g.slot(n) >= 0) o["slot"] = g.slot(n);
    if (takesShape(op) && g.shapeGiven(n)) {
      json dims = json::array();
      for (int64_t d : g.dims(n)) dims.push_back(d);
      o["shape"] = std::move(dims);
    }
    if (op == Op::Buffer && g.hasData(n)) {
      json data = json::array();
      for (const Literal &l : g.data(n)) data.push_back(literalText(l));
      o["data"] = std::move(data);
    }
    if (op == Op::Range && g.parallel(n)) o["parallel"] = true;
    if (op == Op::Reduce) o["reduce"] = std::string(opInfo(g.reduceOp(n)).name);
    if (op == Op::Call) o["fn"] = std::string(g.text(n));
    if (op == Op::Guard) o["msg"] = escapeMsg(g.text(n));
    if (op == Op::Alloc) {
      json cs = json::array();
      for (int64_t c : g.dims(n))
        cs.push_back(c >= 0 && c < kNumDTypes ? std::string(dtypeName(static_cast<DType>(c))) : std::string("own"));
      o["cols"] = std::move(cs);
    }
    o["line"] = g.loc(n).line;
    o["col"] = g.loc(n).col;
    o["operand_cols"] = std::move(cols);
    if (const NodeComments *c = g.commentsOf(n)) {
      if (!c->above.empty()) o["comments"] = c->above;
      if (!c->trailing.empty()) o["comment"] = c->trailing;
    }
    nodes.push_back(std::move(o));
  }
  json top = json::object();
  top["format"] = std::string(kJsonFormat);
  top["version"] = kJsonVersion;
  top["nodes"] = std::move(nodes);
  if (!g.trailingComments().empty()) top["comments"] = g.trailingComments();
  return top;
}

bool graphFromJson(const json &j, Graph &g, Diags &diags) {
  size_t before = diags.size();
  Reader(g, diags, nullptr).run(j);
  buildRegions(g, diags);
  return diags.size() == before && !diags.truncated();
}

bool parseJsonGraph(std::string_view text, Graph &g, Diags &diags) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error &e) {
    // e.byte is the 1-based index of the byte where parsing stopped.
    size_t end = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    Loc at{1, 1};
    for (size_t k = 0; k < end; ++k) {
      if (text[k] == '\n') {
        ++at.line;
        at.col = 1;
      } else {
        ++at.col;
      }
    }
    std::string what = e.what();
    // nlohmann's text starts "[json.exception.parse_error.101] parse error at
    // line 1, column 2: "; keep the part after the location.
    if (auto p = what.find(": "); p != std::string::npos) what = what.substr(p + 2);
    diags.error(at, "json", "invalid JSON: " + what);
    return false;
  } catch (const std::exception &e) {
    diags.error(Loc{1, 1}, "json", std::string("invalid JSON: ") + e.what());
    return false;
  }
  std::vector<Loc> locs = nodeTextLocs(text);
  auto nodes = j.is_object() ? j.find("nodes") : j.end();
  bool match = nodes != j.end() && nodes->is_array() && nodes->size() == locs.size();
  size_t before = diags.size();
  Reader(g, diags, match ? &locs : nullptr).run(j);
  buildRegions(g, diags);
  return diags.size() == before && !diags.truncated();
}

}  // namespace cairn
