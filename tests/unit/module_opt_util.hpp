// Helpers of the module optimizer's tests (promote_test.cpp,
// self_loop_test.cpp): lowering a CAIRN text, running a module with and
// without the optimizations (ModuleRunOptions::optimize) and comparing
// everything the two runs report, unlimited and under step limits.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "exec/module_interp.hpp"
#include "exec/program.hpp"
#include "lower/lower.hpp"
#include "oracle/module.hpp"
#include "ir/module.hpp"

namespace cairn::moduleopt_test {

struct Outcome {
  RunResult r;
  std::string out;
};

inline Outcome runOnce(const Module &m, const ModuleFacts &facts, bool optimize, uint64_t maxSteps,
                       uint32_t laneBlock = 256) {
  std::ostringstream os;
  ModuleRunOptions o;
  o.out = &os;
  o.optimize = optimize;
  o.laneBlock = laneBlock;
  o.limits.maxSteps = maxSteps;
  o.limits.maxElements = uint64_t{1} << 24;
  Outcome res{runModule(m, facts, o), ""};
  res.out = os.str();
  return res;
}

// Compares the two engines' runs; returns the steps of the promoted one.
inline uint64_t expectSame(const Module &m, const ModuleFacts &facts, uint64_t maxSteps, const std::string &what,
                           uint32_t laneBlock = 256) {
  Outcome a = runOnce(m, facts, false, maxSteps), b = runOnce(m, facts, true, maxSteps, laneBlock);
  std::string ctx = what + " (max steps " + std::to_string(maxSteps) + ", lane block " + std::to_string(laneBlock) + ")";
  EXPECT_EQ(a.r.status, b.r.status) << ctx;
  EXPECT_EQ(a.r.message, b.r.message) << ctx;
  EXPECT_EQ(a.r.value, b.r.value) << ctx;
  EXPECT_EQ(a.out, b.out) << ctx;
  EXPECT_EQ(a.r.steps, b.r.steps) << ctx;
  EXPECT_EQ(a.r.function, b.r.function) << ctx;
  EXPECT_EQ(a.r.where.loc.line, b.r.where.loc.line) << ctx;
  EXPECT_EQ(a.r.where.loc.col, b.r.where.loc.col) << ctx;
  EXPECT_EQ(a.r.where.file, b.r.where.file) << ctx;
  EXPECT_EQ(a.r.leaked, b.r.leaked) << ctx;
  return b.r.steps;
}

// Unlimited, then limits at the start, at 13 points across the run and at
// its last steps.
inline void expectSameAtLimits(const Module &m, const ModuleFacts &facts, const std::string &what,
                               uint32_t laneBlock = 256) {
  uint64_t steps = expectSame(m, facts, 0, what, laneBlock);
  if (steps == 0 || ::testing::Test::HasFailure()) return;
  std::vector<uint64_t> limits = {1, 2, 3, steps - 1, steps};
  for (uint64_t k = 1; k < 14; ++k) limits.push_back(std::max<uint64_t>(1, steps * k / 14 + k % 3));
  for (uint64_t l : limits)
    if (l >= 1 && l <= steps) expectSame(m, facts, l, what, laneBlock);
}

inline bool lowerFile(const std::filesystem::path &p, Module &m, ModuleFacts &facts) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  Diags d;
  if (!lowerCairn(p.string(), ss.str(), m, d)) return false;
  Diags od;
  return validateModule(m, facts, od);
}

inline std::vector<std::filesystem::path> cairnFiles(const std::string &dir) {
  std::vector<std::filesystem::path> v;
  for (const auto &e : std::filesystem::directory_iterator(std::string(CAIRN_SOURCE_DIR) + "/" + dir))
    if (e.path().extension() == ".cairn") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

inline bool lowerText(const std::string &src, Module &m, ModuleFacts &facts) {
  Diags d;
  if (!lowerCairn("t.cairn", src, m, d)) return false;
  Diags od;
  return validateModule(m, facts, od);
}

// How many instructions of function fn's optimized code satisfy pred.
template <class Pred>
inline int countOps(const Module &m, const ModuleFacts &facts, const char *fn, Pred pred) {
  std::vector<Program> ps = exec::compileModule(m, facts, true);
  int n = 0;
  for (const exec::Ins &i : ps[static_cast<size_t>(m.find(fn))].code) n += pred(i.op) ? 1 : 0;
  return n;
}

// One generated program: how many instructions of fn's optimized code
// `pick` selects, and the status of one whole optimized run; the engines
// are compared at every limit on the way (expectSameAtLimits).
struct Checked {
  int fused = -1;
  RunResult::Status status = RunResult::Status::Error;
};
template <class Pick>
Checked lowerAndCompare(const std::string &src, const char *fn, Pick pick) {
  Checked c;
  Module m;
  ModuleFacts facts;
  if (!lowerText(src, m, facts)) {
    ADD_FAILURE() << "does not lower:\n" << src;
    return c;
  }
  c.fused = countOps(m, facts, fn, pick);
  expectSameAtLimits(m, facts, src);
  c.status = runOnce(m, facts, true, 0).r.status;
  return c;
}

}  // namespace cairn::moduleopt_test
