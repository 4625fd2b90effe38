// bench/gpu/emitted_tu.cu: one program emitted by `cairn emit cuda`, made
// callable by the harness without changing a byte of it. Compiled once per
// job (run.sh):
//   nvcc -c emitted_tu.cu -DBENCH_JOB=copy -DBENCH_EMITTED='"copy.cu"'
//        -DBENCH_KERNELS_H='"copy_kernels.h"' -I<folder of those two files>
// where copy_kernels.h lists the .cu's kernels as BENCH_K(cairn_k2) ...
// (run.sh greps their `__global__ void NAME` lines).
//
// What it exports:
//   bench_run_JOB(nargs, args, out, err): one whole run of the program, as
//     its own main would do it (cairn_rt_run: --max-elements and the other
//     options in args, slot text to out, diagnostics to err, the exit
//     status returned);
//   bench_kernels_JOB(): its kernels' host stubs and names, ending in
//     {nullptr, nullptr}, so the harness can tell which recorded launch ran
//     which kernel.
// The emitted `int main` is renamed (a macro around the #include) and unused.
#ifndef BENCH_JOB
#error "compile with -DBENCH_JOB=NAME -DBENCH_EMITTED='\"NAME.cu\"' -DBENCH_KERNELS_H='\"NAME_kernels.h\"'"
#endif

#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)

#define main BENCH_CAT(bench_unused_main_, BENCH_JOB)
#include BENCH_EMITTED
#undef main

#include "bench.h"

extern "C" int BENCH_CAT(bench_run_, BENCH_JOB)(int nargs, char **args, FILE *out, FILE *err) {
  return cairn_rt_run(&cairn_prog, nargs, args, out, err);
}

#define BENCH_K(k) {(const void *)k, #k},
static const BenchKernel bench_kernel_table[] = {
#include BENCH_KERNELS_H
    {nullptr, nullptr}};
#undef BENCH_K

extern "C" const BenchKernel *BENCH_CAT(bench_kernels_, BENCH_JOB)(void) { return bench_kernel_table; }
