#!/usr/bin/env bash
# The whole test suite, as the README's test command and CI run it:
#   1. release build (RelWithDebInfo) of everything, benchmarks included;
#      ctest (unit + property tests, CLI tests, golden files); a benchmark
#      smoke run at the smallest size
#   2. ASan+UBSan build; ctest again. When clang++ is installed (and
#      FUZZ_SECONDS > 0) this one build is clang's with libFuzzer coverage
#      (CAIRN_FUZZ=ON), so it also gives the two libFuzzer targets, each then
#      fuzzed for FUZZ_SECONDS (default 45): cairn_fuzz (.uir text) from
#      tests/fuzz_corpus, tests/golden, examples; cairn_fuzz_src (CAIRN
#      source) from tests/cairn. Without clang it is g++'s CAIRN_SANITIZE=ON
#      build and fuzzing is skipped.
# Both builds keep line tables only (-g1): backtraces and sanitizer reports
# have file:line, and compiling and linking take far less time than -g.
# Build folders: build-ci, build-ci-asan (ignored by git).
# Every test has its own ctest time limit. Tuning: JOBS (default: nproc),
# FUZZ_SECONDS (0 skips fuzzing), FAST=1 (step 1 only: a quick local loop;
# CI always runs everything).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-45}
FAST=${FAST:-0}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
step() { echo; echo "==== $* [$(date +%T)]"; }

G1=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
FUZZ=0
[[ $FUZZ_SECONDS -gt 0 ]] && command -v clang++ >/dev/null && FUZZ=1

step "release build"
cmake -S . -B build-ci "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${G1[@]}" -DCAIRN_BENCH=ON
cmake --build build-ci -j "$JOBS"
step "release tests"
ctest --test-dir build-ci --output-on-failure -j "$JOBS"
step "benchmark smoke run"
./build-ci/bench/cairn_bench --benchmark_filter=':10000$' --benchmark_min_time=0.01
if [[ $FAST == 1 ]]; then
  step "FAST=1: the sanitizer build, its tests and fuzzing are skipped"
  exit 0
fi

if [[ $FUZZ == 1 ]]; then
  step "ASan+UBSan build (clang, with libFuzzer coverage)"
  cmake -S . -B build-ci-asan "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${G1[@]}" -DCAIRN_FUZZ=ON \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang
else
  step "ASan+UBSan build (g++)"
  cmake -S . -B build-ci-asan "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${G1[@]}" -DCAIRN_SANITIZE=ON
fi
cmake --build build-ci-asan -j "$JOBS"
step "ASan+UBSan tests"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-ci-asan --output-on-failure -j "$JOBS"

if [[ $FUZZ == 1 ]]; then
  F=build-ci-asan
  step "fuzzing .uir text for ${FUZZ_SECONDS}s"
  mkdir -p $F/corpus $F/corpus-src $F/artifacts
  ./$F/cairn_fuzz -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=$F/artifacts/ \
    $F/corpus tests/fuzz_corpus tests/golden examples
  step "fuzzing CAIRN source for ${FUZZ_SECONDS}s"
  ./$F/cairn_fuzz_src -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=$F/artifacts/ \
    $F/corpus-src tests/cairn/run tests/cairn/check tests/cairn/refuse
else
  step "fuzzing skipped (no clang++, or FUZZ_SECONDS=0)"
fi

step "all passed"
