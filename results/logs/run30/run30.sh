#!/usr/bin/env bash
# Run 30 (issue 16, part 5): scripts/validate_model.sh's stages on the
# H200 for the configs named, into a fresh scratch folder; with NOPRUNE_IN
# a folder of gzipped --no-prune runs made earlier the same day
# (<config>/noprune-*.json.gz) is carried in first, so that only the later
# stages run.  Packs everything into $OUT/$R.tgz after each config.
# Usage: [RUN=N] [STAGES=noprune|"pruned predict check"] [NOPRUNE_IN=DIR]
#        run30.sh BUDGET_S CONFIG...   (builds first on a fresh machine)
set -u
R=run${RUN:-30}
F=/tmp/$R
mkdir -p $F/runs $F/check
budget=$1; shift
stages=${STAGES:-noprune}
pack() { tar czf "$OUT/$R.tgz.tmp" -C $F . && mv "$OUT/$R.tgz.tmp" "$OUT/$R.tgz"; }
if [ -n "${NOPRUNE_IN:-}" ]; then
  for g in "$NOPRUNE_IN"/*/noprune-*.json.gz; do
    c=$(basename "$(dirname "$g")"); mkdir -p $F/runs/$c/noprune
    b=$(basename "$g" .gz); gunzip -c "$g" >$F/runs/$c/noprune/$b
  done
fi
[ -x build/tuner ] || bash scripts/gpu_runs.sh build >$F/build.log 2>&1
{ echo "tree ${TREE:-unknown} (the device copy's .git is stale)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u +%FT%TZ; } >$F/environment.txt
t0=$(date +%s)
for c in "$@"; do
  left=$((budget - ($(date +%s) - t0)))
  [ $left -lt 40 ] && break
  targets=()
  for s in $stages; do targets+=("$c:$s"); done
  RUNS=$F/runs CHECK=$F/check bash scripts/validate_model.sh --budget $left \
    "${targets[@]}" >>$F/validate.log 2>&1
  echo "rc=$? $c" >>$F/validate.log
  pack
done
pack
grep -E "^=== |^\| [0-9]|model_check.py:|rc=|exit" $F/validate.log | tail -80
