// The enumeration of tile layouts (layout.hpp has the semantics). Every
// builder checks its limits before it allocates: extents are nonzero, a
// layout holds at most kMaxLayoutElements elements (or participant/value
// pairs), and every offset stays below kMaxLayoutOffset, computed in 128
// bits so that no product wraps.
#include "lower/check/layout.hpp"

#include <unordered_map>

namespace cairn::check {

namespace {
using u128 = unsigned __int128;

std::string num(uint64_t v) { return std::to_string(v); }
std::string counted(uint64_t n, const char *noun) { return num(n) + " " + noun + (n == 1 ? "" : "s"); }

// The product of extents, or 0 when it passes the element limit.
uint64_t boundedProduct(const std::vector<uint64_t> &ext) {
  u128 n = 1;
  for (uint64_t e : ext) {
    n *= e;
    if (n > kMaxLayoutElements) return 0;
  }
  return static_cast<uint64_t>(n);
}

bool tooMany(const std::vector<uint64_t> &ext, const char *what, std::string &why) {
  for (uint64_t e : ext)
    if (e == 0) {
      why = std::string(what) + " has an extent of 0: a layout's extents are at least 1.";
      return true;
    }
  if (boundedProduct(ext) == 0) {
    why = std::string(what) + " lays out " + shapeText(ext) + ", more than the " + num(kMaxLayoutElements) +
          " elements a layout may hold.";
    return true;
  }
  return false;
}

void setCosize(Layout &l) {
  uint64_t m = 0;
  for (uint64_t o : l.offset) m = std::max(m, o + 1);
  l.cosize = m;
}

bool isStorage2(const Layout &l, const char *fn, std::string &why) {
  if (l.kind != LayoutKind::Storage || l.ext.size() != 2) {
    why = std::string(fn) + " takes a two-dimensional storage layout (rows, cols, strided, pad, swizzle or transpose).";
    return false;
  }
  return true;
}
}  // namespace

uint64_t Layout::size() const {
  uint64_t n = 1;
  for (uint64_t e : ext) n *= e;  // bounded by the builders
  return n;
}

std::string shapeText(const std::vector<uint64_t> &ext) {
  std::string s;
  for (size_t k = 0; k < ext.size(); ++k) s += (k ? " x " : "") + num(ext[k]);
  return s;
}

std::string coordText(const std::vector<uint64_t> &ext, uint64_t i) {
  std::vector<uint64_t> c(ext.size());
  for (size_t k = ext.size(); k-- > 0;) {
    c[k] = i % ext[k];
    i /= ext[k];
  }
  std::string s = "(";
  for (size_t k = 0; k < c.size(); ++k) s += (k ? ", " : "") + num(c[k]);
  return s + ")";
}

std::optional<Layout> makeStrided(uint64_t r, uint64_t c, uint64_t sr, uint64_t sc, std::string &why) {
  std::vector<uint64_t> ext{r, c};
  if (tooMany(ext, "the layout", why)) return std::nullopt;
  u128 last = u128(r - 1) * sr + u128(c - 1) * sc;
  if (last >= kMaxLayoutOffset) {
    why = "the layout places element (" + num(r - 1) + ", " + num(c - 1) +
          ") at an offset of 2^63 - 1 or more; every offset is below 2^63 - 1.";
    return std::nullopt;
  }
  Layout l;
  l.ext = ext;
  l.strided = true;
  l.sr = sr;
  l.sc = sc;
  l.offset.reserve(r * c);
  for (uint64_t i = 0; i < r; ++i)
    for (uint64_t j = 0; j < c; ++j) l.offset.push_back(i * sr + j * sc);
  setCosize(l);
  return l;
}

std::optional<Layout> makeRows(uint64_t r, uint64_t c, std::string &why) { return makeStrided(r, c, c, 1, why); }
std::optional<Layout> makeCols(uint64_t r, uint64_t c, std::string &why) { return makeStrided(r, c, 1, r, why); }

std::optional<Layout> makePad(const Layout &l, uint64_t p, std::string &why) {
  if (l.kind != LayoutKind::Storage || !l.strided) {
    why = "pad takes a strided storage layout (rows, cols, strided, or a pad or transpose of one).";
    return std::nullopt;
  }
  uint64_t sr = l.sr, sc = l.sc;
  u128 grown = u128(sr >= sc ? sr : sc) + p;
  if (grown >= kMaxLayoutOffset) {
    why = "pad(L, " + num(p) + ") makes a stride of 2^63 - 1 or more; every offset is below 2^63 - 1.";
    return std::nullopt;
  }
  if (sr >= sc) sr = static_cast<uint64_t>(grown);
  else sc = static_cast<uint64_t>(grown);
  return makeStrided(l.ext[0], l.ext[1], sr, sc, why);
}

std::optional<Layout> makeSwizzle(const Layout &l, uint64_t b, uint64_t m, uint64_t s, std::string &why) {
  if (l.kind != LayoutKind::Storage) {
    why = "swizzle takes a storage layout.";
    return std::nullopt;
  }
  if (b > 63 || m > 63 || s > 63 || b + m + s > 63) {
    why = "swizzle(L, " + num(b) + ", " + num(m) + ", " + num(s) +
          ") reads past bit 62: B + M + S is at most 63.";
    return std::nullopt;
  }
  Layout out = l;
  out.strided = false;
  uint64_t mask = b == 0 ? 0 : (((uint64_t(1) << b) - 1) << m);
  for (size_t i = 0; i < out.offset.size(); ++i) {
    uint64_t o = out.offset[i];
    o ^= (o >> s) & mask;
    if (o >= kMaxLayoutOffset) {
      why = "swizzle places element " + coordText(out.ext, i) + " at offset 2^63 - 1; every offset is below it.";
      return std::nullopt;
    }
    out.offset[i] = o;
  }
  setCosize(out);
  return out;
}

std::optional<Layout> makeTranspose(const Layout &l, std::string &why) {
  if (!isStorage2(l, "transpose", why)) return std::nullopt;
  uint64_t r = l.ext[0], c = l.ext[1];
  Layout out = l;
  out.ext = {c, r};
  std::swap(out.sr, out.sc);
  for (uint64_t i = 0; i < c; ++i)
    for (uint64_t j = 0; j < r; ++j) out.offset[i * r + j] = l.offset[j * c + i];
  return out;
}

std::optional<Layout> makeTile(const Layout &l, uint64_t tr, uint64_t tc, std::string &why) {
  if (!isStorage2(l, "tile", why)) return std::nullopt;
  uint64_t r = l.ext[0], c = l.ext[1];
  if (tr == 0 || tc == 0 || r % tr != 0 || c % tc != 0) {
    why = "tile(L, " + num(tr) + ", " + num(tc) + ") does not divide the " + shapeText(l.ext) +
          " tile into whole tiles.";
    return std::nullopt;
  }
  Layout out;
  out.ext = {r / tr, c / tc, tr, tc};
  out.offset.reserve(r * c);
  for (uint64_t i = 0; i < r / tr; ++i)
    for (uint64_t j = 0; j < c / tc; ++j)
      for (uint64_t a = 0; a < tr; ++a)
        for (uint64_t b = 0; b < tc; ++b) out.offset.push_back(l.offset[(i * tr + a) * c + j * tc + b]);
  out.cosize = l.cosize;
  return out;
}

std::optional<Layout> makeSpread(const Layout &l, uint64_t tr, uint64_t tc, uint64_t vr, uint64_t vc,
                                 std::string &why) {
  if (!isStorage2(l, "spread", why)) return std::nullopt;
  if (tr == 0 || tc == 0 || vr == 0 || vc == 0) {
    why = "spread(L, " + num(tr) + ", " + num(tc) + ", " + num(vr) + ", " + num(vc) +
          ") has an extent of 0: a layout's extents are at least 1.";
    return std::nullopt;
  }
  if (boundedProduct({tr, tc, vr, vc}) == 0) {
    why = "spread(L, " + num(tr) + ", " + num(tc) + ", " + num(vr) + ", " + num(vc) +
          ") gives its participants more than the " + num(kMaxLayoutElements) +
          " pairs of participant and value a layout may hold.";
    return std::nullopt;
  }
  uint64_t r = l.ext[0], c = l.ext[1];
  Layout d;
  d.kind = LayoutKind::Spread;
  d.tileR = r;
  d.tileC = c;
  d.tr = tr, d.tc = tc, d.vr = vr, d.vc = vc;
  // tooMany bounded tr*vr and tc*vc, so these products do not wrap.
  d.kr = std::max<uint64_t>(1, r / (tr * vr));
  d.kc = std::max<uint64_t>(1, c / (tc * vc));
  if (boundedProduct({tr, tc, vr, vc, d.kr, d.kc}) == 0) {
    why = "the spread gives " + num(tr * tc) + " participants " + num(vr * vc) + " values " + num(d.kr * d.kc) +
          " times, more than the " + num(kMaxLayoutElements) + " pairs a layout may hold.";
    return std::nullopt;
  }
  d.ext = {d.participants(), d.values()};
  uint64_t n = d.participants() * d.values();
  d.row.reserve(n), d.col.reserve(n), d.offset.reserve(n);
  for (uint64_t pr = 0; pr < tr; ++pr)
    for (uint64_t pc = 0; pc < tc; ++pc)
      for (uint64_t v = 0; v < d.values(); ++v) {
        uint64_t vcc = v % vc, vrr = (v / vc) % vr, rep = v / (vc * vr);
        uint64_t rr = ((rep / d.kc) * tr * vr + pr * vr + vrr) % r;
        uint64_t cc = ((rep % d.kc) * tc * vc + pc * vc + vcc) % c;
        d.row.push_back(rr);
        d.col.push_back(cc);
        d.offset.push_back(l.offset[rr * c + cc]);
      }
  d.cosize = l.cosize;
  return d;
}

std::optional<Layout> makeInverse(const Layout &l, std::string &why) {
  Layout inv;
  inv.kind = LayoutKind::Inverse;
  if (l.kind == LayoutKind::Spread) {
    // Exactly one holder per element (verdict() refused anything else).
    inv.ext = {l.tileR, l.tileC};
    inv.row.assign(l.tileR * l.tileC, 0);
    inv.col.assign(l.tileR * l.tileC, 0);
    uint64_t vals = l.values();
    for (uint64_t i = 0; i < l.row.size(); ++i) {
      uint64_t e = l.row[i] * l.tileC + l.col[i];
      inv.row[e] = i / vals;
      inv.col[e] = i % vals;
    }
  } else if (l.kind == LayoutKind::Storage && l.ext.size() == 2) {
    uint64_t n = l.size();
    if (l.cosize != n) {
      why = "inverse(L) needs a compact storage layout: L places " + num(n) + " elements over " + num(l.cosize) +
            " offsets.";
      return std::nullopt;
    }
    inv.ext = {n};
    inv.row.assign(n, 0);
    inv.col.assign(n, 0);
    for (uint64_t i = 0; i < n; ++i) {
      inv.row[l.offset[i]] = i / l.ext[1];
      inv.col[l.offset[i]] = i % l.ext[1];
    }
  } else {
    why = "inverse takes a spread or a two-dimensional storage layout.";
    return std::nullopt;
  }
  inv.cosize = inv.size();
  return inv;
}

static Verdict storageVerdict(const Layout &l) {
  std::unordered_map<uint64_t, uint64_t> at;
  at.reserve(l.offset.size());
  for (uint64_t i = 0; i < l.offset.size(); ++i) {
    auto [pos, fresh] = at.emplace(l.offset[i], i);
    if (fresh) continue;
    return Verdict{"E-LAYOUT-OVERLAP", "Elements " + coordText(l.ext, pos->second) + " and " + coordText(l.ext, i) +
                                           " of the " + shapeText(l.ext) + " tile are both at offset " +
                                           num(l.offset[i]) +
                                           "; a storage layout must give each element its own offset."};
  }
  return {};
}

static Verdict spreadVerdict(const Layout &d) {
  std::vector<uint64_t> tile{d.tileR, d.tileC};
  constexpr uint64_t kFree = UINT64_MAX;
  std::vector<uint64_t> holder(d.tileR * d.tileC, kFree);
  uint64_t vals = d.values(), held = 0;
  for (uint64_t i = 0; i < d.row.size(); ++i) {
    uint64_t e = d.row[i] * d.tileC + d.col[i];
    if (holder[e] == kFree) {
      holder[e] = i;
      ++held;
      continue;
    }
    uint64_t j = holder[e];
    return Verdict{"E-LAYOUT-OVERLAP", "Element " + coordText(tile, e) + " of the " + shapeText(tile) +
                                           " tile is held by participant " + num(j / vals) + " (value " +
                                           num(j % vals) + ") and participant " + num(i / vals) + " (value " +
                                           num(i % vals) + "); a spread must give each element one holder."};
  }
  for (uint64_t e = 0; e < holder.size(); ++e)
    if (holder[e] == kFree)
      return Verdict{"E-LAYOUT-GAP", "No participant holds element " + coordText(tile, e) + " of the " +
                                         shapeText(tile) + " tile; a spread must cover it: " +
                                         counted(d.participants(), "participant") + " with " +
                                         counted(vals, "value") + " each " + (d.participants() == 1 ? "holds " : "hold ") +
                                         num(held) + " of its " + num(holder.size()) + " elements."};
  return {};
}

Verdict verdict(const Layout &l) {
  if (l.kind == LayoutKind::Storage) return storageVerdict(l);
  if (l.kind == LayoutKind::Spread) return spreadVerdict(l);
  return {};
}

}  // namespace cairn::check
