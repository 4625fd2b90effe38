// Tile layouts, evaluated while a program is checked: the storage layouts
// rows, cols, strided, pad, swizzle, transpose and tile, the spread of a
// tile over participants, and inverse. Each is enumerated in full (at most
// kMaxLayoutElements elements or participant/value pairs), and every answer
// the checker gives about a layout -- its offsets, who holds an element,
// size, cosize -- is read off the enumeration. Nothing here knows about the
// syntax tree; lower/check/layouts.cpp evaluates `layout` items with these.
//
// Semantics (shared/spec/cairn-memory-ownership-effects.md, "Layouts"):
//   rows(R, C)            offset r * C + c
//   cols(R, C)            offset r + c * R
//   strided(R, C, SR, SC) offset r * SR + c * SC
//   pad(L, P)             L strided, P added to its larger stride (the row
//                         stride when the two are equal)
//   swizzle(L, B, M, S)   o ^ ((o >> S) & (((1 << B) - 1) << M)) for each
//                         offset o of L: bits M .. M+B-1 flipped with the B
//                         bits S places above them (CuTe's Swizzle<B, M, S>)
//   transpose(L)          L(c, r) over the C x R tile (L two-dimensional)
//   tile(L, TR, TC)       coordinates (i, j, r, c) name L(i*TR + r, j*TC + c);
//                         TR and TC divide L's extents
//   spread(L, TR, TC, VR, VC)
//       TR x TC participants, t = pr * TC + pc, each a VR x VC block; the
//       block pattern (TR*VR x TC*VC) repeats KR = R / (TR*VR) times down
//       and KC = C / (TC*VC) times across (at least once each). Value v of
//       t is v = ((kr * KC + kc) * VR + vr) * VC + vc: across the block,
//       down it, then over the repeats. It names element
//       ((kr*TR*VR + pr*VR + vr) mod R, (kc*TC*VC + pc*VC + vc) mod C):
//       a pattern wider than its tile wraps onto elements already held.
//   inverse(D)            D a spread that holds each element once: over the
//                         R x C grid, row = participant, col = value;
//                         inverse(L), L storage and compact: offset -> (r, c)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cairn::check {

inline constexpr uint64_t kMaxLayoutElements = 262144;
inline constexpr uint64_t kMaxLayoutOffset = (uint64_t(1) << 63) - 1;  // every offset is below it

enum class LayoutKind : uint8_t { Storage, Spread, Inverse };

struct Layout {
  LayoutKind kind = LayoutKind::Storage;
  // The extents of the arguments of at/row/col: Storage (r, c) or (i, j, r, c);
  // Spread (participants, values); Inverse (r, c) of a spread, (offset) of storage.
  std::vector<uint64_t> ext;
  // Storage: the offset of each element, coordinates in row-major order.
  // Spread: the offset in its tile of each (t, v), t-major.
  std::vector<uint64_t> offset;
  // Spread: the coordinates of each (t, v); Inverse of a spread: row = the
  // participant, col = the value of each (r, c); Inverse of storage: the
  // coordinates of each offset.
  std::vector<uint64_t> row, col;
  uint64_t cosize = 0;  // largest offset + 1 (Storage, Spread); size otherwise
  // Storage with two coordinates and offset r * sr + c * sc (pad needs it).
  bool strided = false;
  uint64_t sr = 0, sc = 0;
  // Spread: its tile's shape, its own parameters and the repeats.
  uint64_t tileR = 0, tileC = 0;
  uint64_t tr = 0, tc = 0, vr = 0, vc = 0, kr = 0, kc = 0;

  uint64_t size() const;  // elements (Storage, Inverse) or pairs (Spread)
  uint64_t participants() const { return tr * tc; }
  uint64_t values() const { return vr * vc * kr * kc; }
};

// "32 x 32", "8 x 4 x 4 x 8".
std::string shapeText(const std::vector<uint64_t> &ext);
// "(28, 0)" for flat index i over extents ext (row-major).
std::string coordText(const std::vector<uint64_t> &ext, uint64_t i);

// Builders. Each returns the layout, or nullopt with `why` set to an
// E-LAYOUT message (zero extents, too many elements, an offset reaching
// kMaxLayoutOffset, a swizzle reading past bit 62, a wrong argument kind).
std::optional<Layout> makeStrided(uint64_t r, uint64_t c, uint64_t sr, uint64_t sc, std::string &why);
std::optional<Layout> makeRows(uint64_t r, uint64_t c, std::string &why);
std::optional<Layout> makeCols(uint64_t r, uint64_t c, std::string &why);
std::optional<Layout> makePad(const Layout &l, uint64_t p, std::string &why);
std::optional<Layout> makeSwizzle(const Layout &l, uint64_t b, uint64_t m, uint64_t s, std::string &why);
std::optional<Layout> makeTranspose(const Layout &l, std::string &why);
std::optional<Layout> makeTile(const Layout &l, uint64_t tr, uint64_t tc, std::string &why);
std::optional<Layout> makeSpread(const Layout &l, uint64_t tr, uint64_t tc, uint64_t vr, uint64_t vc,
                                 std::string &why);
std::optional<Layout> makeInverse(const Layout &l, std::string &why);

// The two rules every layout is held to. A storage layout gives each element
// its own offset; a spread gives each element of its tile exactly one holder.
struct Verdict {
  const char *code = nullptr;  // nullptr: the layout keeps both rules
  std::string msg;
};
Verdict verdict(const Layout &l);

}  // namespace cairn::check
