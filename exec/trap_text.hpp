// The texts of the machine's trap messages, in one table, as printf formats.
//
// Internal to exec/. The C runtime (runtime/cairn_rt.h, cairn_rt_module.h)
// prints the same messages for the same traps with the same formats; the
// unit test TrapText (tests/unit/trap_text_test.cpp) checks that every entry marked `inC` appears,
// character for character, in the runtime's text (cRuntimeText()), so the
// two engines cannot drift apart. The machine formats an entry with
// formatTrap(kX.format, args...), with the runtime's C argument types.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

namespace cairn::exec {

struct TrapText {
  const char *format;
  bool inC;  // the C runtime prints it too
};

// clang-format off
inline constexpr TrapText kDivisionByZero{"division by zero", true};
inline constexpr TrapText kOverflow{"arithmetic overflow", true};
inline constexpr TrapText kViewIndex{"index %s out of bounds for a view of %llu elements", true};
inline constexpr TrapText kViewRange{"a view of %llu elements at offset %s is out of bounds for a view of %llu elements", true};
inline constexpr TrapText kBufferIndex{"index %lld out of bounds for buffer %s of %llu elements", true};
inline constexpr TrapText kBufferLimit{"buffer of %llu elements exceeds the limit of %llu elements (--max-elements)", true};
inline constexpr TrapText kBufferLimitWith{"buffer of %llu elements exceeds the limit of %llu elements (--max-elements) with the %llu elements already allocated", true};
inline constexpr TrapText kNegativeSize{"buffer size %lld is negative", true};
inline constexpr TrapText kNegativeLiteralSize{"buffer size is negative", false};
inline constexpr TrapText kOutOfMemory{"out of memory", true};
inline constexpr TrapText kLiveLimit{"out of memory: %llu more elements would pass the limit of %llu live elements (%llu in use)", true};
inline constexpr TrapText kPartRange{"part [%llu, %llu) out of range for a view of %llu elements", true};
inline constexpr TrapText kTooManyObjects{"out of memory: too many heap objects", true};
inline constexpr TrapText kDoubleFree{"double free: heap object %llu was already released", true};
inline constexpr TrapText kReleased{"use of a released heap object", true};
inline constexpr TrapText kBadColumn{"deref of a column the object does not have", true};
inline constexpr TrapText kStackOverflow{"stack overflow (call depth %u)", true};
inline constexpr TrapText kNoFit{"value does not fit %s", true};
inline constexpr TrapText kStepLimit{"exceeded the step limit of %llu", false};
inline constexpr TrapText kTimeLimit{"exceeded the time limit of %s s", false};
// clang-format on

inline constexpr const TrapText *kTrapTexts[] = {
    &kDivisionByZero, &kOverflow,   &kViewIndex,      &kViewRange,  &kBufferIndex, &kBufferLimit,  &kBufferLimitWith,
    &kNegativeSize,   &kNegativeLiteralSize, &kOutOfMemory, &kLiveLimit, &kPartRange, &kTooManyObjects, &kDoubleFree,
    &kReleased,       &kBadColumn,  &kStackOverflow,  &kNoFit,      &kStepLimit,   &kTimeLimit};

// The message of a format of this table (formatTrap(kX.format, args...)),
// with the runtime's C argument types (unsigned long long for %llu).
inline std::string formatTrap(const char *format, ...) {
  va_list ap, ap2;
  va_start(ap, format);
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, format, ap);
  va_end(ap);
  std::string s(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, format, ap2);
  va_end(ap2);
  return s;
}
using ull = unsigned long long;
using ll = long long;

}  // namespace cairn::exec
