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
#include <string>
#include <vector>

namespace cairn {

struct CCompiler {
  std::vector<std::string> cc;      // the command: ${CC:-cc}, split
  std::vector<std::string> cflags;  // ${CFLAGS:--O2}, split
};

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

// Compiles the C file `source` in `dir` into `exe`:
// CC CFLAGS -std=c11 -o EXE SOURCE -lm, with TMPDIR=dir. False: `error` is
// "cannot run the C compiler `cc`: ..." or "the C compiler failed:\n" plus
// its command line and output.
bool compileC(const CCompiler &c, const std::string &dir, const std::string &source, const std::string &exe,
              std::string &error);

// The whole text of a file ("" when it cannot be read).
std::string readFileText(const std::string &path);
bool writeFileText(const std::string &path, const std::string &text);

}  // namespace cairn
