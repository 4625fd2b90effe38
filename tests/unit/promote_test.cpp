// Scalar promotion (exec/promote.hpp) changes no result: every CAIRN program
// of tests/cairn/run and bench/cairn's small kernels, and generated modules,
// run with and without it and must agree on everything a run reports
// (status, message, value, output, the trap's function and place, and the
// exact step count), both unlimited and with step limits that trip at many
// points of the run, so the steps of ops that promotion made free are
// placed exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec/module_interp.hpp"
#include "lower/lower.hpp"
#include "oracle/module.hpp"
#include "tools/progen_module.hpp"
#include "ir/module.hpp"

namespace cairn {
namespace {

struct Outcome {
  RunResult r;
  std::string out;
};

Outcome runOnce(const Module &m, const ModuleFacts &facts, bool promote, uint64_t maxSteps) {
  std::ostringstream os;
  ModuleRunOptions o;
  o.out = &os;
  o.promote = promote;
  o.limits.maxSteps = maxSteps;
  o.limits.maxElements = uint64_t{1} << 24;
  Outcome res{runModule(m, facts, o), ""};
  res.out = os.str();
  return res;
}

// Compares the two engines' runs; returns the steps of the promoted one.
uint64_t expectSame(const Module &m, const ModuleFacts &facts, uint64_t maxSteps, const std::string &what) {
  Outcome a = runOnce(m, facts, false, maxSteps), b = runOnce(m, facts, true, maxSteps);
  std::string ctx = what + " (max steps " + std::to_string(maxSteps) + ")";
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
void expectSameAtLimits(const Module &m, const ModuleFacts &facts, const std::string &what) {
  uint64_t steps = expectSame(m, facts, 0, what);
  if (steps == 0 || ::testing::Test::HasFailure()) return;
  std::vector<uint64_t> limits = {1, 2, 3, steps - 1, steps};
  for (uint64_t k = 1; k < 14; ++k) limits.push_back(std::max<uint64_t>(1, steps * k / 14 + k % 3));
  for (uint64_t l : limits)
    if (l >= 1 && l <= steps) expectSame(m, facts, l, what);
}

bool lowerFile(const std::filesystem::path &p, Module &m, ModuleFacts &facts) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  Diags d;
  if (!lowerCairn(p.string(), ss.str(), m, d)) return false;
  Diags od;
  return validateModule(m, facts, od);
}

std::vector<std::filesystem::path> cairnFiles(const std::string &dir) {
  std::vector<std::filesystem::path> v;
  for (const auto &e : std::filesystem::directory_iterator(std::string(CAIRN_SOURCE_DIR) + "/" + dir))
    if (e.path().extension() == ".cairn") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Promote, CairnRunProgramsAgreeWithAndWithoutPromotion) {
  int ran = 0;
  for (const auto &p : cairnFiles("tests/cairn/run")) {
    Module m;
    ModuleFacts facts;
    if (!lowerFile(p, m, facts)) continue;  // a file that expects a refusal
    // Externs write to the process's stdout, past the captured stream.
    if (std::any_of(m.funcs.begin(), m.funcs.end(), [](const Function &f) { return f.external; })) continue;
    expectSameAtLimits(m, facts, p.filename().string());
    ++ran;
    if (HasFailure()) break;
  }
  EXPECT_GT(ran, 200);
}

TEST(Promote, BenchKernelsAgreeUnderStepLimits) {
  // The bench kernels run 10^7..10^8 steps: compare them at limits only.
  for (const auto &p : cairnFiles("bench/cairn")) {
    Module m;
    ModuleFacts facts;
    ASSERT_TRUE(lowerFile(p, m, facts)) << p;
    for (uint64_t l : {1ull, 17ull, 1000ull, 12345ull, 250001ull}) expectSame(m, facts, l, p.filename().string());
  }
}

TEST(Promote, GeneratedModulesAgree) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::string text = generateModule(seed);
    Module m;
    Diags d;
    ASSERT_TRUE(parseModule(text, m, d)) << text;
    ModuleFacts facts;
    Diags od;
    ASSERT_TRUE(validateModule(m, facts, od)) << text;
    expectSameAtLimits(m, facts, "seed " + std::to_string(seed));
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace cairn
