#!/usr/bin/env bash
# scripts/shapes-table.py on a results file of three sizes (a fake-GPU run
# of tests/fixtures/configs/cpu-sizes.cfg, cut to its winners): each
# size's winner against the single best and the baseline, in ms, the unit
# and %, the totals, CSV; and exit 2 for what is no per-size results file.
set -u
script=$1
results=$2
old=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # FILE TEXT
  grep -qF -- "$2" "$1" || { echo "FAIL: no '$2' in:"; cat "$1"; fail=1; }
}
python3 "$script" "$results" >"$tmp/md" 2>"$tmp/err" ||
  { echo "FAIL: exit $?"; cat "$tmp/err"; fail=1; }
# 256 rows: candidate 9 at 0.5 ms, the single best (3) 1.03 ms: +106 %;
# the copy 0.9 ms: 180 % and 87.4 %; 1 MiB in 0.5 ms is 1.05 GB/s
expect "$tmp/md" "| 256x256 | 9 | 0.5000 | 1.05 | 1.0300 | 0.51 | +106.0 | 0.9000 | 0.58 | 180.0 | 87.4 |"
expect "$tmp/md" "| 512x256 | 3 | 0.5000 | 2.10 | 0.5000 | 2.10 | +0.0 |"
expect "$tmp/md" "| 1024x256 | 0 | 1.0000 | 2.10 | 1.0300 | 2.04 | +3.0 |"
expect "$tmp/md" "| all 3 sizes (sum of medians) |  | 2.0000 |  | 2.5600 |  | +28.0 | 2.7000 |  | 135.0 | 105.5 |"
expect "$tmp/md" "| size | winner id | winner ms | winner GB/s | single best ms"
expect "$tmp/md" "winner % of memcpy | single best % of memcpy |"
expect "$tmp/md" "sizes whose winner is not the single best: 2 of 3."
expect "$tmp/md" "- candidate 9: tile=64 rows_per_thread=4 vec=1 pad=0 swizzle=xor group=1"
python3 "$script" "$results" --csv >"$tmp/csv" || { echo "FAIL: csv"; fail=1; }
expect "$tmp/csv" "256x256,9,0.5000,1.05,1.0300,0.51,+106.0,0.9000,0.58,180.0,87.4"
[ "$(wc -l <"$tmp/csv")" -eq 5 ] || { echo "FAIL: csv lines"; cat "$tmp/csv"; fail=1; }
# not a per-size results file: exit 2 with the reason
for bad in "$old" "$tmp/none.json" "$script"; do
  python3 "$script" "$bad" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && grep -q "^shapes-table: " "$tmp/err" ||
    { echo "FAIL: $bad: exit $rc: $(cat "$tmp/err")"; fail=1; }
done
grep -q "Expecting value" "$tmp/err" || { echo "FAIL: not JSON: $(cat "$tmp/err")"; fail=1; }
[ $fail -eq 0 ] && echo "ok: the per-shape table"
exit $fail
