#!/usr/bin/env bash
# Text from results files (device names, hosts, paths) that would end a
# comment, start a trigraph, splice a line or end a string literal goes
# into merge's headers harmlessly: the per-arch and dispatch headers
# compile with cc -std=c11 -Wall -Werror (and nvcc where there is one) and
# the lookup table gives the name back byte for byte.  A params_text that
# is not what its params say, and a best that disagrees with its table,
# are rejected naming the file and the JSON path.
set -u
tuner=$1
seed=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
evil='Evil */ GPU "q" \ ??/ /* x'$'\n''#error boom */'
dir="$tmp/in */ ??/"
mkdir -p "$dir"
python3 - "$seed" "$dir/evil.json" "$evil" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["device"]["name"] = sys.argv[3]
d["run"]["host"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
"$tuner" merge -q -o "$tmp/out" "$dir/evil.json" >"$tmp/merge.out" 2>&1 ||
  { echo "FAIL: merge"; cat "$tmp/merge.out"; exit 1; }
disp=$(ls "$tmp"/out/*_dispatch.h)
name=$(basename "$disp" _dispatch.h)
for h in "$tmp"/out/*/*.h "$disp"; do
  printf '#include "%s"\nint main(void) { return 0; }\n' "$h" >"$tmp/use.c"
  cc -std=c11 -Wall -Werror -Wno-unused-function "$tmp/use.c" -o "$tmp/use" ||
    { echo "FAIL: $h does not compile"; fail=1; }
done
cat >"$tmp/lookup.c" <<C
#include <stdio.h>
#include <string.h>
#include "$disp"
int main(int argc, char **argv)
{
  const ${name}_config *c = ${name}_lookup(argv[1], 9, 0);
  (void)argc;
  return !(c->device && strcmp(c->device, argv[1]) == 0 &&
           strcmp(c->device, "") != 0);
}
C
if cc -std=c11 -Wall -Werror "$tmp/lookup.c" -o "$tmp/lookup"; then
  "$tmp/lookup" "$evil" || { echo "FAIL: the table's device name"; fail=1; }
else
  echo "FAIL: lookup.c does not compile"; fail=1
fi
if command -v nvcc >/dev/null 2>&1; then
  printf '#include "%s"\n__global__ void k(int *o) { *o = 1; }\n' "$disp" \
    >"$tmp/use.cu"
  nvcc -c "$tmp/use.cu" -o "$tmp/use.o" || { echo "FAIL: nvcc"; fail=1; }
fi

# rejections: exit 2, the file and the JSON path named, nothing written
reject() { # NAME PYTHON-EDIT WANT
  python3 - "$seed" "$tmp/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
  rm -rf "$tmp/rej"
  "$tuner" merge -q -o "$tmp/rej" "$tmp/$1.json" >"$tmp/rej.out" 2>&1
  rc=$?
  if [ $rc -ne 2 ] || ! grep -qF "$1.json: $3" "$tmp/rej.out" ||
     [ -e "$tmp/rej" ]; then
    echo "FAIL $1: exit $rc, want 2 and \"$3\":"; cat "$tmp/rej.out"; fail=1
  fi
}
ok='[c for c in d["candidates"] if c["status"] == "ok"]'
reject text 'c = '"$ok"'[0]; c["params_text"] += " */"' 'candidates['
reject bestid 'd["best"]["id"] = 999999' 'best.id'
reject bestparams 'b = d["best"]; o = [c for c in '"$ok"' if c["id"] != b["id"]][0]; b["params"] = o["params"]' 'best.params'
reject slow 'b = d["best"]; o = [c for c in '"$ok"' if c["id"] != b["id"]]; o = max(o, key=lambda c: c["median_ms"]); b["id"] = o["id"]; b["params"] = o["params"]; b["median_ms"] = o["median_ms"]; b["noise"] = 0.0' 'best.id'
reject notok 'b = d["best"]; o = [c for c in d["candidates"] if c["status"] != "ok"][0]; b["id"] = o["id"]; b["params"] = o["params"]' 'best'
reject pred 'd["best"]["predicted"] = True' 'best.predicted'
reject dupid 'd["candidates"][1]["id"] = d["candidates"][0]["id"]' 'candidates['
reject size 'd["problems"][0]["size"][0] = 2**40' 'problems[0].size[0]'
reject huge 'c = '"$ok"'[0]; c["median_ms"] = 1e300' 'candidates['
reject noise 'd["best"]["noise"] = -1' 'best.noise'
reject nullbest 'd["best"] = None' 'best'
[ $fail -eq 0 ] && echo "ok: escaped text compiles, disagreeing files are refused"
exit $fail
