// Diagnostics printed with their source (ir/source_map.hpp, Diags::print with
// a SourceMap): the first line of each error and note is unchanged, and the
// quoted line and caret line follow it, clang style. Also the JSON form's
// `code` and `end_line`/`end_col` keys.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "ir/diag.hpp"
#include "ir/source_map.hpp"
#include "lower/lower.hpp"

namespace cairn {
namespace {

std::string printed(const Diags &d, const SourceMap &src, const std::string &file = "p.cairn") {
  std::ostringstream os;
  d.print(os, file, src);
  return os.str();
}

TEST(DiagSource, CaretUnderKnownSpan) {
  SourceMap src;
  src.add("p.cairn", "fn main() -> i32 {\n  let x = frob(1, 2);\n}\n");
  Diags d;
  d.error(Loc{2, 11}, "E-NAME", "unknown function frob").span(Loc{2, 21});
  EXPECT_EQ(printed(d, src),
            "p.cairn:2:11: error: unknown function frob [E-NAME]\n"
            "    2 |   let x = frob(1, 2);\n"
            "      |           ^~~~~~~~~~\n");
}

TEST(DiagSource, TokenWhenNoEnd) {
  SourceMap src;
  src.add("p.cairn", "let total = count + 1;\n");
  Diags d;
  d.error(Loc{1, 13}, "E-NAME", "unknown name count");  // an identifier: the whole run
  d.error(Loc{1, 19}, "E-TYPE", "bad operator");        // punctuation: one byte
  d.error(Loc{1, 21}, "E-TYPE", "bad literal");         // a number run
  EXPECT_EQ(printed(d, src),
            "p.cairn:1:13: error: unknown name count [E-NAME]\n"
            "    1 | let total = count + 1;\n"
            "      |             ^~~~~\n"
            "p.cairn:1:19: error: bad operator [E-TYPE]\n"
            "    1 | let total = count + 1;\n"
            "      |                   ^\n"
            "p.cairn:1:21: error: bad literal [E-TYPE]\n"
            "    1 | let total = count + 1;\n"
            "      |                     ^\n");
}

TEST(DiagSource, UirNameIsOneToken) {
  SourceMap src;
  src.add("p.uir", "%s1 = store %p 5\n");
  Diags d;
  d.error(Loc{1, 1}, "store-sequenced", "a store that no after sequences has no effect");
  EXPECT_EQ(printed(d, src, "p.uir"),
            "p.uir:1:1: error: a store that no after sequences has no effect [store-sequenced]\n"
            "    1 | %s1 = store %p 5\n"
            "      | ^~~\n");
}

TEST(DiagSource, MultiLineSpanStopsAtLineEnd) {
  SourceMap src;
  src.add("p.cairn", "a = f(x,\n  y);\n");
  Diags d;
  d.error(Loc{1, 5}, "E-ARITY", "too many").span(Loc{2, 5});
  EXPECT_EQ(printed(d, src),
            "p.cairn:1:5: error: too many [E-ARITY]\n"
            "    1 | a = f(x,\n"
            "      |     ^~~~\n");
}

TEST(DiagSource, TabsExpandInBothLines) {
  SourceMap src;
  src.add("p.cairn", "\tx\t= bad;\n");
  Diags d;
  d.error(Loc{1, 6}, "E-NAME", "unknown name bad");  // byte 6: after tab, x, tab, '=', ' '
  // The tabs stop at columns 8 and 16: x at 8, '=' at 16, bad at 18.
  EXPECT_EQ(printed(d, src),
            "p.cairn:1:6: error: unknown name bad [E-NAME]\n"
            "    1 | " + std::string(8, ' ') + "x" + std::string(7, ' ') + "= bad;\n"
            "      | " + std::string(18, ' ') + "^~~\n");
}

TEST(DiagSource, TabInsideSpanIsUnderlined) {
  SourceMap src;
  src.add("p.cairn", "a\tb\n");
  Diags d;
  d.error(Loc{1, 1}, "E-X", "span over a tab").span(Loc{1, 4});
  EXPECT_EQ(printed(d, src),
            "p.cairn:1:1: error: span over a tab [E-X]\n"
            "    1 | a" + std::string(7, ' ') + "b\n"
            "      | ^" + std::string(8, '~') + "\n");  // a, the tab's 7 columns, b
}

TEST(DiagSource, ControlBytesKeepColumns) {
  SourceMap src;
  src.add("p.uir", std::string("%a = \x01" "frob %b\n"));
  Diags d;
  d.error(Loc{1, 7}, "syntax", "unknown op");
  EXPECT_EQ(printed(d, src, "p.uir"),
            "p.uir:1:7: error: unknown op [syntax]\n"
            "    1 | %a = <01>frob %b\n"
            "      | " + std::string(9, ' ') + "^~~~\n");
}

TEST(DiagSource, OutsideTheTextPrintsNoCaret) {
  SourceMap src;
  src.add("p.cairn", "one\ntwo\n");
  Diags d;
  d.error(Loc{3, 1}, "E-PARSE", "past the last line");
  d.error(Loc{0, 0}, "E-MAIN", "no location");
  d.error(Loc{2, 9}, "E-PARSE", "past the line's end");
  d.error(Loc{2, 4}, "E-PARSE", "just past the line's end");  // a caret after the last byte
  d.error(Loc{1, 1}, "E-X", "another file").file = "q.cairn";
  EXPECT_EQ(printed(d, src),
            "p.cairn:3:1: error: past the last line [E-PARSE]\n"
            "p.cairn:0:0: error: no location [E-MAIN]\n"
            "p.cairn:2:9: error: past the line's end [E-PARSE]\n"
            "p.cairn:2:4: error: just past the line's end [E-PARSE]\n"
            "    2 | two\n"
            "      |    ^\n"
            "q.cairn:1:1: error: another file [E-X]\n");
}

TEST(DiagSource, NoteInAnotherFile) {
  SourceMap src;
  src.add("main.cairn", "import std.vec (Vec);\nfn main() -> i32 { return push(1); }\n");
  src.add("/std/vec.cairn", "fn push(v:rw<Vec>, x:u64) {}\n");
  Diags d;
  d.error(Loc{2, 27}, "E-ARITY", "push takes 2 arguments").note(Loc{1, 4}, "declared here", "/std/vec.cairn", Loc{1, 8});
  EXPECT_EQ(printed(d, src, "main.cairn"),
            "main.cairn:2:27: error: push takes 2 arguments [E-ARITY]\n"
            "    2 | fn main() -> i32 { return push(1); }\n"
            "      |                           ^~~~\n"
            "/std/vec.cairn:1:4: note: declared here\n"
            "    1 | fn push(v:rw<Vec>, x:u64) {}\n"
            "      |    ^~~~\n");
}

TEST(DiagSource, CrlfAndLoneCrAndBom) {
  SourceMap src;
  src.add("p.cairn", "\xEF\xBB\xBF" "first\r\nsecond\rthird\r\n");
  EXPECT_EQ(src.line("p.cairn", 1).value(), "first");  // no BOM, no \r
  EXPECT_EQ(src.line("p.cairn", 2).value(), "second");
  EXPECT_EQ(src.line("p.cairn", 3).value(), "third");
  EXPECT_FALSE(src.line("p.cairn", 4).has_value());
  Diags d;
  d.error(Loc{2, 1}, "E-NAME", "unknown name second");
  EXPECT_EQ(printed(d, src),
            "p.cairn:2:1: error: unknown name second [E-NAME]\n"
            "    2 | second\n"
            "      | ^~~~~~\n");
}

TEST(DiagSource, WithoutSourceTheOldForm) {
  Diags d;
  d.error(Loc{1, 2}, "E-NAME", "m").note(Loc{1, 1}, "n");
  std::ostringstream os;
  d.print(os, "p.cairn");
  EXPECT_EQ(os.str(), "p.cairn:1:2: error: m [E-NAME]\np.cairn:1:1: note: n\n");
}

TEST(DiagSource, LongLineIsWindowed) {
  std::string line(1000, 'a');
  line[600] = ' ';
  line.replace(601, 3, "bad");
  line[604] = ' ';
  SourceMap src;
  src.add("p.cairn", line + "\n");
  Diags d;
  d.error(Loc{1, 602}, "E-NAME", "unknown name bad");
  std::string out = printed(d, src);
  std::istringstream is(out);
  std::string first, quoted, caret;
  std::getline(is, first);
  std::getline(is, quoted);
  std::getline(is, caret);
  EXPECT_LT(quoted.size(), 200u);
  EXPECT_EQ(quoted.substr(8, 3), "...");
  ASSERT_NE(caret.find('^'), std::string::npos);
  EXPECT_EQ(quoted.substr(caret.find('^'), 3), "bad");
  EXPECT_EQ(caret.substr(caret.find('^')), "^~~");
}

// The CAIRN parser gives its errors the span of the token they are at.
TEST(DiagSource, ParseErrorSpansItsToken) {
  std::string text = "fn add(a:u64 -> u64) -> u64 = a;\nfn main() -> i32 { return 0; }\n";
  Module m;
  Diags d;
  ASSERT_FALSE(lowerCairn("p.cairn", text, m, d));
  ASSERT_FALSE(d.empty());
  const Diagnostic &e = d.list()[0];
  EXPECT_EQ(e.rule, "E-PARSE");
  EXPECT_EQ(e.loc.line, 1u);
  EXPECT_EQ(e.loc.col, 14u);
  EXPECT_EQ(e.end.line, 1u);
  EXPECT_EQ(e.end.col, 16u);  // just past `->`
  SourceMap src;
  src.add("p.cairn", text);
  std::string out = printed(d, src);
  EXPECT_NE(out.find("    1 | fn add(a:u64 -> u64) -> u64 = a;\n      |              ^~\n"), std::string::npos) << out;
}

TEST(DiagSource, JsonHasCodeAndEnds) {
  Diags d;
  d.error(Loc{2, 3}, "E-MOVED", "body was moved.").span(Loc{2, 7}).note(Loc{1, 5}, "moved here", {}, Loc{1, 9});
  d.error(Loc{4, 1}, "E-NAME", "no span").note(Loc{3, 1}, "no span either");
  nlohmann::json j = d.toJson();
  EXPECT_EQ(j[0]["rule"], "E-MOVED");
  EXPECT_EQ(j[0]["code"], "E-MOVED");
  EXPECT_EQ(j[0]["end_line"], 2);
  EXPECT_EQ(j[0]["end_col"], 7);
  EXPECT_EQ(j[0]["notes"][0]["end_line"], 1);
  EXPECT_EQ(j[0]["notes"][0]["end_col"], 9);
  EXPECT_FALSE(j[1].contains("end_line"));
  EXPECT_FALSE(j[1]["notes"][0].contains("end_col"));
  EXPECT_EQ(j[1]["line"], 4);
  EXPECT_EQ(j[1]["message"], "no span");
}

}  // namespace
}  // namespace cairn
