#!/usr/bin/env bash
# CLI tests of `cairn grade`, `cairn lesson check` and `cairn dot --versions`.
# Usage: grade_cli_test.sh CAIRN CASE   (one case per ctest; --list prints them)
# JSON output is checked against docs/*.schema.json with Python's jsonschema
# when it is installed (else parsed with jq or python's json; exit 77, a
# skip, when neither exists for a case that needs it).
set -u
CAIRN=$1 CASE=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LESSONS=$ROOT/lessons
SUBS=$HERE/submissions
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"

fail() { echo "FAIL [$CASE]: $*"; echo "---- stdout:"; cat "$TMP/out"; echo "---- stderr:"; cat "$TMP/err"; exit 1; }
c() { "$CAIRN" "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; }
g() { c grade --lessons "$LESSONS" "$@"; }
rc_is() { [[ $RC == "$1" ]] || fail "exit status $RC, expected $1"; }
out_has() { grep -qF -- "$1" "$TMP/out" || fail "stdout lacks: $1"; }
err_has() { grep -qF -- "$1" "$TMP/err" || fail "stderr lacks: $1"; }
# schema_ok FILE SCHEMA: validates when jsonschema is there; parses otherwise.
schema_ok() {
  if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 - "$1" "$ROOT/docs/$2" <<'PY' || fail "$1 does not match $2"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
  elif command -v jq >/dev/null; then
    jq -e . "$1" >/dev/null || fail "$1 is not JSON"
  elif command -v python3 >/dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" || fail "$1 is not JSON"
  else
    echo "skipped: no jsonschema, jq or python3"; exit 77
  fi
}

case_reference() {
  g w2l2/swap "$LESSONS/w2l2/swap/reference.uir"; rc_is 0
  out_has "Score: 6/6"; out_has "PASS  extremes (hidden)"
  g "$LESSONS/w2l2/running_total" "$LESSONS/w2l2/running_total/reference.uir"; rc_is 0
  out_has "Score: 8/8"
}
case_starter() {
  g swap "$LESSONS/w2l2/swap/starter.uir"; rc_is 1
  out_has "FAIL  example  [0/1]"; out_has "expected 1, got 2"; out_has "PASS  equal elements"
  out_has "line 6: \`%x1 = load %p1\` reads b[1] from %b"
  g running_total "$LESSONS/w2l2/running_total/starter.uir"; rc_is 1
  out_has "reads the old b[1] from %b"
}
case_invalid() {
  g w2l2/swap "$SUBS/swap_forgot_after.uir"; rc_is 1
  out_has "a store that no after sequences has no effect [store-sequenced]"
  printf '\x00\x01\xff garbage\n%%b = buffer\n' >garbage.uir
  g w2l2/swap garbage.uir; rc_is 1; out_has "The oracle rejected the program"; out_has "garbage.uir:1:1: error:"
}
case_json() {
  g w2l2/swap "$LESSONS/w2l2/swap/starter.uir" --json -o result.json; rc_is 1
  [[ ! -s $TMP/out ]] || fail "-o should leave stdout empty"
  schema_ok result.json grade.schema.json
  grep -q '"first_difference"' result.json || fail "no first_difference"
  grep -q '"reads": null' result.json || fail "no loads"
  g w2l2/swap "$SUBS/swap_old_version_cycle.uir" --json; rc_is 1
  cp "$TMP/out" cycle.json; schema_ok cycle.json grade.schema.json
  grep -q '"rule": "old-version-order"' cycle.json || fail "no diagnostic in the JSON"
  printf '\xff\xfe\x00 not utf-8\n' >bad.uir
  g w2l2/swap bad.uir --json; rc_is 1; cp "$TMP/out" bad.json; schema_ok bad.json grade.schema.json
}
case_gradescope() {
  for f in "$LESSONS/w2l2/swap/reference.uir" "$LESSONS/w2l2/swap/starter.uir" "$SUBS/swap_two_stores_one_version.uir"; do
    g w2l2/swap "$f" --gradescope -o results.json
    schema_ok results.json gradescope.schema.json
  done
  grep -q '"visibility": "hidden"' results.json || fail "hidden tests are not hidden"
  grep -q '"name": "The oracle accepts the program"' results.json || fail "no oracle entry"
  g w2l2/swap "$f" --gradescope --json; rc_is 2
}
case_explain() {
  g w2l2/swap "$SUBS/swap_old_version_cycle.uir" --explain; rc_is 1
  out_has "The picture: swap_old_version_cycle.uir.explain.dot"
  grep -q '^digraph cycle' swap_old_version_cycle.uir.explain.dot || fail "no cycle picture"
  grep -q 'overwrites", color="#d62728"' swap_old_version_cycle.uir.explain.dot || fail "the closing arrow is not red"
  if command -v dot >/dev/null; then
    grep -q '<svg' swap_old_version_cycle.uir.explain.svg || fail "no SVG"
  else
    out_has "Graphviz \`dot\` is not installed"
  fi
  g w2l2/swap "$SUBS/swap_two_stores_one_version.uir" --explain-to "$TMP/two"; rc_is 1
  grep -q 'versions of %b: %b, %b1, %b2' two.dot || fail "the versions of %b are not coloured"
  grep -q 'penwidth=3' two.dot || fail "the offending line is not outlined"
  PATH=/nonexistent "$CAIRN" grade --lessons "$LESSONS" w2l2/swap "$SUBS/swap_two_stores_one_version.uir" --explain-to x >"$TMP/out" 2>"$TMP/err"
  out_has "Graphviz \`dot\` is not installed; render the picture with \`dot -Tsvg x.dot\`"
  [[ -s x.dot && ! -e x.svg ]] || fail "without graphviz: the DOT only"
}
case_explain_valid() {
  g w2l2/swap "$LESSONS/w2l2/swap/starter.uir" --explain; rc_is 1
  out_has "there is no error to draw"
  printf '%%b = \n' >p.uir
  g w2l2/swap p.uir --explain; rc_is 1; out_has "does not parse, so there is no graph to draw"
  g --explain w2l2/swap "$SUBS/swap_forgot_after.uir"; rc_is 1; out_has "The picture: swap_forgot_after.uir.explain.dot"
}
case_batch() {
  mkdir in
  cp "$LESSONS/w2l2/swap/reference.uir" in/alice.uir
  cp "$LESSONS/w2l2/swap/starter.uir" in/bob.uir
  cp "$SUBS/swap_forgot_after.uir" in/carol.uir
  head -c 5000 /dev/urandom >in/dave.uir
  for i in $(seq 1 40); do cp "$SUBS/swap_reads_new_version.uir" "in/s$i.uir"; done
  g w2l2/swap --batch in -o res -j 2; rc_is 0
  out_has "graded 44 submission(s) of w2l2/swap"; out_has "2 thread(s)"; out_has "1 passed every test, 41 failed some, 1 invalid, 1 rejected"
  [[ $(wc -l <res/summary.csv) == 45 ]] || fail "summary.csv should have 45 lines"
  head -1 res/summary.csv | grep -q '^id,status,score,max_score,passed,failed,seconds,message,fingerprint,test:example' || fail "CSV header"
  grep -q '^alice,graded,6,6,5,0,' res/summary.csv || fail "alice's row"
  schema_ok res/results/carol.json grade.schema.json
  schema_ok res/results/dave.json grade.schema.json
  g w2l2/swap --batch in -o res2 --jsonl; rc_is 0; out_has "results: res2/results.jsonl"
  [[ $(wc -l <res2/results.jsonl) == 44 && ! -e res2/results ]] || fail "results.jsonl should have 44 lines"
  head -1 res2/results.jsonl | grep -q '^{"id":"alice","result":{' || fail "results.jsonl's first line"
  g w2l2/swap "$LESSONS/w2l2/swap/reference.uir" --jsonl; rc_is 2; err_has "applies to --batch only"
  g w2l2/swap x.uir --batch in; rc_is 2
  g w2l2/swap --batch nowhere; rc_is 2; err_has "no such folder or file"
}
case_batch_gradescope() {
  { printf '{"id": "a", "source": %s}\n' "$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$LESSONS/w2l2/swap/reference.uir" 2>/dev/null || echo '"%b = buffer 4 dtype=i32 slot=0"')"
    echo 'garbage line'
    echo '{"id": "c", "file": "'"$SUBS"'/swap_forgot_after.uir"}'; } >subs.jsonl
  g w2l2/swap --batch subs.jsonl --gradescope; rc_is 0
  out_has "graded 3 submission(s)"
  for f in grade-results/results/*.json; do schema_ok "$f" gradescope.schema.json; done
  grep -q '^line-2,error,' grade-results/summary.csv || fail "the broken line is not an error row"
  grep -q '^c,rejected,0,6,0,5,[^,]*,.*is an absolute path' grade-results/summary.csv || fail "an absolute JSONL path is not rejected"
}
# Shards merged equal one run (but for the seconds); a symbolic link and a
# FIFO in a batch folder are rejected rows; --merge refuses duplicate ids.
case_merge() {
  mkdir -p all s1 s2
  for n in a b c; do cp "$LESSONS/w2l2/swap/reference.uir" all/$n.uir; cp all/$n.uir s1/$n.uir; done
  for n in d e; do cp "$LESSONS/w2l2/swap/starter.uir" all/$n.uir; cp all/$n.uir s2/$n.uir; done
  g w2l2/swap --batch all -o out-all -j 2; rc_is 0
  g w2l2/swap --batch s1 -o out-1; rc_is 0
  g w2l2/swap --batch s2 -o out-2; rc_is 0
  c grade --merge out-1 out-2 -o out-m; rc_is 0; out_has "merged 2 shard(s), 5 submission(s), into out-m"
  cut -d, -f1-6,8- out-all/summary.csv >want.csv; cut -d, -f1-6,8- out-m/summary.csv >got.csv
  cmp -s want.csv got.csv || { diff want.csv got.csv; fail "the merged summary differs from one run's"; }
  [[ $(grep -E '^[abc],' out-m/summary.csv | cut -d, -f9 | sort -u | grep -cE '^[0-9a-f]{16}$') == 1 ]] || fail "a, b, c: one fingerprint"
  [[ $(ls out-m/results | wc -l) == 5 ]] || fail "5 result files"
  c grade --merge out-1 out-all -o bad; rc_is 2; err_has "appears twice"; [[ ! -e bad ]] || fail "bad was written"
  c grade --merge out-1; rc_is 2; err_has "needs -o MERGED"
  c grade w2l2/swap --merge out-1 -o x; rc_is 2
  ln -s "$LESSONS/w2l2/swap/reference.uir" s1/link.uir; mkfifo s1/fifo.uir
  g w2l2/swap --batch s1 -o out-h; rc_is 0
  grep -q '^link,rejected,0,6,.*link.uir is a symbolic link; batch mode reads only regular files' out-h/summary.csv || fail "link row"
  grep -q '^fifo,rejected,0,6,.*fifo.uir is a FIFO' out-h/summary.csv || fail "fifo row"
}
# Text as editors write it: BOM, CRLF and CR submissions grade as LF.
case_line_ends() {
  printf '\xef\xbb\xbf' >bom.uir; cat "$LESSONS/w2l2/swap/reference.uir" >>bom.uir
  sed 's/$/\r/' "$LESSONS/w2l2/swap/reference.uir" >crlf.uir
  tr '\n' '\r' <"$LESSONS/w2l2/swap/reference.uir" >cr.uir
  for f in bom crlf cr; do g w2l2/swap $f.uir; rc_is 0; out_has "Score: 6/6"; out_has "(10 nodes)"; done
  tr '\n' '\r' <"$SUBS/swap_forgot_after.uir" >bad.uir
  g w2l2/swap bad.uir; rc_is 1; out_has "bad.uir:10:"; out_has "[store-sequenced]"
}
case_usage() {
  g nosuch "$LESSONS/w2l2/swap/reference.uir"; rc_is 2; err_has "no exercise \`nosuch\`"
  g w2l2/swap missing.uir; rc_is 2; err_has "missing.uir: no such file"
  g w2l2/swap; rc_is 2; err_has "SUBMISSION"
  g w2l2/swap "$LESSONS"; rc_is 2; err_has "is a directory"
  c grade --help; rc_is 0; out_has "--gradescope"; out_has "--max-steps"
  mkdir -p broken/ex && echo '{}' >broken/ex/exercise.json
  c grade broken/ex x.uir; rc_is 2; err_has "is broken"
}
case_limits() {
  g w2l2/swap "$LESSONS/w2l2/swap/reference.uir" --max-steps 3; rc_is 1; out_has "exceeded the step limit of 3"
  g w2l2/swap "$LESSONS/w2l2/swap/reference.uir" --max-nodes 5; rc_is 1
  out_has "The submission was not graded: the program has 10 lines that define nodes; the limit is 5 nodes"
  g w2l2/swap "$LESSONS/w2l2/swap/reference.uir" --max-bytes 100; rc_is 1; out_has "larger than 100 bytes"
  g w2l2/swap "$LESSONS/w2l2/swap/reference.uir" --max-elements 2; rc_is 1; out_has "exceeds the limit of 2 elements"
  { cat "$LESSONS/w2l2/swap/reference.uir"; printf '%%n = const 100000000000 dtype=i64\n%%i = range %%n\n%%e = end %%i\n'; } >loop.uir
  g w2l2/swap loop.uir --max-steps 0 --timeout 0.05; rc_is 1; out_has "exceeded the time limit of 0.05 s"
  g w2l2/swap loop.uir; rc_is 1; out_has "exceeded the step limit of 100000"
}
case_stdin() {
  c grade --lessons "$LESSONS" w2l2/swap - <"$LESSONS/w2l2/swap/reference.uir"; rc_is 0; out_has "<stdin>"
}
case_dot_versions() {
  c dot "$LESSONS/w2l2/swap/reference.uir" --versions %b; rc_is 0
  out_has 'label="versions of %b: %b, %b1, %b2"'
  c dot "$LESSONS/w2l2/swap/reference.uir" --versions b; rc_is 0; out_has "versions of %b"
  c dot "$LESSONS/w2l2/swap/reference.uir" --versions %zz; rc_is 2; err_has "no buffer named %zz"
  c dot "$LESSONS/w2l2/swap/reference.uir"; rc_is 0
  grep -q "versions of" "$TMP/out" && fail "versions are coloured without --versions"
  true
}
case_lesson_check_broken() {
  c lesson check "$LESSONS"; rc_is 0; out_has "lesson check: 1 lesson(s), 2 exercise(s), 6 quiz question(s): ok"
  cp -r "$LESSONS" mine
  sed -i 's/"answer": 2,/"answer": 9,/' mine/w2l2/quiz.json
  cp mine/w2l2/swap/reference.uir mine/w2l2/swap/starter.uir
  c lesson check mine; rc_is 1
  out_has "error:"; out_has "the starter passes every test"; out_has "choices"
  c lesson check nowhere; rc_is 2
}

# An exercise whose hidden tests hold distinctive values, and submissions that
# fail them in each way a value could leak (a trap on a loaded index, a
# negative size, a wrong result, another size).
make_secret_exercise() {
  mkdir -p secret/ex subs
  cat >secret/ex/exercise.json <<'JSON'
{"format": "cairn-exercise", "version": 1, "title": "Secrets",
 "tests": [{"name": "v", "input": {"0": [1, 2]}, "expect": {"0": [1, 3]}}],
 "hidden_tests": "hidden.json"}
JSON
  cat >secret/ex/hidden.json <<'JSON'
[{"name": "extremes", "hint": "Think about the largest i32.",
  "input": {"0": [2147483647, -987654321]}, "expect": {"0": [2147483647, 1159829326]}},
 {"name": "later", "visibility": "after_due_date", "input": {"0": [31415926, 0]}, "expect": {"0": [31415926, 31415926]}}]
JSON
  echo "Add b[0] into b[1]." >secret/ex/statement.md
  printf '%%b = buffer 2 dtype=i32 slot=0\n' >secret/ex/starter.uir
  lines() { printf '%s\n' "$@"; }
  H=('%b = buffer 2 dtype=i32 slot=0' '%p0 = shrink %b 0 shape=[]' '%p1 = shrink %b 1 shape=[]' '%x0 = load %p0' '%x1 = load %p1')
  lines "${H[@]}" '%t = add %x0 %x1' '%s = store %p1 %t' '%b1 = after %b %s' >secret/ex/reference.uir
  lines "${H[@]}" '%v = checked_shrink %b %x0 shape=[]' '%y = load %v' '%t = add %y %x1' '%s = store %p1 %t' '%b1 = after %b %s' >subs/trap.uir
  lines "${H[@]}" '%z = buffer %x1 dtype=i32' '%t = add %x0 %x1' '%s = store %p1 %t' '%b1 = after %b %s' >subs/negative.uir
  lines "${H[@]}" '%t = sub %x0 %x1' '%s = store %p1 %t' '%b1 = after %b %s' >subs/wrong.uir
  printf '%%b = buffer 3 dtype=i32 slot=0\n' >subs/size.uir
  printf '%%b = buffer 2 dtype=i32 slot=0\n%%p = shrink %%b 0 shape=[]\n%%s = store %%p 1\n' >subs/invalid.uir
}
no_secret() {  # no_secret FILE...: fails when a hidden value appears
  for f in "$@"; do
    for v in 2147483647 987654321 1159829326 31415926; do
      grep -q -- "$v" "$f" && { cp "$f" "$TMP/out"; fail "$f shows the hidden value $v"; }
    done
  done
  true
}
case_hidden_leak() {
  make_secret_exercise
  c lesson check secret; rc_is 0
  for s in trap negative wrong size invalid; do
    for fmt in text json gradescope; do
      flag=(); [[ $fmt != text ]] && flag=(--"$fmt")
      c grade secret/ex "subs/$s.uir" "${flag[@]}" --explain-to "ex-$s-$fmt"; rc_is 1
      cp "$TMP/out" "$s.$fmt"; no_secret "$s.$fmt"
      [[ -e ex-$s-$fmt.dot ]] && no_secret "ex-$s-$fmt.dot"
    done
  done
  grep -qF "the program trapped: an index out of bounds at line 6" trap.text || fail "trap.text: no data-free trap"
  grep -qF "hint: Think about the largest i32." trap.text || fail "trap.text: no hint"
  grep -qF '"visibility": "after_due_date"' trap.gradescope || fail "no after_due_date visibility"
  grep -qF "input     slot 0 = [1 2]" wrong.text || fail "the visible test lost its data"
  c grade secret/ex --batch subs -o res; rc_is 0
  c grade secret/ex --batch subs -o res-gs --gradescope; rc_is 0
  c grade secret/ex --batch subs -o res-jl --jsonl; rc_is 0
  no_secret res/summary.csv res/results/*.json res-gs/results/*.json res-gs/summary.csv res-jl/results.jsonl
}
case_release() {
  make_secret_exercise
  printf '{"format": "cairn-lesson", "version": 1, "id": "s", "title": "S", "text": "s.md", "exercises": ["ex"]}\n' >secret/lesson.json
  echo "A lesson." >secret/s.md
  c lesson release secret -o rel; rc_is 0; out_has "lesson release: secret -> rel"
  [[ -f rel/ex/exercise.json && -f rel/ex/starter.uir && -f rel/ex/statement.md && -f rel/lesson.json ]] || fail "missing files"
  [[ ! -e rel/ex/reference.uir && ! -e rel/ex/hidden.json ]] || fail "the reference or the hidden tests were released"
  no_secret rel/ex/exercise.json
  grep -q '"reference": null' rel/ex/exercise.json || fail "the copy does not say it has no reference"
  grep -q 'hidden' rel/ex/exercise.json && fail "the copy names the hidden tests"
  c grade rel/ex secret/ex/reference.uir; rc_is 0; out_has "Score: 1/1"
  c lesson release secret -o rel; rc_is 2; err_has "exists and is not an empty folder"
  c lesson release nowhere -o o2; rc_is 2
  cp secret/ex/reference.uir secret/ex/starter.uir
  c lesson release secret -o o3; rc_is 1; out_has "nothing was written"
  [[ ! -e o3 ]] || fail "a broken lesson was released"
}

if [[ $CASE == --list ]]; then declare -F | sed -n 's/^declare -f case_//p'; exit 0; fi
declare -F "case_$CASE" >/dev/null || { echo "unknown case $CASE"; exit 1; }
"case_$CASE"
echo "ok [$CASE]"
