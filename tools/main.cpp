// main() of the `cairn` CLI: runs the command line (tools/cairn.cpp, cli)
// inside the one handler for internal errors. Whatever escapes a command is
// a bug in cairn, not in the user's input: a failed CAIRN_CHECK
// (InternalError, ir/check.hpp), any other std::exception, or running out
// of memory. Each prints `cairn: internal error: MESSAGE` (with `(at
// FILE:LINE)` for a failed check) and a line asking for a report, on stderr,
// and exits 70 (EX_SOFTWARE), whatever the command. Commands report user
// errors themselves (exit 1 or 2); they do not catch internal ones.
//
// For the tests: CAIRN_TEST_INTERNAL_ERROR=1 in the environment makes a
// check fail at start, before the command line is read, so that the path
// above (or, in the sanitizer and fuzz builds, the abort) can be seen.
#include <cstdlib>
#include <iostream>
#include <new>
#include <string_view>

#include "ir/check.hpp"
#include "tools/commands.hpp"

namespace {

constexpr int kInternal = 70;

bool testInternalError() {
  const char *v = std::getenv("CAIRN_TEST_INTERNAL_ERROR");
  return v && *v && std::string_view(v) != "0";
}

int internal(std::string_view message, std::string_view advice) {
  std::cerr << "cairn: internal error: " << message << '\n' << "cairn: note: " << advice << '\n';
  return kInternal;
}

constexpr std::string_view kReport =
    "this is a bug in cairn, not in your input; please report it with the command line and its input files";

}  // namespace

int main(int argc, char **argv) {
  try {
    CAIRN_CHECK(!testInternalError(), "CAIRN_TEST_INTERNAL_ERROR is set (a failure on purpose, for the tests)");
    return cairn::cli(argc, argv);
  } catch (const cairn::InternalError &e) {
    return internal(std::string(e.what()) + " (at " + e.file() + ":" + std::to_string(e.line()) + ")", kReport);
  } catch (const std::bad_alloc &) {
    return internal("out of memory", "the command needed more memory than it could get (limits such as "
                                     "--max-elements bound what a program may allocate)");
  } catch (const std::exception &e) {
    return internal(e.what(), kReport);
  } catch (...) {
    return internal("an exception that is not a std::exception", kReport);
  }
}
