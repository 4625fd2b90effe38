#!/usr/bin/env bash
# CLI tests of assignments (`cairn grade --assignment`), the Gradescope
# autograder zip (`cairn lesson gradescope`, run on a fake /autograder tree)
# and the install tree (`cmake --install`, then grading from the prefix).
# Usage: assignment_test.sh CAIRN BUILD_DIR CASE   (one case per ctest)
# Exit 77 (a skip) when a tool a case needs (python3, unzip) is missing.
set -u
CAIRN=$1 BUILD=$2 CASE=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LESSONS=$ROOT/lessons
A=$LESSONS/w2l2/assignment.json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"

fail() { echo "FAIL [$CASE]: $*"; echo "---- stdout:"; cat "$TMP/out"; echo "---- stderr:"; cat "$TMP/err"; exit 1; }
c() { "$CAIRN" "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; }
ga() { c grade --lessons "$LESSONS" --assignment "$@"; }
rc_is() { [[ $RC == "$1" ]] || fail "exit status $RC, expected $1"; }
out_has() { grep -qF -- "$1" "$TMP/out" || fail "stdout lacks: $1"; }
out_lacks() { ! grep -qF -- "$1" "$TMP/out" || fail "stdout has: $1"; }
err_has() { grep -qF -- "$1" "$TMP/err" || fail "stderr lacks: $1"; }
need() { command -v "$1" >/dev/null || { echo "skipped: no $1"; exit 77; }; }
# jget FILE EXPR: a Python expression over the JSON in FILE, as `j`.
jget() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
schema_ok() {
  if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 - "$1" "$ROOT/docs/$2" <<'PY' || fail "$1 does not match $2"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
  else
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" || fail "$1 is not JSON"
  fi
}
refs() {  # refs DIR: both references under their assignment names
  mkdir -p "$1"
  cp "$LESSONS/w2l2/swap/reference.uir" "$1/swap.uir"
  cp "$LESSONS/w2l2/running_total/reference.uir" "$1/running_total.uir"
}

case_text() {
  refs all
  ga "$A" all; rc_is 0
  out_has "swap.uir (w2l2/swap): 6/6"; out_has "running_total.uir (w2l2/running_total, weight 2): 16/16"
  out_has "Total: 22/22"; out_has "== running_total.uir"
  mkdir half; cp "$LESSONS/w2l2/swap/reference.uir" half/swap.uir
  cp "$LESSONS/w2l2/running_total/starter.uir" half/running_total.uir
  ga "$A" half; rc_is 1
  out_has "Total: "; out_lacks "Total: 22/22"; out_has "FAIL  example"
}
case_formats() {
  need python3
  refs all
  ga "$A" all --gradescope -o gs.json; rc_is 0
  schema_ok gs.json gradescope.schema.json
  [[ $(jget gs.json 'j["score"], j["max_score"]') == "22.0 22.0" ]] || fail "gradescope score: $(jget gs.json 'j["score"]')"
  [[ $(jget gs.json 'len(j["tests"])') == 14 ]] || fail "14 tests expected (2 oracle rows + 5 + 7)"
  [[ $(jget gs.json 'j["tests"][1]["name"]') == "swap.uir: example" ]] || fail "test names are prefixed by the file"
  [[ $(jget gs.json '[t["max_score"] for t in j["tests"] if t["name"]=="running_total.uir: random"][0]') == 4.0 ]] ||
    fail "weight 2 doubles a test's points"
  [[ $(jget gs.json '[t["visibility"] for t in j["tests"] if t["name"]=="swap.uir: random"][0]') == hidden ]] ||
    fail "hidden tests stay hidden"
  ga "$A" all --json -o a.json; rc_is 0
  [[ $(jget a.json 'j["format"], j["all_passed"], len(j["exercises"])') == "cairn-assignment-grade True 2" ]] || fail "json form"
}
case_files() {
  need python3
  mkdir -p s/hw s/x
  cp "$LESSONS/w2l2/swap/reference.uir" s/hw/swap.uir      # in a subfolder: found, with a note
  cp "$LESSONS/w2l2/running_total/reference.uir" s/Running_Total.uir  # misnamed
  ga "$A" s; rc_is 1
  out_has "(found at hw/swap.uir; the assignment asks for swap.uir)"; out_has "swap.uir (w2l2/swap): 6/6"
  out_has "it has Running_Total.uir: rename it to running_total.uir (names are case-sensitive)"
  cp s/hw/swap.uir s/x/swap.uir                            # two of them: ambiguous
  ga "$A" s; rc_is 1; out_has "your submission has 2 files named swap.uir (hw/swap.uir, x/swap.uir)"
  rm -rf s && mkdir s
  ln -s "$LESSONS/w2l2/swap/reference.uir" s/swap.uir       # a link to the reference scores nothing
  ln -s "$LESSONS/w2l2/running_total" s/rt
  ga "$A" s --gradescope -o gs.json; rc_is 1
  [[ $(jget gs.json 'j["score"]') == 0.0 ]] || fail "a symbolic link must not score"
  grep -qF "swap.uir is a symbolic link; only regular files are graded" gs.json || fail "link message"
  rm -rf s && mkdir s && ln -s "$LESSONS/w2l2/running_total" s/sub
  ga "$A" s; rc_is 1; out_has "your submission has no file swap.uir (it has no files at all)"
  rm -rf s && mkdir -p s/swap.uir && mkfifo s/running_total.uir
  ga "$A" s; rc_is 1; out_has "swap.uir is not a regular file"; out_has "running_total.uir is not a regular file"
  mkdir e; ga "$A" e --gradescope -o gs.json; rc_is 1
  [[ $(jget gs.json 'j["score"], j["max_score"]') == "0.0 22.0" ]] || fail "an empty submission scores 0 of 22"
  ga "$A" nowhere; rc_is 2; err_has "nowhere: no such folder"
}
case_late() {
  need python3
  refs all
  meta() { printf '{"created_at": "%s", "assignment": {"due_date": "2026-12-01T23:59:00.000000-08:00"}, "users": [%s]}' \
      "$1" "${2:-}" >meta.json; }
  meta "2026-12-01T23:00:00.5-08:00"; ga "$A" all --metadata meta.json --gradescope -o gs.json; rc_is 0
  [[ $(jget gs.json 'j["score"]') == 22.0 ]] || fail "on time: full score"
  meta "2026-12-02T08:05:00Z"; ga "$A" all --metadata meta.json --gradescope -o gs.json   # 6 min late: grace is 10
  [[ $(jget gs.json 'j["score"]') == 22.0 ]] || fail "within the grace minutes"
  meta "2026-12-03T10:00:00-08:00"; ga "$A" all --metadata meta.json --gradescope -o gs.json
  [[ $(jget gs.json 'j["score"]') == 17.6 ]] || fail "2 started days late: 20% off, got $(jget gs.json 'j["score"]')"
  grep -qF "Submitted 2 started day(s) late" gs.json || fail "the late note"
  meta "2026-12-09T10:00:00-08:00"; ga "$A" all --metadata meta.json --gradescope -o gs.json
  [[ $(jget gs.json 'j["score"]') == 0.0 ]] || fail "past max_days: 0"
  meta "2026-12-03T10:00:00-08:00" '{"id": 1, "assignment": {"due_date": "2026-12-04T00:00:00-08:00"}}'
  ga "$A" all --metadata meta.json --gradescope -o gs.json
  [[ $(jget gs.json 'j["score"]') == 22.0 ]] || fail "a user's extension applies"
  meta "yesterday"; ga "$A" all --metadata meta.json; rc_is 0
  err_has "no late policy applied"; out_has "The submission time could not be read, so no late policy was applied."
  ga "$A" all --metadata none.json; rc_is 2; err_has "none.json: no such file"
}
case_broken() {
  w() { printf '%s' "$1" >a.json; ga a.json "$TMP"; rc_is 2; err_has "$2"; }
  X='"exercise": "'"$LESSONS"'/w2l2/swap"'
  w '{"format": "cairn-assignment", "version": 1, "title": "t", "exercises": [{'"$X"', "file": "s.uir"}], "extra": 1}' \
    'unknown key "extra"'
  w '{"format": "cairn-assignment", "version": 1, "title": "t", "exercises": [{'"$X"', "file": "s.uir", "weight": 0}]}' \
    '"weight" must be a positive number'
  w '{"format": "cairn-assignment", "version": 1, "title": "t", "exercises": [{'"$X"', "file": "../s.uir"}]}' \
    'must be a relative path inside the submission'
  w '{"format": "cairn-assignment", "version": 1, "title": "t", "exercises": [{'"$X"', "file": "s.uir"}, {'"$X"', "file": "s.uir"}]}' \
    'the file s.uir is named twice'
  w '{"format": "cairn-assignment", "version": 1, "title": "t", "exercises": [{"exercise": "nope", "file": "s.uir"}]}' \
    'exercises[0]'
  w '{"format": "cairn-assignment", "version": 1, "title": "t", "exercises": [{'"$X"', "file": "s.uir"}], "late": {"penalty_per_day": 2}}' \
    'late.penalty_per_day must be a number in [0, 1]'
  w '[1]' 'not a JSON object'
  c grade --assignment "$A"; rc_is 2; err_has "--assignment takes one SUBMISSION_DIR"
  c grade w2l2/swap x.uir --metadata m.json; rc_is 2; err_has "--metadata applies to --assignment only"
}
# The zip, unpacked into a fake /autograder tree, in binary mode (source
# mode builds cairn on the image: minutes; its contents are checked here).
case_autograder() {
  need unzip; need python3
  c lesson --help; rc_is 0
  c lesson gradescope "$A" -o ag.zip --embed binary --lessons "$LESSONS"; rc_is 0; out_has "wrote ag.zip"
  c lesson gradescope "$A" -o ag2.zip --embed binary --lessons "$LESSONS"; rc_is 0
  cmp -s ag.zip ag2.zip || fail "the zip is not deterministic"
  mkdir -p ag/source ag/submission && (cd ag/source && unzip -q "$TMP/ag.zip") || fail "unzip"
  for f in setup.sh run_autograder cairn/assignment.json cairn/lessons/w2l2/swap/reference.uir cairn/install/bin/cairn; do
    [[ -f ag/source/$f ]] || fail "the zip lacks $f"
  done
  [[ -x ag/source/run_autograder && -x ag/source/setup.sh ]] || fail "the scripts are not executable"
  cp ag/source/run_autograder ag/run_autograder
  (bash ag/source/setup.sh >setup.log 2>&1) || { cat setup.log; fail "setup.sh failed"; }
  run() { AUTOGRADER_ROOT="$TMP/ag" ag/run_autograder >run.log 2>&1 || fail "run_autograder exited non-zero"; \
          python3 -c 'import json,sys; json.load(open(sys.argv[1]))' ag/results/results.json || fail "results.json is not JSON"; }
  refs ag/submission; run
  [[ $(jget ag/results/results.json 'j["score"]') == 22.0 ]] || fail "the references score 22"
  schema_ok ag/results/results.json gradescope.schema.json
  printf '{"created_at": "2026-12-03T10:00:00-08:00", "assignment": {"due_date": "2026-12-01T23:59:00-08:00"}}' \
    >ag/submission_metadata.json; run
  [[ $(jget ag/results/results.json 'j["score"]') == 17.6 ]] || fail "the late policy from submission_metadata.json"
  rm -rf ag/submission/* ag/submission_metadata.json; run
  [[ $(jget ag/results/results.json 'j["score"]') == 0.0 ]] || fail "an empty submission scores 0"
  grep -qF "your submission has no file swap.uir" ag/results/results.json || fail "the missing-file message"
  mv ag/source/cairn/install/bin/cairn cairn.real; run
  grep -qF "cairn is not installed" ag/results/results.json || fail "fallback: no cairn"
  printf '#!/bin/sh\nexit 70\n' >ag/source/cairn/install/bin/cairn; chmod +x ag/source/cairn/install/bin/cairn; run
  grep -qF "internal error" ag/results/results.json || fail "fallback: exit 70"
  printf '#!/bin/sh\nkill -SEGV $$\n' >ag/source/cairn/install/bin/cairn; run
  grep -qF "cairn exited with status 139" ag/results/results.json || fail "fallback: a crash"
  sed -i 's/timeout -k 10 600 /timeout -k 1 1 /' ag/run_autograder
  printf '#!/bin/sh\nsleep 30\n' >ag/source/cairn/install/bin/cairn; run
  grep -qF "grading took longer than" ag/results/results.json || fail "fallback: a hang"
  c lesson gradescope "$A" -o src.zip --lessons "$LESSONS"; rc_is 0; out_has "(source mode)"
  unzip -l src.zip >list.txt
  for f in cairn/src/CMakeLists.txt cairn/src/grade/autograder.cpp cairn/src/std/core.cairn cairn/lessons/w2l2/swap/exercise.json; do
    grep -qF " $f" list.txt || fail "the source zip lacks $f"
  done
  ! grep -q 'cairn/src/build\|cairn/install/bin' list.txt || fail "the source zip carries a build or a binary"
  unzip -p src.zip setup.sh | grep -qF 'cmake --install' || fail "setup.sh builds and installs cairn"
  c lesson gradescope "$A" -o x.zip --source /nonexistent; rc_is 2; err_has "has no CMakeLists.txt"
}
# `cmake --install` into a temporary prefix, moved elsewhere, grades a named
# exercise and runs a CAIRN program that imports std, from the prefix's own
# data: a probe exercise title and std module exist only there.
case_install() {
  need python3
  cmake --install "$BUILD" --prefix "$TMP/p1" >install.log 2>&1 || { cat install.log; fail "cmake --install"; }
  mv "$TMP/p1" "$TMP/prefix"
  P=$TMP/prefix
  for f in bin/cairn share/cairn/std/core.cairn share/cairn/lessons/w2l2/swap/exercise.json share/cairn/runtime/cairn_rt.h \
           share/cairn/src/CMakeLists.txt share/doc/cairn/README.md; do
    [[ -f $P/$f ]] || fail "the install lacks $f"
  done
  python3 - "$P/share/cairn/lessons/w2l2/swap/exercise.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["title"] = "INSTALLED COPY"; json.dump(j, open(sys.argv[1], "w"))
PY
  printf 'module std.probe;\npub fn probe() -> i32 = 42;\n' >"$P/share/cairn/std/probe.cairn"
  printf 'import std.probe (probe);\nfn main() -> i32 { return probe(); }\n' >prog.cairn
  mkdir cwd && cd cwd
  env -u CAIRN_LESSONS -u CAIRN_STD "$P/bin/cairn" grade w2l2/swap "$LESSONS/w2l2/swap/reference.uir" >"$TMP/out" 2>"$TMP/err"; RC=$?
  rc_is 0; out_has "(INSTALLED COPY)"
  env -u CAIRN_LESSONS -u CAIRN_STD "$P/bin/cairn" run ../prog.cairn >"$TMP/out" 2>"$TMP/err"; RC=$?
  rc_is 42
  env -u CAIRN_LESSONS -u CAIRN_STD "$P/bin/cairn" lesson gradescope "$A" -o ../i.zip >"$TMP/out" 2>"$TMP/err"; RC=$?
  rc_is 0; out_has "cairn's sources from $P/share/cairn/src (source mode)"
}

"case_$CASE"
echo "ok [$CASE]"
