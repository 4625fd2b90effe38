// Internal checks: one policy for bugs in cairn (not the user's fault).
//
//   CAIRN_CHECK(cond, msg)   when cond is false, an internal error
//   CAIRN_UNREACHABLE(msg)   always an internal error (a "cannot happen" branch)
//
// msg is anything an std::ostream takes, or a chain of them
// (`"node " << id << " has no dtype"`); it is evaluated only when the check
// fails. Use these for conditions that the code's own invariants guarantee
// (a validated graph, a schedule that matches it), never for bad input:
// user errors are diagnostics (ir/diag.hpp) or usage errors.
//
// What a failure does depends on the build:
//   - sanitizer and libFuzzer builds (CMake's CAIRN_SANITIZE / CAIRN_FUZZ
//     define CAIRN_CHECK_ABORTS for every target): prints
//     `internal error: MSG (FILE:LINE)` on stderr and calls std::abort(), so
//     the sanitizer or the fuzzer reports it with a stack and a reproducer;
//   - otherwise: throws cairn::InternalError, which the `cairn` command line
//     catches once around its whole dispatch (tools/cairn.cpp) and reports
//     as `cairn: internal error: MSG (at FILE:LINE)`, exit 70.
// FILE is the path of the source file relative to the source tree.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace cairn {

// A bug in cairn. what() is the message alone; file() and line() say where
// the check that failed is.
class InternalError : public std::logic_error {
 public:
  InternalError(std::string file, int line, const std::string &message)
      : std::logic_error(message), file_(std::move(file)), line_(line) {}
  const std::string &file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string file_;
  int line_;
};

// Whether failed checks abort (CAIRN_CHECK_ABORTS) instead of throwing.
constexpr bool kCheckAborts =
#ifdef CAIRN_CHECK_ABORTS
    true;
#else
    false;
#endif

// __FILE__ as shown in messages: relative to the source tree (the compiler
// may have been given an absolute path, or a relative one through ccache).
std::string checkFileName(const char *file);

// Reports a failed check as described above; never returns.
[[noreturn]] void internalError(const char *file, int line, const std::string &message);

}  // namespace cairn

#define CAIRN_CHECK(cond, msg)                                            \
  do {                                                                    \
    if (!(cond)) [[unlikely]] {                                           \
      std::ostringstream cairn_check_msg_;                                \
      cairn_check_msg_ << msg;                                            \
      ::cairn::internalError(__FILE__, __LINE__, cairn_check_msg_.str()); \
    }                                                                     \
  } while (0)

#define CAIRN_UNREACHABLE(msg)                                          \
  do {                                                                  \
    std::ostringstream cairn_check_msg_;                                \
    cairn_check_msg_ << msg;                                            \
    ::cairn::internalError(__FILE__, __LINE__, cairn_check_msg_.str()); \
  } while (0)
