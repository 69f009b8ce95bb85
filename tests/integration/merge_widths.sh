#!/usr/bin/env bash
# Transposes of two element widths through runs and merges, with the fake
# worker (no GPU): each width's results name their elem (fp32's as before
# the option: none), each merge writes the header of one width
# (ELEM_BYTES), and a merge of both is refused with exit 2 and nothing
# written: with two names, asking for --name; with one name (or --name),
# naming the option that differs.  And their table by width.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$(absolute "$1") fake=$2 src=$3  # TUNER FAKE_WORKER SOURCE_DIR
test_start
export TUNER_WORKER=$fake
export FAKE_WORKER_SCRIPT="1:fast"
# config NAME ELEM: $tmp/NAME-ELEM.cfg, a transpose at 256 x 256
config() {
  transpose_config "$tmp/$1-$2.cfg" "$1" transpose "[256, 256]" "$2"
}
for job in "tw-f32 fp32" "tw-f16 fp16" "tw fp32" "tw fp16"; do
  set -- $job
  config "$1" "$2"
  "$tuner" --config "$tmp/$1-$2.cfg" --cache-dir "$tmp/cache" -q \
    --output "$tmp/run-$1-$2" >"$tmp/$1-$2.out" 2>&1 ||
    { echo "FAIL: run $1 $2 exited $?"; cat "$tmp/$1-$2.out"; fail=1; }
done
python3 - "$tmp"/run-tw-f32-fp32/*.json "$tmp"/run-tw-f16-fp16/*.json <<'PY' || fail=1
import json, sys
f32, f16 = (json.load(open(p)) for p in sys.argv[1:3])
assert "elem" not in f32["problems"][0], f32["problems"][0]
assert f16["problems"][0]["elem"] == "fp16", f16["problems"][0]
PY
# one merge a width: one header each, its width in it
for job in "tw-f32 fp32 4" "tw-f16 fp16 2"; do
  set -- $job
  "$tuner" merge -q --output "$tmp/h" "$tmp"/run-$1-$2/*.json \
    >"$tmp/merge-$1.out" 2>&1 ||
    { echo "FAIL: merge of $1 exited $?"; cat "$tmp/merge-$1.out"; fail=1; }
  m=$(echo "$1" | tr a-z- A-Z_)
  grep -qx "#define ${m}_SM_90_ELEM_BYTES $3" "$tmp/h/sm_90/$1.h" ||
    { echo "FAIL: $tmp/h/sm_90/$1.h lacks ${m}_SM_90_ELEM_BYTES $3"; fail=1; }
done
[ "$(ls "$tmp/h/sm_90")" = "$(printf 'tw-f16.h\ntw-f32.h')" ] ||
  { echo "FAIL: headers: $(ls "$tmp/h/sm_90")"; fail=1; }
# the table by width (scripts/widths_table.py): each file's row, the
# scripted fast candidate (id 1: pad 1) its best, the copy engine's path
# not in these spaces; a file that is not results refused
table=$(python3 "$src/scripts/widths_table.py" "$tmp"/run-tw-f32-fp32/*.json \
        "$tmp"/run-tw-f16-fp16/*.json) ||
  { echo "FAIL: widths_table.py exited $?"; fail=1; }
for want in "| tw-f32 | fp32 | 256x256 |" "| tw-f16 | fp16 | 256x256 |"; do
  row=$(grep -F "$want" <<<"$table")
  [[ "$row" == *"% copy"*"pad=1 swizzle=none"*"none timed: not in the "* ]] ||
    { echo "FAIL: table row '$want': $row"; fail=1; }
done
python3 "$src/scripts/widths_table.py" "$tmp/tw-f16-fp16.cfg" \
  >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: widths_table.py took a config"; fail=1; }
# each candidate against the copy's timing nearest to it (baseline_ms,
# set here to the fast one's own time: 100 %), not the copy's median
python3 - "$tmp"/run-tw-f16-fp16/*.json "$tmp/near.json" \
  "$tmp/near-bad.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc["candidates"]:
    if c["id"] == 1:
        c["baseline_ms"] = c["timings"][0]["median_ms"]
json.dump(doc, open(sys.argv[2], "w"))
doc["candidates"][1]["baseline_ms"] = "x"
json.dump(doc, open(sys.argv[3], "w"))
PY
row=$(python3 "$src/scripts/widths_table.py" "$tmp/near.json" | grep -F "| tw-f16 |")
[[ "$row" == *"100.0 % copy"*"pad=1 swizzle=none"* ]] ||
  { echo "FAIL: the nearest copy's timing not taken: $row"; fail=1; }
python3 "$src/scripts/widths_table.py" "$tmp/near-bad.json" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: widths_table.py took baseline_ms \"x\""; fail=1; }
# results from another host whose timing is no number: refused, named
python3 - "$tmp"/run-tw-f16-fp16/*.json "$tmp/bad.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
doc["baselines"][0]["timings"][0]["median_ms"] = "fast"
json.dump(doc, open(sys.argv[2], "w"))
PY
msg=$(python3 "$src/scripts/widths_table.py" "$tmp"/run-tw-f32-fp32/*.json \
      "$tmp/bad.json" 2>&1)
rc=$?
[ $rc -eq 2 ] && [[ "$msg" == *"bad.json: not a transpose's results"* ]] &&
  [[ "$msg" != *"| tw-f32 |"* ]] ||
  { echo "FAIL: widths_table.py on a bad timing: $rc: $msg"; fail=1; }
# both widths in one merge: refused, nothing written
refused() { # WHAT TEXT ARGS...
  local what=$1 text=$2 msg rc
  shift 2
  msg=$("$tuner" merge -q --output "$tmp/both" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 2 ] || [[ "$msg" != *"$text"* ]]; then
    echo "FAIL: $what: exit $rc, expected 2 with '$text': $msg"; fail=1
  fi
  [ -e "$tmp/both" ] && { echo "FAIL: $what wrote $tmp/both"; fail=1; }
}
refused "two names" 'give --name to merge them' \
  "$tmp"/run-tw-f32-fp32/*.json "$tmp"/run-tw-f16-fp16/*.json
refused "two names, --name" 'problems: elem "fp16" against "fp32"' \
  --name tw "$tmp"/run-tw-f32-fp32/*.json "$tmp"/run-tw-f16-fp16/*.json
refused "one name" 'merge them apart, one name each' \
  "$tmp"/run-tw-fp32/*.json "$tmp"/run-tw-fp16/*.json
[ $fail -eq 0 ] && echo "ok: one header per width; widths merged together refused; the table"
exit $fail
