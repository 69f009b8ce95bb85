# gpu_lib.sh -- what the scripts run on the GPU machine share: the
# budget, a step under a timeout within it, the packing into $OUT, the
# environment.txt that says what a run ran on, the nvidia-smi sampler.
# Sourced, never run, from the repository root:
#
#   . "$(dirname "$0")/gpu_lib.sh"
#
# then the settings below set as the script needs (the defaults are set
# when this is sourced, so source it first).  It sets no shell options.
#
#   gpu_t0        the start (date +%s; default: when this was sourced)
#   gpu_budget    seconds the whole script has (0: no limit)
#   gpu_margin    seconds a step leaves of the budget for the packing
#   gpu_min       a step that would have fewer seconds is skipped (1:
#                 none is)
#   gpu_logs      the folder of the steps' logs, NAME.log each
#   gpu_summary   the file the steps' lines go into ('' : none)
#   gpu_table     the width of the step's name in a summary line; 0: the
#                 script writes its own lines (say), and a skipped step
#                 is said in words
#   gpu_tail      a header before each step and this many of its log's
#                 last lines after it on stdout (0: quiet)
#   gpu_pack_each 1: pack after each step, so a killed call keeps what
#                 was done
#   gpu_work      the folder the archives are made from
#   gpu_pack      the archives, each a list of words (split on blanks,
#                 never globbed): ARCHIVE TAR-ARG... makes $OUT/ARCHIVE
#                 from gpu_work, a part that is not there left out
#   gpu_copy      files copied into $OUT as they are, those that exist
#
# step sets status=1 (the script's) when a step fails or is skipped, and
# step_rc and step_s (its exit status and seconds) after each.
# shellcheck shell=bash disable=SC2034 # status, step_rc, step_s: the caller's

gpu_t0=$(date +%s)
gpu_budget=0
gpu_margin=0
gpu_min=1
gpu_logs=.
gpu_summary=
gpu_table=0
gpu_tail=0
gpu_pack_each=0
gpu_work=.
gpu_pack=()
gpu_copy=()
gpu_smi=

# seconds since the start
elapsed() { echo $(($(date +%s) - gpu_t0)); }
# seconds left of the budget (a great many without one)
left() {
  if [ "$gpu_budget" -eq 0 ]; then
    echo 999999
    return
  fi
  echo $((gpu_t0 + gpu_budget - $(date +%s)))
}
# secs_for CAP: seconds for a command that wants CAP, the margin kept; at
# least 1 (timeout 0 would be no timeout)
secs_for() {
  local t=$(($(left) - gpu_margin))
  [ "$t" -gt "$1" ] && t=$1
  echo $((t > 1 ? t : 1))
}
# banner NAME [NOTE]: a step's header on stdout
banner() {
  echo "=== $1 ($(date -u +%FT%TZ), $(elapsed) s in${2:+, $2})"
}
# say LINE...: on stdout and into the summary
say() {
  if [ -n "$gpu_summary" ]; then
    echo "$*" | tee -a "$gpu_summary"
  else
    echo "$*"
  fi
}
# summary_line NAME SECONDS RC [NOTE]: a step's line in the summary's table
summary_line() {
  printf '%-*s %4ss  rc=%d%s\n' "$gpu_table" "$1" "$2" "$3" "${4:-}" \
    >>"$gpu_summary"
}

# step NAME CAP COMMAND...: COMMAND under a timeout of CAP seconds or
# what the budget has left less the margin, whichever is less (killed 10 s
# after the TERM if it ignores it); its output in gpu_logs/NAME.log after
# the command line, with its exit status and seconds at the end.  Returns
# the command's status, 124 where the step had too little time to start.
step() {
  local name=$1 cap=$2 t s0 log=$gpu_logs/$1.log
  shift 2
  t=$(secs_for "$cap")
  if [ "$t" -lt "$gpu_min" ]; then
    step_rc=124 step_s=0 status=1
    if [ "$gpu_table" -gt 0 ]; then
      printf '%-*s skipped: %ss of the budget left\n' "$gpu_table" \
        "$name" "$(left)" >>"$gpu_summary"
    else
      say "step $name: not run, $(left) s left of the budget"
    fi
    return $step_rc
  fi
  [ "$gpu_tail" -gt 0 ] && banner "$name" "at most $t s"
  echo "command: $*" >"$log"
  s0=$(date +%s)
  timeout -k 10 "$t" "$@" >>"$log" 2>&1
  step_rc=$?
  step_s=$(($(date +%s) - s0))
  echo "exit: $step_rc after $step_s s" >>"$log"
  [ $step_rc -ne 0 ] && status=1
  [ "$gpu_table" -gt 0 ] && summary_line "$name" "$step_s" "$step_rc" \
    "$([ $step_rc -eq 124 ] && echo " (timed out at ${t}s)")"
  [ "$gpu_tail" -gt 0 ] && tail -n "$gpu_tail" "$log"
  [ "$gpu_pack_each" = 1 ] && pack
  return $step_rc
}

# pack: gpu_copy copied into $OUT, each of gpu_pack's archives made there
# (tar's complaints left out: the sampler's clocks.csv grows while it
# reads).  Fails where an archive could not be made whole.
pack() {
  local f spec args a parts rc=0
  for f in "${gpu_copy[@]}"; do
    [ -f "$f" ] && cp "$f" "$OUT/"
  done
  for spec in "${gpu_pack[@]}"; do
    # to the end (a spec may span lines), not to the first newline
    read -r -d '' -a args <<<"$spec" || true
    parts=()
    for a in "${args[@]:1}"; do
      case $a in
      -*) parts+=("$a") ;;
      *) [ -e "$gpu_work/$a" ] && parts+=("$a") ;;
      esac
    done
    tar czf "$OUT/${args[0]}" -C "$gpu_work" "${parts[@]}" 2>/dev/null ||
      rc=1
  done
  return $rc
}

# source_deps: the carried libraries (.deps, DESIGN.md "Building on the
# GPU machine"), for the build and for the tuner that loads them
source_deps() {
  if [ -f .deps/env.sh ]; then
    # shellcheck disable=SC1091
    source .deps/env.sh
  else
    echo "note: no .deps/env.sh: the machine's own packages"
  fi
}

# environment FILE: what the run ran on: the tree (TREE where the
# machine's .git is stale), the start, the host and its cores, the GPU,
# the toolkit and Nsight Compute; environment_end FILE adds the end
environment() {
  {
    echo "tree ${TREE:-$(git log -1 --format='%H %s' 2>/dev/null ||
      echo unknown)}"
    echo "start $(date -u +%FT%TZ)"
    echo "host $(hostname), $(nproc) cores"
    timeout 30 nvidia-smi --format=csv,noheader \
      --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm
    timeout 30 nvidia-smi
    timeout 30 nvcc --version | tail -2
    timeout 30 ncu --version | tail -1
  } >"$1" 2>&1
}
environment_end() {
  echo "end $(date -u +%FT%TZ), $(elapsed) s" >>"$1"
}

# sampler_start FILE [CAP]: nvidia-smi's SM clock, power, temperature and
# clock event reasons of GPU 0 every 500 ms into FILE, in the background
# until sampler_stop (or CAP seconds or the budget less the margin)
sampler_start() {
  local reasons=clocks_throttle_reasons.active
  # clocks_event_reasons since driver 535, clocks_throttle_reasons before
  # (grep reads it all: no SIGPIPE for pipefail to see)
  timeout 10 nvidia-smi --help-query-gpu 2>/dev/null |
    grep clocks_event_reasons.active >/dev/null &&
    reasons=clocks_event_reasons.active
  timeout -k 5 "$(secs_for "${2:-999999}")" nvidia-smi --id=0 \
    --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,enforced.power.limit,temperature.gpu,$reasons \
    --format=csv -lms 500 >"$1" 2>&1 &
  gpu_smi=$!
}
sampler_stop() {
  if [ -n "$gpu_smi" ]; then
    kill "$gpu_smi" 2>/dev/null
    wait "$gpu_smi" 2>/dev/null
  fi
  gpu_smi=
}
# sampler_readings FILE: how many readings, the least and greatest SM MHz
sampler_readings() {
  echo "$(basename "$1"): $(($(wc -l <"$1") - 1)) readings; SM MHz" \
    "least and greatest: $(awk -F', ' 'NR > 1 && $2 + 0 > 0 {
      v = $2 + 0; if (!n++ || v < lo) lo = v; if (v > hi) hi = v }
      END { print lo + 0, hi + 0 }' "$1")"
}
