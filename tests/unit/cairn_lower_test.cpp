// The CAIRN front end's invariants over the whole golden corpus, and its
// answers to a few programs checked through the API rather than the CLI.
//
// For every tests/cairn/run/*.cairn: lowering succeeds; the oracle accepts
// every lowered function; every node has a CAIRN origin; the printed module
// parses back to the same text (print is a fixed point); and running it
// twice gives the same exit value and output (the interpreter holds no state
// between runs). The golden runner checks the values themselves.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec/module_interp.hpp"
#include "ir/module.hpp"
#include "lower/lower.hpp"
#include "oracle/module.hpp"

namespace cairn {
namespace {

std::string slurp(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string diagText(const Diags &d) {
  std::ostringstream os;
  d.print(os, "t.cairn");
  return os.str();
}

bool usesExtern(const Module &m) {
  for (const Function &f : m.funcs)
    if (f.external) return true;
  return false;
}

TEST(CairnLower, GoldenCorpusInvariants) {
  std::filesystem::path dir = std::filesystem::path(CAIRN_SOURCE_DIR) / "tests" / "cairn" / "run";
  size_t seen = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".cairn") continue;
    ++seen;
    SCOPED_TRACE(entry.path().filename().string());
    std::string text = slurp(entry.path());
    Module m;
    Diags d;
    ASSERT_TRUE(lowerCairn(entry.path().string(), text, m, d)) << diagText(d);
    ModuleFacts facts;
    Diags od;
    ASSERT_TRUE(validateModule(m, facts, od)) << diagText(od) << printModule(m);
    for (const Function &f : m.funcs) {
      if (f.external) continue;
      EXPECT_EQ(f.origin.size(), f.body.size()) << f.name;
    }
    std::string printed = printModule(m);
    Module m2;
    Diags pd;
    ASSERT_TRUE(parseModule(printed, m2, pd)) << diagText(pd);
    EXPECT_EQ(printModule(m2), printed);
    // As `cairn run` lowers it (no line comments): the same module less its
    // comments, and none of them written.
    LowerOptions quiet;
    quiet.lineComments = false;
    Module mq;
    Diags dq;
    ASSERT_TRUE(lowerCairn(entry.path().string(), text, mq, dq, quiet)) << diagText(dq);
    size_t commented = 0;
    for (Function &f : m2.funcs)
      for (uint32_t i = 0; i < f.body.size(); ++i)
        if (f.body.commentsOf(NodeId{i})) ++commented, f.body.comments(NodeId{i}) = {};
    EXPECT_GT(commented, 0u);
    EXPECT_EQ(printModule(mq), printModule(m2));
    if (usesExtern(m)) continue;  // their output goes around the stream
    auto once = [&](std::string &out) {
      std::ostringstream os;
      ModuleRunOptions opts;
      opts.out = &os;
      ModuleRunResult r = runModule(m, facts, opts);
      out = os.str();
      return r;
    };
    std::string out1, out2;
    ModuleRunResult r1 = once(out1), r2 = once(out2);
    EXPECT_EQ(r1.status, r2.status);
    EXPECT_EQ(r1.value, r2.value);
    EXPECT_EQ(out1, out2);
    if (r1.status == ModuleRunResult::Status::Ok) EXPECT_EQ(r1.leaked, 0u);
  }
  EXPECT_GT(seen, 100u);
}

// Lowers `src`; returns the diagnostics' text ("" when it lowered).
std::string lowerErrors(const std::string &src) {
  Module m;
  Diags d;
  if (lowerCairn("t.cairn", src, m, d)) return "";
  d.sort();
  return diagText(d);
}

TEST(CairnLower, ErrorsAreLocatedAndCoded) {
  EXPECT_NE(lowerErrors("fn main() -> i32 { return zz; }").find("t.cairn:1:27: error: unknown name zz [E-NAME]"),
            std::string::npos);
  EXPECT_NE(lowerErrors("fn main() -> i32 { let x:u8 = 300; return 0; }").find("[E-TYPE]"), std::string::npos);
  EXPECT_NE(lowerErrors("fn f(a:u32) -> u32 = a;\nfn main() -> i32 { let b:u64 = 1; return i32(f(b)); }")
                .find("t.cairn:2:48: error: Expected u32, got u64. [E-TYPE-MISMATCH]"),
            std::string::npos);
  EXPECT_NE(lowerErrors("fn main() -> u8 { return 0; }").find("[E-MAIN]"), std::string::npos);
  EXPECT_NE(lowerErrors("fn main() -> i32 { parallel i in 4 { } return 0; }").find("[E-UNSUPPORTED]"),
            std::string::npos);
}

TEST(CairnLower, ImportedModulesReportTheirOwnFile) {
  LowerOptions opts;
  opts.stdDir = "/nonexistent-std";
  Module m;
  Diags d;
  EXPECT_FALSE(lowerCairn("t.cairn", "import std.vec (Vec);\nfn main() -> i32 { return 0; }", m, d, opts));
  EXPECT_NE(diagText(d).find("[E-IMPORT]"), std::string::npos) << diagText(d);
}

// Source lines become node comments; a line that ends (or starts) in a
// control character must still print as a comment the reader gives back
// unchanged (found by cairn_fuzz_src: a form feed after `// trap: ...`).
TEST(CairnLower, SourceCommentsAreAPrintFixedPoint) {
  for (const char *tail : {"\f", "\v", "\x01", " \x7f", "\t\r", "\x1b[0m"}) {
    // A lone "\r" ends a line (the lexer reads CR line ends), so the tail is
    // put before "done" only when it holds none; "\t\r\n" is a CRLF line end.
    std::string mid = std::string(tail).find('\r') == std::string::npos ? tail : "";
    std::string src = std::string("fn main() -> i32 {\n  let mut x:u32 = 2; // note") + tail +
                      "\n  x = x + 1; //" + tail + "\n  return 0; // " + mid + "done\n}\n";
    Module m;
    Diags d;
    ASSERT_TRUE(lowerCairn("t.cairn", src, m, d)) << diagText(d);
    std::string printed = printModule(m);
    Module m2;
    Diags pd;
    ASSERT_TRUE(parseModule(printed, m2, pd)) << printed;
    EXPECT_EQ(printModule(m2), printed);
    EXPECT_NE(printed.find("# line 2: let mut x:u32 = 2; // note"), std::string::npos) << printed;
    EXPECT_EQ(printed.find(" \n"), std::string::npos) << printed;
  }
}

// Runs `src` (lowered, validated) and gives its output.
std::string runOutput(const std::string &src) {
  Module m;
  Diags d;
  if (!lowerCairn("t.cairn", src, m, d)) return "lowering failed: " + diagText(d);
  ModuleFacts facts;
  Diags od;
  if (!validateModule(m, facts, od)) return "refused: " + diagText(od);
  std::ostringstream os;
  ModuleRunOptions opts;
  opts.out = &os;
  ModuleRunResult r = runModule(m, facts, opts);
  if (r.status != ModuleRunResult::Status::Ok) return "run failed: " + r.message;
  return os.str();
}

// The code after each early exit of a statement list is a region nested in
// the one before, carrying the cells that the rest of the list mentions
// (FnLowerer::restNames, which finds each name's last mention once per
// list). f: 240 returns, a cell (y) that only the first half writes,
// cells declared between the exits; g: breaks and continues in a loop's
// body, whose last statement writes a cell the loop carries (a region that
// failed to carry it would lose the write). Every n up to past the last
// exit, against the same code in C++.
uint64_t earlyExitsF(uint64_t n, int k) {
  uint64_t x = 0, y = 5;
  for (int j = 0; j < k; ++j) {
    if (j < k / 2) x += y, y += 1;
    else x += 2;
    if (j % 40 == 7) x += x * 3 % 1000;
    if (n == static_cast<uint64_t>(j)) return x;
  }
  return x + y;
}
uint64_t earlyExitsG(uint64_t n, int m) {
  uint64_t s = 0, i = 0;
  while (i < 5) {
    i += 1;
    bool skipped = false;
    for (int j = 0; j < m && !skipped; ++j) {
      s += static_cast<uint64_t>(j % 5);
      if (s > n + static_cast<uint64_t>(j)) return s * 100 + i;
      skipped = j % 13 == 0 && s == static_cast<uint64_t>(j);  // the CAIRN loop's continue
    }
    if (!skipped) s += 1;  // the last statement: its write must leave the innermost region
  }
  return s * 100 + i;
}

TEST(CairnLower, CodeAfterManyEarlyExitsCarriesWhatTheRestMentions) {
  const int k = 240, m = 60;
  std::string src = "fn f(n:u64) -> u64 {\n  let mut x: u64 = 0;\n  let mut y: u64 = 5;\n";
  for (int j = 0; j < k; ++j) {
    std::string J = std::to_string(j);
    src += j < k / 2 ? "  x = x + y;\n  y = y + 1;\n" : "  x = x + 2;\n";
    if (j % 40 == 7) src += "  let mut t" + J + ": u64 = x;\n  t" + J + " = t" + J + " * 3 % 1000;\n  x = x + t" + J + ";\n";
    src += "  if n == " + J + " { return x; }\n";
  }
  src += "  return x + y;\n}\nfn g(n:u64) -> u64 {\n  let mut s: u64 = 0;\n  let mut i: u64 = 0;\n  while i < 5 {\n    i = i + 1;\n";
  for (int j = 0; j < m; ++j) {
    std::string J = std::to_string(j);
    src += "    s = s + " + std::to_string(j % 5) + ";\n    if s > n + " + J + " { break; }\n";
    if (j % 13 == 0) src += "    if s == " + J + " { continue; }\n";
  }
  src += "    s = s + 1;\n  }\n  return s * 100 + i;\n}\nfn main() -> i32 {\n  let mut n: u64 = 0;\n  while n < 245 {\n"
         "    println(f(n));\n    println(g(n));\n    n = n + 1;\n  }\n  return 0;\n}\n";
  std::string want;
  for (uint64_t n = 0; n < 245; ++n)
    want += std::to_string(earlyExitsF(n, k)) + "\n" + std::to_string(earlyExitsG(n, m)) + "\n";
  EXPECT_EQ(runOutput(src), want);
}

// Each early exit nests the rest one region deeper: past the limit the
// function is refused, and lowering goes no deeper (it used to recurse on
// until the native stack ran out: a crash at about 20,000 exits).
TEST(CairnLower, TooManyNestedRegionsAreRefusedNotACrash) {
  std::string src = "fn f(n:u64) -> u64 {\n  let mut x: u64 = 0;\n";
  for (int j = 0; j < 30000; ++j) src += "  x = x + 1;\n  if n == " + std::to_string(j) + " { return x; }\n";
  src += "  return x;\n}\nfn main() -> i32 {\n  println(f(3));\n  return 0;\n}\n";
  std::string e = lowerErrors(src);
  EXPECT_NE(e.find("this function nests more than 4000 regions"), std::string::npos) << e.substr(0, 400);
  EXPECT_NE(e.find("[E-LIMIT]"), std::string::npos) << e.substr(0, 400);
}

// Each `let aI: usize = aJ + 1` spells out the one before in its canonical
// text (the checker's extents, check/places.cpp), which is capped: a chain
// of 3000 is checked in linear time, still runs, and still has its extent
// compared (a mismatch is still an error, with a readable text).
TEST(CairnLower, LongChainsOfLetsKeepTheirExtentsShort) {
  auto chain = [](const std::string &use) {
    std::string src = "fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 pure {\n  let mut sum:u32 = 0;\n"
                      "  for byte in bytes { sum = add_wrap(sum, u32(byte)); }\n  return sum;\n}\n"
                      "fn f(n:usize) -> usize {\n  let a0: usize = n;\n";
    for (int i = 1; i < 3000; ++i)
      src += "  let a" + std::to_string(i) + ": usize = a" + std::to_string(i - 1) + " + 1;\n";
    return src + use + "}\nfn main() -> i32 {\n  println(f(7));\n  return 0;\n}\n";
  };
  EXPECT_EQ(runOutput(chain("  return a2999;\n")), "3006\n");
  std::string e = lowerErrors(chain("  return usize(checksum(a2999, \"abcd\"));\n"));
  EXPECT_NE(e.find("[E-TYPE-MISMATCH]"), std::string::npos) << e.substr(0, 600);
  EXPECT_NE(e.find("got ro<u8>[4]@host"), std::string::npos) << e.substr(0, 600);
  EXPECT_LT(e.size(), 2000u) << e.substr(0, 600);
}

// A loop's break and continue flags die with the loop: a region that may
// set flags carries the flag cells still live, not those of every loop
// before it. 300 loops in a row, each with a break and a continue, lowered
// to 546,000 carries before (quadratic: 2,000 such loops took 18 s and 1.8
// GB), and to 7,800 now; the program's answer is checked as well.
TEST(CairnLower, SequentialLoopsCarryOnlyTheFlagsStillLive) {
  const int k = 300;
  std::string src = "fn f(n: u64) -> u64 {\n  let mut s: u64 = 0;\n  let mut i: u64 = 0;\n";
  uint64_t want = 0;
  for (int j = 0; j < k; ++j) {
    const uint64_t stop = 2 + static_cast<uint64_t>(j % 4), skip = static_cast<uint64_t>(j % 3);
    src += "  i = 0;\n  while i < n {\n    i = i + 1;\n    if i == " + std::to_string(skip) + " { continue; }\n" +
           "    if i > " + std::to_string(stop) + " { break; }\n    s = add_wrap(mul_wrap(s, 3), i);\n  }\n";
    for (uint64_t i = 1; i <= 7; ++i) {  // n = 7
      if (i == skip) continue;
      if (i > stop) break;
      want = want * 3 + i;  // wraps, as mul_wrap and add_wrap
    }
  }
  src += "  return s;\n}\nfn main() -> i32 {\n  println(f(7));\n  return 0;\n}\n";
  EXPECT_EQ(runOutput(src), std::to_string(want) + "\n");
  Module m;
  Diags d;
  ASSERT_TRUE(lowerCairn("t.cairn", src, m, d)) << diagText(d);
  size_t carries = 0;
  for (const Function &fn : m.funcs)
    for (uint32_t n = 0; n < fn.body.size(); ++n) carries += fn.body.op(NodeId{n}) == Op::Carry ? 1 : 0;
  EXPECT_LT(carries, 40u * k);  // 26 a loop: its regions carry s, i and its own two flags
}

// A read of a cell whose current version a store just made is the stored
// value (Storage::stored, lower/build.cpp): straight-line code after a
// store reads no cell. A read of a version carried into a region, or
// rebuilt after one, or written through a borrow, is still a load; the
// answers are checked too.
TEST(CairnLower, ReadsAfterAStoreTakeTheStoredValue) {
  auto loads = [](const std::string &src, const char *fn) {
    Module m;
    Diags d;
    EXPECT_TRUE(lowerCairn("t.cairn", src, m, d)) << diagText(d);
    size_t n = 0;
    for (const Function &f : m.funcs)
      if (f.name == fn)
        for (uint32_t i = 0; i < f.body.size(); ++i) n += f.body.op(NodeId{i}) == Op::Load ? 1 : 0;
    return n;
  };
  const std::string main = "fn main() -> i32 {\n  println(f(5));\n  return 0;\n}\n";
  const std::string straight = "struct P { a:u64; b:u64; }\nfn f(x:u64) -> u64 {\n  let mut a:u64 = x + 1;\n"
                               "  a = a * 3;\n  a += a;\n  let mut p = P(a, 2);\n  p.b = p.a + p.b;\n  return p.b + a;\n}\n";
  EXPECT_EQ(loads(straight + main, "f"), 0u);
  EXPECT_EQ(runOutput(straight + main), "74\n");
  // In a loop the cell is carried: each iteration reads the version it
  // carries in. After the loop, the rebuilt version is read.
  const std::string loop = "fn f(x:u64) -> u64 {\n  let mut a:u64 = x;\n  for i in 0..4 { a = a * 2 + u64(i); }\n"
                           "  return a;\n}\n";
  EXPECT_EQ(loads(loop + main, "f"), 2u);
  EXPECT_EQ(runOutput(loop + main), "91\n");
  // Written through a borrow: the call's version is read, not the value
  // stored before it.
  const std::string lent = "fn bump(v:rw<u64>) { v += 7; }\nfn f(x:u64) -> u64 {\n  let mut a:u64 = x;\n"
                           "  bump(a);\n  return a;\n}\n";
  EXPECT_EQ(loads(lent + main, "f"), 1u);
  EXPECT_EQ(runOutput(lent + main), "12\n");
}

TEST(CairnLower, GarbageNeverCrashes) {
  std::string bytes;
  uint32_t x = 12345;
  for (int round = 0; round < 300; ++round) {
    bytes.clear();
    for (int i = 0; i < 200; ++i) {
      x = x * 1103515245u + 12345u;
      bytes.push_back(static_cast<char>(x >> 16));
    }
    Module m;
    Diags d;
    EXPECT_FALSE(lowerCairn("t.cairn", bytes, m, d));
    EXPECT_FALSE(d.empty());
  }
}

}  // namespace
}  // namespace cairn
