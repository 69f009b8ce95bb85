#!/usr/bin/env bash
# compile_speedup.sh -- how much faster the 94 GEMM candidates compile on N
# workers than on one (issue 13, part 1).  Runs the dry run of a config
# without the cache for N = 1, 2, 4, 8, 16 and every core (those the
# machine has), REPEAT times each, and writes a Markdown table of the best
# compile wall time (the summary line's) and the speed-up over N = 1.
#
#   scripts/compile_speedup.sh [TUNER [CONFIG [REPEAT [OUT]]]]
#
# Defaults: build/tuner, configs/gemm.cfg, 3, stdout.
set -eu
tuner=${1:-build/tuner}
cfg=${2:-configs/gemm.cfg}
repeat=${3:-3}
out=${4:-/dev/stdout}
cores=$(nproc)
ns=""
for n in 1 2 4 8 16 "$cores"; do
  [ "$n" -le "$cores" ] || continue
  case " $ns " in *" $n "*) ;; *) ns="$ns $n" ;; esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A best
for n in $ns; do
  for r in $(seq "$repeat"); do
    "$tuner" --config "$cfg" --dry-run --arch sm_90 --no-cache -q -j "$n" \
      >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    s=$(sed -n 's/.* compiled (.*) in \([0-9.]*\) s on .*/\1/p' "$tmp/err")
    [ -n "$s" ] || { echo "no summary line: $(cat "$tmp/err")" >&2; exit 1; }
    echo "N=$n run $r: $s s (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    if [ -z "${best[$n]:-}" ] || awk "BEGIN{exit !($s < ${best[$n]})}"; then
      best[$n]=$s
    fi
  done
done
{
  echo "Compile wall time, $cfg, --dry-run --arch sm_90 --no-cache, best of"
  echo "$repeat; $(hostname), $cores cores ($(nproc --all) online), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "| workers (-j) | compile wall s | speed-up over -j 1 |"
  echo "| --- | --- | --- |"
  for n in $ns; do
    awk -v n="$n" -v s="${best[$n]}" -v one="${best[1]}" \
      'BEGIN{printf "| %d | %.2f | %.1fx |\n", n, s, one / s}'
  done
} >"$out"
