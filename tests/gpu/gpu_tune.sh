#!/usr/bin/env bash
# On a GPU: a whole tuning run with --no-prune on odd sizes; every candidate
# is verified (none may be wrong), a winner and its header are written, and
# the header compiles.
set -u
tuner=$1
cfg=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$tuner" --config "$cfg" --device 0 --no-prune --no-cache -q --output "$tmp/out" \
  >"$tmp/table" 2>"$tmp/err"
rc=$?
cat "$tmp/table" "$tmp/err"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
json=$(ls "$tmp"/out/*.json | head -1)
python3 - "$json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
c = d["candidates"]
bad = [x for x in c if x["status"] in ("wrong_result", "failed", "compile_error")]
ok = [x for x in c if x["status"] == "ok"]
assert not bad, f"candidates not ok: {[(x['id'], x['status'], x.get('reason')) for x in bad]}"
assert ok, "no candidate was timed"
assert d["best"] and d["best"]["id"] in [x["id"] for x in ok]
assert d["baselines"][0]["name"] == "memcpy" and d["baselines"][0]["median_ms"] > 0
assert all(x["median_ms"] > 0 for x in ok)
print(f"ok: {len(ok)} candidates verified and timed; best {d['best']['params']}")
PY
hdr=$(ls "$tmp"/out/sm_*/*.h | head -1)
# the header's macros are named by the job: TRANSPOSE_BATCHED_TILE
macro=$(python3 -c 'import json, re, sys
print(re.sub("[^A-Z0-9]", "_", json.load(open(sys.argv[1]))["name"].upper()))' \
        "$json")
printf '#include "%s"\nint x = %s_TILE;\n' "$hdr" "$macro" > "$tmp/use.c"
cc -std=c11 -Wall -Werror -c "$tmp/use.c" -o "$tmp/use.o" || fail=1
exit $fail
