// The checks of lower/check/: layout enumeration against a brute-force model
// written here independently, the spec page's layout numbers and refusals,
// and near-miss programs that `cairn check` (checkAll) must accept.
//
// The model of spread(rows(R, C), TR, TC, VR, VC) walks the plane the
// repeated pattern covers, cell by cell, and asks which participant the
// cell's position in the pattern belongs to; the checker instead walks each
// participant's values. Both must agree on every element's holder count.
#include <gtest/gtest.h>

#include <sstream>

#include "lower/check/layout.hpp"
#include "lower/lower.hpp"

namespace cairn {
namespace {

struct Model {
  const char *code = nullptr;  // nullptr, "E-LAYOUT-GAP" or "E-LAYOUT-OVERLAP"
  uint64_t firstGap = 0;       // row-major index of the first element nobody holds
  uint64_t values = 0;         // per participant
};

Model model(uint64_t r, uint64_t c, uint64_t tr, uint64_t tc, uint64_t vr, uint64_t vc) {
  uint64_t ph = tr * vr, pw = tc * vc;            // the pattern
  uint64_t down = r / ph ? r / ph : 1, across = c / pw ? c / pw : 1;
  std::vector<int> holders(r * c, 0);
  std::vector<uint64_t> perParticipant(tr * tc, 0);
  for (uint64_t x = 0; x < down * ph; ++x)
    for (uint64_t y = 0; y < across * pw; ++y) {
      uint64_t t = ((x % ph) / vr) * tc + (y % pw) / vc;
      ++perParticipant[t];
      ++holders[(x % r) * c + (y % c)];
    }
  Model m;
  m.values = perParticipant[0];
  for (uint64_t k : perParticipant) EXPECT_EQ(k, m.values);
  for (int h : holders)
    if (h > 1) m.code = "E-LAYOUT-OVERLAP";
  if (!m.code)
    for (uint64_t e = 0; e < holders.size(); ++e)
      if (holders[e] == 0) {
        m.code = "E-LAYOUT-GAP";
        m.firstGap = e;
        break;
      }
  return m;
}

TEST(CairnCheckLayout, SpreadVerdictsMatchBruteForce) {
  size_t cases = 0, gaps = 0, overlaps = 0;
  for (uint64_t r = 1; r <= 8; ++r)
    for (uint64_t c = 1; c <= 8; ++c)
      for (uint64_t tr = 1; tr <= 4; ++tr)
        for (uint64_t tc = 1; tc <= 4; ++tc)
          for (uint64_t vr = 1; vr <= 4; ++vr)
            for (uint64_t vc = 1; vc <= 4; ++vc) {
              std::string why;
              auto tile = check::makeRows(r, c, why);
              ASSERT_TRUE(tile) << why;
              auto d = check::makeSpread(*tile, tr, tc, vr, vc, why);
              ASSERT_TRUE(d) << why;
              Model m = model(r, c, tr, tc, vr, vc);
              check::Verdict v = check::verdict(*d);
              SCOPED_TRACE(testing::Message() << "rows(" << r << ", " << c << ") spread " << tr << " " << tc << " "
                                              << vr << " " << vc);
              ASSERT_EQ(d->values(), m.values);
              ASSERT_EQ(d->participants(), tr * tc);
              ASSERT_EQ(v.code == nullptr, m.code == nullptr) << v.msg;
              if (m.code) {
                ASSERT_STREQ(v.code, m.code) << v.msg;
              }
              if (m.code && std::string(m.code) == "E-LAYOUT-GAP") {
                ++gaps;
                std::string at = "element (" + std::to_string(m.firstGap / c) + ", " + std::to_string(m.firstGap % c) + ")";
                ASSERT_NE(v.msg.find(at), std::string::npos) << v.msg;
              }
              if (m.code && std::string(m.code) == "E-LAYOUT-OVERLAP") ++overlaps;
              // Each participant's values: across its block, down it, then over the repeats.
              uint64_t vals = d->values(), kc = d->kc;
              for (uint64_t t = 0; t < tr * tc; ++t)
                for (uint64_t k = 0; k < vals; ++k) {
                  uint64_t rep = k / (vr * vc), inBlock = k % (vr * vc);
                  uint64_t row = (rep / kc) * tr * vr + (t / tc) * vr + inBlock / vc;
                  uint64_t col = (rep % kc) * tc * vc + (t % tc) * vc + inBlock % vc;
                  ASSERT_EQ(d->row[t * vals + k], row % r);
                  ASSERT_EQ(d->col[t * vals + k], col % c);
                }
              ++cases;
            }
  EXPECT_EQ(cases, 64u * 256u);
  EXPECT_GT(gaps, 1000u);
  EXPECT_GT(overlaps, 1000u);
}

TEST(CairnCheckLayout, StorageOffsets) {
  std::string why;
  auto tile = check::makeRows(32, 32, why);
  auto padded = check::makePad(*tile, 1, why);
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->cosize, 1055u);  // the spec page's TILE.cosize()
  EXPECT_EQ(check::verdict(*padded).code, nullptr);
  auto t = check::makeTranspose(*check::makeRows(2, 3, why), why);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->ext, (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(t->offset, (std::vector<uint64_t>{0, 3, 1, 4, 2, 5}));  // cols(3, 2)
  // Every swizzle of a compact 8 x 8 tile with S >= B keeps it compact and injective.
  for (uint64_t b = 0; b <= 3; ++b)
    for (uint64_t m = 0; m <= 3; ++m)
      for (uint64_t s = b; s <= 3; ++s) {
        auto z = check::makeSwizzle(*check::makeRows(8, 8, why), b, m, s, why);
        ASSERT_TRUE(z);
        if (b + m + s <= 6) {
          EXPECT_EQ(check::verdict(*z).code, nullptr) << b << m << s;
        }
      }
  auto grid = check::makeTile(*tile, 8, 4, why);
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->ext, (std::vector<uint64_t>{4, 8, 8, 4}));
  EXPECT_EQ(grid->offset[1 * 8 * 32 + 2 * 32 + 3 * 4 + 1], (1 * 8 + 3) * 32u + 2 * 4 + 1);
  auto inv = check::makeInverse(*check::makeSpread(*tile, 8, 32, 1, 1, why), why);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->row[9 * 32 + 5], 1u * 32 + 5);  // element (9, 5): participant 37, value 1
  EXPECT_EQ(inv->col[9 * 32 + 5], 1u);
  EXPECT_FALSE(check::makeInverse(*padded, why));
  EXPECT_FALSE(check::makeStrided(2, 2, uint64_t(1) << 62, uint64_t(1) << 62, why));  // 2^63
  EXPECT_FALSE(check::makeStrided(2, 2, check::kMaxLayoutOffset - 1, 1, why));          // 2^63 - 1
  auto near = check::makeStrided(2, 2, check::kMaxLayoutOffset - 2, 1, why);             // 2^63 - 2
  ASSERT_TRUE(near);
  EXPECT_EQ(near->cosize, check::kMaxLayoutOffset);
  EXPECT_EQ(check::verdict(*near).code, nullptr);
  EXPECT_FALSE(check::makeSwizzle(*near, 1, 62, 1, why));
  EXPECT_FALSE(check::makeRows(UINT64_MAX, UINT64_MAX, why));
}

std::string diagsOf(const std::string &src, bool &ok) {
  Module m;
  Diags d;
  LowerOptions opts;
  opts.checkAll = true;
  ok = lowerCairn("t.cairn", src, m, d, opts);
  std::ostringstream os;
  d.print(os, "t.cairn");
  return os.str();
}

TEST(CairnCheckLayout, SpecRefusalsSayTheSpecSentence) {
  struct Case {
    const char *src, *line;
  } cases[] = {
      {"layout TILE = rows(32, 32);\nlayout LOAD = spread(TILE, 7, 32, 1, 1);\n",
       "t.cairn:2:1: error: No participant holds element (28, 0) of the 32 x 32 tile; a spread must cover it: 224 "
       "participants with 4 values each hold 896 of its 1024 elements. [E-LAYOUT-GAP]"},
      {"layout FRAGMENTS = rows(4, 4);\nlayout WARPS = spread(FRAGMENTS, 2, 4, 2, 2);\n",
       "t.cairn:2:1: error: Element (0, 0) of the 4 x 4 tile is held by participant 0 (value 0) and participant 2 "
       "(value 0); a spread must give each element one holder. [E-LAYOUT-OVERLAP]"},
      {"layout TILE = rows(32, 32);\nlayout WIDE = rows(64, 32);\nlayout LOAD = spread(TILE, 8, 32, 1, 1);\n"
       "fn at(t:usize, v:usize) -> usize = WIDE.at(LOAD.row(t, v), LOAD.col(t, v));\n",
       "t.cairn:4:36: error: LOAD spreads a 32 x 32 tile, and WIDE lays out 64 x 32: its coordinates name no element "
       "of WIDE. [E-LAYOUT-CONSUMER]"},
      {"fn settle(n:usize, out:rw<u32>[n]@device) {\nparallel i in n {\n"
       "unsafe { asm ptx sm_75 \"bar.sync 0;\" effects(barrier); }\nout[i] = 0;\n}\n}\n",
       "error: Typed PTX in device code may declare reads, writes and fence; barrier is not lane-safe. [E-ASM-LANE]"},
  };
  for (const Case &c : cases) {
    bool ok;
    std::string out = diagsOf(std::string(c.src) + "fn main() -> i32 { return 0; }\n", ok);
    EXPECT_FALSE(ok);
    EXPECT_NE(out.find(c.line), std::string::npos) << out;
  }
}

TEST(CairnCheckLayout, NearMissesAreAccepted) {
  const char *programs[] = {
      // The spec page's layouts program, its functions unreached from main.
      "layout TILE = pad(rows(32, 32), 1);\nlayout LOAD = spread(TILE, 8, 32, 1, 1);\n"
      "layout STORE = spread(transpose(TILE), 8, 32, 1, 1);\nconst CELLS:usize = TILE.cosize();\n"
      "fn through(out:rw<f32>[1024], x:ro<f32>[1024]) {\n  buffer s:f32[CELLS] = zeroed;\n"
      "  for t in 0..LOAD.participants() {\n"
      "    for v in 0..LOAD.values() { s[LOAD.at(t, v)] = x[LOAD.row(t, v) * 32 + LOAD.col(t, v)]; }\n  }\n"
      "  for t in 0..STORE.participants() {\n"
      "    for v in 0..STORE.values() { out[STORE.row(t, v) * 32 + STORE.col(t, v)] = s[STORE.at(t, v)]; }\n  }\n}\n",
      // A gap's near miss: 8 x 32 participants, one value down each repeat.
      "layout TILE = rows(32, 32);\nlayout LOAD = spread(TILE, 8, 32, 1, 1);\n",
      // An overlap's near miss: 2 x 2 participants of 2 x 2 blocks.
      "layout FRAGMENTS = rows(4, 4);\nlayout WARPS = spread(FRAGMENTS, 2, 2, 2, 2);\nlayout INV = inverse(WARPS);\n",
      // A consumer of the same shape, padded, swizzled and transposed twice.
      "layout TILE = rows(32, 32);\nlayout SW = swizzle(TILE, 3, 2, 3);\nlayout TT = transpose(transpose(TILE));\n"
      "layout LOAD = spread(TILE, 8, 32, 1, 1);\n"
      "fn at(t:usize, v:usize) -> usize = SW.at(LOAD.row(t, v), LOAD.col(t, v)) + TT.at(LOAD.row(t, v), 0);\n",
      // The limits themselves: 262144 elements, offsets just below 2^63 - 1, B + M + S = 63.
      "layout BIG = rows(512, 512);\nlayout FAR = strided(2, 2, 9223372036854775805, 1);\n"
      "layout BITS = swizzle(rows(8, 8), 1, 31, 31);\nlayout TILED = tile(rows(8, 8), 4, 2);\n"
      "layout INVS = inverse(cols(4, 8));\n",
      // Typed PTX: reads, writes and fence in a lane; a barrier in host code is not E-ASM-LANE.
      "fn lane(n:usize, out:rw<u32>[n]@device, xs:ro<u32>[n]@device) {\n  parallel i in n {\n"
      "    unsafe { asm ptx sm_75 \"membar.gl;\" effects(read:xs, write:out, fence); }\n    out[i] = 0;\n  }\n}\n"
      "fn host() { unsafe { asm x86_64 \"mfence;\" effects(barrier, io); } }\n",
  };
  for (const char *p : programs) {
    bool ok;
    std::string out = diagsOf(std::string(p) + "fn main() -> i32 { return 0; }\n", ok);
    EXPECT_TRUE(ok) << p << "\n" << out;
  }
}

TEST(CairnCheckLayout, SmallSpreadsThroughTheChecker) {
  // The same verdicts through lowerCairn, for tiles up to 4 x 4.
  for (uint64_t r = 1; r <= 4; ++r)
    for (uint64_t c = 1; c <= 4; ++c)
      for (uint64_t tr = 1; tr <= 4; ++tr)
        for (uint64_t tc = 1; tc <= 4; ++tc)
          for (uint64_t vr = 1; vr <= 2; ++vr)
            for (uint64_t vc = 1; vc <= 2; ++vc) {
              std::ostringstream src;
              src << "layout T = rows(" << r << ", " << c << ");\nlayout D = spread(T, " << tr << ", " << tc << ", "
                  << vr << ", " << vc << ");\nfn main() -> i32 { return 0; }\n";
              bool ok;
              std::string out = diagsOf(src.str(), ok);
              Model m = model(r, c, tr, tc, vr, vc);
              ASSERT_EQ(ok, m.code == nullptr) << src.str() << out;
              if (m.code) {
                ASSERT_NE(out.find(std::string("[") + m.code + "]"), std::string::npos) << out;
              }
            }
}

}  // namespace
}  // namespace cairn
