#!/usr/bin/env bash
# The copy engine's transpose configs as dry runs, no GPU: on sm_80 every
# tma = 1 point is excluded with the architecture as its reason and the
# threads' points compile; on sm_90 every point compiles (0 failed); at
# 3001 columns (rows of 12004 bytes) the tensor map's stride rule
# excludes every tma = 1 point, saying so.
# Usage: dry_run_tma.sh TUNER SRC
set -u
tuner=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# the table's rows of tma = 1 points that compiled
tma_compiled() { grep -E '^ +[0-9]+  .* compiled ' | grep -E 'tma=1( |$)'; }
odd=$src/configs/transpose-tma-odd.cfg

out=$("$tuner" --config "$odd" --dry-run --arch sm_80 --no-prune \
      --cache-dir "$tmp/cache" 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: sm_80: exit $rc: $(cat "$tmp/err")"; fail=1; }
printf '%s\n' "$out" | grep -q 'the copy engine (TMA) needs sm_90 or later, not sm_80' ||
  { echo "FAIL: sm_80: no reason naming the architecture"; fail=1; }
# (a parameter at its default is left out of the text: tma=0 is not there)
printf '%s\n' "$out" | tma_compiled | grep . &&
  { echo "FAIL: sm_80 compiled a tma = 1 point"; fail=1; }
printf '%s\n' "$out" | grep -E '^ +[0-9]+  .* compiled ' | grep -q -v 'tma=1' ||
  { echo "FAIL: sm_80 compiled no threads' point"; fail=1; }

for cfg in "$odd" "$src/configs/transpose-tma.cfg"; do
  out=$("$tuner" --config "$cfg" --dry-run --arch sm_90 --no-prune \
        --cache-dir "$tmp/cache" 2>"$tmp/err")
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: $cfg sm_90: exit $rc"; fail=1; }
  grep -q ' 0 failed)' "$tmp/err" ||
    { echo "FAIL: $cfg sm_90: $(tail -1 "$tmp/err")"; fail=1; }
  n=$(printf '%s\n' "$out" | tma_compiled | wc -l)
  echo "$(basename "$cfg"): $n tma = 1 points compiled for sm_90"
  [ "$n" -gt 0 ] || { echo "FAIL: no tma = 1 point compiled"; fail=1; }
done

# 3001 columns: the copy engine cannot read it (the template path made
# absolute, the config copied elsewhere)
sed -e 's/\[5000, 3004\]/[5000, 3001]/' \
    -e "s|\"../templates/transpose.cu\"|\"$src/templates/transpose.cu\"|" \
    "$odd" >"$tmp/odd3001.cfg"
out=$("$tuner" --config "$tmp/odd3001.cfg" --dry-run --arch sm_90 \
      --cache-dir "$tmp/cache" 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: 3001: exit $rc: $(cat "$tmp/err")"; fail=1; }
printf '%s\n' "$out" | tma_compiled | grep . &&
  { echo "FAIL: 3001 columns compiled a tma = 1 point"; fail=1; }
printf '%s\n' "$out" | grep -q 'the stride of dimension 1, 12004 bytes, is not a multiple of 16' ||
  { echo "FAIL: 3001: no stride reason"; fail=1; }
[ $fail -eq 0 ] && echo "ok"
exit $fail
