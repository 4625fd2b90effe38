#!/usr/bin/env bash
# Golden tests of the CAIRN front end (tests/cairn/README.md).
#
#   run_test.sh CAIRN FILE.cairn              run one golden file
#   run_test.sh --refuse CAIRN FILE.cairn     also run a refusal (tests/cairn/refuse/), and check
#                                             that its error holds the page's `// spec:` sentence
#
# A `// test: run` file: `cairn run FILE` (30 s at most) must exit with the
# status of its `// exit: N` header (0 by default), or, when a source line
# carries `// trap: MESSAGE`, exit 101 with `FILE:LINE:` of that line, `trap:`
# and MESSAGE on stderr; with `// stdout: TEXT` headers, stdout must be
# exactly those lines. Then `cairn lower FILE | cairn oracle -` must print ok.
#
# A `// test: check` file (tests/cairn/check/) marks each line that must be
# reported with a trailing `// error: E-CODE [TEXT]` comment. `cairn check
# FILE` (30 s at most) must exit 1; for each marked line stderr must hold a
# diagnostic that starts with `FILE:LINE:` of that line and holds `[E-CODE]`
# (and TEXT, a substring, when given); and every `error:` line on stderr must
# be located at a marked line (nothing unexpected). The quoted source and
# caret lines under a diagnostic (`    5 | ...`) are not diagnostics.
#
# A refusal (tests/cairn/refuse/): a `// test: check` file whose
# `// error: E-CODE` is a header line and that marks no line. `cairn check
# FILE` must exit 1 and print `[E-CODE]` and `FILE:`. Refusals are skipped
# (exit 0) unless --refuse is given.
#
# Exit 0 on success; on failure, an explanation and exit 1.
set -uo pipefail

REFUSE=0
if [ "${1:-}" = "--refuse" ]; then
  REFUSE=1
  shift
fi
CAIRN=${1:?usage: run_test.sh [--refuse] CAIRN FILE.cairn}
FILE=${2:?usage: run_test.sh [--refuse] CAIRN FILE.cairn}
TIMEOUT=${CAIRN_TEST_TIMEOUT:-30}

if [ ! -f "$FILE" ]; then
  echo "FAIL: no such file: $FILE"
  exit 1
fi
if [ ! -x "$CAIRN" ]; then
  echo "FAIL: not an executable: $CAIRN"
  exit 1
fi

BASE=$(basename "$FILE")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---- the header: the leading block of `//` comment lines -------------------
kind=""
want_exit=0
have_stdout=0
want_code=""
want_spec=""
: >"$TMP/want_stdout"
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%$'\r'}
  case "$line" in
    //*) ;;
    *) break ;;
  esac
  body=${line#//}
  body=${body# }
  case "$body" in
    "test: "*) kind=${body#test: } ;;
    "exit: "*) want_exit=${body#exit: } ;;
    "stdout:"*)
      have_stdout=1
      text=${body#stdout:}
      text=${text# }
      printf '%s\n' "$text" >>"$TMP/want_stdout"
      ;;
    "error: "*) want_code=${body#error: } ;;
    "spec: "*) want_spec=${body#spec: } ;;
  esac
done <"$FILE"
kind=${kind%% *}
want_exit=${want_exit%% *}

# ---- a trap marker: the first source line with `// trap:` ------------------
trap_line=""
trap_msg=""
marker=$(grep -n -m1 -F '// trap:' "$FILE" || true)
if [ -n "$marker" ]; then
  trap_line=${marker%%:*}
  trap_msg=${marker#*// trap:}
  trap_msg=${trap_msg%$'\r'}
  trap_msg=${trap_msg# }
  # trim trailing blanks
  trap_msg=${trap_msg%"${trap_msg##*[![:space:]]}"}
fi

show() { # show LABEL FILE: at most 4000 bytes of FILE
  echo "--- $1:"
  if [ -s "$2" ]; then head -c 4000 "$2"; echo; else echo "(empty)"; fi
}
fail() {
  echo "FAIL $FILE: $*"
  [ -n "${last:-}" ] && echo "--- command: $last"
  [ -n "${rc:-}" ] && echo "--- exit status: $rc"
  [ -f "$TMP/out" ] && show stdout "$TMP/out"
  [ -f "$TMP/err" ] && show stderr "$TMP/err"
  exit 1
}

# ---- error markers: `// error:` after other text on its line ---------------
# Written as "LINE<TAB>E-CODE<TAB>TEXT" to $TMP/markers. A line whose first
# non-blank text is `// error:` is a header line (a refusal's code), no marker.
n=0
: >"$TMP/markers"
while IFS= read -r line || [ -n "$line" ]; do
  n=$((n + 1))
  line=${line%$'\r'}
  case "$line" in
    *"// error:"*) ;;
    *) continue ;;
  esac
  lead=${line%%[![:space:]]*}
  rest=${line#"$lead"}
  case "$rest" in
    "// error:"*) continue ;;
  esac
  spec=${line#*// error:}
  spec=${spec#"${spec%%[![:space:]]*}"}
  spec=${spec%"${spec##*[![:space:]]}"}
  code=${spec%%[[:space:]]*}
  text=${spec#"$code"}
  text=${text#"${text%%[![:space:]]*}"}
  printf '%s\t%s\t%s\n' "$n" "$code" "$text" >>"$TMP/markers"
done <"$FILE"

case "$kind" in
  run) ;;
  check)
    if [ -s "$TMP/markers" ]; then
      # ---- a check test: every marked line reported, nothing else ----------
      while IFS=$'\t' read -r mline mcode mtext; do
        case "$mcode" in
          E-[A-Z0-9]*) ;;
          *) fail "line $mline: expected '// error: E-CODE [TEXT]', got code '$mcode'" ;;
        esac
      done <"$TMP/markers"
      last="cairn check $FILE"
      timeout "$TIMEOUT" "$CAIRN" check "$FILE" >"$TMP/out" 2>"$TMP/err"
      rc=$?
      [ "$rc" -eq 124 ] && fail "cairn check did not finish within ${TIMEOUT} s"
      [ "$rc" -gt 128 ] && fail "cairn check died with signal $((rc - 128)) (a crash)"
      [ "$rc" -eq 1 ] || fail "expected exit status 1 (errors at the marked lines), got $rc"
      while IFS=$'\t' read -r mline mcode mtext; do
        found=0
        while IFS= read -r eline; do
          case "$eline" in
            "$FILE:$mline:"*) ;;
            *) continue ;;
          esac
          case "$eline" in
            *"[$mcode]"*) ;;
            *) continue ;;
          esac
          if [ -n "$mtext" ]; then
            case "$eline" in
              *"$mtext"*) ;;
              *) continue ;;
            esac
          fi
          found=1
          break
        done <"$TMP/err"
        [ "$found" -eq 1 ] ||
          fail "expected an error [$mcode]${mtext:+ with '$mtext'} at $FILE:$mline:COL on stderr"
      done <"$TMP/markers"
      while IFS= read -r eline; do
        # A quoted source line or its caret line (`   12 | text`, `      | ^~~`)
        # may hold the marker comment itself; it is no diagnostic.
        [[ $eline =~ ^[\ 0-9]+\ \|( |$) ]] && continue
        case "$eline" in
          *"error:"* | *"error["*) ;;
          *) continue ;;
        esac
        ok=0
        while IFS=$'\t' read -r mline mcode mtext; do
          case "$eline" in
            "$FILE:$mline:"[0-9]*) ok=1; break ;;
          esac
        done <"$TMP/markers"
        [ "$ok" -eq 1 ] || fail "an unexpected error (at no line marked // error:): $eline"
      done <"$TMP/err"
      echo "PASS $FILE (checked)"
      exit 0
    fi
    if [ "$REFUSE" -ne 1 ]; then
      echo "SKIP $FILE: a refusal test (// test: check); pass --refuse to run it"
      exit 0
    fi
    [ -n "$want_code" ] || fail "a // test: check file needs lines marked // error: E-CODE (or a refusal's // error: E-CODE header)"
    last="cairn check $FILE"
    timeout "$TIMEOUT" "$CAIRN" check "$FILE" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -eq 124 ] && fail "cairn check ran past ${TIMEOUT} s"
    [ "$rc" -eq 1 ] || fail "expected exit status 1 (refused with $want_code), got $rc"
    grep -q -F "[$want_code]" "$TMP/err" || grep -q -F "error[$want_code]" "$TMP/err" ||
      fail "expected the code $want_code on stderr"
    grep -q -F "$BASE:" "$TMP/err" || fail "expected a diagnostic located at $BASE:LINE:COL"
    # The page's sentence (a `// spec:` header that does not start with a
    # parenthesis): the error with the code holds it, numbers aside (the
    # page's programs span several lines; a test file puts them on one).
    case "$want_spec" in
      '' | '('*) ;;
      *)
        norm() { sed -E 's/[0-9]+/N/g'; }
        want_n=$(printf '%s' "$want_spec" | norm)
        grep -F "[$want_code]" "$TMP/err" | norm | grep -q -F -- "$want_n" ||
          fail "expected the page's sentence in the $want_code error: $want_spec"
        ;;
    esac
    echo "PASS $FILE (refused with $want_code)"
    exit 0
    ;;
  *) fail "the first lines must hold a '// test: run' or '// test: check' header" ;;
esac

case "$want_exit" in
  '' | *[!0-9]*) fail "// exit: must be a number from 0 to 255, got '$want_exit'" ;;
esac
if [ "$want_exit" -gt 255 ]; then
  fail "// exit: must be a number from 0 to 255, got '$want_exit'"
fi

# ---- 1. cairn run ----------------------------------------------------------
last="cairn run $FILE"
timeout "$TIMEOUT" "$CAIRN" run "$FILE" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 124 ]; then
  fail "cairn run did not finish within ${TIMEOUT} s"
fi
if [ "$rc" -gt 128 ] && [ "$rc" -ne "$want_exit" ]; then
  fail "cairn run died with signal $((rc - 128)) (a crash)"
fi

if [ -n "$trap_line" ]; then
  if [ "$rc" -ne 101 ]; then
    fail "expected a trap (exit status 101) at line $trap_line${trap_msg:+ with '$trap_msg'}, got exit status $rc"
  fi
  grep -q -F "$BASE:$trap_line:" "$TMP/err" ||
    fail "expected the trap located at $BASE:$trap_line:COL on stderr"
  grep -q -F "trap:" "$TMP/err" || fail "expected 'error: trap: MESSAGE' on stderr"
  if [ -n "$trap_msg" ]; then
    grep -q -F -- "$trap_msg" "$TMP/err" || fail "expected the trap message to contain '$trap_msg'"
  fi
else
  if [ "$rc" -ne "$want_exit" ]; then
    if [ "$rc" -eq 101 ]; then
      fail "expected exit status $want_exit, got 101 (a trap)"
    elif [ "$rc" -eq 1 ] && grep -q 'error:' "$TMP/err"; then
      fail "expected exit status $want_exit, got 1 with an error (refused, or the check failed?)"
    else
      fail "expected exit status $want_exit, got $rc"
    fi
  fi
fi

if [ "$have_stdout" -eq 1 ]; then
  if ! cmp -s "$TMP/want_stdout" "$TMP/out"; then
    echo "--- expected stdout:"
    cat "$TMP/want_stdout"
    echo "--- diff (expected, got):"
    diff "$TMP/want_stdout" "$TMP/out" | head -40
    fail "stdout differs from the // stdout: lines"
  fi
fi

# ---- 2. cairn lower | cairn oracle - ----------------------------------------
last="cairn lower $FILE"
timeout "$TIMEOUT" "$CAIRN" lower "$FILE" >"$TMP/lowered.uir" 2>"$TMP/err"
rc=$?
: >"$TMP/out"
[ "$rc" -eq 124 ] && fail "cairn lower did not finish within ${TIMEOUT} s"
[ "$rc" -eq 0 ] || fail "cairn lower failed"
[ -s "$TMP/lowered.uir" ] || fail "cairn lower printed nothing"

last="cairn lower $FILE | cairn oracle -"
timeout "$TIMEOUT" "$CAIRN" oracle - <"$TMP/lowered.uir" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -ne 0 ] || ! head -n1 "$TMP/out" | grep -q '^ok\b'; then
  echo "--- lowered graph (first 60 lines):"
  head -n 60 "$TMP/lowered.uir"
  fail "the oracle refused the lowered graph (expected 'ok' and exit status 0)"
fi

echo "PASS $FILE"
exit 0
