// The module campaigns of `cairn fuzz --gen module` (tools/fuzz_diff.hpp):
// modules from generateModule (tools/progen_module.hpp), module k from
// seed S + k alone.
//
// Every module is first judged on its own (prepareModule): the oracle must
// accept it (a refusal is a bug of the generator or of the oracle: kind
// "oracle"), print -> parse -> print must be a fixed point ("print"), and
// the interpreter must run it to its value or a trap -- not an internal
// Error ("error"), not past the step limit ("limit": the generator bounds
// the work), leaking nothing when it ends normally ("leak"), and twice
// alike ("nondeterminism"). That is the whole of `--backend interp`.
// `--backend c` then emits each module that passed (exec/emit_module_c.hpp;
// a refusal to emit is kind "emit"), packs a batch into one C unit
// (emitModuleCBatch), compiles it once, runs `--all`, and compares each
// module's stdout, trap line and exit status with what `cairn run` prints
// for it: "crash", "status", "trap" (a trapping module printed something
// else) or "output". A batch that does not compile is bisected ("compile").
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <future>
#include <memory>
#include <sstream>

#include "exec/c_toolchain.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/module_interp.hpp"
#include "ir/module.hpp"
#include "oracle/module.hpp"
#include "tools/fuzz_impl.hpp"
#include "tools/progen_module.hpp"

namespace cairn::fuzzimpl {

namespace {

constexpr uint64_t kMaxSteps = uint64_t{1} << 22;  // generated modules take a few thousand

struct MCase {
  uint64_t seed = 0;
  std::string text, name;
  Module m;
  ModuleFacts f;
  bool valid = false, usable = false;
  std::string kind, detail;  // a failure found without C ("" none)
  std::vector<std::string> rules;  // kind "oracle": the rules of the refusal
  int wantStatus = 0;
  std::string want;  // stdout, then the trap line
};

std::string diagsText(Diags &d, const std::string &name, std::vector<std::string> *rules = nullptr) {
  std::ostringstream os;
  d.sort();
  d.print(os, name);
  if (rules)
    for (const Diagnostic &x : d.list()) rules->push_back(x.rule);
  return os.str();
}

std::string runText(const ModuleRunResult &r, const std::string &out) {
  static const char *st[] = {"ok", "trap", "error"};
  return std::string("status ") + st[static_cast<int>(r.status)] + ", value " + std::to_string(r.value) + ", message `" + r.message +
         "`, line " + std::to_string(r.where.loc.line) + ", leaked " + std::to_string(r.leaked) + ", steps " + std::to_string(r.steps) +
         "\nstdout:\n" + out + "\n";
}

std::unique_ptr<MCase> prepareModule(uint64_t seed, const std::string &text) {
  auto c = std::make_unique<MCase>();
  c->seed = seed;
  c->text = text;
  c->name = "fuzz-" + std::to_string(seed) + ".uir";
  Diags d;
  if (!parseModule(text, c->m, d)) {
    c->kind = "parse";
    c->detail = "a generated module does not parse:\n" + diagsText(d, c->name, &c->rules);
    return c;
  }
  if (!validateModule(c->m, c->f, d)) {
    c->kind = "oracle";
    c->detail = "the oracle refuses a generated module:\n" + diagsText(d, c->name, &c->rules);
    return c;
  }
  c->valid = true;
  std::string p1 = printModule(c->m);
  Module m2;
  Diags d2;
  if (!parseModule(p1, m2, d2) || printModule(m2) != p1) {
    c->kind = "print";
    c->detail = "print -> parse -> print is not a fixed point:\n" + diagsText(d2, c->name) + "printed once:\n" + p1;
    return c;
  }
  ModuleRunResult r[2];
  std::string out[2];
  for (int k = 0; k < 2; ++k) {
    ModuleRunOptions ro;
    ro.limits.maxSteps = kMaxSteps;
    std::ostringstream os;
    ro.out = &os;
    r[k] = runModule(c->m, c->f, ro);
    out[k] = os.str();
  }
  std::string what = runText(r[0], out[0]);
  using S = ModuleRunResult::Status;
  if (r[0].status == S::Error) c->kind = "error", c->detail = "the interpreter stops with an internal error: " + what;
  else if (r[0].status == S::Trap && r[0].message.rfind("exceeded", 0) == 0) c->kind = "limit", c->detail = "past the limits: " + what;
  else if (r[0].status == S::Ok && r[0].leaked) c->kind = "leak", c->detail = "heap objects left live: " + what;
  else if (runText(r[1], out[1]) != what) c->kind = "nondeterminism", c->detail = "two runs differ:\n" + what + runText(r[1], out[1]);
  if (!c->kind.empty()) return c;
  c->usable = true;
  c->want = out[0];
  c->wantStatus = static_cast<int>(static_cast<uint32_t>(r[0].value) & 255u);  // as a process exit status
  if (r[0].status == S::Trap) {
    c->wantStatus = 101;
    c->want += c->name + ":" + std::to_string(r[0].where.loc.line) + ":" + std::to_string(r[0].where.loc.col) + ": error: trap: " +
               r[0].message + (r[0].function.empty() ? "" : " (in " + r[0].function + ")") + "\n";
  }
  return c;
}

ModuleGenOptions campaignOptions(uint64_t seed, const std::string &backend) {
  ModuleGenOptions g = moduleGenOptions(seed);
  g.transcendentals = backend != "c";  // libm need not round sin/exp2/log2 as the interpreter's does
  return g;
}

bool moduleParses(const std::string &t) {
  Module m;
  Diags d;
  return parseModule(t, m, d);
}

bool moduleValid(const std::string &t) {
  Module m;
  Diags d;
  ModuleFacts f;
  return parseModule(t, m, d) && validateModule(m, f, d);
}

// ---- the C side -------------------------------------------------------------------

using MOutcome = UnitOutcome;
using MBatch = UnitRun;

MBatch compileAndRunModules(const std::vector<const MCase *> &cs, const CCompiler &cc, double timeout) {
  std::vector<ModuleEmitUnit> units;
  // Modules of even seeds check every access (a wrong bounds proof traps
  // instead of corrupting memory); odd ones run the default C, with the
  // deref caches and no checks, which is what users run.
  for (const MCase *c : cs) units.push_back({&c->m, &c->f, c->name, c->seed % 2 == 0 ? 1 : 0});
  ModuleEmitOptions eo;
  return compileAndRunUnit(emitModuleCBatch(units, eo), cs.size(), cc, timeout);
}

std::string mismatch(const MCase &c, const MOutcome &o, std::string &detail) {
  std::string kind;
  bool same = o.text == c.want;
  if (o.status == -1) kind = "crash";
  else if (o.status != c.wantStatus) kind = "status";
  else if (same) return "";
  else kind = c.wantStatus == 101 ? "trap" : "output";
  detail = "interpreter (exit " + std::to_string(c.wantStatus) + "):\n" + c.want + "\ncompiled C (" +
           (o.status == -1 ? o.note : "exit " + std::to_string(o.status)) + "):\n" + o.text + "\n";
  return kind;
}

void judge(const std::vector<const MCase *> &cs, const UnitRun &b, const CCompiler &cc, double timeout,
           std::vector<std::pair<std::string, std::string>> &out) {
  judgeUnit(cs, b, [&](const std::vector<const MCase *> &part) { return compileAndRunModules(part, cc, timeout); }, mismatch, out);
}

// The kind of C failure of each text ("" none; "-" not comparable).
std::vector<std::string> cKinds(const std::vector<std::string> &ts, uint64_t seed, const CCompiler &cc, double timeout,
                                std::vector<std::string> *details = nullptr) {
  std::vector<std::unique_ptr<MCase>> own;
  std::vector<const MCase *> ptrs;
  std::vector<std::string> kinds(ts.size(), "-");
  std::vector<size_t> at;
  for (size_t k = 0; k < ts.size(); ++k) {
    own.push_back(prepareModule(seed, ts[k]));
    if (!own.back()->usable) continue;
    std::string src, err;
    if (!emitModuleC(own.back()->m, own.back()->f, {}, src, err)) {
      kinds[k] = "emit";
      if (details) details->push_back(err);
      continue;
    }
    at.push_back(k);
    ptrs.push_back(own.back().get());
  }
  std::vector<std::pair<std::string, std::string>> res;
  if (!ptrs.empty()) judge(ptrs, compileAndRunModules(ptrs, cc, timeout), cc, timeout, res);
  for (size_t j = 0; j < res.size() && j < at.size(); ++j) {
    kinds[at[j]] = res[j].first;
    if (details) details->push_back(res[j].second);
  }
  return kinds;
}

void record(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, FuzzFailure f, const BatchPredicate &pred,
            const TextFilter &admit, const std::function<std::string(const std::string &)> &describe) {
  ++rep.failureKinds[f.kind];
  if (rep.failures.size() >= o.maxFailures) {
    rep.unrecorded.emplace_back(f.seed, f.kind);
    return;
  }
  fail(std::move(f), pred, admit, describe);
}

// A failure found without C: reduced to a module failing the same way
// (an oracle refusal: for the same rules).
void recordAlone(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, const MCase &c) {
  const std::string kind = c.kind;
  const std::vector<std::string> rules = c.rules;
  const uint64_t seed = c.seed;
  BatchPredicate pred = [kind, rules, seed](const std::vector<std::string> &ts) {
    std::vector<bool> r;
    for (const auto &t : ts) {
      auto x = prepareModule(seed, t);
      r.push_back(x->kind == kind && x->rules == rules);
    }
    return r;
  };
  TextFilter admit = kind == "parse" || kind == "oracle" ? TextFilter(moduleParses) : TextFilter(moduleValid);
  record(o, rep, fail, {c.seed, c.kind, c.detail, c.text, c.text, ""}, pred, admit,
         [seed](const std::string &t) { return prepareModule(seed, t)->detail; });
}

}  // namespace

void moduleCampaign(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, const std::function<void(uint64_t)> &progress) {
  const bool withC = o.backend == "c";
  CCompiler cc = compilerFromEnv();
  if (withC && !compilerAvailable(cc)) {
    rep.setupError = "no C compiler: `" + (cc.cc.empty() ? std::string("cc") : cc.cc[0]) + "` was not found (set CC)";
    return;
  }
  const double timeout = o.runTimeout;
  auto cFail = [&](const MCase &c, const std::string &kind, const std::string &detail) {
    uint64_t seed = c.seed;
    BatchPredicate pred = [&cc, timeout, kind, seed](const std::vector<std::string> &ts) {
      std::vector<std::string> ks = cKinds(ts, seed, cc, timeout);
      std::vector<bool> r;
      for (const auto &k : ks) r.push_back(k == kind);
      return r;
    };
    record(o, rep, fail, {seed, kind, detail, c.text, c.text, ""}, pred, moduleValid, [&cc, timeout, seed](const std::string &t) {
      std::vector<std::string> d;
      cKinds({t}, seed, cc, timeout, &d);
      return d.empty() ? std::string("(not comparable)\n") : d[0];
    });
  };
  struct InFlight {
    std::vector<std::unique_ptr<MCase>> cases;
    std::vector<const MCase *> ptrs;
    std::future<MBatch> out;
  };
  std::deque<InFlight> inflight;
  auto finish = [&] {
    InFlight b = std::move(inflight.front());
    inflight.pop_front();
    MBatch out = b.out.get();
    ++rep.batches;
    std::vector<std::pair<std::string, std::string>> res;
    judge(b.ptrs, out, cc, timeout, res);
    for (size_t k = 0; k < res.size() && k < b.ptrs.size(); ++k)
      if (!res[k].first.empty()) cFail(*b.ptrs[k], res[k].first, res[k].second);
  };
  const unsigned batch = o.batch ? o.batch : 1, jobs = o.jobs ? o.jobs : 1;
  auto going = [&] { return o.keepGoing || rep.failures.size() < o.maxFailures; };
  for (uint64_t k = 0; k < o.count && going(); k += batch) {
    InFlight b;
    for (uint64_t j = k; j < std::min<uint64_t>(o.count, k + batch) && going(); ++j) {
      uint64_t seed = o.seed + j;
      auto c = prepareModule(seed, generateModule(seed, campaignOptions(seed, o.backend)));
      ++rep.programs;
      c->valid ? ++rep.valid : ++rep.invalid;
      if (!c->kind.empty()) {
        recordAlone(o, rep, fail, *c);
        continue;
      }
      rep.traps += c->wantStatus == 101;
      if (!withC) continue;
      std::string src, err;
      if (!emitModuleC(c->m, c->f, {}, src, err)) {
        cFail(*c, "emit", "the C back end refuses a valid module: " + err + "\n");
        continue;
      }
      b.ptrs.push_back(c.get());
      b.cases.push_back(std::move(c));
    }
    progress(std::min<uint64_t>(o.count, k + batch));
    if (b.ptrs.empty()) continue;
    std::vector<const MCase *> ptrs = b.ptrs;
    b.out = std::async(std::launch::async, [ptrs, &cc, timeout] { return compileAndRunModules(ptrs, cc, timeout); });
    inflight.push_back(std::move(b));
    while (inflight.size() >= jobs) finish();
  }
  while (!inflight.empty()) finish();
}

}  // namespace cairn::fuzzimpl
