#!/usr/bin/env bash
# The wgmma GEMM (family gemm_wg) as dry runs, no GPU: --arch sm_90a
# compiles every point (0 failed) and so does --arch sm_90 (the family
# needs sm_90a: the run compiles for it), each tile_order among them;
# --arch sm_80 and sm_100 refuse
# the config before any work (exit 2) with the reason (sm_80: too old;
# sm_100: not sm_90a, whose features later architectures lack); a size
# whose rows are not 16-byte units (K = 1001) is
# excluded by the tensor map's stride rule, saying so.  The fp8 problems
# alike: configs/gemm-wg-fp8.cfg (e4m3, promoted) and the e5m2 GPU test's
# config with fast accumulation compile every point for sm_90a, and an
# fp8 K of 1000 (rows of 1000 bytes) is excluded by the same rule.
# Usage: dry_run_wgmma.sh TUNER SRC
set -u
tuner=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cfg=$src/tests/fixtures/configs/gpu-gemm-wg-edges.cfg
for a in sm_90a sm_90; do
  out=$("$tuner" --config "$cfg" --dry-run --arch $a --no-prune \
        --all-candidates --cache-dir "$tmp/cache" 2>"$tmp/err")
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: $a: exit $rc: $(tail -2 "$tmp/err")"; fail=1; }
  grep -q ' 0 failed)' "$tmp/err" ||
    { echo "FAIL: $a: $(tail -1 "$tmp/err")"; fail=1; }
  n=$(printf '%s\n' "$out" | grep -cE '^ *[0-9]+  .* compiled ')
  echo "--arch $a: $n points compiled"
  [ "$n" -gt 0 ] || { echo "FAIL: $a: nothing compiled"; fail=1; }
  # tile_order 0 is left out of a point's text
  for o in 1 2; do
    printf '%s\n' "$out" | grep -qE " tile_order=$o +compiled " ||
      { echo "FAIL: $a: no tile_order $o compiled"; fail=1; }
  done
done
for a in "sm_80:wgmma needs sm_90 or later, not sm_80" \
  "sm_100:wgmma needs sm_90a (the architecture-specific features of sm_90"
do
  "$tuner" --config "$cfg" --dry-run --arch ${a%%:*} >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: ${a%%:*}: exit $rc, not 2"; fail=1; }
  grep -qF "${a#*:}" "$tmp/err" ||
    { echo "FAIL: ${a%%:*}: not the reason: $(cat "$tmp/err")"; fail=1; }
done
sed 's/sizes = (.*/sizes = ( [1000, 776, 1001] );/' "$cfg" > "$tmp/odd.cfg"
sed -i "s|\.\./\.\./\.\./templates|$src/templates|" "$tmp/odd.cfg"
"$tuner" --config "$tmp/odd.cfg" --dry-run --arch sm_90a >/dev/null \
  2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: K = 1001: exit $rc, not 2"; fail=1; }
grep -q "tensor map: the stride of dimension 1, 2002 bytes" "$tmp/err" ||
  { echo "FAIL: K = 1001: $(cat "$tmp/err")"; fail=1; }
for c in $src/configs/gemm-wg-fp8.cfg \
  $src/tests/fixtures/configs/gpu-gemm-wg-fp8-fast.cfg; do
  out=$("$tuner" --config "$c" --dry-run --arch sm_90a --no-prune \
        --cache-dir "$tmp/cache" 2>"$tmp/err")
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: $c: exit $rc: $(tail -2 "$tmp/err")"; fail=1; }
  grep -q ' 0 failed)' "$tmp/err" ||
    { echo "FAIL: $c: $(tail -1 "$tmp/err")"; fail=1; }
  n=$(printf '%s\n' "$out" | grep -cE '^ *[0-9]+  .* compiled ')
  echo "$(basename "$c"): $n points compiled for sm_90a"
  [ "$n" -gt 0 ] || { echo "FAIL: $c: nothing compiled"; fail=1; }
done
sed -e 's/sizes = (.*/sizes = ( [1024, 1024, 1000] );/' \
  -e "s|\.\./templates|$src/templates|" "$src/configs/gemm-wg-fp8.cfg" \
  > "$tmp/fp8-odd.cfg"
"$tuner" --config "$tmp/fp8-odd.cfg" --dry-run --arch sm_90a >/dev/null \
  2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: fp8 K = 1000: exit $rc, not 2"; fail=1; }
grep -q "tensor map: the stride of dimension 1, 1000 bytes" "$tmp/err" ||
  { echo "FAIL: fp8 K = 1000: $(cat "$tmp/err")"; fail=1; }
[ $fail -eq 0 ] && echo "ok"
exit $fail
