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
