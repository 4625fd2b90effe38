#!/usr/bin/env bash
# One golden feedback test: grades a submission with `cairn grade` and checks
# what a student would read. Header lines of the submission (comments, so it
# stays a .uir file):
#   # grade: w2l2/swap        the exercise (a name under the lessons folder)
#   # exit: 1                 the expected exit status (default 1)
#   # expect: TEXT            TEXT appears in the text output (fixed string)
#   # expect-not: TEXT        TEXT does not appear
# Usage: feedback_test.sh CAIRN FILE LESSONS_DIR
set -u
CAIRN=$1 FILE=$2 LESSONS=$3
ex=$(sed -n 's/^# grade: *//p' "$FILE" | head -1)
want_rc=$(sed -n 's/^# exit: *//p' "$FILE" | head -1)
want_rc=${want_rc:-1}
[[ -n $ex ]] || { echo "$FILE: no '# grade: EXERCISE' line"; exit 1; }
out=$("$CAIRN" grade --lessons "$LESSONS" "$ex" "$FILE" 2>&1)
rc=$?
fail=0
if [[ $rc != "$want_rc" ]]; then echo "$FILE: exit status $rc, expected $want_rc"; fail=1; fi
n=0
while IFS= read -r text; do
  n=$((n + 1))
  grep -qF -- "$text" <<<"$out" || { echo "$FILE: the feedback lacks: $text"; fail=1; }
done < <(sed -n 's/^# expect: *//p' "$FILE")
while IFS= read -r text; do
  grep -qF -- "$text" <<<"$out" && { echo "$FILE: the feedback should not contain: $text"; fail=1; }
done < <(sed -n 's/^# expect-not: *//p' "$FILE")
((n > 0)) || { echo "$FILE: no '# expect:' lines"; fail=1; }
if ((fail)); then echo "---- the feedback:"; echo "$out"; fi
exit $fail
