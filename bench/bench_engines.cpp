// CAIRN programs on three engines, side by side: the module interpreter
// (`cairn run F.cairn`), the C back end (`cairn emit c F.cairn`, compiled)
// and the same program written by hand in C (Google Benchmark; built with
// -DCAIRN_BENCH=ON).
//
//   ./bench/cairn_bench_engines                          medians of 5 (C) and 3 (interp) repetitions
//   ./bench/cairn_bench_engines --benchmark_repetitions=1 --benchmark_filter='^(fib|adds)/'
//
// The kernels are bench/cairn/K.cairn, each with its hand-written twin
// bench/cairn/K.c (same algorithm, same data, same printed line). At start
// every K.c is compiled with the system compiler ($CC, default cc; $CFLAGS,
// default -O2: exec/c_toolchain.hpp compileC), and `cairn emit c K.cairn`
// writes the emitted C, compiled the same way. Then, before anything is
// timed, each kernel runs once per engine and the stdout and exit status
// must be the same: `cairn run K.cairn` gives the reference; the hand
// executable must agree (else this program stops, exit 1: the benchmark
// itself is wrong); `cairn run --backend c K.cairn` and the emitted
// executable must agree too, else the row says "n/a: ..." (as it does when
// emitting or compiling fails) and the others are still measured.
//
// Every timing is one child process run to the end, stdout and stderr to
// /dev/null, and what is recorded is that child's CPU time (user + system,
// from wait4's rusage) as the benchmark's manual time: the machines this
// runs on are shared, and CPU time is what the child itself used. All three
// engines are child processes, so each pays its process start-up; for the
// interpreter that includes loading the `cairn` binary and reading,
// checking, lowering and validating the file. The `startup` row (a program
// that prints 0) shows that fixed cost per engine. Benchmarks are named
// K/hand_c, K/emitted_c and K/interp; with no --benchmark_repetitions given,
// the C engines run 5 repetitions and the interpreter 3 (each of its runs
// takes seconds), and only the aggregates are reported. The repetitions of
// all benchmarks run interleaved in a random order (unless
// --benchmark_enable_random_interleaving=false), so a slow spell of this
// shared machine lands on every engine rather than on one column. The table at the
// end gives, per kernel, the median times and the ratios interp/hand (how
// much slower the interpreter is than C) and hand/emitted (the speed of the
// emitted C relative to hand-written C; issue 11 wants >= 0.9).
//
// Assumes POSIX (posix_spawn, wait4) and a C compiler; without one it says
// so and exits 2.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "bench/median_reporter.hpp"
#include "exec/c_toolchain.hpp"

#ifndef CAIRN_BENCH_CAIRN_DIR
#define CAIRN_BENCH_CAIRN_DIR "bench/cairn"
#endif
#ifndef CAIRN_EXE
#define CAIRN_EXE "cairn"
#endif

extern char **environ;

namespace {

using namespace cairn;

// How one child process ended.
struct Outcome {
  bool started = false;
  std::string error;   // why it did not start
  int status = -1;     // exit status, or 128 + signal
  double cpu = 0;      // user + system seconds
  std::string out, err;  // stdout and stderr when captured

  bool operator==(const Outcome &o) const { return status == o.status && out == o.out; }
};

// Runs argv with stdin from /dev/null and stdout, stderr to the files given
// (read back into the outcome unless they are /dev/null).
Outcome spawn(const std::vector<std::string> &argv, const std::string &outFile, const std::string &errFile) {
  Outcome o;
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    o.error = argv[0] + ": " + std::strerror(rc);
    return o;
  }
  int st = 0;
  struct rusage ru {};
  while (wait4(pid, &st, 0, &ru) < 0)
    if (errno != EINTR) {
      o.error = std::string("wait4: ") + std::strerror(errno);
      return o;
    }
  o.started = true;
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  o.cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  if (outFile != "/dev/null") o.out = readFileText(outFile);
  if (errFile != "/dev/null") o.err = readFileText(errFile);
  return o;
}

std::string firstLine(const std::string &s) {
  std::string l = s.substr(0, s.find('\n'));
  return l.size() > 160 ? l.substr(0, 157) + "..." : l;
}

// "exit 0, stdout `664579`" for messages.
std::string describe(const Outcome &o) {
  if (!o.started) return "did not start: " + o.error;
  std::string out = o.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  std::string s = "exit " + std::to_string(o.status) + ", stdout `" + firstLine(out) + "`";
  if (o.status != 0 && !o.err.empty()) s += ", stderr `" + firstLine(o.err) + "`";
  return s;
}

struct Kernel {
  std::string name, source;  // K, bench/cairn/K.cairn
  std::string handExe, emittedExe;
  std::string emittedNote;  // "" when the emitted C is measured, else "n/a: why"
  Outcome reference;        // what `cairn run K.cairn` did
};

std::vector<std::unique_ptr<Kernel>> gKernels;
TempDir *gTmp = nullptr;
CCompiler gCC;

bool die(const std::string &msg) {
  std::cerr << "cairn_bench_engines: " << msg << '\n';
  return false;
}

// K.cairn files that have a K.c beside them, by name, `startup` last.
std::vector<std::string> kernelNames(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(dir, ec)) {
    const std::filesystem::path &p = e.path();
    if (p.extension() == ".cairn" && std::filesystem::exists(dir + "/" + p.stem().string() + ".c"))
      names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end(), [](const std::string &a, const std::string &b) {
    return std::make_pair(a == "startup", a) < std::make_pair(b == "startup", b);
  });
  return names;
}

// Emits and compiles K's C; "" on success, else the row's "n/a: ..." note.
std::string buildEmitted(Kernel &k) {
  const std::string cfile = gTmp->file(k.name + ".emitted.c"), log = gTmp->file(k.name + ".emit.log");
  Outcome e = spawn({CAIRN_EXE, "emit", "c", k.source, "-o", cfile}, log, log);
  if (!e.started) return "n/a: cairn emit c: " + e.error;
  if (e.status != 0) return "n/a: cairn emit c: exit " + std::to_string(e.status) + ": " + firstLine(e.err.empty() ? e.out : e.err);
  std::string error;
  k.emittedExe = gTmp->file(k.name + ".emitted");
  if (!compileC(gCC, gTmp->path(), cfile, k.emittedExe, error)) return "n/a: compiling the emitted C: " + firstLine(error);
  return "";
}

// Builds and checks one kernel; false (said on stderr) when the hand C does
// not compile or does not agree with the interpreter.
bool setUpKernel(const std::string &dir, const std::string &name) {
  auto k = std::make_unique<Kernel>();
  k->name = name;
  k->source = dir + "/" + name + ".cairn";
  const std::string out = gTmp->file("out.txt"), err = gTmp->file("err.txt");
  std::string error;
  k->handExe = gTmp->file(name + ".hand");
  if (!compileC(gCC, gTmp->path(), dir + "/" + name + ".c", k->handExe, error)) return die(name + ".c: " + error);

  k->reference = spawn({CAIRN_EXE, "run", k->source}, out, err);
  if (!k->reference.started) return die(name + ": cairn run: " + k->reference.error);
  Outcome hand = spawn({k->handExe}, out, err);
  if (!(hand == k->reference))
    return die(name + ": the hand-written C (" + describe(hand) + ") and `cairn run` (" + describe(k->reference) + ") disagree");

  k->emittedNote = buildEmitted(*k);
  if (k->emittedNote.empty()) {
    Outcome viaCli = spawn({CAIRN_EXE, "run", "--backend", "c", k->source}, out, err);
    Outcome exe = spawn({k->emittedExe}, out, err);
    if (!(viaCli == k->reference))
      k->emittedNote = "n/a: `cairn run --backend c`: " + describe(viaCli) + ", the interpreter: " + describe(k->reference);
    else if (!(exe == k->reference))
      k->emittedNote = "n/a: the emitted executable: " + describe(exe) + ", the interpreter: " + describe(k->reference);
  }
  std::cerr << "cairn_bench_engines: " << name << ": " << describe(k->reference) << " in every engine"
            << (k->emittedNote.empty() ? "" : " but the emitted C (" + k->emittedNote + ")") << '\n';
  gKernels.push_back(std::move(k));
  return true;
}

// One iteration = one run of the program; its CPU time is the iteration's time.
void runChild(benchmark::State &st, std::vector<std::string> argv, const Kernel *k) {
  for (auto _ : st) {
    Outcome o = spawn(argv, "/dev/null", "/dev/null");
    if (!o.started || o.status != k->reference.status) {
      st.SkipWithError((k->name + ": " + describe(o)).c_str());
      break;
    }
    st.SetIterationTime(o.cpu);
  }
}

// Collects each benchmark's median (or only) time, then prints the table.
// With UseManualTime the recorded time is the children's CPU time.
class Table : public cairn::bench::MedianReporter {
 public:
  void keep(const Run &r) override {
    if (!r.error_occurred)
      ms_[r.run_name.function_name] = r.GetAdjustedRealTime();  // milliseconds: every benchmark here reports ms
  }
  void seen(const Run &r) override {
    const std::string &f = r.run_name.function_name;
    bool interp = f.size() >= 7 && f.compare(f.size() - 7, 7, "/interp") == 0;
    int64_t &reps = interp ? repsI_ : repsC_;
    reps = std::max<int64_t>({reps, r.repetitions, 1});
  }
  double ms(const Kernel &k, const char *engine) const {
    auto it = ms_.find(k.name + "/" + engine);
    return it == ms_.end() ? NAN : it->second;
  }
  void print() const {
    std::string cc, flags;
    for (const std::string &w : gCC.cc) cc += (cc.empty() ? "" : " ") + w;
    for (const std::string &w : gCC.cflags) flags += (flags.empty() ? "" : " ") + w;
    std::printf("\nMedian CPU time of one whole run (child process, user + system): %lld repetition(s) of the C\n"
                "engines, %lld of the interpreter; hand C and emitted C compiled by `%s %s`.\n",
                static_cast<long long>(repsC_), static_cast<long long>(repsI_), cc.c_str(), flags.c_str());
    std::printf("%-9s %22s %10s %11s %11s %12s %13s  %s\n", "kernel", "output", "hand ms", "emitted ms", "interp ms",
                "interp/hand", "hand/emitted", "note");
    auto num = [](double v, const char *fmt) {
      if (std::isnan(v)) return std::string("n/a");
      char b[32];
      std::snprintf(b, sizeof b, fmt, v);
      return std::string(b);
    };
    for (const auto &k : gKernels) {
      double h = ms(*k, "hand_c"), c = ms(*k, "emitted_c"), i = ms(*k, "interp");
      if (std::isnan(h) && std::isnan(c) && std::isnan(i)) continue;  // filtered out
      std::string out = k->reference.out;
      while (!out.empty() && out.back() == '\n') out.pop_back();
      std::replace(out.begin(), out.end(), '\n', ' ');
      if (out.size() > 22) out = out.substr(0, 19) + "...";
      std::printf("%-9s %22s %10s %11s %11s %12s %13s  %s\n", k->name.c_str(), out.c_str(), num(h, "%.2f").c_str(),
                  num(c, "%.2f").c_str(), num(i, "%.1f").c_str(), num(i / h, "%.1f").c_str(), num(h / c, "%.2f").c_str(),
                  k->emittedNote.c_str());
    }
  }

 private:
  std::map<std::string, double> ms_;
  int64_t repsC_ = 0, repsI_ = 0;
};

}  // namespace

int main(int argc, char **argv) {
  gCC = compilerFromEnv();
  if (!compilerAvailable(gCC)) return die("no C compiler (" + (gCC.cc.empty() ? std::string("cc") : gCC.cc[0]) + ")"), 2;
  static TempDir tmp;
  if (!tmp.ok()) return die(tmp.error()), 2;
  gTmp = &tmp;
  const std::string dir = CAIRN_BENCH_CAIRN_DIR;
  std::vector<std::string> names = kernelNames(dir);
  if (names.empty()) return die("no kernels in " + dir), 2;
  // Only the kernels --benchmark_filter keeps are built and checked.
  std::string filter;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) filter = argv[i] + 19;
  bool negative = !filter.empty() && filter[0] == '-';
  std::regex re;
  try {
    re = std::regex(negative ? filter.substr(1) : filter.empty() ? std::string(".") : filter);
  } catch (const std::regex_error &) {
    return die("bad --benchmark_filter: " + filter), 2;
  }
  for (const std::string &n : names) {
    bool any = false;
    for (const char *e : {"/hand_c", "/emitted_c", "/interp"}) any = any || std::regex_search(n + e, re) != negative;
    if (any && !setUpKernel(dir, n)) return 1;
  }

  // Repetitions: --benchmark_repetitions=N for every benchmark, else 5 for
  // the C engines and 3 for the interpreter (its runs take seconds each).
  std::vector<char *> args = {argv[0]};
  int repsC = 5, repsI = 3;
  bool aggr = false, interleave = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_repetitions=", 24) == 0) {
      repsC = repsI = std::max(1, std::atoi(argv[i] + 24));
      continue;
    }
    aggr = aggr || std::strncmp(argv[i], "--benchmark_report_aggregates_only", 34) == 0;
    interleave = interleave || std::strncmp(argv[i], "--benchmark_enable_random_interleaving", 38) == 0;
    args.push_back(argv[i]);
  }
  static char defAggr[] = "--benchmark_report_aggregates_only=true";
  if (!aggr) args.insert(args.begin() + 1, defAggr);
  // The repetitions of every engine are run in a random order, interleaved,
  // so that a slow spell of the machine falls on all three engines alike
  // instead of on whichever ran during it: the ratios are what matters.
  static char defInterleave[] = "--benchmark_enable_random_interleaving=true";
  if (!interleave) args.insert(args.begin() + 1, defInterleave);
  for (const auto &k : gKernels) {
    auto reg = [&](const char *engine, std::vector<std::string> cmd, int reps) {
      benchmark::RegisterBenchmark((k->name + "/" + engine).c_str(), runChild, std::move(cmd), k.get())
          ->UseManualTime()
          ->Repetitions(reps)
          ->Unit(benchmark::kMillisecond);
    };
    reg("hand_c", {k->handExe}, repsC);
    if (k->emittedNote.empty()) reg("emitted_c", {k->emittedExe}, repsC);
    reg("interp", {CAIRN_EXE, "run", k->source}, repsI);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  Table table;
  benchmark::RunSpecifiedBenchmarks(&table);
  table.print();
  benchmark::Shutdown();
  return 0;
}
