// The golden runner's C engine (see c_engine.hpp). The executable reads the
// run's inputs from a --slot-file and is stopped after a generous time
// limit, so a hang cannot stall the suite (no test depends on timing).
#include "tests/filetest/c_engine.hpp"

#include <cstdlib>

#include "exec/emit_c.hpp"
#include "exec/schedule.hpp"
#include "gpu/cuda_toolchain.hpp"
#include "gpu/emit_cuda.hpp"

namespace cairn::filetest {

bool CEngine::build(const Graph &g, const Facts &facts) {
  dir_ = std::make_unique<TempDir>();
  if (!dir_->ok()) {
    error_ = dir_->error();
    return false;
  }
  const std::string src = dir_->file(kind_ == Kind::C ? "prog.c" : "prog.cu"), exe = dir_->file("prog");
  std::string text;
  if (kind_ == Kind::C) {
    EmitOptions eo;
    eo.sourceName = source_;
    text = emitC(g, facts, schedule(g, facts), eo);
  } else {
    CudaEmitOptions eo;
    eo.sourceName = source_;
    eo.exactFloatReduce = true;
    text = emitCuda(g, facts, schedule(g, facts), eo);
  }
  if (!writeFileText(src, text)) {
    error_ = "cannot write " + src;
    return false;
  }
  bool ok;
  if (kind_ == Kind::C) {
    ok = compileC(compilerFromEnv(), dir_->path(), src, exe, error_);
  } else {
    CudaToolchain tc = cudaToolchainFromEnv(true);
    if (!std::getenv("CXXFLAGS")) tc.flags = {"-O0"};
    ok = compileCuda(tc, dir_->path(), src, exe, error_);
  }
  if (ok) exe_ = exe;
  return ok;
}

COutcome CEngine::run(const Graph &g, const Facts &facts, const std::map<int64_t, std::vector<Literal>> &slotData) {
  COutcome o;  // a usage error until it ran: a failure here disagrees with every interpreter outcome
  if (!tried_) {
    tried_ = true;
    build(g, facts);
  }
  if (exe_.empty()) {
    o.message = std::string(kind_ == Kind::C ? "the C back end: " : "the CUDA back end (emulated): ") + error_;
    return o;
  }
  std::string n = std::to_string(runs_++);
  std::string slots = dir_->file("slots" + n + ".txt"), out = dir_->file("out" + n), err = dir_->file("err" + n);
  std::string text;
  for (const auto &[slot, lits] : slotData) {
    text += std::to_string(slot) + "=";
    for (size_t k = 0; k < lits.size(); ++k) text += (k ? "," : "") + literalText(lits[k]);
    text += "\n";
  }
  writeFileText(slots, text);
  ProcessResult r = runProcess({exe_, "--slot-file", slots}, ProcessIO{"/dev/null", out, err}, {}, 300);
  std::string so = readFileText(out), se = readFileText(err);
  auto firstLine = [](const std::string &s) { return s.substr(0, s.find('\n')); };
  const std::string trapAt = source_ + ":", usageAt = "cairn: error: ";
  if (r.exitCode == 0) {
    o.usage = false;
    for (size_t p = 0; p < so.size();) {
      size_t nl = so.find('\n', p);
      if (nl == std::string::npos) nl = so.size();
      o.lines.push_back(so.substr(p, nl - p));
      p = nl + 1;
    }
  } else if (r.exitCode == 1 && se.rfind(trapAt, 0) == 0) {
    // FILE:LINE:COL: error: trap: MESSAGE
    std::string rest = firstLine(se).substr(trapAt.size());
    size_t msg = rest.find(": error: trap: ");
    if (msg != std::string::npos) {
      o.usage = false;
      o.trapped = true;
      o.line = static_cast<uint32_t>(std::strtoul(rest.c_str(), nullptr, 10));
      o.message = rest.substr(msg + 15);
    } else {
      o.message = "the C back end printed: " + firstLine(se);
    }
  } else if (r.exitCode == 2 && se.rfind(usageAt, 0) == 0) {
    o.message = firstLine(se).substr(usageAt.size());
  } else {
    o.message = "the C back end " + (!r.started ? "did not start: " + r.error
                                     : r.timedOut ? std::string("timed out")
                                     : r.signal ? "was killed by signal " + std::to_string(r.signal)
                                                : "exited " + std::to_string(r.exitCode)) +
                (se.empty() ? "" : ": " + firstLine(se));
  }
  return o;
}

}  // namespace cairn::filetest
