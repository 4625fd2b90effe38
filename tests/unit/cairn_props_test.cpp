// Properties of the checking layer over the whole golden corpus
// (tests/cairn/run/*.cairn, every program that must check and run):
//   1. inserting a use of an owner or linear value right after the
//      statement that moves it gives E-MOVED at that line;
//   2. deleting the statement `f(x);` that consumes a linear x gives
//      E-LINEAR-LEAK (or E-LINEAR-BRANCH where another path consumes it).
// The moves come from the checker itself (LowerOptions::moves); each
// mutant is a new program text run through lowerCairn.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lower/lower.hpp"

namespace cairn {
namespace {

std::string slurp(const std::filesystem::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Byte offset of (line, col), both 1-based.
size_t offsetOf(const std::string &t, uint32_t line, uint32_t col) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line && pos != std::string::npos; ++l) {
    pos = t.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  return pos == std::string::npos ? t.size() : std::min(t.size(), pos + (col ? col - 1 : 0));
}

bool hasError(const Diags &d, const char *code, uint32_t line) {
  for (const Diagnostic &x : d.list())
    if (x.rule == code && (line == 0 || x.loc.line == line) && x.file.find("std/") == std::string::npos) return true;
  return false;
}

std::vector<std::filesystem::path> corpus() {
  std::vector<std::filesystem::path> out;
  for (const auto &e : std::filesystem::directory_iterator(std::filesystem::path(CAIRN_SOURCE_DIR) / "tests/cairn/run"))
    if (e.path().extension() == ".cairn") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Checks one program and collects the moves the checker saw.
bool checkCollectingMoves(const std::filesystem::path &path, const std::string &text,
                          std::vector<check::MoveEvent> &moves) {
  Module m;
  Diags d;
  LowerOptions o;
  o.checkAll = true;
  o.moves = &moves;
  return lowerCairn(path.string(), text, m, d, o);
}

// The diagnostics of a mutant.
Diags checkMutant(const std::filesystem::path &path, const std::string &mutant) {
  Module m;
  Diags d;
  LowerOptions o;
  o.checkAll = true;
  lowerCairn(path.string(), mutant, m, d, o);
  return d;
}

TEST(CairnProps, UseAfterEveryMoveIsEMoved) {
  size_t mutants = 0;
  for (const auto &path : corpus()) {
    std::string text = slurp(path);
    std::vector<check::MoveEvent> moves;
    ASSERT_TRUE(checkCollectingMoves(path, text, moves)) << path;
    std::set<std::pair<uint32_t, std::string>> done;
    for (const check::MoveEvent &mv : moves) {
      if (mv.revives || !done.insert({mv.stmt.endLine, mv.name}).second) continue;
      std::string mutant = text;
      mutant.insert(offsetOf(text, mv.stmt.endLine, mv.stmt.endCol), " let cairn_probe_use = " + mv.name + ";");
      Diags d2 = checkMutant(path, mutant);
      ++mutants;
      EXPECT_TRUE(hasError(d2, "E-MOVED", mv.stmt.endLine))
          << path.filename() << ": a use of " << mv.name << " after its move at line " << mv.at.line
          << " (inserted after line " << mv.stmt.endLine << ") was not refused with E-MOVED";
    }
  }
  EXPECT_GT(mutants, 100u);  // the corpus moves owners in many places
  std::cout << "[ props ] " << mutants << " use-after-move mutants\n";
}

TEST(CairnProps, RemovingALinearConsumerLeaks) {
  size_t mutants = 0, leaks = 0;
  for (const auto &path : corpus()) {
    std::string text = slurp(path);
    std::vector<check::MoveEvent> moves;
    ASSERT_TRUE(checkCollectingMoves(path, text, moves)) << path;
    for (const check::MoveEvent &mv : moves) {
      if (!mv.linear || !mv.stmtIsCall) continue;
      std::string mutant = text;
      size_t b = offsetOf(text, mv.stmt.line, mv.stmt.col), e = offsetOf(text, mv.stmt.endLine, mv.stmt.endCol);
      for (size_t i = b; i < e; ++i)
        if (mutant[i] != '\n') mutant[i] = ' ';
      Diags d2 = checkMutant(path, mutant);
      ++mutants;
      bool leak = hasError(d2, "E-LINEAR-LEAK", 0);
      leaks += leak;
      EXPECT_TRUE(leak || hasError(d2, "E-LINEAR-BRANCH", 0))
          << path.filename() << ": removing the consumer of " << mv.name << " at line " << mv.stmt.line
          << " was not refused";
    }
  }
  EXPECT_GT(mutants, 5u);
  std::cout << "[ props ] " << mutants << " removed linear consumers, " << leaks << " refused as E-LINEAR-LEAK\n";
}

}  // namespace
}  // namespace cairn
