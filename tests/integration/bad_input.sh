#!/usr/bin/env bash
# Bad input of issue 14's kinds 2, 4, 5 and 7 stops the run with exit 2 and
# a message naming the place, before any work: the fake worker
# (tests/fake_worker, through TUNER_WORKER) writes a marker when it starts,
# and for what can be known without a device it must never start; the output
# folder is untouched; on this GPU-less machine nothing gives exit 3.
#   bad_input.sh TUNER FAKE_WORKER SRC
set -u
tuner=$1
fake=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
export TUNER_WORKER=$fake
export FAKE_WORKER_STARTED=$tmp/started
export FAKE_WORKER_LOG=$tmp/jobs.log
cfg=$src/tests/fixtures/configs/cpu-fake.cfg
cache=$tmp/cache

# a listing of a folder with every file's checksum ("absent" if none)
snap() {
  if [ -e "$1" ]; then
    (cd "$1" && find . -printf '%p %y\n' | sort &&
      find . -type f -exec md5sum {} + | sort)
  else
    echo absent
  fi
}

# expect NAME PLACE WATCH MAY_START -- ARGS...: exit 2, PLACE in the
# message, WATCH (a folder or file) unchanged, and the worker never started
# (MAY_START=start: it may start, but no job reaches it).
expect() {
  local name=$1 place=$2 watch=$3 may=$4
  shift 5
  local before after rc
  n=$((n + 1))
  rm -f "$FAKE_WORKER_STARTED" "$FAKE_WORKER_LOG"
  before=$(snap "$watch")
  "$tuner" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  after=$(snap "$watch")
  if [ $rc -ne 2 ]; then
    echo "FAIL $name: exit $rc, expected 2: $(cat "$tmp/err")"; fail=1
  fi
  if ! grep -qF -- "$place" "$tmp/err"; then
    echo "FAIL $name: the message does not name '$place': $(cat "$tmp/err")"
    fail=1
  fi
  if [ "$before" != "$after" ]; then
    echo "FAIL $name: $watch changed"; diff <(echo "$before") <(echo "$after")
    fail=1
  fi
  if [ "$may" != start ] && [ -e "$FAKE_WORKER_STARTED" ]; then
    echo "FAIL $name: the worker was started for bad input"; fail=1
  fi
  if [ -s "$FAKE_WORKER_LOG" ]; then
    echo "FAIL $name: the worker was given jobs: $(head -3 "$FAKE_WORKER_LOG")"
    fail=1
  fi
}

# a finished run to resume, and a config of another problem (same family
# and space)
"$tuner" --config "$cfg" --cache-dir "$cache" -q --output "$tmp/good" \
  >/dev/null 2>"$tmp/good.err" ||
  { echo "FAIL: the good run: $(cat "$tmp/good.err")"; exit 1; }
json=$(ls "$tmp"/good/*.json | head -1)
jsonl=${json%.json}.jsonl
[ -s "$jsonl" ] || { echo "FAIL: no journal beside $json"; exit 1; }
up="s#\.\./\.\./\.\./templates#$src/templates#"
sed -e "$up" -e 's/256, 256/512, 512/' "$cfg" >"$tmp/other-problem.cfg"
sed -e "$up" -e 's/repetitions = 5/repetitions = 9/' "$cfg" \
  >"$tmp/other-bench.cfg"
# the resumed run with no change is accepted and measures nothing again
rm -f "$FAKE_WORKER_LOG"
"$tuner" --config "$cfg" --cache-dir "$cache" -q --resume "$json" \
  >/dev/null 2>"$tmp/err" || { echo "FAIL: resume of its own run: $(cat "$tmp/err")"; fail=1; }
if grep -q '^candidate' "$FAKE_WORKER_LOG" 2>/dev/null; then
  echo "FAIL: the resume of a finished run measured again"; fail=1
fi

# kind 2: checks that came after the GPU
for mode in "-n" "" "--predict"; do
  # shellcheck disable=SC2086
  expect "unknown --arch ($mode)" "--arch sm_99" "$tmp/o-arch" no -- \
    --config "$cfg" $mode --arch sm_99 --cache-dir "$cache" -q -o "$tmp/o-arch"
done
limits=$src/tests/fixtures/configs/bad-limits-every-arch.cfg
for mode in "-n" "" "--predict --arch sm_90"; do
  # shellcheck disable=SC2086
  expect "limits no architecture meets ($mode)" "$limits:6: space" \
    "$tmp/o-limits" no -- --config "$limits" $mode --cache-dir "$cache" -q \
    -o "$tmp/o-limits"
done
expect "--resume of a missing file" "--resume $tmp/none.json" "$tmp/good" \
  no -- --config "$cfg" --cache-dir "$cache" -q --resume "$tmp/none.json"
cp "$json" "$tmp/lonely.json"
expect "--resume without its journal" "no journal" "$tmp/good" no -- \
  --config "$cfg" --cache-dir "$cache" -q --resume "$tmp/lonely.json"

# kind 5: --resume of the wrong run
mkdir "$tmp/wrong"
cp "$json" "$tmp/wrong/r.json"
python3 - "$jsonl" "$tmp/wrong/r.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
run = json.loads(lines[0])
run["family"] = run["identity"]["family"] = "gemm"
open(sys.argv[2], "w").write("\n".join([json.dumps(run)] + lines[1:]) + "\n")
PY
expect "--resume of another family" "family differs (journal: \"gemm\"" \
  "$tmp/wrong" no -- --config "$cfg" --cache-dir "$cache" -q \
  --resume "$tmp/wrong/r.json"
python3 - "$jsonl" "$tmp/wrong/r.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
run = json.loads(lines[0])
del run["identity"]
run["family"] = "gemm"   # what crashed the previous version (ASan)
open(sys.argv[2], "w").write("\n".join([json.dumps(run)] + lines[1:]) + "\n")
PY
expect "--resume of a journal of the previous version" "older tuner" \
  "$tmp/wrong" no -- --config "$cfg" --cache-dir "$cache" -q \
  --resume "$tmp/wrong/r.json"
cp "$jsonl" "$tmp/wrong/r.jsonl"
expect "--resume of another problem" "problems differs (journal: \"256x256" \
  "$tmp/good" no -- --config "$tmp/other-problem.cfg" --cache-dir "$cache" \
  -q --resume "$json"
expect "--resume with other bench settings" "bench differs" "$tmp/good" no \
  -- --config "$tmp/other-bench.cfg" --cache-dir "$cache" -q --resume "$json"
expect "--resume with other --repetitions" "bench differs" "$tmp/good" no \
  -- --config "$cfg" -r 7 --cache-dir "$cache" -q --resume "$json"
FAKE_WORKER_NAME="Other GPU" expect "--resume on another device" \
  "device differs (journal: \"Fake GPU 0\"; this run: \"Other GPU\")" \
  "$tmp/good" start -- --config "$cfg" --cache-dir "$cache" -q \
  --resume "$json"
FAKE_WORKER_PCI="0000:42:00.0" expect "--resume on another GPU of a model" \
  "pci_bus_id differs" "$tmp/good" start -- --config "$cfg" \
  --cache-dir "$cache" -q --resume "$json"
printf 'not json\n' >"$tmp/wrong/r.jsonl"
expect "--resume of a garbled journal" "r.jsonl:1: not the start" \
  "$tmp/wrong" no -- --config "$cfg" --cache-dir "$cache" -q \
  --resume "$tmp/wrong/r.json"

# issue 31: every line of the journal checked as merge checks a results
# file, before anything is started: the file and line named, exit 2
journal() { # PYTHON-EDIT of lines (a list of objects); sets at (1-based)
  python3 - "$jsonl" "$tmp/wrong/r.jsonl" "$1" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
ok = [i for i, l in enumerate(lines)
      if l["kind"] == "candidate" and l["status"] == "ok"]
c = lines[ok[0]]
at = ok[0] + 1
exec(sys.argv[3])
open(sys.argv[2], "w").write("".join(json.dumps(l) + "\n" for l in lines))
print(at, c["id"])
PY
}
bad_journal() { # EDIT TEXT ("@..." for "candidate ID: ...")
  local at id text=$2
  read -r at id < <(journal "$1") ||
    { echo "FAIL: journal edit $1"; fail=1; return; }
  case $text in @*) text="candidate $id: ${text#@}" ;; esac
  expect "--resume of a journal: $1" "r.jsonl:$at: $text" "$tmp/wrong" no \
    -- --config "$cfg" --cache-dir "$cache" -q --resume "$tmp/wrong/r.json"
}
bad_journal 'c["timings"][0]["median_ms"] = -1' \
  "@timings[0].median_ms: -1 is outside [0, 1e+09]"
bad_journal 'c["timings"][0]["max_ms"] = 1e300' "@timings[0].max_ms: 1e+300"
bad_journal 'c["timings"][0]["q1_ms"] = c["timings"][0]["q3_ms"] * 2' \
  "@timings[0]: q1_ms"
bad_journal 'c["timings"][0].update(median_ms=0, min_ms=0, q1_ms=0)' \
  "@timings[0].median_ms: 0, not a time"
bad_journal 'c["timings"][0]["repetitions"] = 2**32 + 5' \
  "@timings[0].repetitions: expected an integer"
bad_journal 'c["timings"][0]["blocks"] = 0' \
  "@timings[0].blocks: expected an integer in [1, "
bad_journal 'c["timings"][0]["blocks"] = "132"' \
  "@timings[0].blocks: expected an integer"
bad_journal 'c["timings"] = []' "@timings: 0 entries for 1 problems"
bad_journal 'c["id"] = 99' \
  "candidate: id: not a candidate of this job (ids 0 to 15)"
bad_journal 'o = [l for l in lines if l["kind"] == "candidate" and l["id"] != c["id"]][0]; c["params"] = o["params"]; c["params_text"] = o["params_text"]' \
  "@params: not those of candidate"
bad_journal 'c["params_text"] += " "' "@params_text: not"
bad_journal 'c["status"] = "pending"' "@status: expected"
bad_journal 'lines.append(dict(c, timings=[{k: v * 1.5 if k != "repetitions" else v for k, v in c["timings"][0].items()}])); at = len(lines)' \
  "@measured already on line"
bad_journal 'lines.insert(1, {"kind": "result", "id": 1}); at = 2' \
  'kind "result": not a line a run writes'
bad_journal 'lines.insert(1, {"kind": "baseline", "name": "cublas", "status": "ok"}); at = 2' \
  "baseline: name: not a baseline of family transpose"
bad_journal 'lines.insert(1, dict(lines[0], seed=lines[0]["seed"] + 1)); at = 2' \
  "seed:"
# issue 31, part 5: a candidate's time and clocks, the baseline's timings
bad_journal 'c["timed_at_ms"] = -1' "@timed_at_ms: expected milliseconds"
bad_journal 'c["clocks"] = {"samples": 2, "sm_mhz_min": 1980, "sm_mhz_max": 1450}' \
  "@clocks: sm_mhz_first 0 outside sm_mhz_min 1980"
bad_journal 'c["clocks"] = {"samples": 1, "reasons": ["<b>"]}' \
  "@clocks.reasons[0]: not a reason's name"
bad_journal 'b = [l for l in lines if l["kind"] == "baseline"][0]; lines.append(dict(b, measurement=9)); at = len(lines)' \
  "baseline memcpy: measurement 9, but"
bad_journal 'b = [l for l in lines if l["kind"] == "baseline"][0]; lines.append(dict(b, median_ms=7.0)); at = len(lines)' \
  "baseline memcpy: measurement 0 taken already on line"
# a line written twice alike (and a cut last line) is taken
journal 'lines.append(dict(c))' >/dev/null
printf '{"kind": "candidate", "id": 3' >>"$tmp/wrong/r.jsonl"
"$tuner" --config "$cfg" --cache-dir "$cache" -q -o "$tmp/o-dup" \
  --resume "$tmp/wrong/r.json" >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: a journal with a line twice: $(cat "$tmp/err")"; fail=1; }
cp "$jsonl" "$tmp/wrong/r.jsonl"

# kind 4: outputs that cannot be written
mkdir "$tmp/w"
touch "$tmp/w/file"
for mode in "-n" "" "--predict --arch sm_90"; do
  # shellcheck disable=SC2086
  expect "output is a file ($mode)" "--output $tmp/w/file: a file" "$tmp/w" \
    no -- --config "$cfg" $mode --cache-dir "$cache" -q -o "$tmp/w/file"
  # shellcheck disable=SC2086
  expect "output under a file ($mode)" "$tmp/w/file is a file" "$tmp/w" no \
    -- --config "$cfg" $mode --cache-dir "$cache" -q -o "$tmp/w/file/sub"
  # shellcheck disable=SC2086
  expect "empty -o ($mode)" "--output: empty path" "$tmp/w" no -- \
    --config "$cfg" $mode --cache-dir "$cache" -q -o ""
done
mkdir "$tmp/w/out"
touch "$tmp/w/out/sm_90"
for mode in "--arch sm_90" "--predict --arch sm_90" "-n --arch sm_90"; do
  # shellcheck disable=SC2086
  expect "arch subfolder is a file ($mode)" "$tmp/w/out/sm_90 is a file" \
    "$tmp/w" no -- --config "$cfg" $mode --cache-dir "$cache" -q \
    -o "$tmp/w/out"
done
# the header's own place is a folder: found before the run (issue 31), not
# after every candidate was measured
mkdir -p "$tmp/w/hdr/sm_90/transpose.h"
for mode in "--arch sm_90" "--predict --arch sm_90" ""; do
  # shellcheck disable=SC2086
  expect "the header's place is a folder ($mode)" \
    "$tmp/w/hdr/sm_90/transpose.h is not a file" "$tmp/w" start -- \
    --config "$cfg" $mode --cache-dir "$cache" -q -o "$tmp/w/hdr"
done
# without --arch only the worker knows the architecture: it starts, but is
# given no job
expect "arch subfolder is a file (the device's)" \
  "$tmp/w/out/sm_90 is a file" "$tmp/w" start -- --config "$cfg" \
  --cache-dir "$cache" -q -o "$tmp/w/out"
sed -e "s#\.\./\.\./\.\./templates#$src/templates#" \
  -e '$a output = { dir = "'"$tmp/w/file"'"; };' "$cfg" >"$tmp/outcfg.cfg"
expect "output.dir is a file" "outcfg.cfg: output.dir $tmp/w/file" "$tmp/w" \
  no -- --config "$tmp/outcfg.cfg" --cache-dir "$cache" -q
expect "merge -o is a file" "--output $tmp/w/file: a file" "$tmp/w" no -- \
  merge -q -o "$tmp/w/file" "$json"
expect "merge --history under a file" "--history $tmp/w/file/h" "$tmp/w" no \
  -- merge -q -o "$tmp/w/m" --history "$tmp/w/file/h" "$json"
# a missing parent is created, like mkdir -p
"$tuner" --config "$cfg" --predict --arch sm_90 --cache-dir "$cache" -q \
  -o "$tmp/new/a/b" >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: -o with missing parents: $(cat "$tmp/err")"; fail=1; }
ls "$tmp"/new/a/b/*.json >/dev/null 2>&1 ||
  { echo "FAIL: -o with missing parents wrote nothing"; fail=1; }
# a cache that cannot be used is a warning, and no cache
"$tuner" --config "$cfg" -n --arch sm_90 --cache-dir "$tmp/w/file" -q \
  >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: unusable cache: exit $?: $(cat "$tmp/err")"; fail=1; }
grep -q "warning: compile cache $tmp/w/file: a file" "$tmp/err" ||
  { echo "FAIL: unusable cache: no warning: $(cat "$tmp/err")"; fail=1; }

# a bad device profile (--profile): the file and the key named
printf '{' >"$tmp/p-syntax.json"
{ printf '{"schema": "tuner-device-profile/1", '
  printf '"device": {"arch": "sm_90", "sm_count": 132}, '
  printf '"measurements": {"sm_clock": '
  printf '{"median": 1980, "q1": 1979, "q3": 1981}}}'; } >"$tmp/p-nocopy.json"
for mode in "-n --arch sm_90" "--predict --arch sm_90" ""; do
  # shellcheck disable=SC2086
  expect "--profile that is not JSON ($mode)" "$tmp/p-syntax.json:1" \
    "$tmp/w" no -- --config "$cfg" $mode --profile "$tmp/p-syntax.json" \
    --cache-dir "$cache" -q -o "$tmp/w/p"
  # shellcheck disable=SC2086
  expect "--profile without a measurement ($mode)" \
    "p-nocopy.json: measurements.launch_overhead" "$tmp/w" no -- \
    --config "$cfg" $mode --profile "$tmp/p-nocopy.json" \
    --cache-dir "$cache" -q -o "$tmp/w/p"
done
expect "--profile of a missing file" "$tmp/none-profile.json" "$tmp/w" no \
  -- --config "$cfg" --profile "$tmp/none-profile.json" -q -o "$tmp/w/p"
# numbers checked as the JSON's integers, before they become an int (issue
# 31: sm_count 2^32 wrapped to 0, a width of 2^32 + 4 to 4)
profile() { # FILE PYTHON-EDIT: a whole profile, edited
  python3 - "$1" "$2" <<'PY'
import json, sys
m = lambda v: {"median": v, "q1": v * 0.99, "q3": v * 1.01}
d = {"schema": "tuner-device-profile/1",
     "device": {"arch": "sm_90", "name": "GPU", "sm_count": 132,
                "memory_clock_rate_khz": 3201000,
                "memory_bus_width_bits": 6016},
     "measurements": {"sm_clock": m(1980), "launch_overhead": m(2.0),
                      "global_copy": m(4000), "fp32_fma": m(60),
                      "int_imad": m(30000), "int_shift_lop3": m(60000)},
     "shared_memory": {"widths": [
         {"width": w, "sm_cycles_per_wavefront": 1.0} for w in (4, 8, 16)]}}
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
}
for edit in 'd["device"]["sm_count"] = 2**32' 'd["device"]["sm_count"] = 2**31' \
            'd["device"]["sm_count"] = 0' 'd["device"]["sm_count"] = 1.5' \
            'd["device"]["memory_clock_rate_khz"] = 2**32' \
            'd["device"]["memory_bus_width_bits"] = -6016' \
            'd["shared_memory"]["widths"][0]["width"] = 2**32 + 4'; do
  key=$(printf '%s' "$edit" | sed -n 's/^d\["\([a-z_]*\)"\]\["\([a-z_]*\)"\].*/\1.\2/p')
  profile "$tmp/p-num.json" "$edit"
  expect "--profile with $edit" "p-num.json: $key" "$tmp/w" no -- \
    --config "$cfg" --predict --arch sm_90 --profile "$tmp/p-num.json" \
    --cache-dir "$cache" -q -o "$tmp/w/p"
done
profile "$tmp/p-good.json" ''
"$tuner" --config "$cfg" -n --arch sm_90 --profile "$tmp/p-good.json" \
  --cache-dir "$cache" -q -o "$tmp/p-good" >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: the good profile: $(cat "$tmp/err")"; fail=1; }

# kind 7: a template that defines no kernel
for t in nokernel cxx; do
  tcfg=$src/tests/fixtures/configs/$t.cfg
  for mode in "-n --arch sm_90" "--predict --arch sm_90" ""; do
    # shellcheck disable=SC2086
    expect "template without the kernel ($t, $mode)" \
      "transpose_$t.cu: defines no kernel transpose" "$tmp/w" start -- \
      --config "$tcfg" $mode --cache-dir "$cache" -q -o "$tmp/w/k"
  done
done

[ $fail -eq 0 ] && echo "ok: $n bad inputs: exit 2, the place named, nothing written, no worker started"
exit $fail
