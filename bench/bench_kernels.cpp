// Kernels side by side: emitted C, hand-written C and the interpreter
// (Google Benchmark; built with -DCAIRN_BENCH=ON).
//
//   ./bench/cairn_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// At start, every bench/kernels/*.uir kernel (add, saxpy, prefix, dot,
// transpose, gather) is validated, emitted to C in one unit (exec/emit_c.hpp,
// no guard zones), and compiled with bench/kernels/hand.c into one shared
// object with the system compiler ($CC, default cc; $CFLAGS, default
// `-O2 -falign-loops=32`, see kernelCompiler; plus -shared -fPIC), which is
// loaded with dlopen. Before timing, each
// kernel runs once per size in all three engines and the value it puts in
// slot 1 must agree. Each benchmark then times one whole program run --
// allocation, filling the inputs, the kernel, the one-number output -- the
// same work in all three. Benchmarks are named KERNEL/ENGINE/N (N elements;
// the transpose's rows are N / 3200). After the run a table gives, per
// kernel and size, the median CPU times and the ratios the issue sets targets
// for: hand/emitted (speed of emitted C relative to hand-written C; >= 0.9
// wanted) and interp/emitted.
//
// Assumes a POSIX system with dlopen and a C compiler; without one it says
// so and exits 2.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/median_reporter.hpp"
#include "exec/c_toolchain.hpp"
#include "exec/emit_c.hpp"
#include "exec/interp.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

#ifndef CAIRN_BENCH_KERNELS
#define CAIRN_BENCH_KERNELS "bench/kernels"
#endif

namespace {

using namespace cairn;

struct Kernel {
  std::string name;
  bool rows = false;  // slot 0 is a row count (of 3200 columns), not an element count
  Graph g;
  Facts f;
  Schedule s;
  ProgramPtr interp;
  double (*hand)(int64_t) = nullptr;
};

using EmittedRun = int (*)(unsigned, const char *, FILE *);
EmittedRun gEmitted = nullptr;
FILE *gNull = nullptr;
std::vector<std::unique_ptr<Kernel>> gKernels;
const std::vector<int64_t> kSizes = {100000, 10000000};

int64_t slotValue(const Kernel &k, int64_t n) { return k.rows ? n / 3200 : n; }

// The wrapper appended to the emitted unit: runs program K with slot 0 = N.
const char *kWrapper = R"C(
int cairn_bench_run(unsigned k, const char *slot0, FILE *out) {
  char *args[2];
  args[0] = (char *)"--slot";
  args[1] = (char *)slot0;
  return cairn_rt_run(cairn_programs[k], 2, args, out, stderr);
}
)C";

// $CC, and $CFLAGS or else `-O2 -falign-loops=32`: hand and emitted C
// alike, with every loop head on a 32-byte boundary. At plain -O2 a loop
// lands wherever the code before it in the unit ends, and that decides a
// run's speed: `add` at 10^5, whose hand and emitted fill loops are the
// same instructions, timed hand/emitted 0.75 with the emitted loop at 16
// mod 32 and the hand one at 0 mod 32, and any change to the runtime (which
// comes first in the unit) moved it. Aligned, the ratio measures the code.
CCompiler kernelCompiler() {
  CCompiler cc = compilerFromEnv();
  if (!std::getenv("CFLAGS")) cc.cflags = {"-O2", "-falign-loops=32"};
  return cc;
}

bool die(const std::string &msg) {
  std::cerr << "cairn_bench_kernels: " << msg << '\n';
  return false;
}

bool setUp(const std::string &dir, std::string &tmpPath) {
  const char *names[] = {"add", "saxpy", "prefix", "dot", "transpose", "gather"};
  std::vector<EmitUnit> units;
  for (const char *n : names) {
    auto k = std::make_unique<Kernel>();
    k->name = n;
    k->rows = k->name == "transpose";
    std::string path = dir + "/" + n + ".uir";
    Diags d;
    if (!parseUir(readFileText(path), k->g, d) || !validate(k->g, k->f, d)) {
      d.print(std::cerr, path);
      return die(path + ": not a valid program");
    }
    k->s = schedule(k->g, k->f);
    k->interp = compile(k->g, k->f);
    units.push_back({&k->g, &k->f, &k->s, path});
    gKernels.push_back(std::move(k));
  }
  EmitOptions eo;
  eo.withMain = false;
  std::string src = emitCBatch(units, eo) + kWrapper;
  static TempDir tmp;  // lives until exit: the shared object is loaded from it
  if (!tmp.ok()) return die(tmp.error());
  tmpPath = tmp.path();
  const std::string cfile = tmp.file("kernels.c"), so = tmp.file("kernels.so");
  if (!writeFileText(cfile, src)) return die("cannot write " + cfile);
  CCompiler cc = kernelCompiler();
  std::vector<std::string> argv = cc.cc;
  argv.insert(argv.end(), cc.cflags.begin(), cc.cflags.end());
  for (const std::string &a : std::vector<std::string>{"-std=c11", "-shared", "-fPIC", "-o", so, cfile, dir + "/hand.c", "-lm"})
    argv.push_back(a);
  std::string log = tmp.file("cc.log");
  ProcessResult r = runProcess(argv, ProcessIO{"/dev/null", log, log}, {"TMPDIR=" + tmp.path()});
  if (!r.started || r.exitCode != 0) return die("the C compiler failed (" + (r.started ? "exit " + std::to_string(r.exitCode) : r.error) + "):\n" + readFileText(log));
  void *h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return die(std::string("dlopen: ") + dlerror());
  gEmitted = reinterpret_cast<EmittedRun>(dlsym(h, "cairn_bench_run"));
  for (auto &k : gKernels) k->hand = reinterpret_cast<double (*)(int64_t)>(dlsym(h, ("hand_" + k->name).c_str()));
  for (auto &k : gKernels)
    if (!k->hand || !gEmitted) return die("missing symbol for " + k->name);
  gNull = std::fopen("/dev/null", "w");
  return gNull != nullptr;
}

// Slot 1's value in each engine must agree (exactly: same operations, same order).
bool check(Kernel &k, int64_t n) {
  int64_t v = slotValue(k, n);
  RunOptions ro;
  ro.slotData[0] = {Literal{Literal::Kind::Int, v < 0, static_cast<uint64_t>(v < 0 ? -v : v), 0}};
  RunResult r = execute(*k.interp, ro);
  if (r.status != RunResult::Status::Ok || r.slots.size() < 2) return die(k.name + ": the interpreter did not run: " + r.message);
  double want = bitsToDouble(r.slots[1].values.at(0), r.slots[1].type);
  double hand = k.hand(v);
  std::string slot = "0=" + std::to_string(v);
  std::FILE *out = std::tmpfile();
  unsigned idx = 0;
  while (gKernels[idx].get() != &k) ++idx;
  int rc = gEmitted(idx, slot.c_str(), out);
  std::rewind(out);
  char line[256] = {0}, line2[256] = {0};
  bool got = std::fgets(line, sizeof line, out) && std::fgets(line2, sizeof line2, out);
  std::fclose(out);
  std::string emitted = got ? line2 : "";
  std::string wantText = "slot 1 = [" + bitsText(r.slots[1].values.at(0), r.slots[1].type) + "]\n";
  if (rc != 0 || emitted != wantText) return die(k.name + "/" + std::to_string(n) + ": emitted C printed `" + emitted + "`, the interpreter " + wantText);
  if (!(hand == want)) return die(k.name + "/" + std::to_string(n) + ": hand-written C gives " + std::to_string(hand) + ", the interpreter " + std::to_string(want));
  return true;
}

void runEmitted(benchmark::State &st, unsigned idx, int64_t v) {
  std::string slot = "0=" + std::to_string(v);
  for (auto _ : st) benchmark::DoNotOptimize(gEmitted(idx, slot.c_str(), gNull));
}
void runHand(benchmark::State &st, Kernel *k, int64_t v) {
  for (auto _ : st) benchmark::DoNotOptimize(k->hand(v));
}
void runInterp(benchmark::State &st, Kernel *k, int64_t v) {
  RunOptions ro;
  ro.slotData[0] = {Literal{Literal::Kind::Int, false, static_cast<uint64_t>(v), 0}};
  for (auto _ : st) {
    RunResult r = execute(*k->interp, ro);
    benchmark::DoNotOptimize(r.slots.data());
  }
}

// Collects each benchmark's median (or only) CPU time, then prints the
// ratios. CPU time, not wall time: every engine runs on one thread, and the
// machines this runs on are shared, so wall time mostly measures the others.
class Table : public cairn::bench::MedianReporter {
 public:
  void keep(const Run &r) override {
    ms_[r.run_name.str()] = r.GetAdjustedCPUTime();  // milliseconds, as every benchmark here reports
  }
  void print() const {
    std::printf("\n%-10s %10s %12s %12s %12s %14s %14s\n", "kernel", "N", "hand ms", "emitted ms", "interp ms", "hand/emitted",
                "interp/emitted");
    for (const auto &k : gKernels)
      for (int64_t n : kSizes) {
        auto t = [&](const char *e) {
          auto it = ms_.find(k->name + "/" + e + "/" + std::to_string(n));
          return it == ms_.end() ? NAN : it->second;
        };
        double h = t("hand_c"), c = t("emitted_c"), i = t("interp");
        if (std::isnan(h) && std::isnan(c) && std::isnan(i)) continue;
        std::printf("%-10s %10lld %12.3f %12.3f %12.3f %14.2f %14.2f\n", k->name.c_str(), static_cast<long long>(n), h, c, i, h / c, i / c);
      }
  }

 private:
  std::map<std::string, double> ms_;
};

}  // namespace

int main(int argc, char **argv) {
  std::string tmp;
  if (!setUp(CAIRN_BENCH_KERNELS, tmp)) return 2;
  for (auto &k : gKernels)
    for (int64_t n : kSizes)
      if (!check(*k, n)) return 1;
  for (unsigned idx = 0; idx < gKernels.size(); ++idx) {
    Kernel *k = gKernels[idx].get();
    for (int64_t n : kSizes) {
      int64_t v = slotValue(*k, n);
      std::string sfx = "/" + std::to_string(n);
      benchmark::RegisterBenchmark((k->name + "/hand_c" + sfx).c_str(), runHand, k, v)->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark((k->name + "/emitted_c" + sfx).c_str(), runEmitted, idx, v)->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark((k->name + "/interp" + sfx).c_str(), runInterp, k, v)->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  Table table;
  benchmark::RunSpecifiedBenchmarks(&table);
  table.print();
  benchmark::Shutdown();
  return 0;
}
