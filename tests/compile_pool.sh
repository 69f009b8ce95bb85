#!/usr/bin/env bash
# The compile pool (worker processes): the same registers and statuses as
# compiling in the tuner's own process; a worker that dies costs one
# candidate; a measured run benchmarks while the rest still compile.
set -u
tuner=$1
fake_compiler=$2
fake_worker=$3
src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cfg=$src/configs/transpose.cfg
small=$src/tests/configs/cpu-fake.cfg

# 1. workers vs this process: every row of the table (status, registers)
"$tuner" --config "$cfg" -n --arch sm_90 --no-cache -q -j 2 \
  >"$tmp/pool.out" 2>"$tmp/pool.err" ||
  { echo "FAIL: pool run: $(cat "$tmp/pool.err")"; fail=1; }
TUNER_COMPILER=none "$tuner" --config "$cfg" -n --arch sm_90 --no-cache -q \
  >"$tmp/self.out" 2>"$tmp/self.err" ||
  { echo "FAIL: in-process run: $(cat "$tmp/self.err")"; fail=1; }
grep -q "on 2 workers" "$tmp/pool.err" ||
  { echo "FAIL: not 2 workers: $(cat "$tmp/pool.err")"; fail=1; }
grep -q "on 1 workers" "$tmp/self.err" ||
  { echo "FAIL: not in-process: $(cat "$tmp/self.err")"; fail=1; }
n=$(grep -cE '^ +[0-9]+  .* compiled ' "$tmp/pool.out")
[ "$n" -gt 0 ] || { echo "FAIL: nothing compiled"; fail=1; }
diff "$tmp/self.out" "$tmp/pool.out" >"$tmp/diff" ||
  { echo "FAIL: the pool's table differs:"; cat "$tmp/diff"; fail=1; }

# 2. the workers store the cache: a second run compiles nothing, same table
"$tuner" --config "$cfg" -n --arch sm_90 --cache-dir "$tmp/cache" -q -j 2 \
  >/dev/null 2>&1 || { echo "FAIL: cached run 1"; fail=1; }
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
print("ok: candidate %s was benchmarked before candidate 15 compiled"
      % lines[first_bench][1])
PY

[ $fail -eq 0 ] && echo "ok: pool = in-process; a dead worker costs one candidate; compile overlaps benchmarking"
exit $fail
