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
// vector test, and an 8-byte one, measured no faster here.)
inline const char *nameEnd(const char *p, const char *e) {
  while (p != e && isNameChar(static_cast<unsigned char>(*p))) ++p;
  return p;
}

// Names are resolved in one of two places, chosen by the name's spelling.
//
// Numbered names: a prefix of at most 8 characters followed by a decimal
// number of at most 9 digits without a leading zero (%v12, %t3, %x0, %0),
// which is how program generators and the lowerer name nodes. Each prefix
// (up to kPrefixes of them) has a dense array from the number to the node,
// as LLVM keeps its numbered values in a vector: a name defined a few lines
// before its use is then a few bytes away from the last lookup, rather than
// a cache and TLB miss in a table of every name, and the arrays take 4-8
// bytes a name rather than 18. The arrays grow by doubling, within a budget
// of a few entries per line of the text (reserve), so a sparse or hostile
// numbering (%x999999999) cannot make them large: a name that would break
// the budget, or has a prefix beyond the first kPrefixes, is kept in the
// table below instead, and every lookup of a numbered name that misses its
// array looks there too.
//
// Other names: an open-address table whose 12-byte slots hold a node id
// and a 64-bit key. A name of at most 10 characters is its own key, exactly:
// up to 8, its bytes (each below 0x80, so bit 63 is clear); 9 or 10, the 64
// name characters at 6 bits each, under a length nibble of 9 or 10. Equal
// keys are then equal names, so a lookup never reads the name it finds
// (elsewhere in memory). Longer names key by a hash (under the nibble 15)
// and are compared on a match.
//
// On graphs far larger than the cache a lookup rarely waits for memory: the
// parser prefetches a reference's slot when it reads it and looks it up a
// few dozen references later (Parser::defer), and, once the open-address
// table is large, prefetches the names a few lines ahead
// (Parser::prefetchAhead), definitions included.
//
// Size: any slot count (the home slot is a multiply-high of the mixed key,
// not a mask), at most 2/3 full, growing by doubling from 1024 slots.
class NameTable {
 public:
  explicit NameTable(const Graph &g) : g_(g) { rehash(1024); }
  // About n names are coming: sets the numbered arrays' budget.
  void reserve(size_t n) { budget_ = std::max(budget_, 4 * n + kBudgetFloor); }
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
  // Whether the open-address table holds so many names that its lookups
  // miss the cache (768 KiB and more).
  bool manyHashed() const { return count_ >= (size_t{1} << 16); }
  // Whether both parts together are small enough to stay in a core's
  // cache (at most kCachedBytes): then a lookup seldom misses, and looking
  // a reference up at once costs less than deferring it (Parser::defer).
  bool cached() const { return arrayEntries_ * sizeof(uint32_t) + size_ * sizeof(Slot) <= kCachedBytes; }
  // A name ready for lookups: its key and, when it is a numbered name, its
  // prefix and number (computed once for the prefetch and the lookup).
  struct Ref {
    uint64_t key;
    uint64_t prefix;  // its bytes, as key() packs a name of up to 8
    uint32_t number;
    bool isNumbered;
  };
  // A name of up to 8 characters is taken apart in its key, a byte a lane:
  // the last byte that is not a digit ends the prefix, and the digits
  // after it are converted eight at a time (as simdjson's
  // parse_eight_digits_unrolled). Longer ones: refSlow.
  [[gnu::always_inline]] static Ref ref(std::string_view name, uint64_t key) {
    const size_t n = name.size();
    if (n - 1 >= 8 || std::endian::native != std::endian::little) return refSlow(name, key);
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    const uint64_t inName = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
    // A byte is a digit when its high nibble is 3 and its low one below 10.
    const uint64_t notDigit = (((key & 0xF0 * kOnes) ^ 0x30 * kOnes) | (((key & 0x0F * kOnes) + 0x06 * kOnes) & 0xF0 * kOnes)) & inName;
    const size_t d = notDigit ? static_cast<size_t>(63 - std::countl_zero(notDigit)) / 8 + 1 : 0;  // the prefix's length
    const size_t digits = n - d;
    Ref r{key, 0, 0, false};
    if (digits == 0 || (digits > 1 && ((key >> (8 * d)) & 0xFF) == '0')) return r;
    const uint64_t inDigits = digits == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * digits)) - 1;
    uint64_t v = (((key >> (8 * d)) & inDigits) - (0x30 * kOnes & inDigits)) << (8 * (8 - digits));  // leading zeros
    v = v * 10 + (v >> 8);
    v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
    r.number = static_cast<uint32_t>(v);
    r.prefix = key & ((uint64_t{1} << (8 * d)) - 1);  // d < 8: there is a digit
    r.isNumbered = true;
    return r;
  }
  // The same a character at a time, for any name.
  static Ref refSlow(std::string_view name, uint64_t key) {
    Ref r{key, 0, 0, false};
    size_t d = name.size();
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
    size_t digits = name.size() - d;
    if (digits == 0 || digits > 9 || d > 8 || (digits > 1 && name[d] == '0')) return r;
    for (size_t i = d; i < name.size(); ++i) r.number = r.number * 10 + static_cast<uint32_t>(name[i] - '0');
    for (size_t i = 0; i < d; ++i) r.prefix |= uint64_t{static_cast<unsigned char>(name[i])} << (8 * i);
    r.isNumbered = true;
    return r;
  }
  // The cache line(s) where a lookup of `name` will look first. (An asm
  // statement: GCC drops a __builtin_prefetch in a loop that has no other
  // effect.)
  void prefetch(const Ref &r) const {
    if (r.isNumbered) {
      int a = arrayOf(r.prefix);
      if (a >= 0 && r.number < arrays_[a].size) return touch(&arrays_[a].ids[r.number], nullptr);
      if (numberedHashed_ == 0) return;
    }
    // The home slot and the slot after it (one line, most often): a probe
    // seldom runs further at 2/3 full, and a prefetch of a further line
    // would hold one of the core's few fill buffers, which the lines ahead
    // need.
    size_t h = home(r.key);
    const Slot *at = &slots_[h];
    touch(at, h + 1 < size_ ? reinterpret_cast<const char *>(at + 2) - 1 : nullptr);
  }
  void prefetch(std::string_view name, uint64_t k) const { prefetch(ref(name, k)); }
  // Whether r is "near": a numbered name at most kNear numbers below the
  // last one defined with its prefix. Its entry is then a few KiB from the
  // last one written, in cache however large the table (a version chain's
  // references all are). When it is near, findNear looks it up as find
  // does (out: the node, or none), with one search for the prefix's array,
  // and gives true; otherwise false, out untouched.
  [[gnu::always_inline]] bool findNear(std::string_view name, const Ref &r, NodeId &out) const {
    if (!r.isNumbered) return false;
    const int a = arrayOf(r.prefix);
    if (a < 0 || arrays_[a].last - r.number >= kNear) return false;  // a number past the last wraps: far
    out = findNumbered(name, r, a);
    return true;
  }
  // The node named `name`, or none.
  [[gnu::always_inline]] NodeId find(std::string_view name, const Ref &r) const {
    if (r.isNumbered) return findNumbered(name, r, arrayOf(r.prefix));
    return count_ == 0 ? NodeId::none() : findHashed(name, r.key);
  }
  NodeId find(std::string_view name, uint64_t k) const { return find(name, ref(name, k)); }
  // Adds `id` (a node named `name`, that exists by the time the table is
  // next probed) unless the name is there: returns the node already named
  // so, or none.
  NodeId insertIfAbsent(std::string_view name, const Ref &r, NodeId id) {
    if (r.isNumbered) {
      int a = arrayOf(r.prefix);
      if (a < 0) a = addArray(r.prefix);
      if (a >= 0 && fits(arrays_[a], r.number)) {
        uint32_t &slot = arrays_[a].ids[r.number];
        if (slot != kNone) return NodeId{slot};
        if (numberedHashed_ != 0)  // it may have gone to the table when it did not fit
          if (NodeId there = findHashed(name, r.key); there.valid()) return there;
        slot = id.v;
        arrays_[a].last = r.number;
        return NodeId::none();
      }
      NodeId there = insertHashed(name, r.key, id);
      if (!there.valid()) ++numberedHashed_;
      return there;
    }
    return insertHashed(name, r.key, id);
  }
  NodeId insertIfAbsent(std::string_view name, uint64_t k, NodeId id) { return insertIfAbsent(name, ref(name, k), id); }

 private:
  static constexpr size_t kShortMax = 10;
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr int kPrefixes = 16;
  static constexpr size_t kBudgetFloor = size_t{1} << 16;  // entries, for short texts
  static constexpr size_t kCachedBytes = size_t{1} << 20;
  static constexpr uint32_t kNear = 4096;

  // ---- numbered names ----
  struct Array {
    uint64_t prefix = 0;
    std::unique_ptr<uint32_t[]> ids;  // by number: the node, or kNone
    size_t size = 0;
    uint32_t last = 0;  // the number defined last
  };
  // find for a numbered name whose prefix has array a (-1: none): its
  // entry, or the hashed table when numbered names went there too.
  [[gnu::always_inline]] NodeId findNumbered(std::string_view name, const Ref &r, int a) const {
    if (a >= 0 && r.number < arrays_[a].size && arrays_[a].ids[r.number] != kNone) return NodeId{arrays_[a].ids[r.number]};
    if (numberedHashed_ == 0 || count_ == 0) return NodeId::none();
    return findHashed(name, r.key);
  }
  // The array of a prefix, or -1. The last one found is tried first: a
  // generator's names come in runs of one prefix.
  int arrayOf(uint64_t prefix) const {
    if (last_ < prefixCount_ && arrays_[last_].prefix == prefix) return last_;
    for (int i = 0; i < prefixCount_; ++i)
      if (arrays_[i].prefix == prefix) return last_ = i;
    return -1;
  }
  int addArray(uint64_t prefix) {
    if (prefixCount_ == kPrefixes) return -1;
    arrays_[prefixCount_].prefix = prefix;
    return last_ = prefixCount_++;
  }
  // Whether array `a` has (or can grow, within the budget, to have) an
  // entry for `number`.
  bool fits(Array &a, uint32_t number) {
    if (number < a.size) return true;
    size_t want = std::max<size_t>({size_t{number} + 1, 2 * a.size, 256});
    if (arrayEntries_ - a.size + want > budget_) want = size_t{number} + 1;  // just enough, then
    if (arrayEntries_ - a.size + want > budget_) return false;
    auto ids = std::make_unique_for_overwrite<uint32_t[]>(want);
    adviseHugePages(ids.get(), want * sizeof(uint32_t));  // lookups may be random: spare the TLB
    if (a.size) std::memcpy(ids.get(), a.ids.get(), a.size * sizeof(uint32_t));
    std::fill(ids.get() + a.size, ids.get() + want, kNone);
    arrayEntries_ += want - a.size;
    a.ids = std::move(ids);
    a.size = want;
    return true;
  }
  static void touch(const void *a, const void *b) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char *>(a)));
    if (b) asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char *>(b)));
#else
    __builtin_prefetch(a);
    if (b) __builtin_prefetch(b);
#endif
  }

  // ---- other names: the open-address table ----
  NodeId findHashed(std::string_view name, uint64_t k) const {
    for (size_t i = home(k);; i = next(i)) {
      const Slot &e = slots_[i];
      if (e.key() == 0) return NodeId::none();
      if (e.key() == k && (name.size() <= kShortMax || g_.name(NodeId{e.id}) == name)) return NodeId{e.id};
    }
  }
  NodeId insertHashed(std::string_view name, uint64_t k, NodeId id) {
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
  Array arrays_[kPrefixes];
  int prefixCount_ = 0;
  mutable int last_ = 0;
  size_t arrayEntries_ = 0;  // over all arrays
  size_t numberedHashed_ = 0;  // numbered names kept in the table (they did not fit)
  size_t budget_ = kBudgetFloor;  // entries over all arrays
  std::unique_ptr<Slot[]> slots_;
  size_t size_ = 0;  // slots
  size_t count_ = 0;
};

}  // namespace cairn::uirnames
