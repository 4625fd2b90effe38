// IndexProofs::cannotTrap (exec/proven.hpp), the checked arithmetic the C
// back end writes without its check, against enumeration: for i8 and u8,
// every constant k, each checked op with k on either side, loop counts
// around the type's edges and offsets that reach the negative values, a
// module `for i in 0..C { x = [checked_]cast(i + off); checked_op(x, k) }`
// is analysed, and every op called unable to trap must
// not trap for any index i < C (soundness). The proofs must also be
// non-vacuous: a share of the ops is proven, including whole loops'.
// Then checksum's fill loop in C: every check gone, one that can fail kept.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "exec/emit_module_c.hpp"
#include "exec/proven.hpp"
#include "ir/module.hpp"
#include "lower/lower.hpp"
#include "oracle/module.hpp"

namespace cairn {
namespace {

using I128 = __int128;

const char *const kOps[] = {"checked_add", "checked_sub", "checked_mul", "checked_div", "checked_mod"};

// Would op(a, b) of type t (signed or not, 8 bits) trap?
bool traps(int op, bool sgn, I128 a, I128 b) {
  const I128 lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
  I128 r = 0;
  switch (op) {
    case 0: r = a + b; break;
    case 1: r = a - b; break;
    case 2: r = a * b; break;
    default:
      if (b == 0) return true;
      if (sgn && a == -128 && b == -1) return true;
      return false;  // a quotient or remainder of in-range values fits
  }
  return r < lo || r > hi;
}

// x = checked_cast(i + off) (a trap past the type) or cast(i + off) (wrapping).
std::string module(const char *t, uint64_t count, uint64_t off, bool wrapping, const char *op, int k, bool kFirst) {
  std::string K = std::to_string(k);
  return std::string("func main() -> i32\n  %c = const ") + std::to_string(count) + " dtype=u64\n  %r = range %c\n" +
         "    %s = add %r " + std::to_string(off) + "\n    %x = " + (wrapping ? "cast" : "checked_cast") + " %s dtype=" + t +
         "\n    %k = const " + K + " dtype=" + t + "\n" + "    %y = " + op + (kFirst ? " %k %x\n" : " %x %k\n") +
         "  %e = end %r\n  %z = const 0 dtype=i32\n  %ret = ret %z\n";
}

TEST(CheckedProofs, NeverCallsATrappingOpSafeOn8BitTypes) {
  const uint64_t counts[] = {0, 1, 2, 3, 6, 10, 100, 127, 128, 129, 200, 255, 256, 257, 1000};
  int proven = 0, cases = 0, castsProven = 0;
  for (bool sgn : {false, true}) {
    const char *t = sgn ? "i8" : "u8";
    const I128 lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
    for (int op = 0; op < 5; ++op)
      for (int k = static_cast<int>(lo); k <= hi; ++k)
        for (bool kFirst : {false, true})
          for (uint64_t c : counts)
            for (uint64_t off : {0, 100, 250})
              for (bool wrapping : {false, true}) {
                const std::string text = module(t, c, off, wrapping, kOps[op], k, kFirst);
                Module m;
                ModuleFacts facts;
                Diags d;
                ASSERT_TRUE(parseModule(text, m, d) && validateModule(m, facts, d)) << text;
                const Graph &g = m.funcs[0].body;
                exec::IndexProofs proofs(g, facts.funcs[0]);
                NodeId x = NodeId::none(), y = NodeId::none();
                for (uint32_t i = 0; i < g.size(); ++i) {
                  if (g.name(NodeId{i}) == "x") x = NodeId{i};
                  if (g.name(NodeId{i}) == "y") y = NodeId{i};
                }
                ASSERT_TRUE(x.valid() && y.valid());
                ++cases;
                // The values of x that the op sees, index by index; a
                // checked_cast stops the loop at the first that does not fit.
                std::vector<I128> xs;
                bool castTraps = false;
                for (I128 i = 0; i < static_cast<I128>(c); ++i) {
                  I128 v = i + static_cast<I128>(off);
                  if (!wrapping && v > hi) {
                    castTraps = true;
                    break;
                  }
                  v = ((v - lo) % 256 + 256) % 256 + lo;
                  xs.push_back(v);
                }
                if (!wrapping && proofs.cannotTrap(x)) {
                  ASSERT_FALSE(castTraps) << text;
                  ++castsProven;
                }
                if (!proofs.cannotTrap(y)) continue;
                ++proven;
                for (I128 v : xs)
                  ASSERT_FALSE(kFirst ? traps(op, sgn, k, v) : traps(op, sgn, v, k)) << text << "at x = " << static_cast<long>(v);
              }
  }
  // Not vacuous: many casts and ops are proven.
  EXPECT_GE(castsProven, cases / 8) << castsProven << " of " << cases;
  EXPECT_GE(proven, cases / 5) << proven << " of " << cases;
  std::printf("%d of %d ops proven, %d casts\n", proven, cases, castsProven);
}

TEST(CheckedProofs, ChecksumsFillLoopLosesOnlyTheChecksThatCannotFail) {
  const char *src = R"(fn main() -> i32 {
  let n:usize = 1000;
  let mut v = Buf[u8](n);
  for i in 0..n { v[i] = u8((i * 7 + 3) % 251); }
  let mut s:u32 = 0;
  for x in v { s = add_wrap(s, u32(x)); }
  println(s);
  let mut w = Buf[i16](n);
  for i in 0..n { w[i] = i16(i64(i) - 500) * 70; }
  return 0;
}
)";
  Module m;
  ModuleFacts f;
  Diags d;
  ASSERT_TRUE(lowerCairn("fill.cairn", src, m, d) && validateModule(m, f, d));
  std::string c, error;
  ModuleEmitOptions o;
  o.sourceName = "fill.cairn";
  ASSERT_TRUE(emitModuleC(m, f, o, c, error)) << error;
  const size_t body = c.find("cairn_f0(cairn_rt *rt, uint32_t depth) {");
  ASSERT_NE(body, std::string::npos);
  const std::string fn = c.substr(body, c.find("\n}\n", body) - body);
  // i * 7 + 3 < 7000, and % 251 < 251 fits u8: no check. i16(i - 500)
  // fits, but times 70 may not: that check stays.
  for (const char *gone : {"cairn_cmul_u64", "cairn_cadd_u64", "cairn_cmod_u64", "cairn_m_fit_u"})
    EXPECT_EQ(fn.find(gone), std::string::npos) << gone << "\n" << fn;
  EXPECT_NE(fn.find("cairn_cmul_i16"), std::string::npos) << fn;
  EXPECT_EQ(fn.find("cairn_m_fit_s"), std::string::npos) << fn;
}

}  // namespace
}  // namespace cairn
