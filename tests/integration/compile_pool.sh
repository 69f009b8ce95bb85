#!/usr/bin/env bash
# The compile pool (worker processes): the same registers and statuses as
# compiling in the tuner's own process; a worker that dies costs one
# candidate; a measured run benchmarks while the rest still compile; a run
# that will compile starts its workers, warm, before the first request,
# and no more than --jobs; a run served from the cache starts none, and
# one miss starts one.
set -u
tuner=$1
fake_compiler=$2
fake_worker=$3
src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cfg=$src/configs/transpose.cfg
small=$src/tests/fixtures/configs/cpu-fake.cfg

# 1. workers vs this process: every row of the table (status, registers);
# the workers' run starts from an empty cache, so it compiles everything
# too, and stores it for part 2
"$tuner" --config "$cfg" -n --arch sm_90 --cache-dir "$tmp/cache" -q -j 2 \
  >"$tmp/pool.out" 2>"$tmp/pool.err" ||
  { echo "FAIL: pool run: $(cat "$tmp/pool.err")"; fail=1; }
TUNER_COMPILER=none "$tuner" --config "$cfg" -n --arch sm_90 --no-cache -q \
  >"$tmp/self.out" 2>"$tmp/self.err" ||
  { echo "FAIL: in-process run: $(cat "$tmp/self.err")"; fail=1; }
grep -q "on 2 workers" "$tmp/pool.err" ||
  { echo "FAIL: not 2 workers: $(cat "$tmp/pool.err")"; fail=1; }
grep -q "on 1 worker;" "$tmp/self.err" ||
  { echo "FAIL: not in-process: $(cat "$tmp/self.err")"; fail=1; }
n=$(grep -cE '^ +[0-9]+  .* compiled ' "$tmp/pool.out")
[ "$n" -gt 0 ] || { echo "FAIL: nothing compiled"; fail=1; }
diff "$tmp/self.out" "$tmp/pool.out" >"$tmp/diff" ||
  { echo "FAIL: the pool's table differs:"; cat "$tmp/diff"; fail=1; }

# 2. the workers stored the cache: a second run compiles nothing, same
# table
entries=$(find "$tmp/cache" -name '*.tnc' | wc -l)
[ "$entries" -eq "$n" ] ||
  { echo "FAIL: $entries cache entries for $n compiled"; fail=1; }
"$tuner" --config "$cfg" -n --arch sm_90 --cache-dir "$tmp/cache" -q -j 2 \
  >"$tmp/cached.out" 2>"$tmp/cached.err" || { echo "FAIL: cached run 2"; fail=1; }
grep -q "($n from the cache, 0 failed)" "$tmp/cached.err" ||
  { echo "FAIL: not from the cache: $(cat "$tmp/cached.err")"; fail=1; }
diff "$tmp/self.out" "$tmp/cached.out" >/dev/null ||
  { echo "FAIL: the cached table differs"; fail=1; }
left=$(find "$tmp/cache" -type f ! -name '*.tnc' | wc -l)
[ "$left" -eq 0 ] || { echo "FAIL: $left temporaries left in the cache"; fail=1; }

# 3. a worker aborts on candidate 5: it alone fails, the run goes on
TUNER_COMPILER=$fake_compiler FAKE_COMPILER_ABORT=5 \
  "$tuner" --config "$small" -n --arch sm_90 --no-prune --no-cache -q -j 2 \
  >"$tmp/crash.out" 2>"$tmp/crash.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: crash run: exit $rc: $(cat "$tmp/crash.err")"; fail=1; }
grep -qE '^ +5  .* compile_error ' "$tmp/crash.out" ||
  { echo "FAIL: candidate 5 not a compile error"; cat "$tmp/crash.out"; fail=1; }
grep -q 'the compile worker died of signal 6 (Aborted) while compiling it' \
  "$tmp/crash.out" || { echo "FAIL: no reason for 5"; fail=1; }
ok=$(grep -cE '^ +[0-9]+  .* compiled ' "$tmp/crash.out")
[ "$ok" -eq 15 ] || { echo "FAIL: $ok of 15 others compiled"; fail=1; }
grep -q "(0 from the cache, 1 failed)" "$tmp/crash.err" ||
  { echo "FAIL: summary: $(cat "$tmp/crash.err")"; fail=1; }

# 4. overlap: candidate 15 compiles only once a candidate is benchmarked;
# compiling everything first would hold it 120 s and break the order
log=$tmp/order.log
TUNER_WORKER=$fake_worker TUNER_COMPILER=$fake_compiler \
  FAKE_WORKER_SCRIPT="" FAKE_WORKER_LOG=$log FAKE_COMPILER_LOG=$log \
  FAKE_COMPILER_GATE="15:$log" \
  "$tuner" --config "$small" --no-prune --no-cache -q -j 1 -o "$tmp/run" \
  >"$tmp/run.out" 2>"$tmp/run.err" ||
  { echo "FAIL: overlapped run: $(cat "$tmp/run.err")"; fail=1; }
python3 - "$log" "$tmp"/run/*.json <<'PY' || fail=1
import json, sys
lines = [l.split() for l in open(sys.argv[1])]
order = [" ".join(l) for l in lines]
first_bench = next(i for i, l in enumerate(lines) if l[0] == "candidate")
last_compile = order.index("compile 15")
assert first_bench < last_compile, order
assert order.count("compile 15") == 1
d = json.load(open(sys.argv[2]))
st = {c["id"]: c["status"] for c in d["candidates"]}
assert all(st[i] == "ok" for i in range(16)), st
assert d["run"]["compile"]["compiled"] == 16, d["run"]["compile"]
tr = d["run"]["compile"]["trace"]
# -j 1 --no-cache: the one worker started at once and warmed up first
assert tr["started"] == 1 and tr["warmed"] == 1, tr
assert tr["requests"] == 16 and tr["phase_s"] > 0, tr
cost = d["run"]["cost"]
assert 0 <= cost["compile_warmup_s"] <= cost["compile_warmup_overlapped_s"], cost
print("ok: candidate %s was benchmarked before candidate 15 compiled"
      % lines[first_bench][1])
PY

# 5. the pool starts before the first request, warm, and no more workers
# than --jobs: a run that will compile (no cache, or an empty one) starts
# them while the space is built; the fake compiler logs each start
trace() { # trace ERRFILE STARTSFILE WORKERS WARMED COMPILED: check -v's line
  python3 - "$@" <<'PY'
import re, sys
err, starts, want_started, want_warmed, want_compiled = sys.argv[1:]
text = open(err).read()
line = next(l for l in text.splitlines() if "compile trace:" in l)
kv = dict(re.findall(r"(\w+)=([-0-9.]+)", line))
try:
    n = sum(1 for l in open(starts))
except FileNotFoundError:
    n = 0
assert n == int(want_started), ("processes started", n, line)
assert int(kv["started"]) == n, line
assert int(kv["warmed"]) == int(want_warmed), line
assert int(kv["requests"]) == int(want_compiled), line
if int(want_warmed) > 0:
    # forked, and asked to warm up, before the first source was sent
    assert float(kv["pool_start"]) < float(kv["first_request"]), line
    assert float(kv["warm_start"]) < float(kv["first_request"]), line
PY
}
starts=$tmp/starts.log
for how in "--no-cache" "--cache-dir $tmp/empty-cache"; do
  rm -f "$starts"
  # shellcheck disable=SC2086 # $how is two words
  TUNER_COMPILER=$fake_compiler FAKE_COMPILER_STARTS=$starts \
    "$tuner" --config "$small" -n --arch sm_90 --no-prune $how -q -v -j 3 \
    >/dev/null 2>"$tmp/early.err" ||
    { echo "FAIL: early run ($how): $(cat "$tmp/early.err")"; fail=1; }
  trace "$tmp/early.err" "$starts" 3 3 16 ||
    { echo "FAIL: early start ($how): $(grep trace "$tmp/early.err")"; fail=1; }
done

# 6. a run served from the cache starts no worker; one that misses once
# starts one, for that request, without a warm-up
rm -f "$starts"
TUNER_COMPILER=$fake_compiler FAKE_COMPILER_STARTS=$starts \
  "$tuner" --config "$small" -n --arch sm_90 --no-prune \
  --cache-dir "$tmp/empty-cache" -q -v -j 3 >/dev/null 2>"$tmp/hit.err" ||
  { echo "FAIL: cached run: $(cat "$tmp/hit.err")"; fail=1; }
grep -q "(16 from the cache, 0 failed)" "$tmp/hit.err" ||
  { echo "FAIL: not from the cache: $(cat "$tmp/hit.err")"; fail=1; }
trace "$tmp/hit.err" "$starts" 0 0 0 ||
  { echo "FAIL: a cached run started workers"; fail=1; }
rm -f "$(find "$tmp/empty-cache" -name '*.tnc' | head -1)"
TUNER_COMPILER=$fake_compiler FAKE_COMPILER_STARTS=$starts \
  "$tuner" --config "$small" -n --arch sm_90 --no-prune \
  --cache-dir "$tmp/empty-cache" -q -v -j 3 >/dev/null 2>"$tmp/miss.err" ||
  { echo "FAIL: one-miss run: $(cat "$tmp/miss.err")"; fail=1; }
grep -q "(15 from the cache, 0 failed)" "$tmp/miss.err" ||
  { echo "FAIL: not one miss: $(cat "$tmp/miss.err")"; fail=1; }
trace "$tmp/miss.err" "$starts" 1 0 1 ||
  { echo "FAIL: one miss, not one worker: $(grep trace "$tmp/miss.err")"; fail=1; }

[ $fail -eq 0 ] && echo "ok: pool = in-process; a dead worker costs one candidate; compile overlaps benchmarking; workers start warm before the first request, at most --jobs, none for a cached run"
exit $fail
