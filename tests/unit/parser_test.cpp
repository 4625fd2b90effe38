// The .uir reader: every op parses; every syntax error names its line and
// column, what was expected and what was found; recovery reports one error
// per bad line; comments are kept; hostile bytes never crash it.
#include <gtest/gtest.h>

#include <cctype>

#include <string>
#include <utility>
#include <vector>

#include "ir/parser.hpp"
#include "ir/printer.hpp"

using namespace cairn;

namespace {

struct Parsed {
  Graph g;
  Diags d;
  bool ok = false;
};

Parsed parse(std::string_view text) {
  Parsed p;
  p.ok = parseUir(text, p.g, p.d);
  return p;
}

// The single diagnostic of `text`, as "LINE:COL: MESSAGE [RULE]".
std::string oneError(std::string_view text) {
  Parsed p = parse(text);
  EXPECT_FALSE(p.ok) << text;
  if (p.d.size() != 1) {
    ADD_FAILURE() << "expected one diagnostic, got " << p.d.size() << " for:\n" << text;
    return {};
  }
  const Diagnostic &d = p.d.list()[0];
  return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message + " [" + d.rule + "]";
}

}  // namespace

TEST(Parser, EveryOpParses) {
  for (int i = 0; i < numOps(); ++i) {
    Op op = static_cast<Op>(i);
    const OpInfo &info = opInfo(op);
    std::string text = "%v = const 1 dtype=i32\n%r = range 4\n";
    std::string line = "%x = " + std::string(info.name);
    if (op == Op::Reduce) line += " add";
    int args = info.minArgs;
    for (int k = 0; k < args; ++k) line += (op == Op::End && k == 0) ? " %r" : " %v";
    if (op == Op::Call) line += " fn=f";
    if (op == Op::Guard) line += " msg=\"a \\\"b\\\" # c\"";
    if (op == Op::Alloc) line += " cols=[i32 own]";
    if (op == Op::Buffer || op == Op::Cast || op == Op::Const || op == Op::Param || op == Op::VParam || op == Op::Deref ||
        op == Op::CheckedCast)
      line += " dtype=f32";
    if (op == Op::Shrink || op == Op::CShrink) line += " shape=[]";
    if (op == Op::Range) line += " parallel";
    text += line + "\n";
    if (op == Op::Range) text += "%e2 = end %x\n";
    if (op != Op::End) text += "%e = end %r\n";
    Parsed p = parse(text);
    ASSERT_TRUE(p.ok) << text << (p.d.empty() ? "" : p.d.list()[0].message);
    NodeId x{2};
    EXPECT_EQ(p.g.op(x), op) << text;
    EXPECT_EQ(p.g.name(x), "x");
    EXPECT_EQ(p.g.operands(x).size(), static_cast<size_t>(args));
    EXPECT_EQ(nodeText(p.g, x), line) << "the printer writes what the reader read";
  }
}

// The reader's parseOp, for a word inside a text, loads 16 bytes at once
// where the text has them and cuts them to the word: it agrees with the
// word alone whatever bytes follow (and falls back where fewer than 16 do).
TEST(Parser, ParseOpInATextAgreesWithTheWordAlone) {
  std::vector<std::string> words = {"", "x", std::string(17, 'a')};
  for (int i = 0; i < numOps(); ++i) {
    const std::string name(opInfo(static_cast<Op>(i)).name);
    for (size_t n = 1; n <= name.size(); ++n) words.push_back(name.substr(0, n));
    words.push_back(name + "x");
    words.push_back(name + std::string(1, '\0'));
    std::string upper = name;
    for (char &c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    words.push_back(upper);
  }
  for (const std::string &w : words)
    for (std::string tail : {std::string(), std::string(3, ' '), std::string(20, ' '), std::string(20, 'a'),
                             std::string(20, '\0'), std::string(20, '\xff')}) {
      const std::string text = w + tail;
      Op alone = Op::Add, inText = Op::Add;
      const bool a = parseOp(w, alone);
      const bool b = parseOp(std::string_view(text.data(), w.size()), text.data() + text.size(), inText);
      EXPECT_EQ(a, b) << "`" << w << "` + " << tail.size() << " bytes";
      EXPECT_EQ(alone, inText) << "`" << w << "`";
    }
}

// parseOp (ir/graph.cpp) packs a name into two words and its length:
// exactly the op names are accepted, never a prefix, an extension (a letter,
// a NUL byte, a name past 16 bytes) or a name in another case.
TEST(Parser, ParseOpAcceptsExactlyTheOpNames) {
  auto isName = [](std::string_view s) {
    for (int i = 0; i < numOps(); ++i)
      if (opInfo(static_cast<Op>(i)).name == s) return true;
    return false;
  };
  Op got{};
  EXPECT_FALSE(parseOp("", got));
  for (int i = 0; i < numOps(); ++i) {
    const std::string name(opInfo(static_cast<Op>(i)).name);
    ASSERT_TRUE(parseOp(name, got)) << name;
    EXPECT_EQ(got, static_cast<Op>(i)) << name;
    for (size_t n = 1; n < name.size(); ++n) {
      Op before = got;
      EXPECT_EQ(parseOp(name.substr(0, n), got), isName(name.substr(0, n))) << name.substr(0, n);
      if (!isName(name.substr(0, n))) {
        EXPECT_EQ(got, before) << "a failed lookup leaves out alone";
      }
    }
    for (std::string tail : {std::string("x"), std::string(1, '\0'), std::string(16, 'a')})
      EXPECT_EQ(parseOp(name + tail, got), isName(name + tail)) << name << " + " << tail.size() << " bytes";
    std::string upper = name;
    for (char &c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_FALSE(parseOp(upper, got)) << upper;
  }
  for (std::string_view bad : {"a", "ad", "loadd", "checked_shrinkk", "checked_shrink_x", "\xff\xfe"})
    EXPECT_FALSE(parseOp(bad, got)) << bad;
}

TEST(Parser, AttributesAndOperands) {
  Parsed p = parse("%b = buffer 3 dtype=u64 slot=7 data=[18446744073709551615, 0 , 1]\n"
                   "%v = shrink %b 1 shape=[1 1]\n"
                   "%i = range 3 parallel\n"
                   "%e = end %i\n"
                   "%t = reduce max %e 1.5\n");
  ASSERT_TRUE(p.ok);
  NodeId b{0}, v{1}, i{2}, t{4};
  EXPECT_EQ(p.g.dtype(b), DType::U64);
  EXPECT_EQ(p.g.slot(b), 7);
  ASSERT_TRUE(p.g.hasData(b));
  ASSERT_EQ(p.g.data(b).size(), 3u);
  EXPECT_EQ(p.g.data(b)[0].magnitude, UINT64_MAX);
  EXPECT_TRUE(p.g.shapeGiven(v));
  EXPECT_EQ(p.g.dims(v).size(), 2u);
  EXPECT_EQ(p.g.operands(v)[0].node(), b);
  EXPECT_TRUE(p.g.operands(v)[1].isLit());
  EXPECT_EQ(p.g.operandCol(v, 0), 13u);
  EXPECT_EQ(p.g.operandCol(v, 1), 16u);
  EXPECT_TRUE(p.g.parallel(i));
  EXPECT_EQ(p.g.reduceOp(t), Op::Max);
  EXPECT_EQ(p.g.loc(t).line, 5u);
  EXPECT_EQ(p.g.loc(t).col, 1u);
  EXPECT_EQ(p.g.slot(NodeId{0}), 7);
}

TEST(Parser, LoopRegions) {
  Parsed p = parse("%n = const 2 dtype=i64\n%i = range %n\n%j = range 3 parallel\n%x = add %i %j\n"
                   "%ej = end %j\n%ei = end %i\n%y = const 0 dtype=i32\n");
  ASSERT_TRUE(p.ok);
  EXPECT_FALSE(p.g.parent(NodeId{1}).valid());
  EXPECT_EQ(p.g.parent(NodeId{2}), NodeId{1});
  EXPECT_EQ(p.g.parent(NodeId{3}), NodeId{2});
  EXPECT_EQ(p.g.parent(NodeId{4}), NodeId{1});  // an end belongs to the region around its loop
  EXPECT_FALSE(p.g.parent(NodeId{5}).valid());
  EXPECT_FALSE(p.g.parent(NodeId{6}).valid());
}

TEST(Parser, ErrorsNameLineColumnExpectedFound) {
  EXPECT_EQ(oneError("%a = frob 1\n"), "1:6: unknown op `frob` [syntax]");
  EXPECT_EQ(oneError("\n\nx = add\n"), "3:1: expected `%NAME = OP ...` or a `#` comment, found `x` [syntax]");
  EXPECT_EQ(oneError("%a add 1\n"), "1:4: expected `=` after `%a`, found `add` [syntax]");
  EXPECT_EQ(oneError("% = add\n"), "1:2: expected a name after `%`, found `=` [syntax]");
  EXPECT_EQ(oneError("%a =\n"), "1:5: expected an op name, found the end of the line [syntax]");
  EXPECT_EQ(oneError("%a = const 1.5x dtype=f32\n"),
            "1:12: expected an operand (`%NAME` or a literal) or an attribute, found `1.5x` [syntax]");
  EXPECT_EQ(oneError("%b = buffer 4 dtype=i33\n"),
            "1:21: expected a dtype (bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64), found `i33` [syntax]");
  EXPECT_EQ(oneError("%b = buffer 4\n"), "1:1: `buffer` needs `dtype=T` [syntax]");
  EXPECT_EQ(oneError("%b = buffer 4 dtype=i32\n%v = shrink %b 0\n"),
            "2:1: `shrink` needs `shape=[...]` (`shape=[]` for one element) [syntax]");
  EXPECT_EQ(oneError("%b = buffer 2 dtype=i32 data=[1 2\n"), "1:34: expected `]` to close the list, found the end of the line [syntax]");
  EXPECT_EQ(oneError("%b = buffer 2 dtype=i32 data=[1 x]\n"),
            "1:33: expected a literal in `data=[...]`, found `x` [syntax]");
  EXPECT_EQ(oneError("%b = buffer 2 dtype=i32 slot=-1\n"),
            "1:30: expected a slot number (0 to 2147483647), found `-1` [syntax]");
  EXPECT_EQ(oneError("%a = add 1 2 parallel\n"), "1:14: `parallel` applies only to `range` [syntax]");
  EXPECT_EQ(oneError("%a = add 1 2 dtype=i32\n"), "1:14: unknown attribute `dtype=` for `add` [syntax]");
  EXPECT_EQ(oneError("%a = const 1 dtype=i32 dtype=i32\n"), "1:24: `dtype=` is given twice [syntax]");
  EXPECT_EQ(oneError("%r = range 2\n%e = end %r\n%t = reduce sub %e 1\n"),
            "3:13: expected the reduce op (add, mul, max, min, and, or, xor), found `sub` [syntax]");
  EXPECT_EQ(oneError("%a = add %b%c 1\n"), "1:12: unexpected character after `%b`, found `%c` [syntax]");
}

TEST(Parser, NameErrors) {
  EXPECT_EQ(oneError("%a = add %b 1\n"), "1:10: %b is not defined [name]");
  EXPECT_EQ(oneError("%a = add %a 1\n"), "1:10: %a is used in its own definition [name]");
  Parsed p = parse("%a = add %b 1\n%b = const 1 dtype=i32\n");
  ASSERT_EQ(p.d.size(), 1u);
  EXPECT_EQ(p.d.list()[0].message, "%b is used before it is defined");
  ASSERT_EQ(p.d.list()[0].notes.size(), 1u);
  EXPECT_EQ(p.d.list()[0].notes[0].loc.line, 2u);
  p = parse("%a = const 1 dtype=i32\n%a = const 2 dtype=i32\n");
  ASSERT_EQ(p.d.size(), 1u);
  EXPECT_EQ(p.d.list()[0].loc.line, 2u);
  EXPECT_EQ(p.d.list()[0].message, "%a is defined twice");
  EXPECT_EQ(p.d.list()[0].notes[0].loc.line, 1u);
}

// In a graph whose name table outgrows the cache, references are looked
// up three ways (NameTable::cached, NameTable::near, the deferred ring):
// every kind of reference, early and late in the text, resolves to the
// right node or gives its error, and the errors come in the order of the
// text.
TEST(Parser, ReferencesInALargeGraph) {
  constexpr int kNodes = 400000, kHole = 350000;
  std::string text = "%v0 = const 1 dtype=i64\n";
  std::vector<std::pair<int, std::string>> want;  // line, message
  auto line = [&](int k, const std::string &rhs) { text += "%v" + std::to_string(k) + " = " + rhs + "\n"; };
  for (int k = 1; k < kNodes; ++k) {
    const int ln = k + 1;
    auto bad = [&](const std::string &ref, const std::string &msg) {
      line(k, "add " + ref + " 1");
      want.push_back({ln, ref + " " + msg});
    };
    if (k == kHole) {
      text += "%u" + std::to_string(k) + " = const 2 dtype=i64\n";  // %v<kHole> is never defined
    } else if (k == 1000 || k == 300000) {
      bad("%v" + std::to_string(k + 1), "is used before it is defined");
    } else if (k == 2000 || k == 310000 || k == 330001) {  // (330001: right after a deferred failure)
      bad("%v" + std::to_string(k), "is used in its own definition");
    } else if (k == 3000 || k == 320000 || k == 330000) {
      bad("%w" + std::to_string(k), "is not defined");
    } else if (k == kHole + 10) {
      bad("%v" + std::to_string(kHole), "is not defined");
    } else if (k == kHole + 20) {
      bad("%zz_long_name_" + std::to_string(k), "is not defined");
    } else {
      const int far = k > 100000 ? k - 100000 : 0;  // a reference far back, and the one just before
      line(k, "add %v" + std::to_string(k - 1) + " %v" + std::to_string(far));
      if (k - 1 == kHole) want.push_back({ln, "%v" + std::to_string(kHole) + " is not defined"});
    }
  }
  Parsed p = parse(text);
  ASSERT_EQ(p.d.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(p.d.list()[i].loc.line, static_cast<uint32_t>(want[i].first)) << i;
    EXPECT_EQ(p.d.list()[i].message, want[i].second) << i;
  }
  for (int k : {5, 99999, 100001, 250000, 399999}) {  // the good references point at their nodes
    auto ops = p.g.operands(NodeId{static_cast<uint32_t>(k)});
    ASSERT_EQ(ops.size(), 2u) << k;
    EXPECT_EQ(ops[0].node().v, static_cast<uint32_t>(k - 1)) << k;
    EXPECT_EQ(ops[1].node().v, static_cast<uint32_t>(k > 100000 ? k - 100000 : 0)) << k;
  }
}

TEST(Parser, LoopErrors) {
  EXPECT_EQ(oneError("%r = range 2\n"), "1:1: the loop of %r is never closed by an `end` [loop]");
  EXPECT_EQ(oneError("%a = const 1 dtype=i32\n%e = end %a\n"), "2:1: `end` with no open `range` [loop]");
  Parsed p = parse("%i = range 2\n%j = range 2\n%ei = end %i\n%ej = end %j\n");
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.d.list()[0].message, "`end` closes %i but the innermost open loop is %j");
}

TEST(Parser, RecoversAndReportsEveryBadLine) {
  Parsed p = parse("%a = frob\n%b = const 1 dtype=i32\n%c = add %b 1 junk=1\nnonsense\n%d = add %b %b\n");
  ASSERT_EQ(p.d.size(), 3u);
  EXPECT_EQ(p.d.list()[0].loc.line, 1u);
  EXPECT_EQ(p.d.list()[1].loc.line, 3u);
  EXPECT_EQ(p.d.list()[2].loc.line, 4u);
}

TEST(Parser, CommentsAreKept) {
  std::string text =
      "# header\n"
      "#   indented note\n"
      "%a = const 1 dtype=i32   # one\n"
      "\n"
      "%b = add %a 2\n"
      "# the end\n";
  Parsed p = parse(text);
  ASSERT_TRUE(p.ok);
  const NodeComments *c = p.g.commentsOf(NodeId{0});
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->above.size(), 2u);
  EXPECT_EQ(c->above[0], "header");
  EXPECT_EQ(c->above[1], "  indented note");
  EXPECT_EQ(c->trailing, "one");
  EXPECT_EQ(p.g.commentsOf(NodeId{1}), nullptr);
  ASSERT_EQ(p.g.trailingComments().size(), 1u);
  EXPECT_EQ(p.g.trailingComments()[0], "the end");
  EXPECT_EQ(printUir(p.g), "# header\n#   indented note\n%a = const 1 dtype=i32  # one\n%b = add %a 2\n# the end\n");
}

TEST(Parser, IndentationTabsAndCrLfAreIgnored) {
  Parsed p = parse("\t%a = const 1 dtype=i32\r\n    %b\t=\tadd   %a\t2\r\n");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(printUir(p.g), "%a = const 1 dtype=i32\n%b = add %a 2\n");
}

TEST(Parser, EmptyAndCommentOnlyInputs) {
  EXPECT_TRUE(parse("").ok);
  EXPECT_TRUE(parse("\n\n   \n").ok);
  Parsed p = parse("# only a comment");
  EXPECT_TRUE(p.ok);
  EXPECT_EQ(p.g.size(), 0u);
}

TEST(Parser, HostileBytesNeverCrash) {
  std::string bin;
  for (int i = 0; i < 20000; ++i) bin += static_cast<char>((i * 7919 + 13) % 256);
  Parsed p = parse(bin);
  EXPECT_FALSE(p.ok);
  EXPECT_LE(p.d.size(), Diags::kLimit);
  // NUL bytes and invalid UTF-8 are shown escaped, never raw.
  p = parse(std::string("%a = \xff\x00z 1\n", 11));
  ASSERT_EQ(p.d.size(), 1u);
  EXPECT_EQ(p.d.list()[0].message.find('\0'), std::string::npos);
  EXPECT_NE(p.d.list()[0].message.find("\\x"), std::string::npos);
}

TEST(Parser, ErrorFloodIsCapped) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "junk\n";
  Parsed p = parse(text);
  EXPECT_EQ(p.d.size(), Diags::kLimit);
}

TEST(Parser, LongChainsParseInLinearTime) {
  std::string text = "%v0 = const 0 dtype=i64\n";
  for (int i = 1; i < 200000; ++i) text += "%v" + std::to_string(i) + " = add %v" + std::to_string(i - 1) + " 1\n";
  Parsed p = parse(text);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.g.size(), 200000u);
}

// ---- text as editors write it: byte order mark, CRLF, lone CR ----

// The same program with "\n", "\r\n" and "\r" line ends, and with a BOM:
// the same graph, the same printed text, errors at the same line:col.
TEST(ParserLineEnds, BomCrlfAndCrReadAsLf) {
  const std::string lf = "# sum\n%b = buffer 2 dtype=i32 slot=0 data=[1 2]\n%p = shrink %b 1 shape=[]\n%x = load %p  # b[1]\n";
  auto with = [&](const std::string &end, bool bom) {
    std::string s = bom ? "\xEF\xBB\xBF" : "";
    for (char c : lf) s += c == '\n' ? end : std::string(1, c);
    return s;
  };
  Parsed base = parse(lf);
  ASSERT_TRUE(base.ok);
  for (const char *end : {"\n", "\r\n", "\r"})
    for (bool bom : {false, true}) {
      std::string text = with(end, bom);
      Parsed p = parse(text);
      ASSERT_TRUE(p.ok) << "end " << int(end[0]) << " bom " << bom;
      EXPECT_EQ(p.g.size(), 3u);
      EXPECT_EQ(printUir(p.g), printUir(base.g));
      EXPECT_EQ(p.g.loc(NodeId{2}).line, 4u);
      EXPECT_EQ(p.g.loc(NodeId{0}).col, 1u);  // after the BOM
      EXPECT_TRUE(needsPlainText(text) == (bom || end[0] == '\r'));
      EXPECT_EQ(plainText(text), lf);
    }
  // An error on line 3, column 6, whatever the line ends.
  for (const char *text : {"%a = const 1 dtype=i32\r\n\r\n%b = frob %a\r\n", "%a = const 1 dtype=i32\r\r%b = frob %a\r",
                           "\xEF\xBB\xBF%a = const 1 dtype=i32\n\n%b = frob %a\n"})
    EXPECT_EQ(oneError(text), "3:6: unknown op `frob` [syntax]") << text;
  // A lone CR is a line end, not part of a comment: this is three nodes.
  Parsed cr = parse("# c\r%b = buffer 2 dtype=i32 slot=0\r%c = const 1 dtype=i32\r%d = const 2 dtype=i32");
  EXPECT_TRUE(cr.ok);
  EXPECT_EQ(cr.g.size(), 3u);
}

// Past the limit of 200 kept errors the reader still reads every line, so
// the count of those left out is exact.
TEST(ParserLimits, ErrorsPastTheLimitAreCounted) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "garbage\n";
  Parsed p = parse(text);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.d.size(), Diags::kLimit);
  EXPECT_EQ(p.d.dropped(), 1000 - Diags::kLimit);
}
