// Property tests (rapidcheck): random graphs survive the text and JSON forms.
//
// A graph is drawn node by node, each operand an earlier node or a literal,
// so it is acyclic by construction; loops open and close like brackets, so
// regions are well formed. Everything the reader can express is drawn --
// every op, every attribute, literals at the 64-bit extremes, NaN, inf, -0,
// subnormals, and comments -- but not validity: these are properties of the
// reader, printer and JSON form, which accept graphs the oracle would reject.
// Replay a failure with RC_PARAMS="reproduce=...".
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "ir/json.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"

using namespace cairn;

namespace {

Literal drawLiteral() {
  Literal l;
  switch (*rc::gen::inRange(0, 3)) {
    case 0: {  // an integer, often an edge value
      l.kind = Literal::Kind::Int;
      l.magnitude = *rc::gen::oneOf(
          rc::gen::element<uint64_t>(0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 2147483647, 2147483648u,
                                     4294967295u, 9223372036854775807u, 9223372036854775808u, UINT64_MAX),
          rc::gen::arbitrary<uint64_t>());
      l.negative = l.magnitude != 0 && *rc::gen::arbitrary<bool>();
      break;
    }
    case 1: {  // a float, from its bits; a NaN is the one the reader makes
      l.kind = Literal::Kind::Float;
      double d = std::bit_cast<double>(*rc::gen::arbitrary<uint64_t>());
      d = *rc::gen::oneOf(rc::gen::just(d),
                          rc::gen::element(0.0, -0.0, 0.1, 1.5, -2.0, 1e300, 5e-324, std::numeric_limits<double>::infinity(),
                                           -std::numeric_limits<double>::infinity()));
      if (std::isnan(d)) d = std::copysign(std::numeric_limits<double>::quiet_NaN(), std::signbit(d) ? -1.0 : 1.0);
      l.f = d;
      break;
    }
    default:
      l.kind = Literal::Kind::Bool;
      l.magnitude = *rc::gen::arbitrary<bool>();
  }
  return l;
}

// Comment text as the reader keeps it: one line, no trailing blanks.
std::string drawComment() {
  std::string s = *rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string drawName(uint32_t i) {
  std::string prefix = *rc::gen::resize(
      6, rc::gen::container<std::string>(rc::gen::element('a', 'Z', 'x', '0', '9', '_', '.')));
  return prefix + "." + std::to_string(i);  // unique: the suffix after the last '.' is the index
}

Graph drawGraph() {
  Graph g;
  std::vector<NodeId> open;  // ranges not yet closed
  int count = *rc::gen::inRange(0, 60);
  const std::vector<Op> reduceOps = {Op::Add, Op::Mul, Op::Max, Op::Min, Op::And, Op::Or, Op::Xor};
  auto node = [&](Op op) {
    uint32_t i = g.size();
    NodeId n = g.addNode(op, drawName(i), Loc{i + 1, 1});
    const OpInfo &info = opInfo(op);
    int args = info.maxArgs < 0 ? *rc::gen::inRange(info.minArgs, info.minArgs + 4)
                                : *rc::gen::inRange(info.minArgs, info.maxArgs + 1);
    for (int k = 0; k < args; ++k) {
      if (op == Op::End && k == 0) {
        g.addOperand(n, Operand::ofNode(open.back()), 10);
      } else if (i > 0 && *rc::gen::arbitrary<bool>()) {
        g.addOperand(n, Operand::ofNode(NodeId{*rc::gen::inRange<uint32_t>(0, i)}), 10 + k);
      } else {
        g.addOperand(n, Operand::ofLit(g.addLiteral(drawLiteral())), 10 + k);
      }
    }
    if (op == Op::Buffer || op == Op::Cast || op == Op::Const)
      g.setDType(n, static_cast<DType>(*rc::gen::inRange(0, kNumDTypes)));
    if (op == Op::Buffer && *rc::gen::arbitrary<bool>())
      g.setSlot(n, *rc::gen::oneOf(rc::gen::inRange<int64_t>(0, 8), rc::gen::just<int64_t>(INT32_MAX)));
    if (op == Op::Buffer && *rc::gen::arbitrary<bool>()) {
      g.markHasData(n);
      int k = *rc::gen::inRange(0, 6);
      for (int d = 0; d < k; ++d) g.addData(n, drawLiteral());
    }
    if (op == Op::Shrink || op == Op::CShrink) {
      g.setShapeGiven(n);
      int k = *rc::gen::inRange(0, 4);
      for (int d = 0; d < k; ++d)
        g.addDim(n, *rc::gen::oneOf(rc::gen::inRange<int64_t>(0, 10), rc::gen::just<int64_t>(INT64_MAX)));
    }
    if (op == Op::Range) g.setParallel(n, *rc::gen::arbitrary<bool>());
    if (op == Op::Reduce) g.setReduceOp(n, *rc::gen::elementOf(reduceOps));
    if (*rc::gen::inRange(0, 5) == 0) g.comments(n).above.push_back(drawComment());
    if (*rc::gen::inRange(0, 5) == 0) g.comments(n).trailing = drawComment();
    return n;
  };
  for (int i = 0; i < count; ++i) {
    if (!open.empty() && *rc::gen::inRange(0, 5) == 0) {
      node(Op::End);
      open.pop_back();
      continue;
    }
    Op op;
    do op = static_cast<Op>(*rc::gen::inRange(0, numOps()));
    while (op == Op::End || opInfo(op).is(opflag::O));  // module ops: tests/unit/module_test.cpp
    NodeId n = node(op);
    if (op == Op::Range) open.push_back(n);
  }
  while (!open.empty()) {
    node(Op::End);
    open.pop_back();
  }
  if (*rc::gen::inRange(0, 4) == 0) g.trailingComments().push_back(drawComment());
  Diags d;
  buildRegions(g, d);
  RC_ASSERT(d.empty());
  return g;
}

bool sameComments(const Graph &a, const Graph &b) {
  if (a.trailingComments() != b.trailingComments()) return false;
  for (uint32_t i = 0; i < a.size(); ++i) {
    const NodeComments *x = a.commentsOf(NodeId{i}), *y = b.commentsOf(NodeId{i});
    std::vector<std::string> ax = x ? x->above : std::vector<std::string>{}, ay = y ? y->above : std::vector<std::string>{};
    std::string tx = x ? x->trailing : "", ty = y ? y->trailing : "";
    if (ax != ay || tx != ty) return false;
  }
  return true;
}

bool sameLocs(const Graph &a, const Graph &b) {
  for (uint32_t i = 0; i < a.size(); ++i) {
    NodeId n{i};
    if (a.loc(n).line != b.loc(n).line || a.loc(n).col != b.loc(n).col) return false;
    for (size_t k = 0; k < a.operands(n).size(); ++k)
      if (a.operandCol(n, k) != b.operandCol(n, k)) return false;
  }
  return true;
}

}  // namespace

RC_GTEST_PROP(RoundTrip, PrintParseIsSameGraphAndPrintIsFixedPoint, ()) {
  Graph g = drawGraph();
  std::string text = printUir(g);
  RC_LOG() << text;
  Graph back;
  Diags d;
  bool ok = parseUir(text, back, d);
  RC_ASSERT(ok);
  RC_ASSERT(back.sameAs(g));
  RC_ASSERT(sameComments(back, g));
  RC_ASSERT(printUir(back) == text);
}

RC_GTEST_PROP(RoundTrip, JsonExportImportIsSameGraph, ()) {
  Graph g = drawGraph();
  RC_LOG() << printUir(g);
  // In memory.
  Graph back;
  Diags d;
  RC_ASSERT(graphFromJson(graphToJson(g), back, d));
  RC_ASSERT(back.sameAs(g));
  RC_ASSERT(sameLocs(back, g));
  RC_ASSERT(sameComments(back, g));
  // Through text, both layouts.
  for (int indent : {-1, 2}) {
    Graph viaText;
    Diags d2;
    RC_ASSERT(parseJsonGraph(graphToJson(g).dump(indent), viaText, d2));
    RC_ASSERT(viaText.sameAs(g));
    RC_ASSERT(sameLocs(viaText, g));
  }
}

RC_GTEST_PROP(RoundTrip, ParsedTextToJsonAndBackPrintsTheSame, ()) {
  Graph g = drawGraph();
  std::string text = printUir(g);
  Graph parsed;
  Diags d;
  RC_ASSERT(parseUir(text, parsed, d));
  Graph back;
  RC_ASSERT(graphFromJson(graphToJson(parsed), back, d));
  RC_ASSERT(printUir(back) == text);
  RC_ASSERT(sameLocs(back, parsed));
}

// Hostile JSON: replace one field of a valid export by an arbitrary value;
// the reader must answer (accept, or reject with diagnostics), never crash.
RC_GTEST_PROP(RoundTrip, MutatedJsonNeverCrashes, ()) {
  Graph g = drawGraph();
  RC_PRE(g.size() > 0u);
  nlohmann::json j = graphToJson(g);
  auto &nodes = j["nodes"];
  size_t i = *rc::gen::inRange<size_t>(0, nodes.size());
  std::string key = *rc::gen::element<std::string>("name", "op", "operands", "operand_cols", "line", "col", "dtype",
                                                   "slot", "shape", "data", "parallel", "reduce", "comments", "bogus");
  nlohmann::json v;
  switch (*rc::gen::inRange(0, 9)) {
    case 0: v = nullptr; break;
    case 1: v = *rc::gen::arbitrary<int64_t>(); break;
    case 2: v = *rc::gen::arbitrary<uint64_t>(); break;
    case 3: v = *rc::gen::arbitrary<double>(); break;
    case 4: v = *rc::gen::arbitrary<std::string>(); break;
    case 5: v = nlohmann::json::array({*rc::gen::arbitrary<int64_t>(), "x", nullptr}); break;
    case 6: v = nlohmann::json::object({{"a", 1}}); break;
    case 7: v = *rc::gen::arbitrary<bool>(); break;
    default: v = nlohmann::json::array({static_cast<uint64_t>(i), static_cast<uint64_t>(i + 1)}); break;
  }
  nodes[i][key] = v;
  Graph back;
  Diags d;
  bool ok = graphFromJson(j, back, d);
  RC_ASSERT(ok == d.empty());
  if (!ok) return;
  // What the JSON reader accepts, the text reader accepts too.
  Graph reparsed;
  Diags d2;
  RC_ASSERT(parseUir(printUir(back), reparsed, d2));
  RC_ASSERT(reparsed.sameAs(back));
}
