// The module generator (tools/progen_module.hpp): over a range of seeds,
// every module parses and is accepted by the oracle, and together they
// reach every module op of ir/ops.def (flag O), every dtype as a scalar,
// as a printed value and as a view's elements, and both ends of a run: a
// normal end and each kind of trap the generator means to reach. Checked,
// not assumed: a generator change that loses an op or a dtype fails here.
// And reduceModule (tools/fuzz_reduce.cpp) on generated modules.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "exec/module_interp.hpp"
#include "ir/module.hpp"
#include "oracle/module.hpp"
#include "tools/fuzz_diff.hpp"
#include "tools/progen_module.hpp"

using namespace cairn;

namespace {

constexpr uint64_t kSeeds = 400;

struct Coverage {
  std::set<Op> ops;
  std::set<DType> scalars, printed, views;
  std::set<std::string> ends;  // "ok", and trap messages up to their first digit or quote
};

void collect(const Module &m, const ModuleFacts &f, Coverage &c) {
  for (size_t i = 0; i < m.funcs.size(); ++i) {
    const Graph &g = m.funcs[i].body;
    const Facts &fx = f.funcs[i];
    for (uint32_t n = 0; n < g.size(); ++n) {
      NodeId id{n};
      c.ops.insert(g.op(id));
      if (g.op(id) == Op::Print && !g.operands(id)[0].isLit()) {
        NodeId x = g.operands(id)[0].node();
        if (!fx.isView(x)) c.printed.insert(fx.type[x.v]);
      }
      DType t = fx.type[n];
      if (t == DType::None) continue;
      if (fx.isView(id)) c.views.insert(t);
      else if (fx.kind[n] == ResultKind::Scalar) c.scalars.insert(t);
    }
  }
}

std::string endOf(const ModuleRunResult &r) {
  if (r.status == ModuleRunResult::Status::Ok) return "ok";
  const std::string &s = r.message;
  for (const char *k : {"arithmetic overflow", "division by zero", "value does not fit", "out of bounds", "out of range"})
    if (s.find(k) != std::string::npos) return k;
  return r.status == ModuleRunResult::Status::Trap ? "guard or other trap" : "error: " + s;
}

}  // namespace

TEST(ProgenModule, ValidAndCovering) {
  Coverage c;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::string text = generateModule(seed, moduleGenOptions(seed));
    Module m;
    Diags d;
    ModuleFacts f;
    ASSERT_TRUE(parseModule(text, m, d) && validateModule(m, f, d)) << "seed " << seed << "\n" << text << "\n"
                                                                   << (d.list().empty() ? "" : d.list()[0].message);
    collect(m, f, c);
    std::ostringstream out;
    ModuleRunOptions o;
    o.limits.maxSteps = uint64_t{1} << 22;
    o.out = &out;
    ModuleRunResult r = runModule(m, f, o);
    EXPECT_NE(r.status, ModuleRunResult::Status::Error) << "seed " << seed << ": " << r.message;
    EXPECT_EQ(r.message.find("exceeded"), std::string::npos) << "seed " << seed << ": " << r.message;
    if (r.status == ModuleRunResult::Status::Ok) EXPECT_EQ(r.leaked, 0u) << "seed " << seed;
    c.ends.insert(endOf(r));
  }
  for (int k = 0; k < numOps(); ++k) {
    Op op = static_cast<Op>(k);
    if (opInfo(op).is(opflag::O)) EXPECT_TRUE(c.ops.count(op)) << "no module reaches `" << opInfo(op).name << "`";
  }
  for (Op op : {Op::Range, Op::Carry, Op::End, Op::Reduce, Op::Buffer, Op::Shrink, Op::CShrink, Op::Store, Op::After, Op::Sin})
    EXPECT_TRUE(c.ops.count(op)) << "no module reaches `" << opInfo(op).name << "`";
  for (int k = 0; k < kNumDTypes; ++k) {
    DType t = static_cast<DType>(k);
    EXPECT_TRUE(c.scalars.count(t)) << "no scalar of " << dtypeName(t);
    EXPECT_TRUE(c.printed.count(t)) << "no print of a " << dtypeName(t);
    EXPECT_TRUE(c.views.count(t)) << "no view of " << dtypeName(t);
  }
  for (const char *e : {"ok", "arithmetic overflow", "division by zero", "value does not fit", "out of bounds", "out of range",
                        "guard or other trap"})
    EXPECT_TRUE(c.ends.count(e)) << "no module ends with: " << e;
  for (const auto &e : c.ends) EXPECT_EQ(e.rfind("error", 0), std::string::npos) << e;
}

TEST(ProgenModule, SameSeedSameModule) {
  for (uint64_t seed : {3u, 77u, 1234u}) EXPECT_EQ(generateModule(seed, moduleGenOptions(seed)), generateModule(seed, moduleGenOptions(seed)));
  EXPECT_NE(generateModule(5, moduleGenOptions(5)), generateModule(6, moduleGenOptions(6)));
  ModuleGenOptions noSin = moduleGenOptions(9);
  noSin.transcendentals = false;
  for (uint64_t seed = 1; seed <= 100; ++seed)
    for (const char *op : {" sin ", " exp2 ", " log2 "})
      EXPECT_EQ(generateModule(seed, noSin).find(op), std::string::npos) << seed;
}

// reduceModule (tools/fuzz_reduce.cpp): a generated module that "fails"
// while it has a `checked_mul` reduces to a valid, much smaller module that
// still has one; every candidate the predicate sees is valid.
TEST(ProgenModule, ReduceModuleKeepsValidityAndTheFailure) {
  auto valid = [](const std::string &t) {
    Module m;
    Diags d;
    ModuleFacts f;
    return parseModule(t, m, d) && validateModule(m, f, d);
  };
  int reduced = 0;
  for (uint64_t seed = 1; seed <= 40 && reduced < 3; ++seed) {
    std::string text = generateModule(seed, moduleGenOptions(seed));
    if (text.find(" checked_mul ") == std::string::npos || std::count(text.begin(), text.end(), '\n') < 60) continue;
    bool allValid = true;
    BatchPredicate pred = [&](const std::vector<std::string> &ts) {
      std::vector<bool> r;
      for (const auto &t : ts) {
        allValid = allValid && valid(t);
        r.push_back(t.find(" checked_mul ") != std::string::npos);
      }
      return r;
    };
    std::string out = reduceModule(text, pred, valid);
    EXPECT_TRUE(valid(out)) << out;
    EXPECT_TRUE(allValid);
    EXPECT_NE(out.find(" checked_mul "), std::string::npos);
    EXPECT_LT(std::count(out.begin(), out.end(), '\n') * 4, std::count(text.begin(), text.end(), '\n')) << out;
    ++reduced;
  }
  EXPECT_EQ(reduced, 3);
}
