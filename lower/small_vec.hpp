// A vector of trivially copyable values that keeps its first N inline.
//
// A value's leaves (Val) and a place's or array's columns (Place, Arr) are
// one to a few long and are made and copied for nearly every expression the
// lowerer visits; as std::vectors each was a heap allocation. Only what the
// lowerer uses of std::vector's interface is here. Invariant: data_ points
// at the inline elements until the vector first outgrows them, then at a
// heap block of cap_ elements that it owns.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <vector>

namespace cairn::lower {

template <class T, uint32_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  using value_type = T;
  using iterator = T *;
  using const_iterator = const T *;

  SmallVec() = default;
  SmallVec(std::initializer_list<T> l) { append(l.begin(), l.end()); }
  SmallVec(const T *b, const T *e) { append(b, e); }
  SmallVec(const std::vector<T> &v) { append(v.data(), v.data() + v.size()); }  // NOLINT: implicit, as a vector was
  SmallVec(const SmallVec &o) { append(o.begin(), o.end()); }
  SmallVec(SmallVec &&o) noexcept { take(o); }
  SmallVec &operator=(const SmallVec &o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVec &operator=(SmallVec &&o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T *data() { return data_; }
  const T *data() const { return data_; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }
  T &front() { return data_[0]; }
  const T &front() const { return data_[0]; }
  T &back() { return data_[size_ - 1]; }
  const T &back() const { return data_[size_ - 1]; }

  void clear() { size_ = 0; }
  void pop_back() { --size_; }
  void truncate(size_t n) {  // keeps the first n (n <= size())
    if (n < size_) size_ = static_cast<uint32_t>(n);
  }
  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  void push_back(const T &v) {
    if (size_ == cap_) {
      T copy = v;  // v may lie in this vector
      grow(2 * static_cast<size_t>(cap_));
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = v;
  }
  void assign(const T *b, const T *e) {
    clear();
    append(b, e);
  }
  // Inserts [b, e), which must not lie in this vector, before pos.
  T *insert(const T *pos, const T *b, const T *e) {
    size_t at = static_cast<size_t>(pos - data_), n = static_cast<size_t>(e - b);
    reserve(size_ + n);
    std::memmove(data_ + at + n, data_ + at, (size_ - at) * sizeof(T));
    if (n) std::memcpy(data_ + at, b, n * sizeof(T));
    size_ += static_cast<uint32_t>(n);
    return data_ + at;
  }

 private:
  void append(const T *b, const T *e) { insert(end(), b, e); }
  void grow(size_t n) {
    if (n < 2 * static_cast<size_t>(cap_)) n = 2 * static_cast<size_t>(cap_);
    T *p = static_cast<T *>(std::malloc(n * sizeof(T)));
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(p, data_, size_ * sizeof(T));
    release();
    data_ = p;
    cap_ = static_cast<uint32_t>(n);
  }
  void release() {
    if (data_ != inl()) std::free(data_);
    data_ = inl();
    cap_ = N;
  }
  // Takes o's elements (its heap block, or a copy of its inline ones) and
  // leaves o empty and inline.
  void take(SmallVec &o) {
    if (o.data_ == o.inl()) {
      if (o.size_) std::memcpy(inl(), o.data_, o.size_ * sizeof(T));
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inl();
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  // The inline elements are raw bytes (T is an implicit-lifetime type), so
  // an empty vector writes nothing there.
  T *inl() { return reinterpret_cast<T *>(buf_); }
  T *data_ = inl();
  uint32_t size_ = 0, cap_ = N;
  alignas(T) unsigned char buf_[N * sizeof(T)];
};

}  // namespace cairn::lower
