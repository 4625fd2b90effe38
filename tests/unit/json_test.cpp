// The JSON form: the documented schema, exact literals, and a reader that
// rejects every malformed or hostile input with a located diagnostic. Also
// the DOT export's promises (determinism, clusters, highlighted after edges).
#include <gtest/gtest.h>

#include "ir/dot.hpp"
#include "ir/json.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"

using namespace cairn;
using nlohmann::json;

namespace {

Graph parsed(std::string_view text) {
  Graph g;
  Diags d;
  EXPECT_TRUE(parseUir(text, g, d)) << text;
  return g;
}

// The first error message for JSON text, or "" when it is accepted.
std::string jsonError(std::string_view text) {
  Graph g;
  Diags d;
  bool ok = parseJsonGraph(text, g, d);
  EXPECT_EQ(ok, d.empty());
  return d.empty() ? "" : d.list()[0].message;
}

const char *kProgram =
    "# doubles\n"
    "%a  = buffer 4 dtype=f32 slot=0 data=[1 2 3 4]\n"
    "%i  = range 4 parallel\n"
    "  %p  = shrink %a %i shape=[]\n"
    "  %x  = load %p\n"
    "  %y  = mul %x 2\n"
    "  %s  = store %p %y  # lane i\n"
    "%e  = end %i %s\n"
    "%a1 = after %a %e\n"
    "%t  = reduce max %e %x\n";

}  // namespace

TEST(Json, SchemaOfOneNode) {
  Graph g = parsed("%b = buffer 2 dtype=u64 slot=3 data=[18446744073709551615 -0]\n%v = shrink %b 1 shape=[]\n");
  json j = graphToJson(g);
  EXPECT_EQ(j["format"], "cairn-uir");
  EXPECT_EQ(j["version"], 1);
  const json &b = j["nodes"][0];
  EXPECT_EQ(b["name"], "b");
  EXPECT_EQ(b["op"], "buffer");
  EXPECT_EQ(b["operands"], json::array({"2"}));
  EXPECT_EQ(b["dtype"], "u64");
  EXPECT_EQ(b["slot"], 3);
  EXPECT_EQ(b["data"], json::array({"18446744073709551615", "0"}));
  EXPECT_EQ(b["line"], 1);
  EXPECT_EQ(b["col"], 1);
  const json &v = j["nodes"][1];
  EXPECT_EQ(v["operands"], json::array({0, "1"}));  // node index, literal text
  EXPECT_EQ(v["shape"], json::array());
  EXPECT_EQ(v["operand_cols"], json::array({13, 16}));
  EXPECT_FALSE(v.contains("dtype"));
}

TEST(Json, RoundTripKeepsEverything) {
  Graph g = parsed(kProgram);
  Graph back;
  Diags d;
  ASSERT_TRUE(graphFromJson(graphToJson(g), back, d));
  EXPECT_TRUE(back.sameAs(g));
  EXPECT_EQ(printUir(back), printUir(g));
  EXPECT_EQ(back.parent(NodeId{2}), NodeId{1});  // regions rebuilt
  EXPECT_EQ(back.loc(NodeId{4}).line, 6u);  // %y
}

TEST(Json, ExtremeLiteralsAreExact) {
  Graph g = parsed("%a = const -18446744073709551615 dtype=i64\n%b = const -nan dtype=f64\n"
                   "%c = const -0.0 dtype=f64\n%d = const 5e-324 dtype=f64\n%e = const -inf dtype=f32\n");
  std::string text = graphToJson(g).dump();
  Graph back;
  Diags d;
  ASSERT_TRUE(parseJsonGraph(text, back, d));
  EXPECT_TRUE(back.sameAs(g)) << text;
}

TEST(Json, MinimalInputAndNumberData) {
  // Only name and op are needed (plus the op's required attributes); data may
  // use JSON numbers and booleans.
  Graph g;
  Diags d;
  ASSERT_TRUE(parseJsonGraph(R"({"nodes": [{"name": "b", "op": "buffer", "operands": ["3"], "dtype": "i64",
                                             "data": [1, -2, 18446744073709551615]},
                                            {"name": "f", "op": "buffer", "operands": ["2"], "dtype": "f64",
                                             "data": [0.5, true]}]})",
                             g, d));
  EXPECT_EQ(printUir(g), "%b = buffer 3 dtype=i64 data=[1 -2 18446744073709551615]\n"
                         "%f = buffer 2 dtype=f64 data=[0.5 true]\n");
  EXPECT_EQ(g.loc(NodeId{1}).line, 3u);  // no "line": where the node starts in the text
}

TEST(Json, RejectsMalformedInput) {
  EXPECT_NE(jsonError(""), "");
  EXPECT_NE(jsonError("{"), "");
  EXPECT_NE(jsonError("[]"), "");
  EXPECT_NE(jsonError("{}"), "");
  EXPECT_NE(jsonError(R"({"nodes": {}})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [], "extra": 1})"), "");
  EXPECT_NE(jsonError(R"({"format": "other", "nodes": []})"), "");
  EXPECT_NE(jsonError(R"({"version": 2, "nodes": []})"), "");
  EXPECT_EQ(jsonError(R"({"format": "cairn-uir", "version": 1, "nodes": []})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [1]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"op": "add"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a b", "op": "add"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "", "op": "add"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "frob"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": [0]}]})"), "");  // itself
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": [5]}]})"), "");  // later
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": [-1]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": [1.5]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": ["x"]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": [null]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": "1"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "operands": ["1"], "operand_cols": []}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "dtype": "i32"}]})"), "");  // not on add
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "const", "operands": ["1"]}]})"), "");  // needs dtype
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "const", "dtype": "i33"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "buffer", "dtype": "i8", "slot": -1}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "buffer", "dtype": "i8", "slot": 2147483648}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "buffer", "dtype": "i8", "data": [[1]]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "shrink"}]})"), "");  // needs shape
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "shrink", "shape": [-1]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "shrink", "shape": [9223372036854775808]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "range", "parallel": 1}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "reduce"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "reduce", "reduce": "sub"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "line": -3}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "line": 4294967296}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "comment": "two\nlines"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "add", "comments": [1]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "a", "op": "range"}]})"), "");  // never closed
}

TEST(Json, ErrorsAreLocated) {
  Graph g;
  Diags d;
  ASSERT_FALSE(parseJsonGraph("{\n  \"nodes\": [\n    {\"name\": \"a\",, }\n  ]\n}\n", g, d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d.list()[0].loc.line, 3u);
  EXPECT_EQ(d.list()[0].rule, "json");
  // A schema error in JSON text points at the node's object in the text...
  const char *text = "{\"nodes\": [\n  {\"name\": \"b\", \"op\": \"range\", \"operands\": [\"2\"]},\n"
                     "  {\"name\": \"a\", \"op\": \"add\", \"line\": 7, \"col\": 3, \"operands\": [9]}]}";
  Graph g2;
  Diags d2;
  ASSERT_FALSE(parseJsonGraph(text, g2, d2));
  EXPECT_EQ(d2.list()[0].loc.line, 3u);
  EXPECT_EQ(d2.list()[0].loc.col, 3u);
  EXPECT_NE(d2.list()[0].message.find("node 1 (%a)"), std::string::npos) << d2.list()[0].message;
  // ... and, read from a DOM, at the node's "line" and "col".
  Graph g3;
  Diags d3;
  ASSERT_FALSE(graphFromJson(json::parse(text), g3, d3));
  EXPECT_EQ(d3.list()[0].loc.line, 7u);
  EXPECT_EQ(d3.list()[0].loc.col, 3u);
  // A node without "line" is located where its object starts in the text.
  Graph g4;
  Diags d4;
  ASSERT_TRUE(parseJsonGraph("{\"nodes\": [\n\n    {\"name\": \"x\", \"op\": \"const\", \"dtype\": \"i8\"}]}", g4, d4));
  EXPECT_EQ(g4.loc(NodeId{0}).line, 3u);
  EXPECT_EQ(g4.loc(NodeId{0}).col, 5u);
}

TEST(Json, DuplicateNamesAreReportedLikeTheTextReader) {
  Graph g;
  Diags d;
  ASSERT_FALSE(parseJsonGraph(R"({"nodes": [{"name": "a", "op": "const", "dtype": "i8", "operands": ["1"]},
                                             {"name": "a", "op": "const", "dtype": "i8", "operands": ["2"]}]})",
                              g, d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d.list()[0].message, "%a is defined twice");
  EXPECT_EQ(d.list()[0].rule, "name");
}

TEST(Json, DeepAndHugeInputsDoNotCrash) {
  std::string deep(200000, '[');
  EXPECT_NE(jsonError(deep), "");
  std::string deepValue = R"({"nodes": [{"name": "a", "op": "add", "operands": [)" + std::string(100000, '[') +
                          std::string(100000, ']') + "]}]}";
  EXPECT_NE(jsonError(deepValue), "");
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>(i * 31 % 256);
  EXPECT_NE(jsonError(bytes), "");
  // Many nodes: a long chain, read in one flat loop.
  json j = {{"nodes", json::array()}};
  j["nodes"].push_back({{"name", "v0"}, {"op", "const"}, {"dtype", "i64"}, {"operands", {"0"}}});
  for (uint64_t i = 1; i < 100000; ++i)
    j["nodes"].push_back({{"name", "v" + std::to_string(i)}, {"op", "add"}, {"operands", {i - 1, "1"}}});
  Graph g;
  Diags d;
  EXPECT_TRUE(graphFromJson(j, g, d));
  EXPECT_EQ(g.size(), 100000u);
}

TEST(Dot, DeterministicWithClustersColoursAndAfterEdges) {
  Graph g = parsed(kProgram);
  std::string dot = printDot(g);
  EXPECT_EQ(dot, printDot(parsed(kProgram)));
  EXPECT_EQ(dot.rfind("digraph uir {\n", 0), 0u);
  EXPECT_NE(dot.find("subgraph cluster_1 {"), std::string::npos) << dot;
  EXPECT_NE(dot.find("loop %i (parallel)"), std::string::npos);
  EXPECT_NE(dot.find("%a = buffer 4 dtype=f32 slot=0 data=[1 2 3 4]\\nline 2"), std::string::npos) << dot;
  // The event -> after edge is highlighted; %e (node 6) feeds %a1 (node 7).
  EXPECT_NE(dot.find("n6 -> n7 [color="), std::string::npos) << dot;
  // %a, its view %p, the store %s and %a1 share the buffer's colour.
  EXPECT_NE(dot.find("n0 [label=\"%a = buffer"), std::string::npos);
  size_t colours = 0;
  for (size_t p = dot.find("fillcolor=\"#8dd3c7\""); p != std::string::npos; p = dot.find("fillcolor=\"#8dd3c7\"", p + 1))
    ++colours;
  EXPECT_EQ(colours, 4u) << dot;
}

TEST(Dot, SurvivesMalformedGraphs) {
  Graph g;
  Diags d;
  parseUir("%e = end 1\n%i = range 3\n%x = after %i %e\n%v = shrink 5 %x shape=[]\n", g, d);
  std::string dot = printDot(g);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

// The module ops' attributes travel too (a graph the reader accepts may hold
// them; the oracle decides where they are allowed): a call's fn, an alloc's
// cols, and a guard's msg with every kind of byte, written in the text
// form's escapes, and the dtypes of param, vparam, deref, checked_cast and
// call. Found by libFuzzer: a guard's msg and a call's dtype were dropped.
TEST(Json, ModuleAttributesRoundTrip) {
  Graph g = parsed(
      "%f = const false dtype=bool\n"
      "%g = guard %f msg=\"a \\\"q\\\" \\\\ \\x00 \\x7f \\xff \\xc3\\xa9 end\"\n"
      "%e = guard %f msg=\"\"\n"
      "%h = alloc 4 cols=[u8 own f64]\n"
      "%c = call %h fn=helper.2\n"
      "%p = param 0 dtype=i32\n"
      "%v = vparam 1 dtype=u8\n"
      "%d = deref %h 0 dtype=u8\n"
      "%k = checked_cast %p dtype=u8\n"
      "%w = call %p fn=g dtype=i64\n"
      "%r = ret 1\n");
  json j = graphToJson(g);
  EXPECT_EQ(j["nodes"][1]["msg"], "a \\\"q\\\" \\\\ \\x00 \\x7f \\xff \\xc3\\xa9 end");
  EXPECT_EQ(j["nodes"][3]["cols"], json::parse(R"(["u8", "own", "f64"])"));
  EXPECT_EQ(j["nodes"][4]["fn"], "helper.2");
  EXPECT_FALSE(j["nodes"][4].contains("dtype"));  // a call's dtype is optional
  EXPECT_EQ(j["nodes"][9]["dtype"], "i64");
  EXPECT_EQ(j["nodes"][7]["dtype"], "u8");  // deref (found by libFuzzer: dtypes of the module ops were dropped)
  Graph back;
  Diags d;
  ASSERT_TRUE(parseJsonGraph(j.dump(), back, d)) << (d.empty() ? "" : d.list()[0].message);
  EXPECT_TRUE(back.sameAs(g));
  EXPECT_EQ(printUir(back), printUir(g));
  EXPECT_EQ(back.text(NodeId{1}), std::string_view("a \"q\" \\ \0 \x7f \xff \xc3\xa9 end", 20));

  const char *kGuard = R"({"nodes": [{"name": "f", "op": "const", "dtype": "bool", "operands": ["false"]}, )";
  EXPECT_NE(jsonError(std::string(kGuard) + R"({"name": "g", "op": "guard", "operands": [0]}]})"), "");  // needs msg
  EXPECT_NE(jsonError(std::string(kGuard) + R"({"name": "g", "op": "guard", "operands": [0], "msg": "\\q"}]})"), "");
  EXPECT_NE(jsonError(std::string(kGuard) + R"({"name": "g", "op": "guard", "operands": [0], "msg": "\\x4"}]})"), "");
  EXPECT_NE(jsonError(std::string(kGuard) + R"({"name": "g", "op": "guard", "operands": [0], "msg": 3}]})"), "");
  EXPECT_NE(jsonError(std::string(kGuard) + R"({"name": "g", "op": "neg", "operands": [0], "msg": "x"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "c", "op": "call"}]})"), "");  // needs fn
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "c", "op": "call", "fn": "a b"}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "h", "op": "alloc", "operands": ["1"]}]})"), "");  // needs cols
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "h", "op": "alloc", "operands": ["1"], "cols": ["u9"]}]})"), "");
  EXPECT_NE(jsonError(R"({"nodes": [{"name": "h", "op": "alloc", "operands": ["1"], "cols": "u8"}]})"), "");
  EXPECT_EQ(jsonError(R"({"nodes": [{"name": "h", "op": "alloc", "operands": ["1"], "cols": ["own"]}]})"), "");
}
