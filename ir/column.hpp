// Column<T>: a growable array of a trivially copyable T, behind the graph's
// operand columns (ir/graph.hpp).
//
// Like std::vector, with two differences: `pushRoom` appends without testing
// the capacity, for a caller that has made room; and reserved storage is
// left untouched (never value-initialized), so a generous reserve costs no
// page faults for the part that is not used. A copy keeps the capacity of
// the original.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace cairn {

template <class T>
class Column {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  Column() = default;
  explicit Column(T first) {
    reserve(8);
    p_[n_++] = first;
  }
  Column(const Column &o) {
    reserve(o.cap_);
    copyFrom(o);
  }
  Column(Column &&o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), cap_(std::exchange(o.cap_, 0)) {}
  Column &operator=(const Column &o) {
    if (this != &o) {
      n_ = 0;
      reserve(o.cap_);
      copyFrom(o);
    }
    return *this;
  }
  Column &operator=(Column &&o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
  ~Column() { release(); }

  size_t size() const { return n_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return n_ == 0; }
  T *data() { return p_; }
  const T *data() const { return p_; }
  const T *begin() const { return p_; }
  const T *end() const { return p_ + n_; }
  T &operator[](size_t i) { return p_[i]; }
  const T &operator[](size_t i) const { return p_[i]; }
  T &back() { return p_[n_ - 1]; }
  const T &back() const { return p_[n_ - 1]; }

  void reserve(size_t cap) {
    if (cap > cap_) regrow(cap);
  }
  void push_back(T v) {
    if (n_ == cap_) regrow(std::max<size_t>(8, 2 * cap_));
    p_[n_++] = v;
  }
  void pushRoom(T v) { p_[n_++] = v; }  // size() < capacity()
  // Room for n more values past the end, to be written in place and then
  // taken by commit(k), k <= n (the rest is scratch).
  T *room(size_t n) {
    if (cap_ - n_ < n) regrow(std::max<size_t>({8, 2 * cap_, n_ + n}));
    return p_ + n_;
  }
  void commit(size_t k) { n_ += k; }
  // Appends the n values at src. Up to 16 bytes are copied inline, as two
  // fixed-size copies that overlap (never a byte past src + n): the names
  // of nodes are short, and a call of memcpy for each cost more.
  void append(const T *src, size_t n) {
    T *dst = room(n);
    const size_t bytes = n * sizeof(T);
    auto *d = reinterpret_cast<unsigned char *>(dst);
    const auto *s = reinterpret_cast<const unsigned char *>(src);
    if (bytes >= 8 && bytes <= 16) {
      std::memcpy(d, s, 8);
      std::memcpy(d + bytes - 8, s + bytes - 8, 8);
    } else if (bytes >= 4 && bytes < 8) {
      std::memcpy(d, s, 4);
      std::memcpy(d + bytes - 4, s + bytes - 4, 4);
    } else if (bytes < 4) {
      for (size_t i = 0; i < bytes; ++i) d[i] = s[i];
    } else {
      std::memcpy(d, s, bytes);
    }
    commit(n);
  }

 private:
  // Storage from ::operator new, which creates the (implicit-lifetime)
  // elements as they are written.
  void regrow(size_t cap) {
    T *p = static_cast<T *>(::operator new(cap * sizeof(T)));
    if (n_ != 0) std::memcpy(static_cast<void *>(p), p_, n_ * sizeof(T));
    release();
    p_ = p;
    cap_ = cap;
  }
  void copyFrom(const Column &o) {
    if (o.n_ != 0) std::memcpy(static_cast<void *>(p_), o.p_, o.n_ * sizeof(T));
    n_ = o.n_;
  }
  void release() {
    if (p_) ::operator delete(p_);
    p_ = nullptr;
  }
  T *p_ = nullptr;
  size_t n_ = 0, cap_ = 0;
};

}  // namespace cairn
