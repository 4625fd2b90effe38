// The fuzz campaigns of `cairn fuzz` (see fuzz_diff.hpp for what is
// compared, and to what precision). The interp backend's campaign is
// tools/fuzz_interp.cpp; this file has the C backend's (and the CUDA
// backend's, the same campaign through gpu/emit_cuda.hpp with exact float
// reductions, compiled with nvcc or, --emulate, the host C++ compiler) and
// the driver.
//
// The C backend works in batches: the interpreter runs each program first
// (its output is the expectation), then the batch is emitted as one C unit
// with guard zones, compiled once and run once (`--all`), and each
// program's section of the output is compared. Up to `jobs` batches
// compile and run at once (in threads that only spawn processes); the
// comparison and any reduction happen on the calling thread. A batch that
// does not compile is bisected to the programs that break it; a batch run
// that crashes is resumed program by program after the crash.
#include "tools/fuzz_diff.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>

#include "exec/c_toolchain.hpp"
#include "exec/emit_c.hpp"
#include "exec/interp.hpp"
#include "gpu/cuda_toolchain.hpp"
#include "gpu/emit_cuda.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/fuzz_impl.hpp"
#include "tools/referee.hpp"

namespace cairn {

GenOptions fuzzGenOptions(uint64_t seed) {
  std::mt19937_64 r(seed ^ 0x9e3779b97f4a7c15ull);
  GenOptions o;
  o.buffers = 1 + static_cast<int>(r() % 4);
  o.steps = 4 + static_cast<int>(r() % 37);
  o.loops = r() % 5 != 0;
  o.floats = r() % 10 < 7;
  o.dynamic = r() % 2 == 0;
  o.allOps = r() % 5 != 0;
  o.scratch = r() % 2 == 0;
  return o;
}

std::string fuzzProgram(uint64_t seed, const std::string &gen) {
  return gen == "nest" ? generateNested(seed) : generateValid(seed, fuzzGenOptions(seed)).text;
}

namespace fuzzimpl {

std::string slotText(const RunResult &r) {
  std::string out;
  for (const SlotResult &s : r.slots) {
    out += "slot " + std::to_string(s.slot) + " = [";
    for (size_t k = 0; k < s.values.size(); ++k) out += (k ? " " : "") + bitsText(s.values[k], s.type);
    out += "]\n";
  }
  return out;
}

std::string commentLines(const std::string &text) {
  std::string out;
  std::istringstream is(text);
  std::string l;
  while (std::getline(is, l)) out += "#   " + l + "\n";
  return out;
}

}  // namespace fuzzimpl

namespace {

using namespace fuzzimpl;
using Clock = std::chrono::steady_clock;

// ---- one program, ready for both engines --------------------------------

struct Case {
  uint64_t seed = 0;
  std::string text, name;
  Graph g;
  Facts f;
  Schedule s;
  bool valid = false, usable = false, transcendental = false;
  int wantStatus = 0;
  std::string want;              // the interpreter's output, as `cairn run` prints it
  std::vector<DType> slotTypes;  // in slot order
  std::string diags;             // the oracle's, when it rejects
};

std::unique_ptr<Case> prepare(uint64_t seed, const std::string &text) {
  auto c = std::make_unique<Case>();
  c->seed = seed;
  c->text = text;
  c->name = "fuzz-" + std::to_string(seed) + ".uir";
  Diags d;
  if (!parseUir(text, c->g, d) || !validate(c->g, c->f, d)) {
    std::ostringstream os;
    d.sort();
    d.print(os, c->name);
    c->diags = os.str();
    return c;
  }
  c->valid = true;
  c->s = schedule(c->g, c->f);
  RunOptions ro;
  ro.limits.maxSteps = uint64_t{1} << 26;  // generated programs take a few thousand
  RunResult r = run(c->g, c->f, ro);
  if (r.status == RunResult::Status::UsageError || (r.status == RunResult::Status::Trap && r.steps >= ro.limits.maxSteps))
    return c;  // not comparable: the C program has no step limit
  c->usable = true;
  for (uint32_t i = 0; i < c->g.size(); ++i) {
    Op op = c->g.op(NodeId{i});
    c->transcendental = c->transcendental || op == Op::Sin || op == Op::Exp2 || op == Op::Log2;
  }
  if (r.status == RunResult::Status::Ok) {
    c->want = slotText(r);
    for (const SlotResult &s : r.slots) c->slotTypes.push_back(s.type);
  } else {
    std::string msg = r.message.rfind("trap", 0) == 0 ? r.message : "trap: " + r.message;
    c->wantStatus = 1;
    c->want = c->name + ":" + std::to_string(r.loc.line) + ":" + std::to_string(r.loc.col) + ": error: " + msg + "\n";
  }
  return c;
}

// ---- compiling and running a batch --------------------------------------

using Outcome = UnitOutcome;
using BatchOut = UnitRun;

// The compiled engine: C (with guard zones) or CUDA.
struct Backend {
  bool cuda = false;
  CCompiler cc;
  CudaToolchain tc;
};

BatchOut compileAndRun(const std::vector<const Case *> &cs, const Backend &be, double timeout) {
  std::vector<EmitUnit> units;
  for (const Case *c : cs) units.push_back({&c->g, &c->f, &c->s, c->name});
  if (be.cuda) {
    CudaEmitOptions co;
    co.exactFloatReduce = true;
    return compileAndRunUnit(emitCudaBatch(units, co), cs.size(), "batch.cu",
                             [&be](const std::string &dir, const std::string &src, const std::string &exe, std::string &err) {
                               return compileCuda(be.tc, dir, src, exe, err);
                             },
                             timeout);
  }
  EmitOptions eo;
  eo.guardZones = true;
  return compileAndRunUnit(emitCBatch(units, eo), cs.size(), be.cc, timeout);
}

// ---- comparing ------------------------------------------------------------

int64_t orderedBits(double d, bool f32) {
  if (f32) {
    auto u = std::bit_cast<uint32_t>(static_cast<float>(d));
    return (u >> 31) ? -static_cast<int64_t>(u & 0x7fffffffu) : static_cast<int64_t>(u);
  }
  auto u = std::bit_cast<uint64_t>(d);
  return (u >> 63) ? -static_cast<int64_t>(u & 0x7fffffffffffffffull) : static_cast<int64_t>(u);
}

// Slot texts equal up to kTranscendentalUlps in float elements.
bool floatsClose(const Case &c, const std::string &got) {
  std::istringstream a(c.want), b(got);
  std::string la, lb;
  size_t slot = 0;
  while (std::getline(a, la)) {
    if (!std::getline(b, lb) || slot >= c.slotTypes.size()) return false;
    DType t = c.slotTypes[slot++];
    if (la == lb) continue;
    if (!isFloat(t)) return false;
    size_t pa = la.find('['), pb = lb.find('[');
    if (pa == std::string::npos || pb == std::string::npos || la.substr(0, pa) != lb.substr(0, pb)) return false;
    std::istringstream ta(la.substr(pa + 1)), tb(lb.substr(pb + 1));
    std::string x, y;
    while (ta >> x) {
      if (!(tb >> y)) return false;
      if (x == y) continue;
      double dx = std::strtod(x.c_str(), nullptr), dy = std::strtod(y.c_str(), nullptr);
      if (std::isnan(dx) || std::isnan(dy)) return false;
      int64_t d = orderedBits(dx, t == DType::F32) - orderedBits(dy, t == DType::F32);
      if (d > kTranscendentalUlps || d < -kTranscendentalUlps) return false;
    }
    if (tb >> y) return false;
  }
  return !std::getline(b, lb);
}

// "" when the outcome matches the interpreter; else the kind of mismatch.
std::string mismatch(const Case &c, const Outcome &o, std::string &detail) {
  std::string kind;
  if (o.status == -1) kind = "crash";
  else if (o.status == 3) kind = "guard";
  else if (o.status != c.wantStatus) kind = "status";
  else if (o.text == c.want || (c.wantStatus == 0 && c.transcendental && floatsClose(c, o.text))) return "";
  else kind = c.wantStatus == 1 ? "trap" : "value";
  detail = "interpreter (exit " + std::to_string(c.wantStatus) + "):\n" + c.want + "compiled C (" +
           (o.status == -1 ? o.note : "exit " + std::to_string(o.status)) + "):\n" + o.text;
  return kind;
}

// Each case's mismatch kind ("" for none), bisecting a batch that does not compile.
void judge(const std::vector<const Case *> &cs, const UnitRun &b, const Backend &be, double timeout,
           std::vector<std::pair<std::string, std::string>> &out) {
  judgeUnit(cs, b, [&](const std::vector<const Case *> &part) { return compileAndRun(part, be, timeout); }, mismatch, out);
}

std::vector<std::pair<std::string, std::string>> evaluateC(const std::vector<const Case *> &cs, const Backend &be, double timeout) {
  std::vector<std::pair<std::string, std::string>> out;
  judge(cs, compileAndRun(cs, be, timeout), be, timeout, out);
  return out;
}

// ---- failures ------------------------------------------------------------------

void writeFailure(const FuzzOptions &o, FuzzFailure &f, const std::string &reducedDetail) {
  std::error_code ec;
  std::filesystem::create_directories(o.outDir, ec);
  std::string name = "fuzz-fail-" + std::to_string(f.seed) + ".uir";
  std::string path = (std::filesystem::path(o.outDir) / name).string();
  std::string head = "# cairn fuzz: " + f.kind + " failure, backend " + o.backend + ", seed " + std::to_string(f.seed) + "\n" +
                     "# found by:   cairn fuzz --seed " + std::to_string(f.seed) + " --count 1 --backend " + o.backend +
                     (o.emulate ? " --emulate" : "") +
                     (o.gen == "std" ? "" : " --gen " + o.gen) + "\n";
  if (o.gen == "module")
    head += o.backend == "c" ? "# reproduce:  cairn run " + name + "; cairn run " + name + " --backend c" +
                                   (f.seed % 2 == 0 ? " --check-accesses" : "") + "   (they must print the same)\n"
                             : "# reproduce:  cairn oracle " + name + "; cairn run " + name + "\n";
  else if (o.backend != "interp" && f.kind != "oracle")
    head += "# reproduce:  cairn run " + name + "; cairn run " + name + " --backend " + o.backend +
            (o.backend == "cuda" ? std::string(o.emulate ? " --emulate" : "") + " --exact-float-reduce" : "") +
            "   (they must print the same)\n";
  else if (f.kind == "schedule")
    head += "# reproduce:  cairn run " + name + "   (the interpreter in source order; the other order is SchedulePriority::Latest)\n";
  else
    head += "# reproduce:  cairn oracle " + name + "   (and compare with the referee: tools/referee.hpp)\n";
  auto lines = [](const std::string &t) { return std::to_string(std::count(t.begin(), t.end(), '\n')); };
  head += (f.reduced == f.program ? "# not reduced (" + lines(f.program) + " lines)"
                                  : "# reduced from " + lines(f.program) + " to " + lines(f.reduced) + " lines") +
          "; on this program:\n" + commentLines(reducedDetail);
  if (writeFileText(path, head + f.reduced)) f.file = path;
}


}  // namespace

FuzzReport runFuzz(const FuzzOptions &o) {
  FuzzReport rep;
  auto start = Clock::now();
  auto lastLog = start;
  auto progress = [&](uint64_t done) {
    auto now = Clock::now();
    if (!o.log || now - lastLog < std::chrono::seconds(5)) return;
    lastLog = now;
    double s = std::chrono::duration<double>(now - start).count();
    *o.log << "fuzz: " << done << "/" << o.count << " programs, " << static_cast<uint64_t>(done / (s > 0 ? s : 1)) << " programs/s\n";
    o.log->flush();
  };
  auto fail = [&](FuzzFailure f, const BatchPredicate &pred, const TextFilter &admit, const std::function<std::string(const std::string &)> &describe) {
    if (o.log) *o.log << "fuzz: FAIL seed " << f.seed << " (" << f.kind << ")" << (o.reduce ? ", reducing..." : "") << "\n";
    f.reduced = !o.reduce ? f.program : o.gen == "module" ? reduceModule(f.program, pred, admit) : reduceProgram(f.program, pred, admit);
    writeFailure(o, f, describe(f.reduced));
    if (o.log) *o.log << "fuzz: seed " << f.seed << ": " << f.detail << (f.file.empty() ? "" : "fuzz: written " + f.file + "\n");
    rep.failures.push_back(std::move(f));
  };

  if (o.keepGoing && o.backend != "interp") {
    rep.setupError = "--keep-going needs --backend interp";
    return rep;
  }
  if (o.gen == "module" && (o.backend == "interp" || o.backend == "c")) {
    moduleCampaign(o, rep, fail, progress);
    rep.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return rep;
  }
  if (o.gen != "std" && (o.gen != "wrap" || o.backend != "interp") && (o.gen != "nest" || o.backend == "interp")) {
    rep.setupError = "unknown program class `" + o.gen + "` for backend " + o.backend +
                     " (use std or module; wrap with --backend interp; nest with c or cuda)";
    return rep;
  }
  if (o.backend == "interp") {
    interpCampaign(o, rep, fail, progress);
    rep.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return rep;
  }
  if (o.backend != "c" && o.backend != "cuda") {
    rep.setupError = "unknown backend `" + o.backend + "` (use interp, c or cuda)";
    return rep;
  }
  if (o.emulate && o.backend != "cuda") {
    rep.setupError = "--emulate needs --backend cuda";
    return rep;
  }

  Backend be;
  be.cuda = o.backend == "cuda";
  be.cc = compilerFromEnv();
  be.tc = cudaToolchainFromEnv(o.emulate);
  std::string why;
  if (be.cuda && !o.emulate && cudaDeviceCount(why) == 0) {
    rep.setupError = "no CUDA device (" + why + "); --emulate runs the emitted kernels on the CPU";
    return rep;
  }
  if (be.cuda ? !cudaToolchainAvailable(be.tc) : !compilerAvailable(be.cc)) {
    const auto &cmd = be.cuda ? be.tc.cc : be.cc.cc;
    rep.setupError = std::string(be.cuda ? (o.emulate ? "no C++ compiler" : "no nvcc") : "no C compiler") + ": `" +
                     (cmd.empty() ? std::string("?") : cmd[0]) + "` was not found (set " +
                     (be.cuda ? (o.emulate ? "CXX" : "CUDACXX") : "CC") + ")";
    return rep;
  }
  const double timeout = o.runTimeout;
  auto cPred = [&](const std::string &kind, uint64_t seed) {
    return BatchPredicate([&be, timeout, kind, seed](const std::vector<std::string> &ts) {
      std::vector<std::unique_ptr<Case>> own;
      std::vector<const Case *> ptrs;
      std::vector<size_t> at(ts.size(), SIZE_MAX);
      for (size_t k = 0; k < ts.size(); ++k) {
        own.push_back(prepare(seed, ts[k]));
        if (own.back()->usable) at[k] = ptrs.size(), ptrs.push_back(own.back().get());
      }
      auto res = evaluateC(ptrs, be, timeout);
      std::vector<bool> r(ts.size(), false);
      for (size_t k = 0; k < ts.size(); ++k)
        if (at[k] != SIZE_MAX && at[k] < res.size()) r[k] = res[at[k]].first == kind;
      return r;
    });
  };
  auto cDescribe = [&](uint64_t seed) {
    return [&, seed](const std::string &t) {
      auto c = prepare(seed, t);
      if (!c->usable) return std::string("(not runnable)\n");
      auto res = evaluateC({c.get()}, be, timeout);
      return res.empty() ? std::string() : res[0].second;
    };
  };

  struct InFlight {
    std::vector<std::unique_ptr<Case>> cases;
    std::vector<const Case *> ptrs;
    std::future<BatchOut> out;
  };
  std::deque<InFlight> inflight;
  auto finish = [&] {
    InFlight b = std::move(inflight.front());
    inflight.pop_front();
    BatchOut out = b.out.get();
    ++rep.batches;
    std::vector<std::pair<std::string, std::string>> res;
    judge(b.ptrs, out, be, timeout, res);
    for (size_t k = 0; k < res.size() && k < b.ptrs.size(); ++k) {
      if (res[k].first.empty() || rep.failures.size() >= o.maxFailures) continue;
      const Case &c = *b.ptrs[k];
      fail({c.seed, res[k].first, res[k].second, c.text, c.text, ""}, cPred(res[k].first, c.seed), {}, cDescribe(c.seed));
    }
  };
  const unsigned batch = o.batch ? o.batch : 1, jobs = o.jobs ? o.jobs : 1;
  for (uint64_t k = 0; k < o.count && rep.failures.size() < o.maxFailures; k += batch) {
    InFlight b;
    for (uint64_t j = k; j < std::min<uint64_t>(o.count, k + batch); ++j) {
      uint64_t seed = o.seed + j;
      std::string text = fuzzProgram(seed, o.gen);
      auto c = prepare(seed, text);
      ++rep.programs;
      if (!c->valid) {  // the generator's programs are valid by construction
        rep.invalid++;
        auto stillRejected = [](const std::vector<std::string> &ts) {
          std::vector<bool> r;
          for (const auto &t : ts) r.push_back(!oracleAccepts(t) && refereeText(t).valid());
          return r;
        };
        if (rep.failures.size() < o.maxFailures)
          fail({seed, "oracle", "the oracle rejects a generated valid program:\n" + c->diags, text, text, ""}, stillRejected,
               [](const std::string &t) { return refereeText(t).judged(); },
               [](const std::string &t) {
                 Graph g;
                 Diags d;
                 Facts f;
                 std::ostringstream os;
                 if (parseUir(t, g, d)) validate(g, f, d);
                 d.sort();
                 d.print(os, "reduced.uir");
                 return os.str();
               });
        continue;
      }
      rep.valid++;
      if (!c->usable) continue;
      rep.traps += c->wantStatus == 1;
      b.ptrs.push_back(c.get());
      b.cases.push_back(std::move(c));
    }
    if (b.ptrs.empty()) continue;
    std::vector<const Case *> ptrs = b.ptrs;
    b.out = std::async(std::launch::async, [ptrs, &be, timeout] { return compileAndRun(ptrs, be, timeout); });
    inflight.push_back(std::move(b));
    while (inflight.size() >= jobs) finish();
    progress(std::min<uint64_t>(o.count, k + batch));
  }
  while (!inflight.empty()) finish();
  rep.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return rep;
}

}  // namespace cairn
