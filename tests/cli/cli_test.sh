#!/usr/bin/env bash
# CLI tests: runs the built `cairn` on the files beside this script and checks
# exit codes and output against shared/CONTRACT.md and the README.
#
#   cli_test.sh CAIRN CASE     run one case (ctest runs each as its own test)
#   cli_test.sh CAIRN --all    run every case
#   cli_test.sh CAIRN --list   print the case names
#
# A case fails with the command, its exit status and its output. An exit
# status above 128 (a signal: a crash) never matches an expected status.
set -uo pipefail

CAIRN=${1:?usage: cli_test.sh CAIRN CASE}
CASE=${2:?usage: cli_test.sh CAIRN CASE}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

rc=0
last=""
# c ARGS...: runs cairn, capturing stdout, stderr and the exit status.
c() {
  last="cairn $*"
  "$CAIRN" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
}
# c_in FILE ARGS...: the same, with FILE on standard input.
c_in() {
  local input=$1
  shift
  last="cairn $* < $input"
  "$CAIRN" "$@" <"$input" >"$TMP/out" 2>"$TMP/err"
  rc=$?
}
fail() {
  echo "FAIL [$CASE] $last: $*"
  echo "--- exit status: $rc"
  echo "--- stdout:"; head -c 4000 "$TMP/out"
  echo "--- stderr:"; head -c 4000 "$TMP/err"
  exit 1
}
rc_is() { [[ $rc == "$1" ]] || fail "exit status $rc, expected $1"; }
out_has() { grep -Eq -- "$1" "$TMP/out" || fail "stdout does not match /$1/"; }
err_has() { grep -Eq -- "$1" "$TMP/err" || fail "stderr does not match /$1/"; }
out_is() { [[ "$(cat "$TMP/out")" == "$1" ]] || fail "stdout is not exactly: $1"; }
out_empty() { [[ ! -s "$TMP/out" ]] || fail "stdout is not empty"; }
err_empty() { [[ ! -s "$TMP/err" ]] || fail "stderr is not empty"; }

# ---- usage -------------------------------------------------------------------

case_help() {
  c --help; rc_is 0
  for w in oracle run fmt dot json emit "Exit status" "usage or I/O error"; do out_has "$w"; done
  c run --help; rc_is 0
  for w in --slot --backend --json --trace --max-elements --max-steps --timeout --guard-zones --check-accesses \
    "Exit status" "trap" "internal error"; do out_has "$w"; done
  c oracle --help; rc_is 0; out_has --json; out_has "diagnostics"
  c fmt --help; rc_is 0; out_has --in-place; out_has --check
  c dot --help; rc_is 0; out_has --output
  c json --help; rc_is 0; out_has --compact
}
case_version() { c --version; rc_is 0; out_has "^cairn "; out_has "^allocator: (mimalloc [0-9]+\.[0-9]+\.[0-9]+|the C library.s malloc)$"; }
case_no_args() { c; rc_is 2; }
case_bad_flag() {
  c oracle --bogus "$HERE/running_total.uir"; rc_is 2; err_has "bogus"
  c run "$HERE/running_total.uir" --max-steps banana; rc_is 2
  c fmt -i --check "$HERE/messy.uir"; rc_is 2
  c oracle; rc_is 2
}
case_bad_subcommand() { c frobnicate x.uir; rc_is 2; }
# An internal error (a bug in cairn) exits 70 from every command, with one
# message naming the check and a request to report it, and nothing on stdout.
# CAIRN_TEST_INTERNAL_ERROR=1 fails a check on purpose (tools/main.cpp). The
# sanitizer and fuzz builds abort instead (ir/check.hpp); ctest sets
# CAIRN_CHECK_ABORTS=1 for those (tests/CMakeLists.txt).
internal_error_is() {
  if [[ ${CAIRN_CHECK_ABORTS:-0} == 1 ]]; then
    [[ $rc == 134 ]] || fail "exit status $rc, expected 134 (SIGABRT)"
    err_has '^internal error: CAIRN_TEST_INTERNAL_ERROR is set .*\(tools/main\.cpp:[0-9]+\)$'
  else
    rc_is 70
    err_has '^cairn: internal error: CAIRN_TEST_INTERNAL_ERROR is set .*\(at tools/main\.cpp:[0-9]+\)$'
    err_has '^cairn: note: this is a bug in cairn, not in your input; please report it'
  fi
  out_empty
}
case_internal_error() {
  CAIRN_TEST_INTERNAL_ERROR=1 c oracle "$HERE/running_total.uir"; internal_error_is
  CAIRN_TEST_INTERNAL_ERROR=1 c run "$HERE/running_total.uir" --json; internal_error_is
  CAIRN_TEST_INTERNAL_ERROR=1 c rules; internal_error_is
  CAIRN_TEST_INTERNAL_ERROR=1 c frobnicate; internal_error_is
  CAIRN_TEST_INTERNAL_ERROR=0 c oracle "$HERE/running_total.uir"; rc_is 0  # only when asked for
  c --help; rc_is 0; out_has "70 an internal error"
}
case_missing_file() {
  c oracle "$TMP/nope.uir"; rc_is 2; err_has "nope.uir"; out_empty
  c run "$TMP/nope.uir" --json; rc_is 2; out_empty
  c oracle "$TMP/nope.uir" --json; rc_is 2; out_empty
  c fmt "$TMP/nope.uir"; rc_is 2
  c dot "$TMP/nope.uir"; rc_is 2
  c json "$TMP/nope.json"; rc_is 2
}
case_directory() { c oracle "$TMP"; rc_is 2; err_has "directory"; }
case_too_large() {
  truncate -s 1100M "$TMP/big.uir" || fail "cannot make a sparse file"
  c oracle "$TMP/big.uir"; rc_is 2; err_has "too large"
  truncate -s 300M "$TMP/big.json"
  c oracle "$TMP/big.json"; rc_is 2; err_has "too large"
}

# ---- oracle ------------------------------------------------------------------

case_oracle_ok() {
  c oracle "$HERE/running_total.uir"; rc_is 0; out_is "ok: 14 nodes, 1 buffer, 1 store, 1 loop"; err_empty
}
case_oracle_parse_error() {
  c oracle "$HERE/parse_error.uir"; rc_is 1; out_empty
  err_has "^$HERE/parse_error.uir:3:6: error: unknown op \`lod\`"
}
case_oracle_rule_error() {
  c oracle "$HERE/unsequenced.uir"; rc_is 1
  err_has "unsequenced.uir:3:[0-9]+: error: .*a store that no after sequences has no effect"
}
case_oracle_json_valid() {
  c oracle "$HERE/running_total.uir" --json; rc_is 0; out_is '{"valid": true, "diagnostics": []}'
}
case_oracle_json_invalid() {
  c oracle --json "$HERE/unsequenced.uir"; rc_is 1
  out_has '^\{"valid": false, "diagnostics": \[\{.*\}\]\}$'
  out_has '"line":3'; out_has '"col":[0-9]+'; out_has '"rule":"[a-z-]+"'; out_has '"message":"'; out_has '"notes":\['
  [[ $(wc -l <"$TMP/out") == 1 ]] || fail "more than one line on stdout"
  c oracle --json "$HERE/parse_error.uir"; rc_is 1
  out_has '^\{"valid": false, "diagnostics": \[\{"code":"syntax","col":6,"line":3,"message":"unknown op `lod`","notes":\[\],"rule":"syntax"\}\]\}$'
}
case_oracle_stdin() {
  c_in "$HERE/running_total.uir" oracle -; rc_is 0; out_has "^ok"
  c_in "$HERE/parse_error.uir" oracle -; rc_is 1; err_has "^<stdin>:3:6: error:"
}

# ---- run ---------------------------------------------------------------------

case_run_text() { c run "$HERE/running_total.uir"; rc_is 0; out_is "slot 0 = [1 3 6 10]"; }
case_run_json() { c run "$HERE/running_total.uir" --json; rc_is 0; out_is '{"slots": {"0": [1, 3, 6, 10]}}'; }
case_run_slot() {
  c run "$HERE/running_total.uir" --slot 0=5,6,7,8; rc_is 0; out_is "slot 0 = [5 11 18 26]"
  c run "$HERE/running_total.uir" --slot=0=-1,1,-1,1; rc_is 0; out_is "slot 0 = [-1 0 -1 0]"
  c run "$HERE/running_total.uir" --slot "0=1, 2, 3, 4" --json; rc_is 0; out_is '{"slots": {"0": [1, 3, 6, 10]}}'
}
case_run_slot_errors() {
  c run "$HERE/running_total.uir" --slot 0=1,2; rc_is 2; err_has "2 value.* 4 element"; out_empty
  c run "$HERE/running_total.uir" --slot 7=1; rc_is 2; err_has "slot 7"
  c run "$HERE/running_total.uir" --slot 0=1,2,3,x; rc_is 2; err_has "x"
  c run "$HERE/running_total.uir" --slot 0=1.5,2,3,4; rc_is 2; err_has "does not fit i32"
  c run "$HERE/running_total.uir" --slot 0=4294967296,2,3,4; rc_is 2; err_has "does not fit"
  c run "$HERE/running_total.uir" --slot zero; rc_is 2
  c run "$HERE/running_total.uir" --slot 0=1,2,3,4 --slot 0=1,2,3,4; rc_is 2; err_has "twice"
}
case_run_backend() {
  c run "$HERE/running_total.uir" --backend interp; rc_is 0
  c run "$HERE/running_total.uir" --backend llvm; rc_is 2
  c run "$HERE/running_total.uir" --emulate; rc_is 2; err_has "--emulate needs --backend cuda"
}

# ---- the C back end (needs a C compiler: CC, default cc) -----------------------

have_cc() { command -v "${CC:-cc}" >/dev/null 2>&1; }
# same_as_interp FILE ARGS...: --backend c prints and exits exactly as the interpreter.
same_as_interp() {
  local f=$1
  shift
  c run "$f" "$@"
  cp "$TMP/out" "$TMP/out.interp"; cp "$TMP/err" "$TMP/err.interp"; local want=$rc
  c run "$f" --backend c "$@"; rc_is "$want"
  cmp -s "$TMP/out" "$TMP/out.interp" || fail "stdout differs from --backend interp: $(cat "$TMP/out.interp")"
  cmp -s "$TMP/err" "$TMP/err.interp" || fail "stderr differs from --backend interp: $(cat "$TMP/err.interp")"
}
# ---- the CUDA back end: no GPU here, so --emulate (a C++ compiler: CXX) ----------

# same_with BACKEND-FLAGS FILE ARGS...: the back end prints and exits exactly as the interpreter.
same_with() {
  local flags=$1 f=$2
  shift 2
  c run "$f" "$@"
  cp "$TMP/out" "$TMP/out.interp"; cp "$TMP/err" "$TMP/err.interp"; local want=$rc
  # shellcheck disable=SC2086
  c run "$f" $flags "$@"; rc_is "$want"
  cmp -s "$TMP/out" "$TMP/out.interp" || fail "stdout of $flags differs from the interpreter's: $(cat "$TMP/out")"
  cmp -s "$TMP/err" "$TMP/err.interp" || fail "stderr of $flags differs from the interpreter's: $(cat "$TMP/err")"
}
case_run_backend_cuda() {
  c emit cuda "$HERE/running_total.uir" -o "$TMP/p.cu"; rc_is 0
  grep -q "__global__" "$TMP/p.cu" || fail "no kernel in the emitted CUDA"
  c emit cuda "$HERE/unsequenced.uir"; rc_is 1; err_has "a store that no after sequences"
  printf 'fn main() -> i32 { return 0; }\n' >"$TMP/m.cairn"
  c emit cuda "$TMP/m.cairn"; rc_is 2; err_has "flat .uir graphs only"
  c run "$TMP/m.cairn" --backend cuda --emulate; rc_is 2; err_has "flat .uir graphs only"
  c run "$HERE/running_total.uir" --backend cuda --emulate --slot 0=1,2; rc_is 2; err_has "2 value.* 4 element"
  c run "$HERE/running_total.uir" --backend cuda --emulate --trace; rc_is 2; err_has "--trace"
  c run "$HERE/running_total.uir" --backend cuda --guard-zones; rc_is 2; err_has "needs --backend c"
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    c run "$HERE/running_total.uir" --backend cuda; rc_is 2; out_empty; err_has "no CUDA device"
    c fuzz --backend cuda --count 1 -q; rc_is 2; err_has "no CUDA device"
  fi
  if ! command -v "${CXX:-c++}" >/dev/null 2>&1; then
    echo "skip: no C++ compiler (${CXX:-c++}); --emulate is not checked"
    return
  fi
  export CXXFLAGS=${CXXFLAGS:--O0}
  for f in running_total values div_zero; do
    same_with "--backend cuda --emulate" "$HERE/$f.uir"
    same_with "--backend cuda --emulate" "$HERE/$f.uir" --json
  done
  same_with "--backend cuda --emulate --exact-float-reduce" "$HERE/running_total.uir" --slot 0=5,6,7,8
  same_with "--backend cuda --emulate" "$HERE/div_zero.uir" --slot 0=7,2
  same_with "--backend cuda --emulate" "$HERE/running_total.uir" --max-elements 2
}

case_run_backend_c() {
  if ! have_cc; then
    c run "$HERE/running_total.uir" --backend c; rc_is 2; err_has "cannot run the C compiler"
    echo "skip: no C compiler (${CC:-cc}); only its absence was checked"
    return
  fi
  for f in running_total values div_zero long_loop; do
    same_as_interp "$HERE/$f.uir"
    same_as_interp "$HERE/$f.uir" --json
  done
  same_as_interp "$HERE/running_total.uir" --slot 0=5,6,7,8
  same_as_interp "$HERE/running_total.uir" --slot=0=-1,1,-1,1 --json
  same_as_interp "$HERE/div_zero.uir" --slot 0=7,2
  same_as_interp "$HERE/running_total.uir" --max-elements 2
  c run "$HERE/div_zero.uir" --backend c; rc_is 1; out_empty
  err_has "^$HERE/div_zero.uir:7:[0-9]+: error: trap: division by zero$"
  c run "$HERE/running_total.uir" --backend c --slot 0=1,2; rc_is 2; err_has "2 value.* 4 element"
  c run "$HERE/running_total.uir" --backend c --trace; rc_is 2; err_has "--trace"
  c run "$HERE/running_total.uir" --backend c --max-steps 10; rc_is 2; err_has "--max-steps"
  c run "$HERE/unsequenced.uir" --backend c; rc_is 1; err_has "a store that no after sequences"
  # --guard-zones and --check-accesses (checks of the oracle's proof) change
  # nothing in a valid program, and need --backend c.
  local want flags
  for f in running_total values div_zero; do
    c run "$HERE/$f.uir" --json; cp "$TMP/out" "$TMP/out.interp"; cp "$TMP/err" "$TMP/err.interp"; want=$rc
    for flags in --guard-zones --check-accesses "--guard-zones --check-accesses"; do
      # shellcheck disable=SC2086
      c run "$HERE/$f.uir" --json --backend c $flags; rc_is "$want"
      cmp -s "$TMP/out" "$TMP/out.interp" || fail "stdout differs from --backend interp: $(cat "$TMP/out.interp")"
      cmp -s "$TMP/err" "$TMP/err.interp" || fail "stderr differs from --backend interp: $(cat "$TMP/err.interp")"
    done
  done
  # A compiled program that crashes is an internal error (70); one killed from
  # outside is exit 2. A stand-in compiler makes the "compiled program" a
  # script that dies of the signal.
  cat >"$TMP/cc-stub" <<'STUB'
#!/bin/sh
# A stand-in C compiler: `-o EXE` makes EXE a script that dies of SIG$CAIRN_TEST_SIG.
while [ $# -gt 0 ]; do [ "$1" = -o ] && exe=$2; shift; done
printf '#!/bin/sh\nulimit -c 0\nkill -%s $$\n' "$CAIRN_TEST_SIG" >"$exe" && chmod +x "$exe"
STUB
  chmod +x "$TMP/cc-stub"
  CAIRN_TEST_SIG=SEGV CC="$TMP/cc-stub" c run "$HERE/running_total.uir" --backend c; rc_is 70; out_empty
  err_has "^cairn: error: internal error: the compiled program of $HERE/running_total.uir crashed with signal [0-9]+ \(SIGSEGV\)$"
  err_has "^cairn: note: .*bug in cairn.*--check-accesses"
  CAIRN_TEST_SIG=KILL CC="$TMP/cc-stub" c run "$HERE/running_total.uir" --backend c; rc_is 2; out_empty
  err_has "^cairn: error: the compiled program of .*running_total.uir was killed by signal [0-9]+ \(SIGKILL\)$"
  c run "$HERE/running_total.uir" --guard-zones; rc_is 2; err_has "--guard-zones needs --backend c"
  c run "$HERE/running_total.uir" --check-accesses; rc_is 2; err_has "--check-accesses needs --backend c"
  # Compiler failures are errors with the compiler's words, never a fallback.
  CC=false c run "$HERE/running_total.uir" --backend c; rc_is 2; out_empty
  err_has "the C compiler failed"
  CC=/nonexistent/cc c run "$HERE/running_total.uir" --backend c; rc_is 2; out_empty
  err_has "cannot run the C compiler .*/nonexistent/cc"
  CFLAGS="-O2 -fno-such-flag" c run "$HERE/running_total.uir" --backend c; rc_is 2; err_has "no-such-flag"
  # Temporary folders go under TMPDIR and are removed, also after a failure.
  mkdir -p "$TMP/tmpdir"
  TMPDIR="$TMP/tmpdir" c run "$HERE/running_total.uir" --backend c; rc_is 0
  TMPDIR="$TMP/tmpdir" c run "$HERE/div_zero.uir" --backend c; rc_is 1
  TMPDIR="$TMP/tmpdir" CC=false c run "$HERE/running_total.uir" --backend c; rc_is 2
  [[ -z "$(ls -A "$TMP/tmpdir")" ]] || fail "left behind in TMPDIR: $(ls -A "$TMP/tmpdir")"
}
case_emit_c() {
  c emit c "$HERE/running_total.uir"; rc_is 0; err_empty
  out_has "static void cairn_kernel\(cairn_rt \*restrict rt"; out_has "int32_t \*restrict b0"
  out_has "^int main\(int argc, char \*\*argv\)"; out_has "for \(int64_t v[0-9]+ = 0;"
  grep -q '^#include "' "$TMP/out" && fail "the C includes a non-standard header"
  c emit c "$HERE/running_total.uir" -o "$TMP/p.c"; rc_is 0; out_empty
  c_in "$HERE/running_total.uir" emit c -; rc_is 0; out_has "cairn_kernel"
  c emit c --guard-zones --check-accesses "$HERE/running_total.uir"; rc_is 0; out_has "cairn_rt_access\(rt, "
  c emit c --guard-zones "$HERE/running_total.uir"; rc_is 0; out_has "b0\[cairn_rt_guard_wr\(rt, "
  c emit c "$HERE/running_total.uir"; rc_is 0
  grep -Eq "cairn_rt_(guard_rd|guard_wr|access)\(rt" "$TMP/out" && fail "the default C checks accesses"
  c emit c "$HERE/unsequenced.uir"; rc_is 1; out_empty; err_has "a store that no after sequences"
  c emit c "$HERE/parse_error.uir"; rc_is 1; err_has ":3:6: error:"
  c emit c "$TMP/nope.uir"; rc_is 2
  c emit c "$HERE/running_total.uir" -o "$TMP/no/such/dir/p.c"; rc_is 2
  c emit "$HERE/running_total.uir"; rc_is 2
  c emit --help; rc_is 0; out_has " c "
  if have_cc; then
    "${CC:-cc}" -O2 -std=c11 -o "$TMP/p" "$TMP/p.c" -lm 2>"$TMP/err" || fail "the emitted C does not compile"
    last="p"; "$TMP/p" >"$TMP/out" 2>"$TMP/err"; rc=$?; rc_is 0; out_is "slot 0 = [1 3 6 10]"
    last="p --slot 0=5,6,7,8 --json"; "$TMP/p" --slot 0=5,6,7,8 --json >"$TMP/out" 2>"$TMP/err"; rc=$?
    rc_is 0; out_is '{"slots": {"0": [5, 11, 18, 26]}}'
    last="p --slot 0=1"; "$TMP/p" --slot 0=1 >"$TMP/out" 2>"$TMP/err"; rc=$?; rc_is 2; err_has "slot 0 has 4 elements"
  fi
}
case_run_trap() {
  c run "$HERE/div_zero.uir"; rc_is 1; out_empty
  err_has "^$HERE/div_zero.uir:7:[0-9]+: error: trap: division by zero$"
  c run "$HERE/div_zero.uir" --json; rc_is 1; out_empty
  c run "$HERE/div_zero.uir" --slot 0=7,2; rc_is 0; out_is "slot 0 = [3 2]"
  c run "$HERE/unsequenced.uir"; rc_is 1; err_has "a store that no after sequences"
  c run "$HERE/parse_error.uir"; rc_is 1; err_has ":3:6: error:"
}
case_run_limits() {
  c run "$HERE/long_loop.uir" --max-steps 1000; rc_is 1; err_has "long_loop.uir:[0-9]+:[0-9]+: error: trap"
  c run "$HERE/running_total.uir" --max-elements 2; rc_is 1; err_has "error: trap"
  c run "$HERE/long_loop.uir" --max-steps 0; rc_is 0; out_is "slot 0 = [1000000]"
}
case_run_values_json() {
  c run "$HERE/values.uir"; rc_is 0
  out_is "slot 0 = [0.1 nan -inf 2.0 -0.0]
slot 1 = [18446744073709551615 0]
slot 2 = [1 0]
slot 3 = [-9223372036854775808 9223372036854775807]"
  c run "$HERE/values.uir" --json; rc_is 0
  out_is '{"slots": {"0": [0.1, "nan", "-inf", 2.0, -0.0], "1": [18446744073709551615, 0], "2": [1, 0], "3": [-9223372036854775808, 9223372036854775807]}}'
}
case_run_trace() {
  c run "$HERE/running_total.uir" --trace; rc_is 0; out_is "slot 0 = [1 3 6 10]"
  [[ -s "$TMP/err" ]] || fail "--trace printed nothing on stderr"
}

# ---- fmt ---------------------------------------------------------------------

case_fmt_canonical() {
  c fmt "$HERE/messy.uir"; rc_is 0
  out_is "#   a valid program, not in canonical form
%b = buffer 3 dtype=i32 slot=0 data=[1 2 3]
%p = shrink %b 2 shape=[]
%x = load %p  # b[2]
%y = add %x 1
%s = store %p %y
%b1 = after %b %s"
  c fmt "$HERE/running_total.uir"; rc_is 0
  cmp -s "$TMP/out" "$HERE/running_total.uir" || fail "the canonical example is not a fixed point"
}
case_fmt_check() {
  c fmt --check "$HERE/running_total.uir"; rc_is 0; out_empty
  c fmt --check "$HERE/messy.uir"; rc_is 1; err_has "messy.uir: not in canonical form"; out_empty
  c fmt --check "$HERE/parse_error.uir"; rc_is 1; err_has "parse_error.uir:3:6: error:"
}
case_fmt_in_place() {
  cp "$HERE/messy.uir" "$TMP/m.uir"
  c fmt -i "$TMP/m.uir"; rc_is 0; out_empty
  c fmt --check "$TMP/m.uir"; rc_is 0
  c fmt "$HERE/messy.uir"
  cmp -s "$TMP/out" "$TMP/m.uir" || fail "-i wrote something else than fmt prints"
  c fmt --in-place -; rc_is 2
}
case_fmt_stdin() {
  c_in "$HERE/messy.uir" fmt -; rc_is 0
  cp "$TMP/out" "$TMP/once.uir"
  c_in "$TMP/once.uir" fmt --check -; rc_is 0
}
# Text as editors write it: a byte order mark, CRLF or lone CR line ends read
# as LF (oracle, run, fmt), errors keep their line:col, fmt writes LF.
case_line_ends() {
  local f
  printf '\xef\xbb\xbf' >"$TMP/bom.uir"; cat "$HERE/running_total.uir" >>"$TMP/bom.uir"
  sed 's/$/\r/' "$HERE/running_total.uir" >"$TMP/crlf.uir"
  tr '\n' '\r' <"$HERE/running_total.uir" >"$TMP/cr.uir"
  for f in bom crlf cr; do
    c oracle "$TMP/$f.uir"; rc_is 0; out_is "ok: 14 nodes, 1 buffer, 1 store, 1 loop"
    c run "$TMP/$f.uir"; rc_is 0; out_is "slot 0 = [1 3 6 10]"
    c fmt "$TMP/$f.uir"; rc_is 0
    cmp -s "$TMP/out" "$HERE/running_total.uir" || fail "fmt of $f.uir is not the LF original"
    c fmt --check "$TMP/$f.uir"; rc_is 1
    cp "$TMP/$f.uir" "$TMP/i.uir"; c fmt -i "$TMP/i.uir"; rc_is 0
    cmp -s "$TMP/i.uir" "$HERE/running_total.uir" || fail "fmt -i of $f.uir did not write LF"
  done
  printf '%%a = const 1 dtype=i32\r\r%%b = frob %%a\r' >"$TMP/err.uir"
  c oracle "$TMP/err.uir"; rc_is 1; err_has "err.uir:3:6: error: unknown op"
  printf '\xef\xbb\xbf%%b = frob 1\r\n' >"$TMP/err2.uir"
  c oracle "$TMP/err2.uir"; rc_is 1; err_has "err2.uir:1:6: error: unknown op"
}
case_binary_garbage() {
  for sub in oracle run fmt dot json; do
    c "$sub" "$CAIRN"; rc_is 1; err_has "$CAIRN:[0-9]+:[0-9]+: error:"
  done
  printf '%%a = const 1 dtype=i32\n\x00\xff\xfe%%b = \x01add\n\xc3\x28' >"$TMP/bin.uir"
  c oracle "$TMP/bin.uir"; rc_is 1; err_has "bin.uir:2:1: error:"
  c oracle --json "$TMP/bin.uir"; rc_is 1; out_has '^\{"valid": false'
  head -c 3000 "$CAIRN" >"$TMP/bin.json"
  c oracle "$TMP/bin.json"; rc_is 1; err_has "bin.json:[0-9]+:[0-9]+: error: invalid JSON"
}

# ---- json and dot ---------------------------------------------------------------

case_json_round_trip() {
  c json "$HERE/running_total.uir" -o "$TMP/g.json"; rc_is 0; out_empty
  grep -q '"format": "cairn-uir"' "$TMP/g.json" || fail "no format marker"
  c oracle "$TMP/g.json"; rc_is 0; out_has "^ok: 14 nodes"
  c run "$TMP/g.json" --json; rc_is 0; out_is '{"slots": {"0": [1, 3, 6, 10]}}'
  c fmt "$TMP/g.json"; rc_is 0
  cmp -s "$TMP/out" "$HERE/running_total.uir" || fail "JSON -> fmt is not the original text"
  c json "$TMP/g.json"; rc_is 0
  cmp -s "$TMP/out" "$TMP/g.json" || fail "JSON -> JSON is not a fixed point"
  c json --compact "$HERE/values.uir"; rc_is 0
  out_has '"operands":\["18446744073709551615"\]|"data":\["18446744073709551615","0"\]'
  out_has '"data":\["0.1","nan","-inf","2","-0.0"\]'
  [[ $(wc -l <"$TMP/out") == 1 ]] || fail "--compact printed more than one line"
  c fmt -i "$TMP/g.json"; rc_is 2
}
case_json_stdin() {
  c json "$HERE/running_total.uir" -o "$TMP/g.json"
  c_in "$TMP/g.json" run -; rc_is 0; out_is "slot 0 = [1 3 6 10]"
}
case_json_invalid() {
  printf '{"nodes": [\n  {"name": "a", "op": "frob"}\n]}\n' >"$TMP/bad.json"
  c oracle "$TMP/bad.json"; rc_is 1; err_has "bad.json:2:3: error: node 0 \(%a\): \"op\" must name an op"
  printf '{"nodes": [\n  {"name": "a",, }\n]}\n' >"$TMP/syntax.json"
  c oracle "$TMP/syntax.json" --json; rc_is 1; out_has '"line":2'; out_has '"rule":"json"'
  printf '{"nodes": [{"name": "a", "op": "add", "operands": [3]}]}' >"$TMP/fwd.json"
  c run "$TMP/fwd.json"; rc_is 1; err_has "earlier node"
}
case_dot() {
  c dot "$HERE/running_total.uir"; rc_is 0
  out_has "^digraph uir \{"; out_has "subgraph cluster_"; out_has "line 3"; out_has "color=\"#d62728\""
  cp "$TMP/out" "$TMP/a.dot"
  c dot "$HERE/running_total.uir" -o "$TMP/b.dot"; rc_is 0; out_empty
  cmp -s "$TMP/a.dot" "$TMP/b.dot" || fail "dot output is not deterministic"
  if command -v dot >/dev/null; then
    dot -Tsvg "$TMP/a.dot" >"$TMP/a.svg" || fail "graphviz rejects the output"
  fi
  c dot "$HERE/messy.uir" -o "$TMP/no/such/dir.dot"; rc_is 2
}
# ---- CAIRN source and .uir modules ----
case_cairn_run() {
  c run "$ROOT/examples/frames.cairn"; rc_is 0; out_has "^kind 7, payload of 4 bytes$"; out_has "^ok$"; err_empty
  printf 'fn main() -> i32 { return 42; }\n' > "$TMP/v.cairn"
  c run "$TMP/v.cairn"; rc_is 42; out_empty
  printf 'fn f(x:u8) -> u8 = x + 200;\nfn main() -> i32 { return i32(f(100)); }\n' > "$TMP/t.cairn"
  c run "$TMP/t.cairn"; rc_is 101; err_has "^$TMP/t.cairn:1:[0-9]+: error: trap: arithmetic overflow \\(in f\\)$"
  printf 'fn main() -> i32 { let mut i:u64 = 0; while true { i += 1; } return 0; }\n' > "$TMP/loop.cairn"
  c run "$TMP/loop.cairn" --max-steps 10000; rc_is 101; err_has "step limit"
  c run "$TMP/v.cairn" --slot 0=1; rc_is 2; err_has "flat .uir graphs only"
}
case_cairn_check() {
  c check "$ROOT/examples/frames.cairn"; rc_is 0; out_has "^ok: "
  printf 'fn main() -> i32 {\n  return zz;\n}\n' > "$TMP/e.cairn"
  c check "$TMP/e.cairn"; rc_is 1; out_empty; err_has "^$TMP/e.cairn:2:10: error: unknown name zz \\[E-NAME\\]$"
  err_has "^    2 \|   return zz;$"; err_has "^      \|          \^~$"
  c check "$TMP/e.cairn" --json; rc_is 1; out_has '"valid": false'; out_has '"rule":"E-NAME"'; out_has '"code":"E-NAME"'
  head -c 3000 /dev/urandom > "$TMP/garbage.cairn"
  c check "$TMP/garbage.cairn"; rc_is 1; err_has "^$TMP/garbage.cairn:[0-9]+:[0-9]+: error: "
  c check "$TMP/none.cairn"; rc_is 2
}
case_cairn_lower() {
  c lower "$ROOT/examples/frames.cairn" -o "$TMP/frames.uir"; rc_is 0
  c oracle "$TMP/frames.uir"; rc_is 0; out_has "^ok: module of [0-9]+ function"
  c run "$TMP/frames.uir"; rc_is 0; out_has "^ok$"
  c fmt --check "$TMP/frames.uir"; rc_is 0
  c lower "$ROOT/examples/frames.cairn"; rc_is 0; out_has "^func main\\(\\) -> i32"
}
case_cairn_rules() {
  c rules; rc_is 0; out_has "^E-MOVED +an owner is used after it was moved$"; out_has "^E-TYPE-MISMATCH "
  [[ $(grep -c '^E-' "$TMP/out") -ge 50 ]] || fail "fewer than 50 codes"
  c rules E-MOVED; rc_is 0; out_has "^E-MOVED: "; out_has "^Rule: "; out_has "^Why: "; out_has "^Fix: "
  out_has "^Refused:"; out_has "^Accepted:"; out_has "^    fn main\(\) -> i32"
  c rules e-moved; rc_is 0; out_has "^E-MOVED: "
  c rules --json; rc_is 0; out_has '"code": "E-ALIAS"'; out_has '"enforced": (true|false)'
  c rules E-ARITY --json; rc_is 0; out_has '"refused": "fn add'; out_has '"accepted": '; out_has '"enforced": true'
  c rules E-MOVD; rc_is 2; out_empty; err_has "unknown diagnostic code E-MOVD"; err_has "E-MOVED"
  c rules --help; rc_is 0; out_has "CODE"; out_has "--json"
}
# The C back end for CAIRN programs and modules: the interpreter's output,
# exit status and trap line; the same refusals; emit c writes a program that
# runs alone.
case_run_module_c() {
  have_cc || { echo "skip: no C compiler"; return 0; }
  cat >"$TMP/m.cairn" <<'EOF2'
fn fib(n:u64) -> u64 {
  if n < 2 { return n; }
  return fib(n - 1) + fib(n - 2);
}
fn down(n:u64) -> u64 = down(n + 1) + 1;
fn main() -> i32 {
  print(fib(20));
  let x:u8 = 200;
  let y:u8 = x + u8(fib(11));
  return 3;
}
EOF2
  c run --backend c "$TMP/m.cairn"; rc_is 101; out_is "6765"
  err_has "^$TMP/m.cairn:9:14: error: trap: arithmetic overflow \(in main\)$"
  c run "$TMP/m.cairn"; rc_is 101; out_is "6765"; err_has "^$TMP/m.cairn:9:14: error: trap: arithmetic overflow"
  sed -i 's/let y:u8 = x + u8(fib(11));/let z = down(0);/' "$TMP/m.cairn"
  c run --backend c "$TMP/m.cairn"; rc_is 101; err_has "^$TMP/m.cairn:5:25: error: trap: stack overflow \(call depth 10000\) \(in down\)$"
  sed -i 's/let z = down(0);//' "$TMP/m.cairn"
  c run --backend c "$TMP/m.cairn"; rc_is 3; out_is "6765"; err_empty
  c run --backend c --max-steps 10 "$TMP/m.cairn"; rc_is 2; err_has "needs --backend interp"
  c run --backend c --guard-zones "$TMP/m.cairn"; rc_is 2; err_has "flat .uir graphs"
  c emit c "$TMP/m.cairn" -o "$TMP/m.c"; rc_is 0
  "${CC:-cc}" -O2 -std=c11 -o "$TMP/m" "$TMP/m.c" -lm || fail "the emitted C does not compile"
  "$TMP/m" >"$TMP/out" 2>"$TMP/err"; rc=$?; rc_is 3; out_is "6765"
  "$TMP/m" --frob >"$TMP/out" 2>"$TMP/err"; rc=$?; rc_is 2; err_has "unknown option"
  printf 'extern nosuchsym(i32) -> i32\nfunc main() -> i32\n  %%r = call 1 fn=nosuchsym dtype=i32\n  %%x = ret %%r\n' >"$TMP/e.uir"
  c run --backend c "$TMP/e.uir"; rc_is 1; err_has "extern symbol .nosuchsym. not found"
  printf 'func main() -> i32\n  %%h = alloc 4 cols=[u8]\n  %%f = free %%h\n  %%g = free %%h\n  %%x = ret 0\n' >"$TMP/d.uir"
  c run "$TMP/d.uir"; rc_is 70; err_has "internal error: double free"
  c run --backend c "$TMP/d.uir"; rc_is 70; err_has "internal error: double free"
  printf 'func helper() -> i32\n  %%x = ret 0\n' >"$TMP/n.uir"
  c run --backend c "$TMP/n.uir"; rc_is 1; err_has "no function .main."
  CC=false c run --backend c "$TMP/m.cairn"; rc_is 2; err_has "C compiler"
}
# `cairn doc`, `cairn check --receipt` and a library without main: the rows
# and the receipt the spec page shows for say, fill, sink and hand_on.
case_cairn_doc_receipt() {
  cat >"$TMP/lib.cairn" <<'EOF2'
extern fn write(fd:i32, data:ro<u8>[n], n:usize) -> i64 effects(io);
fn say(n:usize, text:ro<u8>[n]) { unsafe { let sent = write(1, text, n); } }
fn fill(n:usize, out:rw<u8>[n], value:u8) { for i in 0..n { out[i] = value; } }
fn sink(b:Buf[u8]) {}
fn hand_on(b:Buf[u8]) -> Buf[u8] = b;
EOF2
  c check "$TMP/lib.cairn"; rc_is 0; out_has "^ok: "
  c run "$TMP/lib.cairn"; rc_is 1; err_has "E-MAIN"
  c doc "$TMP/lib.cairn"; rc_is 0
  out_has '^fn fill\(n:usize, out:rw<u8>\[n\], value:u8\)  // effects: write:out$'
  out_has '^fn say\(n:usize, text:ro<u8>\[n\]\)  // effects: ffi:write, ffi_precondition, io, read:text, trap$'
  out_has '^fn sink\(b:Buf\[u8\]\)  // effects: free$'
  out_has '^fn hand_on\(b:Buf\[u8\]\) -> Buf\[u8\]  // effects: none$'
  c check --receipt "$TMP/r.json" "$TMP/lib.cairn"; rc_is 0
  python3 - "$TMP/r.json" "$TMP/lib.cairn" <<'EOF2' || fail "the receipt is not what the page shows"
import hashlib, json, sys
r = json.load(open(sys.argv[1]))
assert r["source_sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
say = r["functions"]["say"]
assert say["effects"] == ["ffi:write", "ffi_precondition", "io", "read:text", "trap"], say
assert say["calls"] == ["write"] and say["unsafe_blocks"] == 1, say
assert r["functions"]["hand_on"]["effects"] == []
EOF2
  printf 'fn f(n:usize, out:rw<u8>[n]) pure { out[0] = 1; }\n' >"$TMP/bad.cairn"
  c doc "$TMP/bad.cairn"; rc_is 1; out_empty; err_has "E-EFFECT-CEILING"
}
# The quoted source line and caret under a diagnostic: a .uir file, a CAIRN
# file, and a diagnostic in a std module (read from disk by its path).
case_diag_source() {
  printf '%%a = const 1 dtype=i32\n%%b = frob %%a\n' >"$TMP/u.uir"
  c oracle "$TMP/u.uir"; rc_is 1; err_has "^$TMP/u.uir:2:6: error: "; err_has "^    2 \| %b = frob %a$"
  err_has "^      \|      \^~~~$"
  c fmt "$TMP/u.uir"; rc_is 1; err_has "^    2 \| %b = frob %a$"
  c run "$TMP/u.uir"; rc_is 1; err_has "^    2 \| %b = frob %a$"
  mkdir -p "$TMP/std"
  printf 'pub fn twice(x:u64) -> u64 = x + nope;\n' >"$TMP/std/bad.cairn"
  printf 'import std.bad (twice);\nfn main() -> i32 { let y = twice(1); return 0; }\n' >"$TMP/m.cairn"
  last="CAIRN_STD=$TMP/std cairn check $TMP/m.cairn"
  CAIRN_STD="$TMP/std" "$CAIRN" check "$TMP/m.cairn" >"$TMP/out" 2>"$TMP/err"; rc=$?
  rc_is 1; err_has "bad.cairn:1:34: error: unknown name nope \[E-NAME\]$"
  err_has "^    1 \| pub fn twice\(x:u64\) -> u64 = x \+ nope;$"; err_has "^      \| {34}\^~~~$"
}

case_examples() {
  local n=0
  for f in "$ROOT"/examples/*.uir; do
    c oracle "$f"; rc_is 0
    c run "$f"; rc_is 0; out_has "^slot "
    c fmt --check "$f"; rc_is 0
    n=$((n + 1))
  done
  ((n >= 2)) || fail "fewer than two examples"
  c run "$ROOT/examples/running_total.uir"; out_is "slot 0 = [1 3 6 10]"
  c run "$ROOT/examples/double.uir"; out_is "slot 0 = [2.0 4.0 6.0 8.0]"
  c run "$ROOT/examples/sum.uir"; out_is "slot 0 = [1 2 3 4]
slot 1 = [10]"
}

# ---- driver ------------------------------------------------------------------

cases() { declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//'; }
if [[ $CASE == --list ]]; then
  cases
elif [[ $CASE == --all ]]; then
  status=0
  for k in $(cases); do
    if (CASE=$k; "case_$k"); then echo "ok   $k"; else status=1; fi
  done
  exit $status
elif declare -F "case_$CASE" >/dev/null; then
  "case_$CASE"
  echo "ok $CASE"
else
  echo "unknown case: $CASE (see --list)"
  exit 2
fi
