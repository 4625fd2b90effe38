// cairn_filetest's shared terms: a test file as read (its language, its
// directives and expectations), the reporter that prints located failures,
// and the entry points of the runner's parts (directives.cpp reads a file,
// diagnostics.cpp checks errors and notes, flat.cpp runs flat graphs,
// modules.cpp modules and CAIRN programs, bless.cpp rewrites files).
// The grammar itself is described in tests/golden/README.md.
#pragma once
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diag.hpp"
#include "ir/dtype.hpp"

namespace cairn::filetest {

std::string_view trim(std::string_view s);
std::string quoted(std::string_view s);
// Whether `msg` contains `text`; ` ... ` in `text` skips any characters.
bool contains(std::string_view msg, std::string_view text);

enum class Lang { Flat, Module, Cairn };  // a flat .uir graph, a .uir module, a .cairn program
enum class Kind { Error, Note, Trap };

struct Expect {
  Kind kind;
  uint32_t line;
  std::string rule;    // Error only; empty: any rule (a rule name, or an E-code in CAIRN)
  std::string text;    // a substring of the message; may be empty for an error with a rule, and a trap
  std::string inputs;  // Trap of a flat graph only: the run it belongs to
};

// One run of a flat graph: the slot inputs and what it should print.
struct RunGroup {
  std::string inputs;  // canonical text, "" for the file's own data
  std::map<int64_t, std::vector<Literal>> slotData;
  std::vector<std::string> lines;  // expected output lines
  std::vector<uint32_t> srcLines;  // 0-based file lines of its `run` comments
  std::optional<Expect> trap;
};

struct TestFile {
  std::string path;
  Lang lang = Lang::Flat;
  std::string leader;              // "#" or "//"
  std::vector<std::string> lines;  // the file, split (without newlines)
  bool trailingNewline = true;
  enum class Mode { Check, Run } mode = Mode::Check;
  std::string xfail;  // the reason, when the test is expected to fail
  uint32_t xfailLine = 0;
  std::vector<Expect> expects;
  std::vector<RunGroup> groups;  // flat graphs
  // Modules and CAIRN programs.
  int exitStatus = 0;
  uint32_t exitLine = 0;  // 1-based line of `exit:`, 0: none
  bool haveStdout = false;
  std::vector<std::string> stdoutLines;
  std::vector<uint32_t> stdoutSrc;  // 0-based file lines of the `stdout:` comments
  uint32_t lastHeaderLine = 0;      // 0-based: the header's last directive (bless inserts after it)
  std::string spec;                 // `spec:` sentence
  uint32_t specLine = 0;
  uint64_t maxElements = 0;  // `max-elements: N`; 0: the default
};

// Counts failures and prints them located, to `os` (a buffer while a pass
// must stay quiet: --bless's first pass, an xfail test).
class Reporter {
 public:
  Reporter(std::string path, std::ostream &os) : path_(std::move(path)), os_(&os) {}
  std::ostream &at(uint32_t line, uint32_t col = 0) {
    ++failures_;
    *os_ << path_ << ':' << line;
    if (col) *os_ << ':' << col;
    return *os_ << ": ";
  }
  std::ostream &file() {
    ++failures_;
    return *os_ << path_ << ": ";
  }
  std::ostream &out() { return *os_; }
  int failures() const { return failures_; }

 private:
  std::string path_;
  std::ostream *os_;
  int failures_ = 0;
};

// Reads and parses a test file; false when it cannot be read.
bool readTestFile(const std::string &path, TestFile &tf, Reporter &rep);
// `0=5,6,7;1=3` -> slot data of a flat run.
bool parseInputs(std::string_view s, RunGroup &g, std::string &why);

// Every error expected, every expectation met (diagnostics.cpp). Errors and
// notes of another file (Diagnostic::file set: a std module) are never expected.
void checkDiagnostics(const TestFile &tf, const Diags &diags, Reporter &rep);
// The `spec:` sentence: some error holds it, numbers aside.
void checkSpec(const TestFile &tf, const Diags &diags, Reporter &rep);

// Which engines run: CAIRN_FILETEST_ENGINES, a comma list of `interp`, `c`
// and `cuda` (flat graphs, emulated on the CPU) (default: all).
bool engineEnabled(std::string_view name);

// One file of each language; `bless`: rewrite the run expectations.
// Return the new lines of the file in `blessed` (unchanged when nothing to bless).
void testFlat(TestFile &tf, Reporter &rep, bool bless, std::vector<std::string> &blessed);
void testModule(TestFile &tf, Reporter &rep, bool bless, std::vector<std::string> &blessed);

// bless.cpp: a line diff, and writing a file's lines back.
void printDiff(const std::string &path, const std::vector<std::string> &a, const std::vector<std::string> &b);
bool writeLines(const TestFile &tf, const std::vector<std::string> &lines);

}  // namespace cairn::filetest
