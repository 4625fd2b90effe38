// A count kept as its decimal text, for the lowerer's node names (hint.N).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace cairn::lower {

// The decimal text of a count that only goes up by one, from 0: stepping
// the text costs a few instructions where converting the number for every
// node's name cost some fifty. The digits sit at the start of a fixed
// buffer, so a name is built with a copy of constant size (copyTo).
class DecimalCounter {
 public:
  static constexpr size_t kBytes = 24;  // copyTo writes this many; a u64 has at most 20 digits
  DecimalCounter() = default;
  explicit DecimalCounter(uint64_t start) {  // counts on from start
    char rev[kBytes];
    len_ = 0;
    do {
      rev[len_++] = static_cast<char>('0' + start % 10);
      start /= 10;
    } while (start != 0);
    for (size_t i = 0; i < len_; ++i) buf_[i] = rev[len_ - 1 - i];
  }
  std::string_view text() const { return {buf_, len_}; }
  void copyTo(char *dst) const { std::memcpy(dst, buf_, kBytes); }  // the digits, then bytes to ignore
  void next() {
    for (size_t i = len_; i-- > 0;) {
      if (buf_[i] != '9') {
        ++buf_[i];
        return;
      }
      buf_[i] = '0';
    }
    if (len_ < kBytes) {  // 99..9 + 1 = 100..0; a count of kBytes digits is never reached
      buf_[0] = '1';
      buf_[len_++] = '0';
    }
  }

 private:
  char buf_[kBytes] = {'0'};
  size_t len_ = 1;
};

}  // namespace cairn::lower
