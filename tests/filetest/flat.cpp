// Flat .uir graphs: parse and validate (the oracle), check the diagnostics,
// then, for a `test: run` file, run every run group (the file's own data and
// each `run K=V,...` input set) on every engine: the interpreter with each
// schedule priority, the C back end and the CUDA back end run on the CPU
// (each emitted and compiled once per file, c_engine.hpp). All engines must agree, and agree with the `run` lines or
// the `trap` expectation. --bless rewrites the `run` lines.
#include <algorithm>

#include "exec/c_toolchain.hpp"
#include "exec/interp.hpp"
#include "gpu/cuda_toolchain.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tests/filetest/c_engine.hpp"
#include "tests/filetest/filetest.hpp"

namespace cairn::filetest {

namespace {

struct Engine {
  std::string name;
  SchedulePriority prio;
  int compiled = 0;  // 1: the C back end (exec/emit_c.hpp); 2: CUDA, emulated (gpu/emit_cuda.hpp)
};

const std::vector<Engine> &engines() {
  static const std::vector<Engine> e = [] {
    std::vector<Engine> v;
    if (engineEnabled("interp")) {
      v.push_back({"interp/source-order", SchedulePriority::SourceOrder});
      v.push_back({"interp/latest", SchedulePriority::Latest});
    }
    CCompiler cc = compilerFromEnv();
    if (!engineEnabled("c")) {
    } else if (compilerAvailable(cc)) {
      v.push_back({"c", SchedulePriority::SourceOrder, 1});
    } else {
      std::cout << "note: no C compiler found (`" << cc.cc[0] << "`; set CC): the C back end is not checked\n";
    }
    CudaToolchain cxx = cudaToolchainFromEnv(true);
    if (!engineEnabled("cuda")) {
    } else if (cudaToolchainAvailable(cxx)) {
      v.push_back({"cuda-emulated", SchedulePriority::SourceOrder, 2});
    } else {
      std::cout << "note: no C++ compiler found (`" << cxx.cc[0] << "`; set CXX): the CUDA back end is not checked\n";
    }
    return v;
  }();
  return e;
}

struct Outcome {
  bool trapped = false, usage = false;
  uint32_t line = 0;
  std::string message;
  std::vector<std::string> lines;
  bool operator==(const Outcome &o) const {
    return trapped == o.trapped && usage == o.usage && line == o.line && message == o.message && lines == o.lines;
  }
};

Outcome runOnce(const Graph &g, const Facts &facts, const RunGroup &grp, const Engine &eng, CEngine &ce, CEngine &cu) {
  if (eng.compiled) {
    COutcome c = (eng.compiled == 1 ? ce : cu).run(g, facts, grp.slotData);
    return Outcome{c.trapped, c.usage, c.line, c.message, c.lines};
  }
  RunOptions opts;
  opts.priority = eng.prio;
  opts.slotData = grp.slotData;
  opts.limits.maxSeconds = 30;
  RunResult r = run(g, facts, opts);
  Outcome o;
  o.trapped = r.status == RunResult::Status::Trap;
  o.usage = r.status == RunResult::Status::UsageError;
  o.line = r.loc.line;
  o.message = r.message;
  if (o.trapped || o.usage) return o;  // what memory holds at a trap may depend on the schedule
  for (const auto &s : r.slots) {
    std::string ln = "slot " + std::to_string(s.slot) + " = [";
    for (size_t k = 0; k < s.values.size(); ++k) ln += (k ? " " : "") + bitsText(s.values[k], s.type);
    ln += "]";
    o.lines.push_back(ln);
  }
  return o;
}

std::string runName(const RunGroup &g) { return g.inputs.empty() ? "the run" : "the run with " + g.inputs; }

std::string describe(const Outcome &o) {
  if (o.usage) return "a usage error: " + quoted(o.message);
  if (o.trapped) return "a trap on line " + std::to_string(o.line) + ": " + quoted(o.message);
  std::string s;
  for (const auto &l : o.lines) s += "\n    " + l;
  return s.empty() ? "no output (no slots)" : "output" + s;
}

uint32_t groupLine(const RunGroup &g) {
  if (g.trap) return g.trap->line;
  return g.srcLines.empty() ? 1 : g.srcLines.front() + 1;
}

void checkGroup(const RunGroup &grp, const Outcome &o, Reporter &rep) {
  if (grp.trap) {
    if (!o.trapped || o.line != grp.trap->line || !contains(o.message, grp.trap->text))
      rep.at(grp.trap->line) << "expected " << runName(grp) << " to trap here with a message containing "
                             << quoted(grp.trap->text) << " but got " << describe(o) << '\n';
  } else if (o.trapped || o.usage || o.lines != grp.lines) {
    std::ostream &os = rep.at(groupLine(grp));
    os << runName(grp) << ": expected ";
    if (grp.srcLines.empty()) os << "no output (the file has no `run:` lines for it; --bless adds them)";
    else if (grp.lines.empty()) os << "no output (no slots)";
    else os << "output";
    for (const auto &l : grp.lines) os << "\n    " << l;
    os << "\n  but got " << describe(o) << '\n';
  }
}

// Runs every group with every engine; fills `actual` (for --bless) where all
// engines agree.
void checkRuns(const TestFile &tf, const Graph &g, const Facts &facts, Reporter &rep,
               std::vector<std::optional<Outcome>> &actual) {
  actual.assign(tf.groups.size(), std::nullopt);
  CEngine ce(tf.path, CEngine::Kind::C), cu(tf.path, CEngine::Kind::CudaEmulated);  // compiled once per file, on its first run
  if (engines().empty()) rep.file() << "no engine to run on (CAIRN_FILETEST_ENGINES)\n";
  for (size_t gi = 0; gi < tf.groups.size() && !engines().empty(); ++gi) {
    const RunGroup &grp = tf.groups[gi];
    std::vector<Outcome> outs;
    for (const auto &eng : engines()) outs.push_back(runOnce(g, facts, grp, eng, ce, cu));
    bool agree = std::all_of(outs.begin(), outs.end(), [&](const Outcome &o) { return o == outs[0]; });
    if (!agree) {
      std::ostream &os = rep.at(groupLine(grp));
      os << "the engines disagree on " << runName(grp) << ":";
      for (size_t k = 0; k < outs.size(); ++k) os << "\n  " << engines()[k].name << ": " << describe(outs[k]);
      os << '\n';
      continue;
    }
    actual[gi] = outs[0];
    checkGroup(grp, outs[0], rep);
  }
}

// The file with its `run` lines replaced by the actual outputs; runs that
// trapped, failed or disagree keep their lines (the check reports them).
std::vector<std::string> blessed(const TestFile &tf, const std::vector<std::optional<Outcome>> &actual) {
  std::map<uint32_t, std::vector<std::string>> replace;  // file line -> new lines (empty: drop)
  std::vector<std::string> append;  // lines of groups that had none, before the first `run`
  for (size_t gi = 0; gi < tf.groups.size(); ++gi) {
    const RunGroup &grp = tf.groups[gi];
    if (grp.trap || !actual[gi] || actual[gi]->trapped || actual[gi]->usage) continue;
    std::string prefix = tf.leader + (grp.inputs.empty() ? " run: " : " run " + grp.inputs + ": ");
    std::vector<std::string> lines;
    for (const auto &l : actual[gi]->lines) lines.push_back(prefix + l);
    if (lines.empty()) lines.push_back(std::string(trim(prefix)));  // `run:` alone: no slots
    if (grp.srcLines.empty()) {
      append.insert(append.end(), lines.begin(), lines.end());
      continue;
    }
    for (uint32_t s : grp.srcLines) replace[s] = {};
    replace[grp.srcLines.front()] = lines;
  }
  const auto &in = tf.lines;
  uint32_t firstRun = static_cast<uint32_t>(in.size());
  for (const auto &grp : tf.groups)
    for (uint32_t s : grp.srcLines) firstRun = std::min(firstRun, s);
  std::vector<std::string> res;
  for (uint32_t i = 0; i < in.size(); ++i) {
    if (i == firstRun) res.insert(res.end(), append.begin(), append.end());
    auto it = replace.find(i);
    if (it == replace.end()) res.push_back(in[i]);
    else res.insert(res.end(), it->second.begin(), it->second.end());
  }
  if (firstRun == in.size()) res.insert(res.end(), append.begin(), append.end());
  return res;
}

}  // namespace

void testFlat(TestFile &tf, Reporter &rep, bool bless, std::vector<std::string> &out) {
  std::string text;
  for (const auto &l : tf.lines) text += l + "\n";
  Graph g;
  Diags diags;
  Facts facts;
  bool ok = parseUir(text, g, diags);
  if (ok) ok = validate(g, facts, diags);
  checkDiagnostics(tf, diags, rep);
  bool runs = tf.mode == TestFile::Mode::Run;
  if (runs && !ok) rep.file() << "a `test: run` file must be a valid program; it was not run\n";
  std::vector<std::optional<Outcome>> actual;
  if (runs && ok && (bless || rep.failures() == 0)) checkRuns(tf, g, facts, rep, actual);
  out = bless && runs && ok ? blessed(tf, actual) : tf.lines;
}

}  // namespace cairn::filetest
