#!/usr/bin/env bash
# The whole test suite, as the README's test command and CI run it:
#   1. release build (RelWithDebInfo) of everything, benchmarks included;
#      ctest (unit + property tests, CLI tests, golden files); a benchmark
#      smoke run at the smallest size
#   2. ASan+UBSan build (CAIRN_SANITIZE=ON); ctest again
#   3. when clang++ is installed: the two libFuzzer targets, each fuzzed for
#      FUZZ_SECONDS (default 45): cairn_fuzz (.uir text) from tests/fuzz_corpus,
#      tests/golden, examples; cairn_fuzz_src (CAIRN source) from tests/cairn
# Build folders: build-ci, build-ci-asan, build-ci-fuzz (ignored by git).
# Every test has its own ctest time limit. Tuning: JOBS (default: nproc),
# FUZZ_SECONDS (0 skips fuzzing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-45}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
step() { echo; echo "==== $* [$(date +%T)]"; }

step "release build"
cmake -S . -B build-ci "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_BENCH=ON
cmake --build build-ci -j "$JOBS"
step "release tests"
ctest --test-dir build-ci --output-on-failure -j "$JOBS"
step "benchmark smoke run"
./build-ci/bench/cairn_bench --benchmark_filter=':10000$' --benchmark_min_time=0.01

step "ASan+UBSan build"
cmake -S . -B build-ci-asan "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_SANITIZE=ON
cmake --build build-ci-asan -j "$JOBS"
step "ASan+UBSan tests"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-ci-asan --output-on-failure -j "$JOBS"

if [[ $FUZZ_SECONDS -gt 0 ]] && command -v clang++ >/dev/null; then
  step "libFuzzer build"
  cmake -S . -B build-ci-fuzz "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_FUZZ=ON -DCAIRN_TESTS=OFF \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang
  cmake --build build-ci-fuzz -j "$JOBS" --target cairn_fuzz cairn_fuzz_src
  step "fuzzing .uir text for ${FUZZ_SECONDS}s"
  mkdir -p build-ci-fuzz/corpus build-ci-fuzz/corpus-src build-ci-fuzz/artifacts
  ./build-ci-fuzz/cairn_fuzz -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build-ci-fuzz/artifacts/ \
    build-ci-fuzz/corpus tests/fuzz_corpus tests/golden examples
  step "fuzzing CAIRN source for ${FUZZ_SECONDS}s"
  ./build-ci-fuzz/cairn_fuzz_src -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build-ci-fuzz/artifacts/ \
    build-ci-fuzz/corpus-src tests/cairn/run tests/cairn/check tests/cairn/refuse
else
  step "fuzzing skipped (no clang++, or FUZZ_SECONDS=0)"
fi

step "all passed"
