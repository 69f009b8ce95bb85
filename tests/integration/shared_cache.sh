#!/usr/bin/env bash
# Several tuner processes share one compile cache and one output folder at
# once (dry runs, --predict, a run against tests/fake_worker), over several
# rounds, started together and waited for.  Afterwards every cache entry
# verifies (tests/check_cache) and every results file parses; then one
# entry is corrupted on purpose and the next run compiles it again (the
# stderr note, and compile.cached in its results).
set -u
tuner=$1
fake=$2
check=$3
src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=$tmp/cache
out=$tmp/out
small=$src/tests/fixtures/configs/fleet-small.cfg
fakecfg=$src/tests/fixtures/configs/cpu-fake.cfg
fail=0
rounds=3

for round in $(seq $rounds); do
  pids=()
  for i in 1 2; do
    "$tuner" --config "$small" --dry-run --arch sm_80 -q --cache-dir "$cache" \
      -o "$out" >"$tmp/dry-$round-$i.out" 2>&1 &
    pids+=($!)
    "$tuner" --config "$small" --predict --arch sm_80 -q --cache-dir "$cache" \
      -o "$out" >"$tmp/predict-$round-$i.out" 2>&1 &
    pids+=($!)
  done
  TUNER_WORKER=$fake "$tuner" --config "$fakecfg" --no-prune -q \
    --cache-dir "$cache" -o "$out" >"$tmp/fake-$round.out" 2>&1 &
  pids+=($!)
  for p in "${pids[@]}"; do
    wait "$p" || { echo "FAIL round $round: a run (pid $p) exited $?"; fail=1; }
  done
done
[ $fail -eq 0 ] || { tail -n 5 "$tmp"/*.out; exit 1; }

"$check" "$cache" || { echo "FAIL: the cache does not verify"; fail=1; }
n=$(find "$out" -name '*.json' | wc -l)
[ "$n" -ge 1 ] || { echo "FAIL: no results file"; fail=1; }
leftover=$(find "$out" -name '*.tmp.*' | wc -l)
[ "$leftover" -eq 0 ] || { echo "FAIL: $leftover temporaries left"; fail=1; }
find "$out" -name '*.json' -print0 |
  xargs -0 -n1 python3 -c 'import json,sys; json.load(open(sys.argv[1]))' ||
  { echo "FAIL: a results file does not parse"; fail=1; }
echo "ok: $rounds rounds, $n results files parse, the cache verifies"

# one entry corrupted: a byte of its CUBIN flipped, size unchanged.  In a
# cache of its own that only the config run below filled, so that the
# victim is one of its entries (the shared cache above also holds the fake
# worker's, and which entry sorts first changes with every key).
cache=$tmp/cache-one
"$tuner" --config "$small" --predict --arch sm_80 -q --cache-dir "$cache" \
  -o "$tmp/before" >"$tmp/before.out" 2>&1 ||
  { echo "FAIL: the run that fills the second cache"; cat "$tmp/before.out"; fail=1; }
victim=$(find "$cache" -name '*.tnc' | sort | head -n 1)
python3 - "$victim" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-1] ^= 0xff
open(p, "wb").write(b)
PY
"$check" "$cache" >/dev/null && { echo "FAIL: the checker passes a bad entry"; fail=1; }
rm -rf "$tmp/after"
"$tuner" --config "$small" --predict --arch sm_80 -q --cache-dir "$cache" \
  -o "$tmp/after" >"$tmp/after.out" 2>&1 ||
  { echo "FAIL: the run after the corruption"; cat "$tmp/after.out"; fail=1; }
grep -q "compile cache entry .* is bad" "$tmp/after.out" ||
  { echo "FAIL: no note about the bad entry"; cat "$tmp/after.out"; fail=1; }
python3 - "$tmp"/after/*.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
comp = [c["compile"] for c in d["candidates"] if "compile" in c]
fresh = [c for c in comp if not c["cached"]]
assert len(fresh) == 1, ("one candidate compiled afresh expected", len(fresh))
print("ok: the corrupted entry was compiled again (%d of %d from the cache)"
      % (len(comp) - 1, len(comp)))
PY
"$check" "$cache" || { echo "FAIL: the entry was not rewritten"; fail=1; }
exit $fail
