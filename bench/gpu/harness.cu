// bench/gpu/harness.cu: times the hand-written and the emitted kernels of
// each job side by side, in one process, the same way, and prints the table
// (README.md, "How the two are timed"). Usage: harness [--table FILE]; env
// HAND_REPS (20), EMITTED_REPS (10), PEAK_GBS (4800, the H200's 4.8 TB/s).
//
// The link wraps the function every <<<...>>> launch stub calls:
// cudaLaunchKernel(stub, ...) up to CUDA 12, __cudaLaunchKernel(handle, ...)
// from CUDA 13 (-DBENCH_WRAP_INTERNAL, -Xlinker --wrap=__cudaLaunchKernel;
// run.sh asks nm). While recording, the wrapper puts a cudaEvent just before
// and just after the launch on its stream: between them, the kernel's GPU
// time plus one launch latency, for hand and emitted kernels alike.
//   hand:    a rep is hand_run(): the job's kernels only;
//   emitted: a rep is a whole run of the unchanged program (cairn_rt_run);
//            its job time is the last cairn_kN launched and its reduce
//            finisher cairn_fN, if any (gen_uir.sh: init, job, check).
// Figures are medians over the reps, after warm-up (module loading, clocks).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench.h"

BENCH_DECLARE(copy)
BENCH_DECLARE(triad)
BENCH_DECLARE(dot)
BENCH_DECLARE(transpose)
BENCH_DECLARE(transpose_rows)

// ---- the launch recorder ----------------------------------------------------
struct Launch {  // fn: the stub (CUDA 12) or the kernel handle (13)
  const void *fn;
  unsigned blocks;
  cudaEvent_t start, stop;
};
static std::vector<Launch> g_launches;
static std::vector<cudaEvent_t> g_pool;  // events, reused run after run
static size_t g_used = 0;
static bool g_recording = false;

static cudaEvent_t nextEvent() {
  if (g_used == g_pool.size()) {
    cudaEvent_t e;
    if (cudaEventCreate(&e) != cudaSuccess) return nullptr;
    g_pool.push_back(e);
  }
  return g_pool[g_used++];
}
static void startRecording() {
  g_launches.clear();
  g_used = 0;
  g_recording = true;
}
// Stops recording; the GPU time of each recorded launch in ms (-1: unknown).
static std::vector<double> stopRecording() {
  g_recording = false;
  std::vector<double> ms;
  for (const Launch &l : g_launches) {
    float t = -1;
    if (!l.start || !l.stop || cudaEventSynchronize(l.stop) != cudaSuccess ||
        cudaEventElapsedTime(&t, l.start, l.stop) != cudaSuccess)
      t = -1;
    ms.push_back(t);
  }
  return ms;
}

// The wrapper: fn is what the stub passes, the stub's address (or, from
// CUDA 13, its kernel handle; kernelId maps a stub to the same thing).
template <class F> static cudaError_t recordLaunch(const void *fn, dim3 grid, cudaStream_t stream, F launch) {
  if (!g_recording) return launch();
  Launch l{fn, grid.x * grid.y * grid.z, nextEvent(), nextEvent()};
  if (l.start) cudaEventRecord(l.start, stream);
  const cudaError_t e = launch();
  if (l.stop) cudaEventRecord(l.stop, stream);
  g_launches.push_back(l);
  return e;  // the launch's own status; cudaGetLastError still reports it
}
#define BENCH_WRAP(REAL, WRAP, FN_T)                                                                            \
  extern "C" cudaError_t REAL(FN_T fn, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream);  \
  extern "C" cudaError_t WRAP(FN_T fn, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream) { \
    return recordLaunch((const void *)fn, grid, stream, [&] { return REAL(fn, grid, block, args, shmem, stream); }); \
  }
#ifdef BENCH_WRAP_INTERNAL
BENCH_WRAP(__real___cudaLaunchKernel, __wrap___cudaLaunchKernel, cudaKernel_t)
static const void *kernelId(const void *stub) {
  cudaKernel_t k = nullptr;
  return __cudaGetKernel(&k, stub) == cudaSuccess ? (const void *)k : stub;
}
#else
BENCH_WRAP(__real_cudaLaunchKernel, __wrap_cudaLaunchKernel, const void *)
static const void *kernelId(const void *stub) { return stub; }
#endif

// ---- the jobs -------------------------------------------------------------------
struct Job {
  const char *name, *hand;  // the .uir's name; the hand job (hand.cu)
  int (*run)(int, char **, FILE *, FILE *);
  const BenchKernel *(*kernels)();
  int bytesPerElem;  // bytes moved per element: reads + writes
  bool target;       // copy and triad: >= 85% of peak is a target
};
static const Job kJobs[] = {
    {"copy", "copy", bench_run_copy, bench_kernels_copy, 8, true},
    {"triad", "triad", bench_run_triad, bench_kernels_triad, 12, true},
    {"dot", "dot", bench_run_dot, bench_kernels_dot, 8, false},
    {"transpose", "transpose", bench_run_transpose, bench_kernels_transpose, 8, false},
    {"transpose_rows", "transpose", bench_run_transpose_rows, bench_kernels_transpose_rows, 8, false},
};

// The 4 values the .uir puts in slot 0, computed on the host.
static void expected(const char *hand, float out[4]) {
  for (int k = 0; k < 4; ++k) {
    const long long p = checkPos(k);
    if (!std::strcmp(hand, "copy")) out[k] = (float)(p & 16777215);
    else if (!std::strcmp(hand, "triad")) out[k] = (float)((p & 1023) + 3 * ((p >> 10) & 1023));
    else if (!std::strcmp(hand, "dot")) out[k] = k ? 0.0f : (float)(kN / 8 * 6);
    else out[k] = (float)(((p % kRows) * kRows + p / kRows) & 16777215);  // transpose
  }
}
// Equal; a sum within 1e-6 of it (the data make it exact in both orders, but
// a wrong order should show as a number, not fail the run: both are printed).
static bool same(const float a[4], const float b[4], const char *hand) {
  const double tol = std::strcmp(hand, "dot") ? 0.0 : 1e-6 * std::fabs(b[0]);
  for (int k = 0; k < 4; ++k)
    if (!(std::fabs((double)a[k] - b[k]) <= tol)) return false;
  return true;
}
static std::string show(const float v[4]) {
  char s[160];
  std::snprintf(s, sizeof s, "[%.9g %.9g %.9g %.9g]", v[0], v[1], v[2], v[3]);
  return s;
}
static double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}
static int envInt(const char *name, int dflt) {
  const char *v = std::getenv(name);
  return v && *v ? std::max(1, std::atoi(v)) : dflt;
}

struct Result {
  double handMs = NAN, emittedMs = NAN, wallMs = NAN;
  bool handOk = false, emittedOk = false;
};

static Result timeHand(const Job &j, int reps) {
  Result r;
  float got[4] = {NAN, NAN, NAN, NAN}, want[4];
  expected(j.hand, want);
  if (!hand_setup(j.hand)) return hand_teardown(), r;
  std::vector<double> ms;
  for (int rep = -2; rep < reps; ++rep) {  // two warm-up reps
    startRecording();
    const bool ran = hand_run();
    std::vector<double> t = stopRecording();
    if (!ran) break;
    if (t.empty()) {
      std::fprintf(stderr, "harness: no launch was recorded: the link does not wrap the launch function (run.sh)\n");
      break;
    }
    double sum = 0;
    for (double x : t) sum = x < 0 || sum < 0 ? -1 : sum + x;
    if (rep >= 0 && sum >= 0) ms.push_back(sum);
  }
  r.handOk = hand_check(got) && same(got, want, j.hand);
  std::printf("  hand:    %-16s median %8.3f ms over %zu reps; slot 0 %s%s\n", j.hand, median(ms), ms.size(),
              show(got).c_str(), r.handOk ? "" : ("  WRONG, expected " + show(want)).c_str());
  hand_teardown();
  r.handMs = median(ms);
  return r;
}

// Reads `slot 0 = [a b c d]` from the program's output.
static bool parseSlot0(FILE *f, float v[4]) {
  std::string text;
  char buf[4096];
  std::rewind(f);
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  const size_t at = text.find("slot 0 = [");
  return at != std::string::npos &&
         std::sscanf(text.c_str() + at + 10, "%f %f %f %f", &v[0], &v[1], &v[2], &v[3]) == 4;
}

static void timeEmitted(const Job &j, int reps, Result &r) {
  float got[4] = {NAN, NAN, NAN, NAN}, want[4];
  expected(j.hand, want);
  char a0[] = "--max-elements", a1[] = "8589934592";  // 2^33: the default 2^28 is one buffer
  char *args[] = {a0, a1};
  std::vector<double> job, wall;
  std::string breakdown;
  bool allOk = true;
  for (int rep = -1; rep < reps; ++rep) {  // one warm-up run
    FILE *out = std::tmpfile(), *err = std::tmpfile();
    if (!out || !err) return;
    startRecording();
    const auto t0 = std::chrono::steady_clock::now();
    const int status = j.run(2, args, out, err);
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<double> t = stopRecording();
    const bool parsed = status == 0 && parseSlot0(out, got);
    if (status != 0) {
      std::rewind(err);
      for (int c; (c = std::fgetc(err)) != EOF;) std::fputc(c, stderr);
      std::fprintf(stderr, "  emitted %s: exit status %d\n", j.name, status);
    }
    std::fclose(out);
    std::fclose(err);
    allOk = allOk && parsed && same(got, want, j.hand);
    if (status != 0) break;
    // Name each launch; the job is the last cairn_kN and its cairn_fN.
    std::vector<std::string> names;
    int last = -1;
    for (size_t k = 0; k < g_launches.size(); ++k) {
      std::string nm = "?";
      for (const BenchKernel *b = j.kernels(); b->fn; ++b)
        if (kernelId(b->fn) == g_launches[k].fn) nm = b->name;
      if (nm.rfind("cairn_k", 0) == 0) last = (int)k;
      names.push_back(nm);
    }
    if (last < 0) std::fprintf(stderr, "  emitted %s: no cairn_kN launch recognised\n", j.name);
    double sum = last < 0 ? -1 : 0;
    std::string line;
    for (size_t k = 0; k < names.size(); ++k) {
      const bool inJob = last >= 0 && ((int)k == last || names[k] == "cairn_f" + names[last].substr(7));
      if (inJob) sum = t[k] < 0 || sum < 0 ? -1 : sum + t[k];
      char s[128];
      std::snprintf(s, sizeof s, "%s%s(%u blocks) %.3f ms%s", k ? ", " : "", names[k].c_str(), g_launches[k].blocks,
                    t[k], inJob ? " [job]" : "");
      line += s;
    }
    if (rep >= 0) {
      if (sum >= 0) job.push_back(sum);
      wall.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      breakdown = line;
    }
  }
  r.emittedOk = allOk && !job.empty();
  r.emittedMs = median(job);
  r.wallMs = median(wall);
  std::printf("  emitted: %-16s median %8.3f ms over %zu runs (kernels only); whole run %.1f ms; slot 0 %s%s\n",
              j.name, r.emittedMs, job.size(), r.wallMs, show(got).c_str(),
              r.emittedOk ? "" : ("  WRONG, expected " + show(want)).c_str());
  std::printf("           launches of the last run: %s\n", breakdown.c_str());
}

// The table, from the medians; also written to path (run.sh prints it last).
// Returns whether every check passed.
static bool printTable(const std::vector<Result> &res, double peak, const char *path) {
  std::string t, targets;
  char row[256], pk[40];
  std::snprintf(pk, sizeof pk, "%% of %.1f TB/s (emitted)", peak / 1000);
  std::snprintf(row, sizeof row, "%-15s | %9s | %12s | %23s | %12s | %s\n%s\n", "job", "hand GB/s", "emitted GB/s", pk,
                "emitted/hand", "check", (std::string(16, '-') + "+-----------+--------------+-------------------------+"
                                                                 "--------------+------").c_str());
  t += row;
  bool allOk = true;
  for (size_t k = 0; k < res.size(); ++k) {
    const Job &j = kJobs[k];
    const Result &r = res[k];
    const double bytes = (double)j.bytesPerElem * (double)kN;
    const double hand = bytes / (r.handMs * 1e-3) / 1e9, emit = bytes / (r.emittedMs * 1e-3) / 1e9;
    allOk = allOk && r.handOk && r.emittedOk;
    std::snprintf(row, sizeof row, "%-15s | %9.1f | %12.1f | %22.1f%% | %12.3f | %s\n", j.name, hand, emit,
                  100.0 * emit / peak, emit / hand,
                  r.handOk && r.emittedOk ? "ok" : r.handOk ? "WRONG (emitted)" : "WRONG (hand)");
    t += row;
    std::snprintf(row, sizeof row, "  %s: emitted/hand %.3f %s 0.95", j.name, emit / hand, emit / hand >= 0.95 ? ">=" : "<");
    targets += row;
    if (j.target) {
      std::snprintf(row, sizeof row, "; emitted %.1f%% of peak %s 85%%", 100.0 * emit / peak, emit / peak >= 0.85 ? ">=" : "<");
      targets += row;
    }
    targets += "\n";
  }
  t += "GB/s = bytes moved (reads + writes of " + std::to_string(kN) +
       " f32 elements) / kernel time; hand: its kernels; emitted: the job's\n"
       "kernels (the last cairn_kN; dot: and its cairn_fN) in a whole run of the emitted program. Targets:\n" + targets;
  std::printf("\n%s", t.c_str());
  if (path)
    if (FILE *f = std::fopen(path, "w")) std::fputs(t.c_str(), f), std::fclose(f);
  return allOk;
}

int main(int argc, char **argv) {
  const char *tablePath = argc == 3 && !std::strcmp(argv[1], "--table") ? argv[2] : nullptr;
  int ndev = 0;
  const cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    std::printf("harness: no CUDA device (%s): nothing to time\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 2;
  }
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  const int handReps = envInt("HAND_REPS", 20), emittedReps = envInt("EMITTED_REPS", 10);
  const double peak = std::getenv("PEAK_GBS") ? std::atof(std::getenv("PEAK_GBS")) : 4800.0;
  std::printf("device: %s, sm_%d%d, %d SMs, %.1f GiB; CUDA runtime %d, driver %d\n", p.name, p.major, p.minor,
              p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, rt, drv);
  std::printf("N = %lld f32 elements (%.2f GiB a buffer); %d hand reps, %d emitted runs; peak %.0f GB/s\n", kN,
              kN * 4 / 1073741824.0, handReps, emittedReps, peak);
  std::vector<Result> res;
  for (const Job &j : kJobs) {
    std::printf("%s (%d bytes an element):\n", j.name, j.bytesPerElem);
    std::fflush(stdout);
    Result r = timeHand(j, handReps);
    timeEmitted(j, emittedReps, r);
    res.push_back(r);
  }
  return printTable(res, peak, tablePath) ? 0 : 1;
}
