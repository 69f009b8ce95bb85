#!/usr/bin/env bash
# submit.sh -- submits a night of fleet tuning to Slurm: the tuning job
# array(s) (scripts/slurm/tune-array.sbatch) and the merge that depends on
# them (scripts/slurm/merge.sbatch, --dependency=afterany:...).  Prints
# "array JOBID" per array and "merge JOBID".  See docs/fleet.md.
#
#   TUNER_CONFIG=/shared/configs/transpose.cfg RESULTS_DIR=/shared/tuning \
#     TUNER_GPU_TYPES="t4:sm_75 a100:sm_80 l4:sm_89 h100:sm_90" \
#     scripts/slurm/submit.sh
#
# Variables:
#   TUNER_CONFIG, RESULTS_DIR   required (on a folder every node sees)
#   TUNER            the tuner binary (default: tuner on PATH, made absolute)
#   GPUS             GPUs per task (default 1); 0: no GPUs, every task
#                    predicts for one of TUNER_ARCHS (what CI runs)
#   TUNER_GPU_TYPES  with GPUS>0: "TYPE:sm_XX ...", one array per GPU type,
#                    each task asking --gres=gpu:TYPE:GPUS; an entry
#                    "feature=NAME:sm_XX" asks --constraint=NAME
#                    --gres=gpu:GPUS instead.  Empty: one array of
#                    TASKS_PER_TYPE tasks on any GPU (--gres=gpu:GPUS)
#   TUNER_ARCHS      with GPUS=0: the architectures to predict
#                    (default "sm_75 sm_80 sm_89 sm_90")
#   TASKS_PER_TYPE   tasks (nodes) per GPU type (default 1)
#   TUNER_NIGHT      the night's name (default: today, UTC)
#   SBATCH_ARGS      more sbatch options for every job (partition, account,
#                    time limit, ...)
#   TUNER_FAIL_ON_REGRESSION, HEADERS_DIR, TUNER_EXTRA_ARGS,
#   TUNER_CACHE_DIR  passed on to the jobs
#   TUNER_CACHE_KEY  passed on: the key of a shared cache (docs/fleet.md)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

: "${TUNER_CONFIG:?set TUNER_CONFIG to the config file}"
: "${RESULTS_DIR:?set RESULTS_DIR to the shared results folder}"
TUNER=${TUNER:-$(command -v tuner || true)}
if [ -z "$TUNER" ] || [ ! -x "$TUNER" ]; then
  echo "submit: no tuner binary: set TUNER" >&2
  exit 2
fi
TUNER=$(cd "$(dirname "$TUNER")" && pwd)/$(basename "$TUNER")
TUNER_CONFIG=$(cd "$(dirname "$TUNER_CONFIG")" && pwd)/$(basename "$TUNER_CONFIG")
mkdir -p "$RESULTS_DIR"
RESULTS_DIR=$(cd "$RESULTS_DIR" && pwd)
GPUS=${GPUS:-1}
TUNER_NIGHT=${TUNER_NIGHT:-$(date -u +%Y-%m-%d)}
TASKS_PER_TYPE=${TASKS_PER_TYPE:-1}
export TUNER TUNER_CONFIG RESULTS_DIR GPUS TUNER_NIGHT
logs=$RESULTS_DIR/logs/$TUNER_NIGHT
mkdir -p "$logs" "$RESULTS_DIR/incoming/$TUNER_NIGHT"
read -r -a common <<<"${SBATCH_ARGS:-}"

ids=()
submit_array() { # ARCHS N SBATCH-OPTIONS...
  local archs=$1 n=$2 id
  shift 2
  id=$(TUNER_ARCHS=$archs sbatch --parsable --array=0-$((n - 1)) \
    --export=ALL --output="$logs/%x-%A_%a.out" "${common[@]}" "$@" \
    "$here/tune-array.sbatch")
  id=${id%%;*}
  ids+=("$id")
  echo "array $id $archs"
}

if [ "$GPUS" -eq 0 ]; then
  archs=${TUNER_ARCHS:-sm_75 sm_80 sm_89 sm_90}
  read -r -a list <<<"$archs"
  submit_array "$archs" "${#list[@]}" --cpus-per-task=1
elif [ -z "${TUNER_GPU_TYPES:-}" ]; then
  submit_array "${TUNER_ARCHS:-}" "$TASKS_PER_TYPE" --gres="gpu:$GPUS"
else
  for entry in $TUNER_GPU_TYPES; do
    type=${entry%:*}
    arch=${entry##*:}
    if [ "$type" = "$entry" ] || [ -z "$arch" ]; then
      echo "submit: TUNER_GPU_TYPES entry '$entry': expected TYPE:sm_XX" >&2
      exit 2
    fi
    if [ "${type#feature=}" != "$type" ]; then
      submit_array "$arch" "$TASKS_PER_TYPE" --constraint="${type#feature=}" \
        --gres="gpu:$GPUS"
    else
      submit_array "$arch" "$TASKS_PER_TYPE" --gres="gpu:$type:$GPUS"
    fi
  done
fi

dep=afterany
for id in "${ids[@]}"; do
  dep=$dep:$id
done
id=$(sbatch --parsable --dependency="$dep" --kill-on-invalid-dep=yes \
  --export=ALL --output="$logs/%x-%j.out" "${common[@]}" \
  "$here/merge.sbatch")
echo "merge ${id%%;*}"
