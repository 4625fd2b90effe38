// The module engines (see module_engines.hpp). The interpreter's outcome is
// built as tools/cmd_cairn.cpp's runLowered prints and exits: main's value
// (as an exit status, so modulo 256), a trap as `FILE:LINE:COL: error: trap:
// MESSAGE (in FN)` and 101, leaked heap objects as an internal error (70).
// The compiled program prints and exits the same way by itself; it is run
// as `cairn run --backend c` runs it (runCompiledProgram: a crash is 70). The
// interpreter's file descriptors 1 and 2 are redirected to files while it
// runs: a program prints through `print` (std::cout) and through externs
// (std.io calls write(2)), in order.
#include "tests/filetest/module_engines.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "exec/c_toolchain.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/module_interp.hpp"

namespace cairn::filetest {

namespace {
constexpr int kTrap = 101, kInternal = 70;
constexpr double kTimeout = 30;

std::string shortText(const std::string &s) {
  std::string t = s.size() > 600 ? s.substr(0, 600) + "..." : s;
  std::string q;
  for (char c : t) q += c == '\n' ? std::string("\\n") : std::string(1, c);
  return "\"" + q + "\"";
}

// Points file descriptors 1 and 2 at files of `dir` until finish().
class Capture {
 public:
  explicit Capture(const TempDir &dir) : dir_(dir) {
    flushAll();
    for (int fd : {1, 2}) {
      saved_[fd - 1] = dup(fd);
      int f = open(dir.file(fd == 1 ? "out" : "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (f >= 0) {
        dup2(f, fd);
        close(f);
      }
    }
  }
  ~Capture() { finish(); }
  void finish() {
    if (done_) return;
    done_ = true;
    flushAll();
    for (int fd : {1, 2}) {
      if (saved_[fd - 1] < 0) continue;
      dup2(saved_[fd - 1], fd);
      close(saved_[fd - 1]);
    }
  }
  std::string out() const { return readFileText(dir_.file("out")); }
  std::string err() const { return readFileText(dir_.file("err")); }

 private:
  static void flushAll() {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
  }
  const TempDir &dir_;
  int saved_[2] = {-1, -1};
  bool done_ = false;
};
}  // namespace

ModuleOutcome runModuleInterp(const Module &m, const ModuleFacts &facts, const std::string &shown,
                              uint64_t maxElements) {
  ModuleRunOptions opts;
  if (maxElements) opts.limits.maxElements = maxElements;
  opts.limits.maxSeconds = kTimeout;
  ModuleOutcome o;
  TempDir dir;
  if (!dir.ok()) return o.failed = true, o.err = dir.error(), o;
  Capture cap(dir);
  ModuleRunResult r = runModule(m, facts, opts);
  cap.finish();
  o.out = cap.out();
  std::ostringstream err;
  err << cap.err();
  switch (r.status) {
    case ModuleRunResult::Status::Ok:
      if (r.leaked > 0) {
        err << shown << ": error: internal error: " << r.leaked
            << " heap object(s) were never released (a bug in the lowering)\n";
        o.status = kInternal;
      } else {
        o.status = static_cast<int>(static_cast<uint32_t>(r.value) & 0xffu);
      }
      break;
    case ModuleRunResult::Status::Trap: {
      bool named = r.where.file < m.files.size() && !m.files[r.where.file].empty();
      err << (named ? m.files[r.where.file] : shown) << ':' << r.where.loc.line << ':' << r.where.loc.col
          << ": error: trap: " << r.message;
      if (!r.function.empty()) err << " (in " << r.function << ")";
      err << '\n';
      o.status = kTrap;
      break;
    }
    case ModuleRunResult::Status::Error:
      err << shown << ": error: " << (r.internal ? "internal error: " : "") << r.message << '\n';
      o.status = r.internal ? kInternal : 1;
      break;
  }
  o.err = err.str();
  return o;
}

ModuleOutcome runModuleC(const Module &m, const ModuleFacts &facts, const std::string &shown, uint64_t maxElements) {
  ModuleOutcome o;
  // What `cairn run --backend c` refuses before compiling, in the interpreter's words.
  std::string why = moduleEntryError(m);
  if (why.empty() && !missingExtern(m).empty()) why = "extern symbol `" + missingExtern(m) + "` not found";
  if (!why.empty()) return o.status = 1, o.err = shown + ": error: " + why + "\n", o;
  o.failed = true;
  TempDir dir;
  if (!dir.ok()) return o.err = dir.error(), o;
  ModuleEmitOptions eo;
  eo.sourceName = shown;
  std::string text, error;
  if (!emitModuleC(m, facts, eo, text, error)) return o.err = "cannot emit C: " + error, o;
  if (!writeFileText(dir.file("prog.c"), text)) return o.err = "cannot write prog.c", o;
  if (!compileC(compilerFromEnv(), dir.path(), dir.file("prog.c"), dir.file("prog"), error)) return o.err = error, o;
  uint64_t limit = maxElements ? maxElements : RunLimits{}.maxElements;
  std::ostringstream cairnSays;  // cairn's own words on a crash, a timeout, a kill
  o.status = runCompiledProgram({dir.file("prog"), "--max-elements", std::to_string(limit)},
                                ProcessIO{"/dev/null", dir.file("out"), dir.file("err")}, kTimeout, shown, cairnSays);
  o.failed = false;
  o.out = readFileText(dir.file("out"));
  o.err = readFileText(dir.file("err")) + cairnSays.str();
  return o;
}

std::string describe(const ModuleOutcome &o) {
  if (o.failed) return "no run: " + o.err;
  return "exit status " + std::to_string(o.status) + ", stdout " + shortText(o.out) + ", stderr " + shortText(o.err);
}

}  // namespace cairn::filetest
