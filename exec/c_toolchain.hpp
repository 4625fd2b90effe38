// Compiling and running emitted C: the system C compiler, private temporary
// folders and child processes (POSIX).
//
// Used by `cairn run --backend c`, the golden-file runner and the fuzzers.
// No shell is involved: CC and CFLAGS are split on blanks into argv words
// (so `CC="ccache gcc"` and `CFLAGS="-O3 -march=native"` work, but quoting
// does not). The compiler runs with TMPDIR set to the private folder, so
// its own temporary files land there too, and everything in the folder is
// removed with it.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace cairn {

struct CCompiler {
  std::vector<std::string> cc;      // the command: ${CC:-cc}, split
  std::vector<std::string> cflags;  // ${CFLAGS:--O2}, split
};

// A command line from an environment variable, split on blanks (no quoting).
std::vector<std::string> splitWords(const char *s);

// From the environment: CC (default `cc`) and CFLAGS (default `-O2`).
CCompiler compilerFromEnv();
// Whether the compiler's command names an executable (a path, or a name
// found in PATH).
bool compilerAvailable(const CCompiler &c);

// A fresh folder from mkdtemp under $TMPDIR (or /tmp), removed with its
// contents when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string &path() const { return path_; }
  const std::string &error() const { return error_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

 private:
  std::string path_, error_;
};

struct ProcessIO {
  // Empty: inherit this process's stream; else a file (stdin read from it,
  // stdout/stderr truncated and written).
  std::string in, out, err;
};

struct ProcessResult {
  bool started = false;  // false: error says why it could not run
  std::string error;
  int exitCode = -1;     // when it exited normally
  int signal = 0;        // when a signal ended it
  bool timedOut = false; // killed after timeoutSeconds
};

// Runs argv[0] (searched in PATH) with argv; env entries NAME=VALUE are
// added to (or replace in) the environment. timeoutSeconds > 0 kills it
// (SIGKILL) after that long.
ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessIO &io,
                         const std::vector<std::string> &env = {}, double timeoutSeconds = 0);

// "SIGSEGV" for a signal number (the usual POSIX signals), else "signal N".
std::string signalName(int sig);
// Whether a signal is one a program raises by its own fault (SIGSEGV,
// SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS), not one sent to it.
bool isCrashSignal(int sig);

// The exit status of `cairn run --backend c` when the compiled program
// crashed: the oracle accepted the program, so a crash is a bug in cairn.
constexpr int kCompiledCrashStatus = 70;

// Runs a compiled program for `cairn run --backend c` (argv, io as
// runProcess) and turns how it ended into cairn's exit status; cairn's own
// message, if any, goes to `err` (`shown`: the input's name):
//   it exited          its status (the runtime's: 0, 1 trap, 2 usage, 3 an
//                      access out of bounds caught with guard zones);
//   past the timeout   1, `cairn: error: the compiled program ran past the
//                      time limit of S s (--timeout) and was stopped`;
//   a crash signal     70 (kCompiledCrashStatus), `cairn: error: internal
//                      error: the compiled program of FILE crashed with
//                      signal 11 (SIGSEGV)` and a note advising
//                      --check-accesses / --guard-zones;
//   another signal     2, `cairn: error: the compiled program of FILE was
//                      killed by signal 9 (SIGKILL)` (something outside
//                      stopped it: the OOM killer, a user);
//   it did not start   2, `cairn: error: cannot run the compiled program: ...`.
// With `externs` (a module that calls C functions), a program killed by any
// signal takes cairn down with that signal, silently, as the interpreter's
// in-process call of the same extern (an `abort()`) would: the crash is the
// program's, not cairn's.
int runCompiledProgram(const std::vector<std::string> &argv, const ProcessIO &io, double timeoutSeconds,
                       const std::string &shown, std::ostream &err, bool externs = false);

// Compiles the C file `source` in `dir` into `exe`:
// CC CFLAGS -std=c11 -o EXE SOURCE -lm LIBS..., with TMPDIR=dir. False:
// `error` is "cannot run the C compiler `cc`: ..." or "the C compiler
// failed:\n" plus its command line and output.
bool compileC(const CCompiler &c, const std::string &dir, const std::string &source, const std::string &exe,
              std::string &error, const std::vector<std::string> &libs = {});

// Runs a compiler command (argv) with TMPDIR=dir, its output in dir/cc.log.
// False: `error` is "cannot run WHAT `argv0`: ... (HINT)" or "WHAT
// failed:\n" plus the command line and its output.
bool runCompiler(const std::vector<std::string> &argv, const std::string &dir, const std::string &what,
                 const std::string &hint, std::string &error);

// The whole text of a file ("" when it cannot be read).
std::string readFileText(const std::string &path);
bool writeFileText(const std::string &path, const std::string &text);

}  // namespace cairn
