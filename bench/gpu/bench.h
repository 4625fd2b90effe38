// bench/gpu/bench.h: what the three kinds of translation unit of the GPU
// benchmark share (README.md):
//   hand.cu        hand-written kernels of the jobs (hand_* below);
//   emitted_tu.cu  one emitted program (`cairn emit cuda JOB.uir`), compiled
//                  once per job with -DBENCH_JOB=JOB, as bench_run_JOB and
//                  bench_kernels_JOB (below);
//   harness.cu     main: times both, prints the table.
// Every emitted .cu is self-contained and full of statics of the same names,
// so each gets its own translation unit; only these extern "C" names cross.
#pragma once
#include <cstdio>

// The sizes and check positions of the .uir programs (bench/gpu/gen_uir.sh):
// N = R * R elements, R = 16384; slot 0 holds the result at these positions.
constexpr long long kRows = 16384;
constexpr long long kN = kRows * kRows;
inline long long checkPos(int k) {
  const long long p[4] = {0, kN / 4 + 1, kN / 2 + 7, kN - 1};
  return p[k];
}

// ---- the hand-written jobs (hand.cu); all on the default stream ----------
// job: "copy", "triad", "dot" or "transpose". Setup allocates the buffers and
// fills the inputs as the .uir's init loop does (not timed); run launches
// the job's kernels and nothing else (timed); check copies the 4 values the
// .uir puts in slot 0 to the host. Return false on a CUDA error (printed).
bool hand_setup(const char *job);
bool hand_run();
bool hand_check(float out[4]);
void hand_teardown();

// ---- an emitted program (emitted_tu.cu) --------------------------------------
// A kernel of the emitted program: the host stub's address (what
// cudaLaunchKernel receives) and its name in the .cu (cairn_k2, cairn_f2, ...).
struct BenchKernel {
  const void *fn;
  const char *name;
};
#define BENCH_DECLARE(job)                                                          \
  extern "C" int bench_run_##job(int nargs, char **args, FILE *out, FILE *err); \
  extern "C" const BenchKernel *bench_kernels_##job(void);
