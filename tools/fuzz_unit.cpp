// Compiling and running one C translation unit of many fuzz programs, for
// both C campaigns (flat graphs in fuzz_diff.cpp, modules in
// fuzz_module.cpp; see fuzz_impl.hpp).
//
// The unit's driver runs every program with `--all`, each framed as
// `=== program K\n`, its output, `=== exit STATUS\n` (the output need not
// end in a newline before the marker). A program that crashes the process
// ends the stream: it gets status -1 and the reason, and each program the
// stream never reached runs alone with `--program K`.
#include <cstdlib>

#include "exec/c_toolchain.hpp"
#include "tools/fuzz_impl.hpp"

namespace cairn::fuzzimpl {

namespace {

std::string why(const ProcessResult &p) {
  return !p.started ? "could not run: " + p.error
         : p.timedOut ? std::string("timed out")
         : p.signal  ? "killed by signal " + std::to_string(p.signal)
                     : "exit " + std::to_string(p.exitCode);
}

void parseAll(const std::string &all, UnitRun &u, std::vector<uint8_t> &done, const ProcessResult &r) {
  size_t at = 0;
  while ((at = all.find("=== program ", at)) != std::string::npos) {
    size_t k = std::strtoul(all.c_str() + at + 12, nullptr, 10), nl = all.find('\n', at);
    if (nl == std::string::npos || k >= u.outs.size()) return;
    size_t ex = all.find("=== exit ", nl + 1);
    if (ex == std::string::npos) {  // the program that crashed the batch
      u.outs[k] = {-1, all.substr(nl + 1), why(r)};
      done[k] = 1;
      return;
    }
    u.outs[k] = {static_cast<int>(std::strtol(all.c_str() + ex + 9, nullptr, 10)), all.substr(nl + 1, ex - nl - 1), ""};
    done[k] = 1;
    at = ex;
  }
}

}  // namespace

UnitRun compileAndRunUnit(const std::string &src, size_t programs, const CCompiler &cc, double timeout) {
  return compileAndRunUnit(src, programs, "batch.c",
                           [&cc](const std::string &dir, const std::string &file, const std::string &exe, std::string &err) {
                             return compileC(cc, dir, file, exe, err);
                           },
                           timeout);
}

UnitRun compileAndRunUnit(const std::string &src, size_t programs, const std::string &name, const UnitCompile &compile,
                          double timeout) {
  UnitRun u;
  TempDir dir;
  if (!dir.ok()) {
    u.error = dir.error();
    return u;
  }
  const std::string file = dir.file(name), exe = dir.file("batch"), out = dir.file("out.txt");
  if (!writeFileText(file, src)) {
    u.error = file + ": cannot write";
    return u;
  }
  if (!compile(dir.path(), file, exe, u.error)) return u;
  u.compiled = true;
  u.outs.resize(programs);
  std::vector<uint8_t> done(programs, 0);
  ProcessResult r = runProcess({exe, "--all"}, ProcessIO{"/dev/null", out, out}, {}, timeout);
  parseAll(readFileText(out), u, done, r);
  for (size_t k = 0; k < programs; ++k) {  // the rest, one by one (only after a crash)
    if (done[k]) continue;
    ProcessResult p = runProcess({exe, "--program", std::to_string(k)}, ProcessIO{"/dev/null", out, out}, {}, timeout);
    u.outs[k] = {p.started && !p.timedOut && !p.signal ? p.exitCode : -1, readFileText(out), why(p)};
  }
  return u;
}

}  // namespace cairn::fuzzimpl
