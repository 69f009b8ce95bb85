#!/usr/bin/env bash
# A described kernel end to end without a GPU (issue 34): the config and
# its .cu (tests/fixtures/configs/cpu-user.cfg), the probe of the kernel, NVRTC
# compiles, the fake worker timing it, then what a user gets: results with
# the kernel's description, headers in its parameters' names, a merge and
# a report made on a copy of the results where no .cu file is (another
# host), and results files that try to steer that reading refused.
set -u
tuner=$1
fake=$2
cfg=$3
case "$tuner" in /*) ;; *) tuner=$PWD/$tuner ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export TUNER_WORKER=$fake
export FAKE_WORKER_SCRIPT="3:fast"   # block_size=128 pad=1 wins
"$tuner" --config "$cfg" --cache-dir "$tmp/cache" -q --output "$tmp/run" \
  >"$tmp/run.out" 2>"$tmp/run.err" ||
  { echo "FAIL: the run exited $?"; cat "$tmp/run.err"; fail=1; }
results=$(ls "$tmp"/run/scale-*.json 2>/dev/null | grep -v jsonl | head -1)
[ -n "$results" ] || { echo "FAIL: no results file"; ls -R "$tmp"; exit 1; }
grep -q "declares no shared-memory plan" "$tmp/run.err" &&
  { echo "FAIL: a planned kernel said it had no plan"; fail=1; }
# the header: the user's parameter names, the winner's values
h="$tmp/run/sm_90/scale.h"
for want in "#define SCALE_BLOCK_SIZE 128" "#define SCALE_PAD 1" \
            "#define SCALE_SM_90_SIZE0_N 1048576"; do
  grep -qx "$want" "$h" || { echo "FAIL: $h lacks '$want'"; fail=1; }
done
python3 - "$results" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernel"]
assert k["symbol"] == "scale", k["symbol"]
assert 'name = "scale";' in k["config"], "the config is not kept"
assert d["family"] == "scale" and d["best"]["id"] == 3, d["best"]
assert d["reference_baseline"] == "memcpy", d.get("reference_baseline")
names = [p for p in d["candidates"][0]["params"]]
assert names == ["block_size", "pad"], names
PY
# another host: the results alone, no .cu file, no config
mkdir "$tmp/host2"
cp "$results" "$tmp/host2/"
( cd "$tmp/host2" &&
  "$tuner" merge ./*.json -o "$tmp/merged" -q >"$tmp/merge.out" \
    2>"$tmp/merge.err" ) ||
  { echo "FAIL: merge exited $?"; cat "$tmp/merge.err"; fail=1; }
d="$tmp/merged/scale_dispatch.h"
grep -qx "#define SCALE_SM_90_PAD 1" "$d" ||
  { echo "FAIL: $d lacks the winner"; fail=1; }
grep -q "#define block_size 128" "$d" ||
  { echo "FAIL: $d lacks the kernel's own macros"; fail=1; }
grep -q "templates/scale.cu" "$d" &&
  { echo "FAIL: $d sends the user to a template of ours"; fail=1; }
grep -q "the kernel scale reads (its parameters' names)" "$d" ||
  { echo "FAIL: $d does not say the macros are the kernel's"; fail=1; }
cc -x c -fsyntax-only -Wall -Werror "$d" ||
  { echo "FAIL: the dispatch header is not C"; fail=1; }
"$tuner" report "$tmp"/host2/*.json -o "$tmp/r.html" >/dev/null 2>"$tmp/r.err" ||
  { echo "FAIL: report exited $?"; cat "$tmp/r.err"; fail=1; }
# a results file that would read a file of the merging host's, or whose
# kernel is not a described one, is refused with exit 2
mkdir "$tmp/bad"
python3 - "$results" "$tmp/bad" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = dict(d, kernel=dict(d["kernel"]))
a["kernel"]["config"] = '@include "/etc/passwd"\n' + a["kernel"]["config"]
json.dump(a, open(sys.argv[2] + "/include.json", "w"))
b = dict(d, kernel=dict(d["kernel"]))
b["kernel"]["config"] = ('family = "transpose"; template = "t.cu"; '
                         'problem = { sizes = [64, 64]; }; space = {};')
json.dump(b, open(sys.argv[2] + "/shipped.json", "w"))
c = dict(d, kernel=dict(d["kernel"]))
c["kernel"]["config"] = c["kernel"]["config"].replace("block_size", "bs")
json.dump(c, open(sys.argv[2] + "/other.json", "w"))
PY
for f in include shipped; do
  "$tuner" merge "$tmp/bad/$f.json" -o "$tmp/m-$f" -q >/dev/null \
    2>"$tmp/$f.err"
  rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: merge of $f.json exited $rc"; fail=1; }
  grep -q "$f.json: kernel.config" "$tmp/$f.err" ||
    { echo "FAIL: $f.json not named:"; cat "$tmp/$f.err"; fail=1; }
  [ -e "$tmp/m-$f" ] && { echo "FAIL: merge of $f.json wrote"; fail=1; }
done
grep -q "includes no file" "$tmp/include.err" ||
  { echo "FAIL: the @include was not refused as such"; fail=1; }
# two files of kernels that differ cannot be merged into one header
"$tuner" merge "$results" "$tmp/bad/other.json" -o "$tmp/m-other" -q \
  >/dev/null 2>"$tmp/other.err"
[ $? -eq 2 ] || { echo "FAIL: two different kernels merged"; fail=1; }
# killed in the middle and resumed: the same results as the run above
FAKE_WORKER_DELAY_MS=200 FAKE_WORKER_LOG="$tmp/jobs.log" \
  "$tuner" --config "$cfg" --cache-dir "$tmp/cache" -q --output "$tmp/killed" \
  >/dev/null 2>&1 &
pid=$!
# (up to a minute: a loaded machine starts slowly; the kill must come
# after some candidates are measured, and before the last)
for _ in $(seq 600); do
  [ "$(grep -c "^candidate" "$tmp/jobs.log" 2>/dev/null || true)" -ge 3 ] 2>/dev/null && break
  sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
json=$(ls "$tmp"/killed/scale-*.json 2>/dev/null | grep -v jsonl | head -1)
if [ -z "$json" ]; then
  echo "FAIL: nothing written before the kill"; fail=1
else
  "$tuner" --config "$cfg" --cache-dir "$tmp/cache" -q --resume "$json" \
    >/dev/null 2>"$tmp/resume.err" ||
    { echo "FAIL: resume"; cat "$tmp/resume.err"; fail=1; }
  python3 - "$json" "$results" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
st = lambda d: {c["id"]: c["status"] for c in d["candidates"]}
assert st(a) == st(b), (st(a), st(b))
assert a["best"]["id"] == b["best"]["id"] == 3, (a["best"], b["best"])
assert a["run"]["resumed"] >= 1, a["run"]["resumed"]
PY
fi
# every GPU of the host: one worker each reads the kernel's description
FAKE_WORKER_DEVICES=2 "$tuner" --config "$cfg" --device all \
  --cache-dir "$tmp/cache" -q --output "$tmp/all" >/dev/null \
  2>"$tmp/all.err" || { echo "FAIL: --device all"; cat "$tmp/all.err"; fail=1; }
n=$(ls "$tmp"/all/scale-*.json 2>/dev/null | grep -vc jsonl)
[ "$n" -eq 2 ] || { echo "FAIL: --device all wrote $n results files"; fail=1; }
# without its plan: the summary says the model priced nothing, and the
# table shows no wavefronts rather than 0; a pad too large for static
# shared memory is no longer pruned before compiling, and its compile
# error says why (ptxas's log names no error)
cfgdir=$(cd "$(dirname "$cfg")" && pwd)
sed -e '/^plan = {/,/^};/d' -e 's/pad = \[0, 1\]/pad = [1, 16384]/' \
    -e "s|file = \"user/|file = \"$cfgdir/user/|" "$cfg" >"$tmp/noplan.cfg"
"$tuner" --config "$tmp/noplan.cfg" --dry-run --arch sm_90 -q \
  --cache-dir "$tmp/cache" >"$tmp/noplan.out" 2>"$tmp/noplan.err" ||
  { echo "FAIL: the dry run without a plan exited $?"; fail=1; }
grep -q "declares no shared-memory plan" "$tmp/noplan.err" ||
  { echo "FAIL: no word of the missing plan"; cat "$tmp/noplan.err"; fail=1; }
grep -qE '^ +2  block_size=128 pad=1 +compiled +- +- ' "$tmp/noplan.out" ||
  { echo "FAIL: wavefronts shown without a plan:"; cat "$tmp/noplan.out"
    fail=1; }
grep -A1 -E '^ +1  block_size=64 pad=16384 +compile_error ' "$tmp/noplan.out" |
  grep -q "ptxas gives scale 65792 bytes of static shared memory" ||
  { echo "FAIL: the compile error does not say why:"; cat "$tmp/noplan.out"
    fail=1; }
[ $fail -eq 0 ] && echo "user kernel: run, header, merge elsewhere, report, bad results, resume, every GPU: ok"
exit $fail
