// The golden runner's C engine (see c_engine.hpp). The executable reads the
// run's inputs from a --slot-file and is stopped after a generous time
// limit, so a hang cannot stall the suite (no test depends on timing).
#include "tests/filetest/c_engine.hpp"

#include <cstdlib>

#include "exec/emit_c.hpp"
#include "exec/schedule.hpp"

namespace cairn::filetest {

COutcome CEngine::run(const Graph &g, const Facts &facts, const std::map<int64_t, std::vector<Literal>> &slotData) {
  COutcome o;  // a usage error until it ran: a failure here disagrees with every interpreter outcome
  if (!tried_) {
    tried_ = true;
    dir_ = std::make_unique<TempDir>();
    EmitOptions eo;
    eo.sourceName = source_;
    const std::string text = emitC(g, facts, schedule(g, facts), eo);
    if (!dir_->ok()) error_ = dir_->error();
    else if (!writeFileText(dir_->file("prog.c"), text)) error_ = "cannot write prog.c";
    else if (compileC(compilerFromEnv(), dir_->path(), dir_->file("prog.c"), dir_->file("prog"), error_))
      exe_ = dir_->file("prog");
  }
  if (exe_.empty()) {
    o.message = "the C back end: " + error_;
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
