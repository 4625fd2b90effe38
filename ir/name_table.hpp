// The .uir reader's name table (internal to ir/parser.cpp): the name
// characters, and an open-address table from a name to the node it names.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "ir/graph.hpp"
#include "ir/huge_pages.hpp"

namespace cairn::uirnames {

struct NameChars {
  bool is[256] = {};
  constexpr NameChars() {
    for (int c = 0; c < 256; ++c)
      is[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  }
};
inline constexpr NameChars kNameChars;
inline bool isNameChar(unsigned char c) { return kNameChars.is[c]; }

// Each of the 64 name characters as a number below 64.
struct NameCodes {
  uint8_t v[256] = {};
  constexpr NameCodes() {
    int next = 0;
    for (int c = 0; c < 256; ++c)
      if (NameChars().is[c]) v[c] = static_cast<uint8_t>(next++);
  }
};
inline constexpr NameCodes kCode;
static_assert([] {
  int n = 0;
  for (bool b : NameChars().is) n += b ? 1 : 0;
  return n == 64;
}(), "a short name is its own key only with 64 name characters (6 bits each)");

// The end of the name that starts at p: the first byte in [p, e) that is
// not a name character. (A byte at a time: names are short, and a 16-byte
// vector test measured slower here.)
inline const char *nameEnd(const char *p, const char *e) {
  while (p != e && isNameChar(static_cast<unsigned char>(*p))) ++p;
  return p;
}

// Names are resolved through an open-address table whose 12-byte slots hold
// a node id and a 64-bit key. A name of at most 10 characters is its own
// key, exactly: up to 8, its bytes (each below 0x80, so bit 63 is clear);
// 9 or 10, the 64 name characters at 6 bits each, under a length nibble of
// 9 or 10. Equal keys are then equal names, so a lookup never reads the
// name it finds (elsewhere in memory). Longer names key by a hash (under
// the nibble 15) and are compared on a match. The parser prefetches the
// slots of the names a few lines ahead (Parser::prefetchAhead), so on
// graphs far larger than the cache a lookup rarely waits for memory.
//
// Size: any slot count (the home slot is a multiply-high of the mixed key,
// not a mask), at most 2/3 full, so a table reserved for n names takes
// 18 bytes a name rather than 24-48 with a power of two of 16-byte slots:
// the table is the largest thing the reader makes besides the graph.
class NameTable {
 public:
  explicit NameTable(const Graph &g) : g_(g) { rehash(1024); }
  void reserve(size_t n) {
    size_t want = std::max<size_t>(1024, n + n / 2 + 1);
    if (want > size_) rehash(want);
  }
  // The key of a name (never empty: 0 marks an empty slot).
  static uint64_t key(std::string_view s) { return key(s.data(), s.size(), s.data() + s.size()); }
  // The same, for the n bytes at p of a text that ends at `end`: a name of
  // up to 8 is one 8-byte load where the text has the bytes.
  static uint64_t key(const char *p, size_t n, const char *end) {
    if (n <= 8) {
      uint64_t k = 0;
      if (std::endian::native == std::endian::little && end - p >= 8) {
        std::memcpy(&k, p, 8);
        return n == 8 ? k : k & ((uint64_t{1} << (8 * n)) - 1);  // little-endian: the first n bytes
      }
      for (size_t i = 0; i < n; ++i) k |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
      return k;
    }
    if (n <= kShortMax) {
      uint64_t k = 0;
      for (size_t i = 0; i < n; ++i) k |= uint64_t{kCode.v[static_cast<unsigned char>(p[i])]} << (6 * i);
      return (uint64_t{n} << 60) | k;
    }
    return (uint64_t{15} << 60) | (hash(std::string_view(p, n)) >> 4);
  }
  bool large() const { return size_ >= (size_t{1} << 16); }  // 768 KiB and more
  // The cache lines of the home slot and the slot after it (one line, most
  // often): a probe seldom runs further at 2/3 full, and a prefetch of a
  // further line would hold one of the core's few fill buffers, which the
  // lines ahead need. (An asm statement: GCC drops a __builtin_prefetch in a
  // loop that has no other effect.)
  void prefetch(uint64_t k) const {
    size_t h = home(k);
    const Slot *at = &slots_[h];
    const char *next = h + 1 < size_ ? reinterpret_cast<const char *>(at + 2) - 1 : reinterpret_cast<const char *>(at);
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht0 %0\n\tprefetcht0 %1" : : "m"(*at), "m"(*next));
#else
    __builtin_prefetch(at);
    __builtin_prefetch(next);
#endif
  }
  // The node named `name` (key `k`), or none.
  NodeId find(std::string_view name, uint64_t k) const {
    for (size_t i = home(k);; i = next(i)) {
      const Slot &e = slots_[i];
      if (e.key() == 0) return NodeId::none();
      if (e.key() == k && (name.size() <= kShortMax || g_.name(NodeId{e.id}) == name)) return NodeId{e.id};
    }
  }
  // Adds `id` (a node named `name`, with key `k`, that exists by the time
  // the table is next probed) unless the name is there: returns the node
  // already named so, or none.
  NodeId insertIfAbsent(std::string_view name, uint64_t k, NodeId id) {
    if ((count_ + 1) * 3 > size_ * 2) rehash(size_ * 2);
    size_t i = home(k);
    for (;; i = next(i)) {
      const Slot &e = slots_[i];
      if (e.key() == 0) break;
      if (e.key() == k && (name.size() <= kShortMax || g_.name(NodeId{e.id}) == name)) return NodeId{e.id};
    }
    slots_[i] = Slot::of(k, id);
    ++count_;
    return NodeId::none();
  }

 private:
  static constexpr size_t kShortMax = 10;
  // The key in two halves, so a slot is 12 bytes with 4-byte alignment.
  struct Slot {
    uint32_t lo, hi;  // the key; 0: empty (no name is empty)
    uint32_t id;
    uint64_t key() const { return uint64_t{hi} << 32 | lo; }
    static Slot of(uint64_t k, NodeId id) { return Slot{static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32), id.v}; }
  };
  size_t next(size_t i) const { return i + 1 == size_ ? 0 : i + 1; }
  // Eight bytes at a time, then a final mix.
  static uint64_t hash(std::string_view s) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
    }
    uint64_t w = 0;
    for (size_t k = i; k < s.size(); ++k) w = (w << 8) | static_cast<unsigned char>(s[k]);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 29);
  }
  // The home slot: every bit of the key mixed, then scaled to [0, size_)
  // by the high half of a 64x64-bit product.
  size_t home(uint64_t k) const {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ull;
    k ^= k >> 29;
    return static_cast<size_t>((static_cast<unsigned __int128>(k) * size_) >> 64);
  }
  void rehash(size_t size) {
    std::unique_ptr<Slot[]> old = std::move(slots_);
    size_t oldSize = size_;
    slots_ = std::make_unique_for_overwrite<Slot[]>(size);
    adviseHugePages(slots_.get(), size * sizeof(Slot));  // lookups are random: spare the TLB
    std::fill_n(slots_.get(), size, Slot{0, 0, 0});
    size_ = size;
    if (!old) return;
    for (size_t k = 0; k < oldSize; ++k)
      if (old[k].key() != 0) {
        size_t i = home(old[k].key());
        while (slots_[i].key() != 0) i = next(i);
        slots_[i] = old[k];
      }
  }
  const Graph &g_;
  std::unique_ptr<Slot[]> slots_;
  size_t size_ = 0;  // slots
  size_t count_ = 0;
};

}  // namespace cairn::uirnames
