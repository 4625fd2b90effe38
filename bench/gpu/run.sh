#!/usr/bin/env bash
# bench/gpu/run.sh: issue 13's GPU run, one command from the repository root
# (README.md): build cairn, the GPU tests, the CUDA fuzz campaign, then the
# benchmark, ending in one table. About ten minutes on an H200 machine.
#
#   bash bench/gpu/run.sh
#
# Environment (all optional):
#   CAIRN=PATH      use this cairn binary; skips the build and ctest
#   BUILD=DIR       build folder (build-gpu); OUT_DIR=DIR scratch (BUILD/bench-gpu)
#   CUDA_ARCH=ARCH  nvcc -arch (native; sm_90 when native fails: no GPU)
#   NVCC=PATH       nvcc (PATH, else /usr/local/cuda/bin/nvcc)
#   JOBS=N          parallel jobs (nproc); HAND_REPS, EMITTED_REPS, PEAK_GBS: harness.cu
# Exit status: 0 all passed; 1 a step failed (see the summary); 2 no GPU
# (cudaGetDeviceCount finds none; the harness is still compiled, as a
# check) or no nvcc.
set -euo pipefail
cd "$(dirname "$0")/../.."
T0=$SECONDS
BUILD=${BUILD:-build-gpu}
OUT=${OUT_DIR:-$BUILD/bench-gpu}
JOBS=${JOBS:-$(nproc)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
HERE=bench/gpu
SUMMARY=()
FAILED=0

say() { printf '\n== [%4ds] %s\n' $((SECONDS - T0)) "$*"; }
note() { SUMMARY+=("$*"); echo "-- $*"; }
fail() { FAILED=1; note "FAIL: $*"; }
# limit SECONDS CMD...: prints CMD, runs it with a time limit (exit 124 past it).
limit() { local s=$1; shift; echo "+ [limit ${s}s] $*" >&2; timeout --kill-after=10 "$s" "$@"; }

say "setup"
[ -x "$NVCC" ] || { echo "run.sh: no nvcc (set NVCC or PATH)"; exit 2; }
export PATH="$(dirname "$NVCC"):$PATH" CUDACXX="$NVCC"
mkdir -p "$OUT"
# The arch: native when nvcc finds a GPU (without one it warns and uses its
# default), else sm_90. A GPU: the CUDA runtime counts one (a probe compiled
# for that arch; nvidia-smi is only reported: it may be missing, or see a
# GPU that a too old driver does not let this CUDA use).
ARCH=${CUDA_ARCH:-native}
cat >"$OUT/probe.cu" <<'EOF'
#include <cstdio>
int main() { int n = 0; cudaError_t e = cudaGetDeviceCount(&n);
  std::printf("cudaGetDeviceCount: %d (%s)\n", n, cudaGetErrorString(e)); return e == cudaSuccess && n > 0 ? 0 : 1; }
EOF
if [ "$ARCH" = native ]; then
  if ! "$NVCC" -arch=native -o "$OUT/probe" "$OUT/probe.cu" >"$OUT/probe.log" 2>&1 || grep -qi warning "$OUT/probe.log"; then
    ARCH=sm_90
  fi
fi
[ "$ARCH" = native ] || "$NVCC" -arch="$ARCH" -o "$OUT/probe" "$OUT/probe.cu"
HAVE_GPU=0 SMI=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  SMI=1
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader || true
fi
if "$OUT/probe"; then HAVE_GPU=1; fi
[ "$SMI" = "$HAVE_GPU" ] || note "nvidia-smi: GPU $SMI, the CUDA runtime: GPU $HAVE_GPU (a driver older than this CUDA?)"
# One set of flags for hand and emitted code (-Wno-enum-compare: a host
# warning in the pasted runtime; it changes no code).
NVFLAGS=(-O3 -std=c++17 --fmad=false -arch="$ARCH" -Xcompiler -Wno-enum-compare)
export NVCCFLAGS="-O2 -arch=$ARCH"  # for `cairn run --backend cuda` (its own -std, --fmad=false)
echo "nvcc: $NVCC ($("$NVCC" --version | tail -n 1)); -arch=$ARCH; a GPU: $HAVE_GPU; $JOBS jobs"

if [ -n "${CAIRN:-}" ]; then
  say "build: skipped, CAIRN=$CAIRN"
else
  say "packages (README.md)"
  PKGS=(cmake ninja-build g++ libboost-graph-dev libcli11-dev nlohmann-json3-dev libgtest-dev librapidcheck-dev
    libbenchmark-dev libffi-dev libarchive-dev libssl-dev libmimalloc-dev pkg-config)
  MISSING=()
  if command -v dpkg >/dev/null; then
    for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || MISSING+=("$p"); done
  fi
  if [ ${#MISSING[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      limit 300 bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${MISSING[*]}" ||
        note "apt-get install ${MISSING[*]} failed; building anyway"
    else
      note "missing packages ${MISSING[*]} (not root, or no apt-get); building anyway"
    fi
  fi
  say "configure and build cairn"
  limit 180 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.log" ||
    { tail -n 30 "$OUT/cmake.log"; echo "run.sh: cmake failed"; exit 1; }
  # cairn, and the helpers the gpu tests run (those this tree has): not the
  # whole test build.
  TARGETS=(cairn)
  ninja -C "$BUILD" -t targets all >"$OUT/targets.txt"
  for t in cuda_emu_selftest cuda_golden_unit; do grep -q "^$t:" "$OUT/targets.txt" && TARGETS+=("$t"); done
  limit 480 ninja -C "$BUILD" -j "$JOBS" "${TARGETS[@]}" >"$OUT/ninja.log" ||
    { tail -n 30 "$OUT/ninja.log"; echo "run.sh: the build failed"; exit 1; }
  CAIRN=$BUILD/cairn
  # -LE fuzz: the emulated CUDA fuzz campaign (label "fuzz;gpu", up to 600 s)
  # is left out; the real one runs below.
  say "ctest -L gpu -LE fuzz"
  if limit 300 ctest --test-dir "$BUILD" -L gpu -LE fuzz -j "$JOBS" --output-on-failure >"$OUT/ctest.log" 2>&1; then
    note "ctest -L gpu -LE fuzz: $(grep -E 'tests passed' "$OUT/ctest.log" || echo passed)"
  else
    tail -n 30 "$OUT/ctest.log"
    fail "ctest -L gpu -LE fuzz (log: $OUT/ctest.log)"
  fi
fi
"$CAIRN" --version

say "the benchmark's small programs: interpreter == CUDA"
EMU=()
[ "$HAVE_GPU" = 1 ] || EMU=(--emulate)
bash "$HERE/gen_uir.sh" "$OUT"  # the committed .uir must be the generator's output
for f in "$HERE"/*.uir; do
  cmp -s "$f" "$OUT/$(basename "$f")" || fail "$f differs from bench/gpu/gen_uir.sh's output: rerun it"
done
for j in copy triad dot transpose transpose_rows; do
  f=$HERE/${j}_small.uir
  "$CAIRN" oracle "$HERE/$j.uir" >/dev/null || fail "cairn oracle $HERE/$j.uir"
  echo "+ $CAIRN run $f; $CAIRN run $f --backend cuda ${EMU[*]}"
  a=$("$CAIRN" run "$f" 2>&1; echo "exit $?") || true
  b=$(timeout 120 "$CAIRN" run "$f" --backend cuda "${EMU[@]}" 2>&1; echo "exit $?") || true
  if [ "$a" = "$b" ]; then
    echo "$j: the same ($(head -n 1 <<<"$a"), $(tail -n 1 <<<"$a"))"
  else
    fail "$f: the interpreter and cuda ${EMU[*]} differ"
    diff <(echo "$a") <(echo "$b") | head -n 8 || true
  fi
done
[ "$HAVE_GPU" = 1 ] && note "small programs: interpreter == GPU" || note "small programs: interpreter == --emulate (no GPU)"

if [ "$HAVE_GPU" = 1 ] || [ "${GOLDEN_EMULATE:-0}" = 1 ]; then
  say "tests/golden: cairn run --backend cuda ${EMU[*]} against the interpreter"
  # One case per file and input: `# run ARGS:` lines, ARGS `K=V,..;K=V,..`.
  : >"$OUT/golden.cases"
  for f in $(grep -l '^# test: run' ${GOLDEN:-tests/golden/*.uir}); do
    grep -qE '^(func|extern)' "$f" && continue
    { echo "-"; grep -E '^# run [^:]+:' "$f" | sed -E 's/^# run ([^:]+):.*/\1/' || true; } | sort -u | sed "s|^|$f |"
  done >>"$OUT/golden.cases"
  golden_case() {  # FILE ARGS: prints "ok|differs|FAIL FILE ARGS"
    local f=$1 a=$2 s=() i c
    [ "$a" = - ] || { IFS=';' read -ra i <<<"$a"; for c in "${i[@]}"; do s+=(--slot "$c"); done; }
    local o1 o2 r1=0 r2=0
    o1=$("$CAIRN" run "$f" "${s[@]}" 2>"$OUT/g.$$.1") || r1=$?
    o2=$("$CAIRN" run "$f" --backend cuda $EMUFLAG --exact-float-reduce "${s[@]}" 2>"$OUT/g.$$.2") || r2=$?
    local e1; e1=$(head -n 1 "$OUT/g.$$.1")
    if [ "$o1" = "$o2" ] && [ $r1 = $r2 ] && { [ $r1 = 0 ] || grep -qF -- "$e1" "$OUT/g.$$.2"; }; then echo "ok $f $a"
    elif grep -qE '= (sin|exp2|log2) ' "$f" && [ $r1 = $r2 ]; then echo "differs $f $a (sin/exp2/log2: device libm)"
    else echo "FAIL $f $a (exit $r1 vs $r2)"; fi
    rm -f "$OUT/g.$$.1" "$OUT/g.$$.2"
  }
  export -f golden_case; export CAIRN OUT EMUFLAG="${EMU[*]}"
  limit 300 xargs -P "$JOBS" -L 1 bash -c 'golden_case "$0" "$1"' <"$OUT/golden.cases" >"$OUT/golden.log" || true
  grep -v '^ok ' "$OUT/golden.log" || true
  n=$(wc -l <"$OUT/golden.cases"); ok=$(grep -c '^ok ' "$OUT/golden.log" || true)
  bad=$(grep -c '^FAIL ' "$OUT/golden.log" || true); ulp=$(grep -c '^differs ' "$OUT/golden.log" || true)
  msg="golden, cuda ${EMU[*]}: $ok of $n cases equal, $ulp differ in sin/exp2/log2 only, $bad differ, $((n - ok - ulp - bad)) not run (time limit)"
  if [ "$bad" = 0 ] && [ $((ok + ulp)) = "$n" ]; then note "$msg"; else fail "$msg (log: $OUT/golden.log)"; fi
fi
if [ "$HAVE_GPU" = 1 ]; then

  say "cairn fuzz --backend cuda --count 2000"
  r=0
  limit 240 "$CAIRN" fuzz --backend cuda --count 2000 -j "$JOBS" -q --out "$OUT/fuzz-out" >"$OUT/fuzz.log" 2>&1 || r=$?
  tail -n 15 "$OUT/fuzz.log"
  if [ $r = 0 ]; then note "fuzz --backend cuda: passed ($(grep -m1 '^fuzz:' "$OUT/fuzz.log" || true))"
  elif [ $r = 2 ] && grep -qi 'backend' "$OUT/fuzz.log"; then note "fuzz --backend cuda: not available in this cairn (exit 2)"
  elif [ $r = 124 ] || [ $r = 137 ]; then fail "fuzz --backend cuda: past its 240 s limit"
  else fail "fuzz --backend cuda: exit $r (log: $OUT/fuzz.log, failures in $OUT/fuzz-out)"; fi
else
  note "golden and fuzz --backend cuda: skipped (no GPU)"
fi

say "the benchmark: emit, compile"
for j in copy triad dot transpose transpose_rows; do
  "$CAIRN" emit cuda "$HERE/$j.uir" -o "$OUT/$j.cu"
  grep -o '__global__ void cairn_[a-z][0-9]*' "$OUT/$j.cu" | awk '{print "BENCH_K(" $3 ")"}' >"$OUT/${j}_kernels.h"
done
limit 120 "$NVCC" "${NVFLAGS[@]}" -c "$HERE/hand.cu" -o "$OUT/hand.o"
# Which function the launch stubs call (CUDA 13: __cudaLaunchKernel): the link wraps it.
nm "$OUT/hand.o" >"$OUT/nm.txt"  # (not nm | grep -q: with pipefail, grep's early exit fails nm)
if grep -qw 'U __cudaLaunchKernel' "$OUT/nm.txt"; then WRAP=(-DBENCH_WRAP_INTERNAL); SYM=__cudaLaunchKernel
else WRAP=(); SYM=cudaLaunchKernel; fi
limit 120 "$NVCC" "${NVFLAGS[@]}" "${WRAP[@]}" -c "$HERE/harness.cu" -o "$OUT/harness.o"
OBJS=("$OUT/harness.o" "$OUT/hand.o")
PIDS=()
for j in copy triad dot transpose transpose_rows; do  # at once with >= 5 jobs, else one by one
  rm -f "$OUT/emitted_$j.o"
  limit 180 "$NVCC" "${NVFLAGS[@]}" -I"$HERE" -I"$OUT" -DBENCH_JOB="$j" -DBENCH_EMITTED="\"$j.cu\"" \
    -DBENCH_KERNELS_H="\"${j}_kernels.h\"" -c "$HERE/emitted_tu.cu" -o "$OUT/emitted_$j.o" &
  PIDS+=($!)
  OBJS+=("$OUT/emitted_$j.o")
  [ "$JOBS" -ge 5 ] || wait "$!"
done
for p in "${PIDS[@]}"; do wait "$p"; done  # each compile's status (set -e)
limit 120 "$NVCC" "${NVFLAGS[@]}" -o "$OUT/harness" "${OBJS[@]}" -Xlinker --wrap=$SYM
nm "${OBJS[@]}" >"$OUT/nm.txt"
if grep -E ' U _*cudaLaunchKernel$' "$OUT/nm.txt" | grep -vw "U $SYM" >/dev/null; then
  fail "the objects call more than one launch function: the harness would miss launches"
fi
note "harness compiled: $OUT/harness (-arch=$ARCH, wraps $SYM)"

if [ "$HAVE_GPU" != 1 ]; then
  say "no GPU: nothing timed"
  r=0; "$OUT/harness" || r=$?  # its own no-device path: exit 2
  [ $r = 2 ] || fail "harness without a GPU: exit $r, not 2"
  printf '%s\n' "${SUMMARY[@]}"
  echo "run.sh: no GPU (cudaGetDeviceCount finds none): the harness was compiled but not run; exit 2"
  exit 2
fi
say "the benchmark: run"
r=0
limit 420 "$OUT/harness" --table "$OUT/table.txt" | tee "$OUT/harness.log" || r=$?
[ $r = 0 ] || fail "harness: exit $r (a wrong result or a CUDA error; log: $OUT/harness.log)"

say "summary ($((SECONDS - T0)) s)"
printf '%s\n' "${SUMMARY[@]}"
echo
cat "$OUT/table.txt" 2>/dev/null || echo "(no table)"
exit $FAILED
