#!/usr/bin/env bash
# A space too large for a row each (issue 34, part 6): the dry run's table
# gives the count of each state and the rows of the most promising
# candidates, best predicted first; -v and --all-candidates give every
# row, as a small space gets.
# Usage: large_space.sh TUNER CONFIG (tests/fixtures/configs/cpu-user-many.cfg)
set -u
tuner=$1
cfg=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
rows() { grep -cE '^ *[0-9]+  ' "$1"; }

for mode in summary all verbose; do
  flag=""
  [ $mode = all ] && flag=--all-candidates
  [ $mode = verbose ] && flag=-v
  "$tuner" --config "$cfg" --dry-run --arch sm_90 --cache-dir "$tmp/cache" \
    $flag >"$tmp/$mode.out" 2>"$tmp/$mode.err" ||
    { echo "FAIL $mode: exit $?"; cat "$tmp/$mode.err"; fail=1; }
done
line=$(grep -E '^2048 candidates \(a row each: -v or --all-candidates\): ' \
       "$tmp/summary.out")
[ "$line" = "2048 candidates (a row each: -v or --all-candidates): pruned 2036 (constraint 2036), compiled 12" ] ||
  { echo "FAIL: counts: '$line'"; cat "$tmp/summary.out"; fail=1; }
[ "$(rows "$tmp/summary.out")" -eq 12 ] ||
  { echo "FAIL: $(rows "$tmp/summary.out") rows, not the 12 compiled"; fail=1; }
grep -q "^the 12 most promising, by the time model's prediction:" \
  "$tmp/summary.out" || { echo "FAIL: no heading of the rows"; fail=1; }
[ "$(rows "$tmp/all.out")" -eq 2048 ] && [ "$(rows "$tmp/verbose.out")" -eq 2048 ] ||
  { echo "FAIL: --all-candidates $(rows "$tmp/all.out"), -v" \
         "$(rows "$tmp/verbose.out") rows"; fail=1; }
grep -q "candidates (a row each" "$tmp/all.out" &&
  { echo "FAIL: --all-candidates printed the summary"; fail=1; }
# the rows shown are the compiled ones, by the time model's prediction,
# which here follows the wavefronts (their launches are alike otherwise)
python3 - "$tmp/summary.out" "$tmp/all.out" <<'PY' || fail=1
import re, sys
def rows(path):
    return [l for l in open(path) if re.match(r"^ *\d+  ", l)]
shown, every = rows(sys.argv[1]), rows(sys.argv[2])
compiled = [l for l in every if " compiled " in l]
assert sorted(shown) == sorted(compiled), (shown, compiled)
wf = [float(l.split("compiled")[1].split()[0]) for l in shown]
assert wf == sorted(wf), wf
print("ok: %d of %d rows, the compiled ones by their wavefronts"
      % (len(shown), len(every)))
PY
[ $fail -eq 0 ] && echo "ok: large space"
exit $fail
