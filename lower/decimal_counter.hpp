// A count kept as its decimal text, for the lowerer's node names (hint.N).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cairn::lower {

// The decimal text of a count that only goes up by one, from 0: stepping
// the text costs a few instructions where converting the number for every
// node's name cost some fifty.
class DecimalCounter {
 public:
  DecimalCounter() = default;
  explicit DecimalCounter(uint64_t start) {  // counts on from start
    len_ = 0;
    do {
      buf_[kMax - ++len_] = static_cast<char>('0' + start % 10);
      start /= 10;
    } while (start != 0);
  }
  std::string_view text() const { return {buf_ + kMax - len_, len_}; }
  void next() {
    for (size_t i = kMax; i-- > kMax - len_;) {
      if (buf_[i] != '9') {
        ++buf_[i];
        return;
      }
      buf_[i] = '0';
    }
    if (len_ < kMax) buf_[kMax - ++len_] = '1';  // 99..9 + 1; a 20-digit count is never reached
  }

 private:
  static constexpr size_t kMax = 20;
  char buf_[kMax] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '0'};
  size_t len_ = 1;
};

}  // namespace cairn::lower
