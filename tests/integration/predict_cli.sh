#!/usr/bin/env bash
# `tuner --predict` end to end, without a GPU: predicted results for
# several architectures (the schema of a measured run, marked predicted),
# a header that says so, merged into a dispatch header that compiles; a
# measured header is never replaced by a prediction; bad uses exit 2.
# Usage: predict_cli.sh TUNER CONFIG TEST_PREDICT PROFILE  (PROFILE: a
# measured H200 profile, tests/fixtures/devices unpacked by the build)
set -u
tuner=$1
cfg=$2
check=$3
profile=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
name=fleet_small

for arch in sm_75 sm_90; do
  if ! "$tuner" --config "$cfg" --arch "$arch" --predict --output "$tmp/out" \
       --no-cache -q >"$tmp/$arch.out" 2>"$tmp/$arch.err"; then
    echo "FAIL: --predict --arch $arch: $(cat "$tmp/$arch.err")"; fail=1
    continue
  fi
  grep -q '<- predicted' "$tmp/$arch.out" ||
    { echo "FAIL: $arch: no predicted row: $(cat "$tmp/$arch.out")"; fail=1; }
  res=$(ls "$tmp"/out/$name-$arch-*.json 2>/dev/null | head -1)
  [ -n "$res" ] || { echo "FAIL: $arch: no results file"; fail=1; continue; }
  "$check" check "$res" "$arch" || { echo "FAIL: $arch: $res"; fail=1; }
  hdr=$tmp/out/$arch/$name.h
  grep -q "PREDICTED, not measured" "$hdr" &&
    grep -q "FLEET_SMALL_${arch^^}_PREDICTED 1" "$hdr" ||
    { echo "FAIL: $arch: header not marked predicted"; fail=1; }
  printf '#include "%s"\nint t = FLEET_SMALL_TILE * FLEET_SMALL_%s_PAD;\n' \
    "$hdr" "${arch^^}" >"$tmp/use.c"
  cc -std=c11 -Wall -Werror -c -o "$tmp/use.o" "$tmp/use.c" ||
    { echo "FAIL: $arch: header does not compile"; fail=1; }
done

# merged: the dispatch header knows the two predicted architectures
if "$tuner" merge -q -o "$tmp/merged" "$tmp/out" 2>"$tmp/merge.err"; then
  cat >"$tmp/use2.c" <<EOC
#include <string.h>
#include "${name}_dispatch.h"
int main(void) {
  const ${name}_config *c = ${name}_lookup("NVIDIA H200", 9, 0);
  const ${name}_config *t = ${name}_lookup(NULL, 8, 6);
  return strcmp(c->source, "predicted") == 0 && c->cc_major == 9 &&
         t->cc_major == 7 && FLEET_SMALL_SM_90_PREDICTED == 1 ? 0 : 1;
}
EOC
  cc -std=c11 -Wall -Werror -I"$tmp/merged" -o "$tmp/use2" "$tmp/use2.c" &&
    "$tmp/use2" || { echo "FAIL: the merged dispatch header"; fail=1; }
else
  echo "FAIL: merge: $(cat "$tmp/merge.err")"; fail=1
fi

# the time model's profile: derived for an architecture nobody measured,
# from the table alone (no results/devices/ where it runs) or scaled from
# a measured profile (--profile of another architecture); every candidate
# predicted with lo < ms < hi, the run saying which profile
h200=$profile
for how in table scaled; do
  extra=()
  [ $how = scaled ] && extra=(--profile "$h200")
  (cd "$tmp" && "$tuner" --config "$cfg" --arch sm_100 --predict \
     --output "$tmp/derived-$how" --no-cache -q "${extra[@]}" \
     >/dev/null 2>"$tmp/derived.err") ||
    { echo "FAIL: derived ($how): $(cat "$tmp/derived.err")"; fail=1; }
  res=$(ls "$tmp"/derived-$how/$name-sm_100-*.json 2>/dev/null | head -1)
  python3 - "$res" "$how" "$h200" <<'EOP' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
run, how, h200 = doc["run"], sys.argv[2], sys.argv[3]
info = run["profile_info"]
ok = run["profile"] is None and info["derived"] and info["arch"] == "sm_100"
ok = ok and ((h200 in info["derived_from"]) == (how == "scaled"))
ok = ok and ("unscaled" in info["derived_from"]) == (how == "table")
preds = [c["predicted"] for c in doc["candidates"] if c["status"] ==
         "compiled"]
ok = ok and preds and all(p["lo_ms"] < p["ms"] < p["hi_ms"] and
                          len(p["per_problem"]) == len(doc["problems"])
                          for p in preds)
if not ok:
    print("FAIL: derived profile (%s): %s" % (how, json.dumps(info)))
sys.exit(0 if ok else 1)
EOP
done
grep -q "scaled to sm_100" "$tmp/derived.err" ||
  { echo "FAIL: --profile of sm_90 for sm_100 not said"; fail=1; }

# a measured header stays
mkdir -p "$tmp/keep/sm_80"
printf '#define FLEET_SMALL_SM_80_MEASURED 1\n' >"$tmp/keep/sm_80/$name.h"
"$tuner" --config "$cfg" --arch sm_80 --predict --output "$tmp/keep" \
  --no-cache -q >/dev/null 2>"$tmp/keep.err" ||
  { echo "FAIL: predict sm_80: $(cat "$tmp/keep.err")"; fail=1; }
[ "$(cat "$tmp/keep/sm_80/$name.h")" = "#define FLEET_SMALL_SM_80_MEASURED 1" ] ||
  { echo "FAIL: a prediction replaced a measured header"; fail=1; }
grep -q "is measured: kept" "$tmp/keep.err" ||
  { echo "FAIL: no note about the kept header: $(cat "$tmp/keep.err")"; fail=1; }

# bad uses: exit 2, nothing written
for args in "--predict" "--predict --arch sm_99" \
            "--predict --arch sm_80 --resume $tmp/x.json"; do
  # shellcheck disable=SC2086
  "$tuner" --config "$cfg" $args --output "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
  rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: '$args': exit $rc: $(cat "$tmp/bad.err")"; fail=1; }
  [ -e "$tmp/bad" ] && { echo "FAIL: '$args' wrote $tmp/bad"; fail=1; }
done
grep -q -- "--predict needs --arch" <("$tuner" --config "$cfg" --predict 2>&1) ||
  { echo "FAIL: no message for --predict without --arch"; fail=1; }

[ $fail -eq 0 ] && echo "ok: --predict for sm_75 and sm_90, merged, and its errors"
exit $fail
