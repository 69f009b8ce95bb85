#!/usr/bin/env bash
# The Slurm path of docs/fleet.md on a real single-node Slurm (Debian's
# slurmctld, slurmd, slurm-client and munge), started here: a fresh munge
# key and munged, a slurm.conf for this machine (its hostname and CPUs,
# ports of its own, state and pid files in a temporary folder), slurmctld
# and slurmd as root.  scripts/slurm/submit.sh submits the tuning array
# in prediction mode (GPUS=0; CI has no GPU) for sm_75, sm_80, sm_89 and
# sm_90 and the merge as a job depending on it; the test waits for them,
# checks every task and the merge completed, and that the merged headers
# exist, say where they came from, and compile.  Every daemon it started
# is stopped on the way out, failure or not.
#
# Usage: run_slurm_test.sh TUNER SOURCE_DIR
# Exit: 0 passed, 1 failed, 77 skipped (no Slurm or munge installed, or
# not root; scripts/deps.sh heavy installs them), 1 instead under CI (set
# to anything).  TUNER_KEEP_TMP=1 keeps the folder (logs) after a failure.
set -u
tuner=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)

skip() {
  if [ -n "${CI:-}" ]; then echo "FAIL under CI: $*"; exit 1; fi
  echo "SKIP: $*"
  exit 77
}
for cmd in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged; do
  command -v "$cmd" >/dev/null 2>&1 ||
    skip "$cmd is not installed (scripts/deps.sh heavy: apt-get install" \
         "slurmctld slurmd slurm-client munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root"

t0=$(date +%s)
tmp=$(mktemp -d /tmp/tuner-slurm-XXXXXX)
chmod 755 "$tmp"
fail=0
job_ids=()
pids=()

say() { echo "slurm-test [$(($(date +%s) - t0)) s]: $*"; }

cleanup() {
  local pid i
  if [ ${#job_ids[@]} -gt 0 ]; then
    scancel "${job_ids[@]}" >/dev/null 2>&1
  fi
  # the daemons this test started, newest first: SIGTERM, then SIGKILL
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[$i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null
  done
  if [ -f "$tmp/munge/munged.pid" ]; then
    pid=$(cat "$tmp/munge/munged.pid")
    kill -TERM "$pid" 2>/dev/null
  fi
  wait 2>/dev/null
  if [ $fail -ne 0 ] && [ -n "${TUNER_KEEP_TMP:-}" ]; then
    echo "slurm-test: kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT
trap 'fail=1; exit 1' INT TERM

die() {
  fail=1
  echo "FAIL: $*"
  for f in "$tmp"/log/*.log "$tmp"/results/logs/*/*.out; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 25 "$f"; }
  done
  exit 1
}

# a free TCP port on this machine, from a range of its own
free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

mkdir -p "$tmp/munge" "$tmp/log" "$tmp/state" "$tmp/spool" "$tmp/etc" \
  "$tmp/results"
chmod 700 "$tmp/munge"

# munge: a fresh key, its own socket
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge/munge.key"
munged --key-file="$tmp/munge/munge.key" \
  --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/log/munged.log" \
  --seed-file="$tmp/munge/munged.seed" --force ||
  die "munged did not start"
for _ in $(seq 50); do
  [ -S "$tmp/munge/munge.socket" ] && break
  sleep 0.1
done
[ -S "$tmp/munge/munge.socket" ] || die "no munge socket"

host=$(hostname -s)
cpus=$(nproc)
ctld_port=$(free_port) || die "no free port"
slurmd_port=$(free_port) || die "no free port"
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))
conf=$tmp/etc/slurm.conf
cat >"$conf" <<EOF
# One node, this machine, for tests/integration/slurm/run_slurm_test.sh.
ClusterName=tunertest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MinJobAge=600
KillWait=5
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=tuner Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf

slurmctld -D -f "$conf" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$conf" -N "$host" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
say "slurmctld and slurmd started (ports $ctld_port, $slurmd_port)"

# the node comes up idle
state=
for _ in $(seq 120); do
  state=$(sinfo -h -N -n "$host" -o '%T' 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || die "a Slurm daemon exited"
  done
  sleep 0.5
done
[ "$state" = idle ] || die "node $host is '$state', not idle"
say "node $host idle with $cpus CPUs"

# tonight: the array (predictions) and the dependent merge
cfg=$src/tests/fixtures/configs/fleet-small.cfg
out=$(TUNER="$tuner" TUNER_CONFIG="$cfg" \
  RESULTS_DIR="$tmp/results" GPUS=0 TUNER_ARCHS="sm_75 sm_80 sm_89 sm_90" \
  TUNER_NIGHT=test-night \
  TUNER_EXTRA_ARGS="--jobs 1 --no-cache" \
  bash "$src/scripts/slurm/submit.sh" 2>&1) || die "submit.sh: $out"
echo "$out"
array=$(printf '%s\n' "$out" | sed -n 's/^array \([0-9]*\) .*/\1/p')
merge=$(printf '%s\n' "$out" | sed -n 's/^merge \([0-9]*\)$/\1/p')
[ -n "$array" ] && [ -n "$merge" ] || die "no job ids in: $out"
job_ids=("$array" "$merge")
scontrol show job "$merge" | grep -q "Dependency=afterany:$array" ||
  scontrol show job "$merge" | grep -q "JobState=\(COMPLETED\|RUNNING\)" ||
  die "the merge does not depend on the array: $(scontrol show job "$merge")"

# wait for both to leave the queue
for _ in $(seq 600); do
  left=$(squeue -h -j "$array,$merge" -o '%i' 2>/dev/null | wc -l)
  [ "$left" -eq 0 ] && break
  sleep 1
done
[ "$left" -eq 0 ] || die "jobs still queued after 600 s: $(squeue)"
say "array $array and merge $merge done"
job_ids=()

# every task and the merge completed with exit 0
tasks=$(scontrol -o show job "$array" | grep -c 'ArrayTaskId=')
[ "$tasks" -eq 4 ] || die "$tasks array tasks, expected 4"
bad=$(scontrol -o show job "$array" | grep -v 'JobState=COMPLETED' || true)
[ -z "$bad" ] || die "array tasks not completed: $bad"
scontrol -o show job "$merge" | grep -q 'JobState=COMPLETED.*ExitCode=0:0' ||
  die "merge: $(scontrol -o show job "$merge")"
m_start=$(scontrol -o show job "$merge" | sed -n 's/.* StartTime=\([^ ]*\).*/\1/p')
a_end=$(scontrol -o show job "$array" | sed -n 's/.* EndTime=\([^ ]*\).*/\1/p' |
  sort | tail -1)
[[ "$m_start" > "$a_end" || "$m_start" == "$a_end" ]] ||
  die "the merge started ($m_start) before the array ended ($a_end)"

# what the night left on the shared folder
h=$tmp/results/headers
for arch in sm_75 sm_80 sm_89 sm_90; do
  ls "$tmp"/results/incoming/test-night/*/fleet_small-$arch-*.json \
    >/dev/null 2>&1 || die "no results for $arch"
  ls "$tmp"/results/history/*/$arch/predicted/fleet_small-$arch-*.json \
    >/dev/null 2>&1 || die "$arch not kept in the history"
  grep -q "FLEET_SMALL_${arch^^}_PREDICTED 1" "$h/$arch/fleet_small.h" ||
    die "$h/$arch/fleet_small.h: not there or not marked predicted"
done
grep -q '"predicted"' "$h/fleet_small_dispatch.h" ||
  die "no dispatch header"
cat >"$tmp/use.c" <<'EOF'
#include "fleet_small_dispatch.h"
int main(void) {
  const fleet_small_config *c = fleet_small_lookup("NVIDIA L4", 8, 9);
  const fleet_small_config *o = fleet_small_lookup(NULL, 8, 6);
  return c->cc_major == 8 && c->cc_minor == 9 && o->cc_minor == 0 &&
         FLEET_SMALL_SM_90_PREDICTED == 1 ? 0 : 1;
}
EOF
cc -std=c11 -Wall -Werror -I"$h" -o "$tmp/use" "$tmp/use.c" && "$tmp/use" ||
  die "the merged dispatch header does not compile or look up"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
  printf '%s\n' '#include "fleet_small_dispatch.h"' \
    '__global__ void k(float *x) {' \
    '  __shared__ float s[FLEET_SMALL_TILE * (FLEET_SMALL_TILE + FLEET_SMALL_PAD)];' \
    '  s[threadIdx.x] = x[threadIdx.x]; __syncthreads();' \
    '  x[threadIdx.x] = s[FLEET_SMALL_TILE - 1 - threadIdx.x % FLEET_SMALL_TILE];' \
    '}' >"$tmp/use.cu"
  "$nvcc" -arch=sm_80 -I"$h" -c -o "$tmp/use.o" "$tmp/use.cu" ||
    die "nvcc: the dispatch header in a kernel"
fi
ls "$tmp"/results/logs/test-night/tuner-tune-*.out >/dev/null 2>&1 ||
  die "no task logs"

say "ok: Slurm array of 4 predictions and the dependent merge"
exit 0
