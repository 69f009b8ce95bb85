#!/usr/bin/env bash
# compile_speedup.sh -- how much faster a config's candidates (the 94 of
# configs/gemm.cfg) compile on J workers than on one (issue 13).  For J in
# 1, 2, 4, 8, 16 up to the machine's cores (and all of them), runs
#
#   TUNER --config CONFIG --dry-run --arch sm_90 --no-cache -q -v -j J
#
# REPEAT times, J by J in turn (1 2 4 ... then again), so that a change in
# the machine's load spreads over every J, and writes a Markdown table of
# the best and median of, from the tuner's own trace (-v):
#   - the compile phase: the first request to a worker to the last result
#     (the workers are started and warmed before it, while the space is
#     built);
#   - the workers' warm-up (asked for to the last worker warm), and how
#     much of it came before the first request (hidden by other work);
#   - the compile wall time of the summary line (compile start to the last
#     result, as the earlier tables had it);
#   - the whole run, as this script times the process;
# with every run's figures below it.  --no-cache is the tuner's and
# NVRTC's (12.9+ keeps CUBINs in the driver's compute cache; the tuner
# turns that off for candidates): the size of that folder before and
# after is in the table's notes, to show nothing was served from it.
#
#   scripts/compile_speedup.sh [TUNER [CONFIG [REPEAT [OUT]]]]
#
# Defaults: build/tuner, configs/gemm.cfg, 5, and OUT: $OUT/compile-speedup.md
# when $OUT names a folder, else stdout.  JOBS="1 2 4" overrides the list.
set -eu
tuner=${1:-build/tuner}
cfg=${2:-configs/gemm.cfg}
repeat=${3:-5}
if [ $# -ge 4 ]; then
  out=$4
elif [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  out=$OUT/compile-speedup.md
else
  out=/dev/stdout
fi
cores=$(nproc)
if [ -n "${JOBS:-}" ]; then
  ns=$JOBS
else
  ns=""
  for n in 1 2 4 8 16 "$cores"; do
    [ "$n" -le "$cores" ] || continue
    case " $ns " in *" $n "*) ;; *) ns="$ns $n" ;; esac
  done
fi
nv_cache=${CUDA_CACHE_PATH:-$HOME/.nv/ComputeCache}
nv_size() {
  local s
  s=$(du -sb "$nv_cache" 2>/dev/null | cut -f1)
  echo "${s:-0}"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# key=value of the trace line, or "-"
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$tmp/err" | head -1; }

nv_before=$(nv_size)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%Y-%m-%dT%H:%MZ)
: >"$tmp/runs"
for r in $(seq "$repeat"); do
  for n in $ns; do
    t0=$EPOCHREALTIME
    "$tuner" --config "$cfg" --dry-run --arch sm_90 --no-cache -q -v -j "$n" \
      >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    t1=$EPOCHREALTIME
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')
    cw=$(sed -n 's/.* compiled (.*) in \([0-9.]*\) s on .*/\1/p' "$tmp/err")
    ncomp=$(sed -n 's/.* \([0-9]*\) compiled (.*/\1/p' "$tmp/err")
    phase=$(field phase)
    warm=$(field warmup)
    hidden=$(field warmup_hidden)
    req=$(field requests)
    [ -n "$cw" ] && [ -n "$phase" ] ||
      { echo "no summary or trace line: $(cat "$tmp/err")" >&2; exit 1; }
    echo "$n $r $phase $warm $hidden $cw $wall $req $ncomp" >>"$tmp/runs"
    echo "-j $n run $r: phase $phase s, warm-up $warm s ($hidden hidden)," \
      "compile $cw s, whole $wall s, $req requests" \
      "(load $(cut -d' ' -f1 /proc/loadavg))" >&2
  done
done
nv_after=$(nv_size)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# best and median of column c for -j n
stat() {
  awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$tmp/runs" | sort -g |
    awk '{ v[++k] = $1 }
      END { m = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
            printf "%.3f %.3f\n", v[1], m }'
}
commit=$(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null ||
  echo "?")
{
  echo "Compile wall time of $cfg's candidates: \`$tuner --config $cfg"
  echo "--dry-run --arch sm_90 --no-cache -q -v -j J\`, $repeat runs per J"
  echo "(J by J in turn); $(hostname), $cores cores ($(nproc --all) online,"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "$started to $(date -u +%H:%MZ), commit $commit; load $load_before before,"
  echo "$load_after after; NVRTC's cache folder $nv_cache: $nv_before bytes"
  echo "before, $nv_after after."
  echo
  echo "| -j | compile phase s, best / median | speed-up (medians) | warm-up s, median (of it hidden) | compile wall s, median | whole run s, best / median |"
  echo "| --- | --- | --- | --- | --- | --- |"
  read -r _ one < <(stat 1 3) || true
  for n in $ns; do
    read -r pb pm < <(stat "$n" 3)
    read -r _ wm < <(stat "$n" 4)
    read -r _ hm < <(stat "$n" 5)
    read -r _ cm < <(stat "$n" 6)
    read -r ab am < <(stat "$n" 7)
    awk -v n="$n" -v pb="$pb" -v pm="$pm" -v one="${one:-0}" -v wm="$wm" \
      -v hm="$hm" -v cm="$cm" -v ab="$ab" -v am="$am" 'BEGIN {
        sp = one > 0 && pm > 0 ? sprintf("%.1fx", one / pm) : "-"
        printf "| %d | %.2f / %.2f | %s | %.3f (%.3f) | %.2f | %.2f / %.2f |\n",
          n, pb, pm, sp, wm, hm, cm, ab, am }'
  done
  echo
  echo "Every run: -j, run, phase s, warm-up s, hidden s, compile wall s,"
  echo "whole s, requests, compiled:"
  echo
  sed 's/^/    /' "$tmp/runs"
} >"$out"
