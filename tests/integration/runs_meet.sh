#!/usr/bin/env bash
# Runs that meet (issue 31, part 4), against tests/fake_worker, no GPU.
#
# 1. Two runs of one config into one folder at once, and two predictions,
#    while every name those runs could want in the next 5 minutes
#    (<name>-<arch>-<UTC second>.json and .jsonl) is already another run's:
#    so they collide with those files for certain and with each other
#    whenever they start in the same second.  Each takes names of its
#    own, touches no other file, and its journal holds its run alone.
# 2. Two merges into one output.  With the folder's lock held (as a reader
#    of a whole header set holds it: flock DIR/.tuner.lock), a merge waits
#    and writes nothing meanwhile; then rounds of two merges of results
#    with different winners at once: after each, the per-architecture
#    header and the dispatch header name the same winner.
set -u
tuner=$1
fake=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cfg=$src/tests/fixtures/configs/cpu-fake.cfg
export TUNER_WORKER=$fake

# 1. the names taken by "other runs"
out=$tmp/out
mkdir -p "$out"
now=$(date -u +%s)
for s in $(seq 0 300); do
  stamp=$(date -u -d "@$((now + s))" +%Y%m%dT%H%M%SZ)
  echo "{\"other run\": $s}" >"$out/transpose-sm_90-$stamp.json"
  echo "{\"kind\": \"other run $s\"}" >"$out/transpose-sm_90-$stamp.jsonl"
done
(cd "$out" && md5sum -- *.json *.jsonl) >"$tmp/others.md5"

pids=()
for i in 1 2; do
  "$tuner" --config "$cfg" --no-prune -q --cache-dir "$tmp/cache" \
    -o "$out" >"$tmp/run$i.out" 2>"$tmp/run$i.err" &
  pids+=($!)
  "$tuner" --config "$cfg" --predict --arch sm_90 -q \
    --cache-dir "$tmp/cache" -o "$out" >"$tmp/predict$i.out" \
    2>"$tmp/predict$i.err" &
  pids+=($!)
done
for p in "${pids[@]}"; do
  wait "$p" || { echo "FAIL 1: a run (pid $p) exited $?"; fail=1; }
done
(cd "$out" && md5sum --quiet -c "$tmp/others.md5") >"$tmp/md5.out" 2>&1 ||
  { echo "FAIL 1: other runs' files changed:"; head -n 5 "$tmp/md5.out"
    fail=1; }
for f in run1 run2 predict1 predict2; do
  sed -n 's/^tuner: results: //p' "$tmp/$f.err"
done >"$tmp/named"
python3 - "$out" "$tmp/named" <<'PY' || fail=1
import glob, json, os, sys
out, named = sys.argv[1], [l.strip() for l in open(sys.argv[2])]
assert len(named) == 4 and len(set(named)) == 4, ("4 names", named)
mine = sorted(p for p in glob.glob(out + "/*.json")
              if "other run" not in open(p).read(20))
assert sorted(named) == mine, ("the names said", named, "written", mine)
journals = 0
for p in mine:
    d = json.load(open(p))
    jl = p + "l"
    if d["run"].get("predicted") or d.get("predicted"):
        assert not os.path.exists(jl), ("a prediction with a journal", jl)
        continue
    journals += 1
    lines = [json.loads(l) for l in open(jl)]
    runs = [l for l in lines if l["kind"] == "run"]
    assert len(runs) == 1 and lines[0]["kind"] == "run", (jl, len(runs))
    ids = [l["id"] for l in lines if l["kind"] == "candidate"]
    assert len(ids) == len(set(ids)), ("a candidate twice", jl, ids)
    measured = sorted(c["id"] for c in d["candidates"]
                      if c["status"] in ("ok", "wrong_result", "failed"))
    assert sorted(ids) == measured, (jl, sorted(ids), measured)
assert journals == 2, ("two runs' journals", journals)
print("ok 1: 2 runs and 2 predictions into one folder, every name of the "
      "next 5 minutes taken: 4 files of their own, 2 journals of one run "
      "each, no other file touched")
PY

# 2. results with another winner (6) beside run 1's (0)
x=$(sed -n 's/^tuner: results: //p' "$tmp/run1.err")
FAKE_WORKER_SCRIPT="6:fast" "$tuner" --config "$cfg" --no-prune -q \
  --cache-dir "$tmp/cache" -o "$tmp/y" >/dev/null 2>"$tmp/y.err" ||
  { echo "FAIL 2: the run of winner 6: $(cat "$tmp/y.err")"; fail=1; }
y=$(sed -n 's/^tuner: results: //p' "$tmp/y.err")
# the winner's rows_per_thread and pad as the two headers of DIR say them
winner() {
  local h d
  h=$(grep -E '^#define TRANSPOSE_SM_90_(ROWS_PER_THREAD|PAD) ' \
      "$1/sm_90/transpose.h" | head -n 2 | awk '{print $3}' | tr '\n' ' ')
  d=$(grep -E '^#define TRANSPOSE_SM_90_(ROWS_PER_THREAD|PAD) ' \
      "$1/transpose_dispatch.h" | head -n 2 | awk '{print $3}' | tr '\n' ' ')
  echo "$h/$d"
}
hdr=$tmp/held
mkdir -p "$hdr"
exec 9>"$hdr/.tuner.lock"
flock -x 9
"$tuner" merge -q -o "$hdr" "$x" >"$tmp/held.out" 2>&1 9>&- &
mpid=$!
ino=$(stat -c %i "$hdr/.tuner.lock")
waited=0
for i in $(seq 600); do  # a wait for an event, bounded; not a timer
  grep -qE -- "-> FLOCK .*:$ino " /proc/locks && { waited=1; break; }
  kill -0 "$mpid" 2>/dev/null || break  # it ended without waiting
  sleep 0.1
done
early=$(find "$hdr" -name '*.h' | wc -l)
exec 9>&-
wait "$mpid" || { echo "FAIL 2: the merge: $(cat "$tmp/held.out")"; fail=1; }
if [ $waited -eq 1 ] && [ "$early" -eq 0 ] &&
   [ "$(winner "$hdr")" = "4 0 /4 0 " ]; then
  echo "ok 2: a merge waited for the folder's lock, wrote nothing meanwhile," \
    "then its set"
else
  echo "FAIL 2: waited $waited, $early headers written while the lock was" \
    "held, winner $(winner "$hdr")"; fail=1
fi
race=$tmp/race
seen=""
mixed=0
for round in $(seq 10); do
  "$tuner" merge -q -o "$race" "$x" >"$tmp/mx.out" 2>&1 &
  a=$!
  "$tuner" merge -q -o "$race" "$y" >"$tmp/my.out" 2>&1 &
  b=$!
  wait "$a" || { echo "FAIL 2: merge of $x: $(cat "$tmp/mx.out")"; fail=1; }
  wait "$b" || { echo "FAIL 2: merge of $y: $(cat "$tmp/my.out")"; fail=1; }
  w=$(winner "$race")
  case $w in
    "4 0 /4 0 "|"8 1 /8 1 ") seen="$seen ${w%% *}" ;;
    *) echo "FAIL 2 round $round: a mixed set: arch/dispatch $w"; mixed=1 ;;
  esac
done
if [ $mixed -eq 0 ]; then
  echo "ok 2: 10 rounds of two merges at once, each set whole (rows:$seen)"
else
  fail=1
fi
exit $fail
