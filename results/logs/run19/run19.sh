#!/usr/bin/env bash
# Run 19 (issue 16, part 5): scripts/validate_model.sh on every shipped
# config, cheapest first, --no-prune / pruned / --predict and the check;
# after each config everything is packed into $OUT/run19.tgz.
# Usage: run19.sh BUDGET_S CONFIG...   (build first on a fresh machine)
set -u
F=/tmp/run19
mkdir -p $F
budget=$1; shift
pack() { tar czf "$OUT/run19.tgz.tmp" -C $F . && mv "$OUT/run19.tgz.tmp" "$OUT/run19.tgz"; }
[ -x build/tuner ] || bash scripts/gpu_runs.sh build >$F/build.log 2>&1
{ git log -1 --format=%H 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u +%FT%TZ; } >$F/environment.txt
t0=$(date +%s)
for c in "$@"; do
  left=$((budget - ($(date +%s) - t0)))
  [ $left -lt 40 ] && break
  RUNS=$F/runs CHECK=$F/check bash scripts/validate_model.sh --budget $left $c >>$F/validate.log 2>&1
  echo "rc=$? $c" >>$F/validate.log
  pack
done
pack
tail -60 $F/validate.log
