// The wrap-index generator (tools/progen.hpp, generateWrapIndices): its
// programs pass the structure layer (so the referee judges every one), and
// over a few hundred seeds the index paths -- what offsets, buffer sizes and
// loop bounds are computed from -- reach every op and every integer dtype,
// casts into every dtype (narrowing, widening, sign changes, casts of
// casts), the constants that make wrap-around happen, unsigned sizes of 0
// and `0 - 1`, counts past 256 and 65536, loaded sizes, and parallel loops
// that load the buffer they store into at another index. Without the
// option, generateArbitrary is what it was.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <set>
#include <string>

#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/progen.hpp"
#include "tools/referee.hpp"

using namespace cairn;

namespace {

struct Coverage {
  std::set<std::string> ops;         // ops on an index path
  std::set<std::string> dtypes;      // dtypes of the values on one
  std::set<std::string> castsTo;     // cast targets on one
  std::set<std::string> castKinds;   // narrowing, widening, sign change, cast of a cast
  std::set<std::string> constants;   // "mul 256", "sub 1 x", ...
  std::set<std::string> features;    // sizes, bounds, loops
};

std::string litText(const Graph &g, const Operand &o) { return literalText(g.literal(o.lit())); }

class Walker {
 public:
  Walker(const Graph &g, const Facts &f, Coverage &cov) : g_(g), f_(f), cov_(cov) {}

  // Everything operand k of n is computed from.
  void path(NodeId n, size_t k) {
    const Operand &o = g_.operands(n)[k];
    if (o.isLit()) return;
    std::vector<NodeId> stack{o.node()};
    while (!stack.empty()) {
      NodeId x = stack.back();
      stack.pop_back();
      if (!seen_.insert(x.v).second) continue;
      note(x);
      if (g_.op(x) == Op::Load || g_.op(x) == Op::Reduce) continue;
      for (const Operand &p : g_.operands(x))
        if (!p.isLit() && (f_.kind[p.node().v] == ResultKind::Scalar || f_.kind[p.node().v] == ResultKind::Index))
          stack.push_back(p.node());
    }
    seen_.clear();
  }

 private:
  void note(NodeId x) {
    Op op = g_.op(x);
    std::string name(opInfo(op).name);
    cov_.ops.insert(name);
    DType t = f_.type[x.v];
    if (isInteger(t)) cov_.dtypes.insert(std::string(dtypeName(t)));
    auto ops = g_.operands(x);
    if (op == Op::Cast && !ops[0].isLit()) cast(x, ops[0].node());
    if (op == Op::Range && !ops[0].isLit()) cov_.features.insert("dynamic bound");
    if (ops.size() == 2 && ops[1].isLit()) cov_.constants.insert(name + " " + litText(g_, ops[1]));
    if (ops.size() == 2 && ops[0].isLit()) cov_.constants.insert(name + " " + litText(g_, ops[0]) + " x");
    if (op == Op::Sub && isUnsigned(t)) cov_.features.insert("unsigned sub");
  }
  void cast(NodeId x, NodeId from) {
    DType a = f_.type[from.v], b = g_.dtype(x);
    if (!isInteger(a) || !isInteger(b)) return;
    cov_.castsTo.insert(std::string(dtypeName(b)));
    int wa = dtypeBits(a), wb = dtypeBits(b);
    cov_.castKinds.insert(wb < wa ? "narrowing" : wb > wa ? "widening" : "same width");
    if (isSigned(a) != isSigned(b)) cov_.castKinds.insert("sign change");
    if (g_.op(from) == Op::Cast) cov_.castKinds.insert("cast of a cast");
  }

  const Graph &g_;
  const Facts &f_;
  Coverage &cov_;
  std::set<uint32_t> seen_;
};

int64_t literalValue(const Graph &g, const Operand &o) {
  return static_cast<int64_t>(literalBits(g.literal(o.lit()), DType::I64).value_or(0));
}

// Features of the program as a whole: sizes, counts, loops that load and
// store one buffer.
void features(const Graph &g, const Facts &f, Coverage &cov) {
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId x{i};
    auto ops = g.operands(x);
    if (g.op(x) == Op::Buffer && !ops[0].isLit()) {
      cov.features.insert("dynamic size");
      NodeId s = ops[0].node();
      if (g.op(s) == Op::Load || (g.op(s) == Op::Cast && g.op(g.operands(s)[0].node()) == Op::Load))
        cov.features.insert("loaded size " + std::string(dtypeName(f.type[s.v])));
      if (g.op(s) == Op::Const && literalValue(g, g.operands(s)[0]) == 0) cov.features.insert("size 0");
    }
    if (g.op(x) == Op::Buffer && ops[0].isLit() && literalValue(g, ops[0]) == 0) cov.features.insert("size 0");
    if (g.op(x) == Op::Range && ops[0].isLit()) {
      int64_t n = literalValue(g, ops[0]);
      if (n > 256) cov.features.insert("count > 256");
      if (n > 65536) cov.features.insert("count > 65536");
    }
    if (g.op(x) != Op::Range || !g.parallel(x)) continue;
    std::map<uint32_t, int> access;  // buffer -> 1 stored, 2 loaded, 3 both
    for (uint32_t j = i + 1; j < g.size() && g.parent(NodeId{j}).valid(); ++j) {
      Op op = g.op(NodeId{j});
      if (op == Op::Store || op == Op::Load) access[f.storage[j].v] |= op == Op::Store ? 1 : 2;
    }
    for (auto [b, m] : access)
      if (m == 3) cov.features.insert("parallel load and store of one buffer");
  }
}

}  // namespace

TEST(ProgenWrap, ProgramsAreStructuredAndReachEveryOpAndDtype) {
  Coverage cov;
  ArbitraryOptions o;
  o.wrapIndices = true;
  const int kSeeds = 600;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    o.buffers = 1 + seed % 3;
    o.steps = 1 + (seed / 3) % 3;
    o.maxMemOps = 2 + (seed / 9) % 5;
    std::string text = generateArbitrary(static_cast<uint64_t>(seed), o);
    Graph g;
    Diags d;
    Facts f;
    ASSERT_TRUE(parseUir(text, g, d)) << text;
    Diags sd;
    ASSERT_TRUE(checkStructure(g, f, sd)) << [&] {
      std::ostringstream os;
      sd.print(os, "gen.uir");
      return os.str();
    }() << text;
    Walker w(g, f, cov);
    for (uint32_t i = 0; i < g.size(); ++i) {
      NodeId x{i};
      Op op = g.op(x);
      if (op == Op::Shrink) w.path(x, 1);
      if (op == Op::Buffer || op == Op::Range) w.path(x, 0);
    }
    features(g, f, cov);
  }
  for (const char *op : {"cast", "add", "sub", "mul", "neg", "idiv", "mod", "shr", "shl", "and", "xor", "min", "max", "where",
                         "cmplt", "const", "load", "range"})
    EXPECT_TRUE(cov.ops.count(op)) << "no " << op << " on an index path";
  for (const char *t : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}) {
    EXPECT_TRUE(cov.dtypes.count(t)) << "no " << t << " value on an index path";
    EXPECT_TRUE(cov.castsTo.count(t)) << "no cast to " << t << " on an index path";
  }
  for (const char *k : {"narrowing", "widening", "sign change", "cast of a cast"}) EXPECT_TRUE(cov.castKinds.count(k)) << k;
  for (const char *c : {"mul 256", "mul 65536", "mul -1", "sub 1", "sub 1 x", "idiv 2", "shr 8", "mod 256", "add -1", "and 255"})
    EXPECT_TRUE(cov.constants.count(c)) << "no `" << c << "` on an index path";
  for (const char *ft : {"dynamic size", "dynamic bound", "size 0", "unsigned sub", "count > 256", "count > 65536",
                         "loaded size u8", "loaded size u16", "loaded size u32", "parallel load and store of one buffer"})
    EXPECT_TRUE(cov.features.count(ft)) << "never: " << ft;
}

TEST(ProgenWrap, TheRefereeDecidesMostPrograms) {
  ArbitraryOptions o;
  o.wrapIndices = true;
  int judged = 0, broken = 0, valid = 0;
  for (int seed = 1; seed <= 200; ++seed) {
    RefereeVerdict v = refereeText(generateArbitrary(static_cast<uint64_t>(seed), o));
    judged += v.judged();
    broken += !v.findings.empty();
    valid += v.valid();
  }
  EXPECT_EQ(judged, 200);
  // Both verdicts are common, and few programs are left undecided.
  EXPECT_GT(broken, 30);
  EXPECT_GT(valid, 30);
  EXPECT_GT(broken + valid, 170);
}

TEST(ProgenWrap, OffByDefault) {
  ArbitraryOptions a, b;
  b.wrapIndices = true;
  EXPECT_EQ(generateArbitrary(42, a), generateArbitrary(42, a));
  EXPECT_NE(generateArbitrary(42, a), generateArbitrary(42, b));
  EXPECT_EQ(generateArbitrary(42, b), generateWrapIndices(42, b));
}
