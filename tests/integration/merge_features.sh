#!/bin/bash
# merge_features.sh -- `tuner merge --features` (issue 12 part 4): the
# committed mma.sync GEMM run (gemm_tc, sm_90) merged with the committed
# wgmma run (gemm_wg, compiled for sm_90a) of the same problem.  The
# dispatch header must select the wgmma winner where the code is compiled
# for sm_90a (__CUDA_ARCH_FEAT_SM90_ALL) and the gemm_tc winner elsewhere,
# with each run's own best params (read from the JSON here); bad input
# exits 2 with nothing written.
# Usage: merge_features.sh TUNER RUNS  (RUNS: tests/fixtures/runs unpacked
# by the build)
set -u
TUNER=$1
RUNS=$2
TC=$RUNS/gemm-bf16-sm_90-20261201T114416Z.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

mkdir -p "$T/wg"
cp "$RUNS/gemm-wg-bf16-sm_90a-20261201T185454Z.json" "$T/wg/wg.json" ||
  exit 1
WG=$T/wg/wg.json

# each run's winner, as the results files say
best() {
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
p = d["best"]["params"]
print(p["bm"], p["bn"], p["bk"])' "$1"
}
want_tc=$(best "$TC") || exit 1
want_wg=$(best "$WG") || exit 1

"$TUNER" merge -q -o "$T/out" --features "$WG" "$TC" > "$T/log" 2>&1 ||
  { cat "$T/log"; bad "merge --features exited $?"; }
H=$T/out/gemm-bf16_dispatch.h
[ -f "$H" ] || { bad "no $H"; exit 1; }
[ -f "$T/out/sm_90a/gemm-wg-bf16.h" ] || bad "no sm_90a/gemm-wg-bf16.h"
[ -f "$T/out/sm_90/gemm-bf16.h" ] || bad "no sm_90/gemm-bf16.h"
grep -q '^#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)' \
  "$H" || bad "no SM90_ALL branch"

cat > "$T/prog.c" <<'PROG'
#include <stdio.h>
#include "gemm-bf16_dispatch.h"
int main(void)
{
#if defined(GEMM_BF16_FAMILY_GEMM_WG) && !defined(GEMM_BF16_FAMILY_GEMM_TC)
  printf("gemm_wg %d %d %d\n", GEMM_BF16_BM, GEMM_BF16_BN, GEMM_BF16_BK);
#elif defined(GEMM_BF16_FAMILY_GEMM_TC) && !defined(GEMM_BF16_FAMILY_GEMM_WG)
  printf("gemm_tc %d %d %d\n", GEMM_BF16_BM, GEMM_BF16_BN, GEMM_BF16_BK);
#else
  printf("no single family\n");
#endif
  return 0;
}
PROG
run() {
  ${CC:-cc} -std=c11 -Wall -Werror "$@" -I"$T/out" -o "$T/prog" \
    "$T/prog.c" && "$T/prog"
}
got=$(run -D__CUDA_ARCH__=900 -D__CUDA_ARCH_FEAT_SM90_ALL)
[ "$got" = "gemm_wg $want_wg" ] ||
  bad "sm_90a: '$got', want 'gemm_wg $want_wg'"
got=$(run -D__CUDA_ARCH__=900)
[ "$got" = "gemm_tc $want_tc" ] ||
  bad "sm_90: '$got', want 'gemm_tc $want_tc'"
got=$(run)
case $got in gemm_tc*) ;; *) bad "host code: '$got', want gemm_tc" ;; esac

# without --features: no feature branch at all
"$TUNER" merge -q -o "$T/plain" "$TC" > "$T/log" 2>&1 || bad "plain merge"
grep -q 'FEAT_SM90_ALL)$' "$T/plain/gemm-bf16_dispatch.h" &&
  bad "plain merge has a feature branch"

# bad input: exit 2, a message naming the file, nothing written
expect2() {
  local what=$1 pat=$2
  shift 2
  rm -rf "$T/bad"
  "$TUNER" merge -q -o "$T/bad" "$@" > "$T/log" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || bad "$what: exit $rc, want 2"
  grep -q -- "$pat" "$T/log" || { cat "$T/log"; bad "$what: no '$pat'"; }
  [ -z "$(ls -A "$T/bad" 2>/dev/null)" ] || bad "$what: wrote files"
}
expect2 "features not an a-target" "not compiled for an architecture" \
  --features "$TC" "$TC"
expect2 "main job of an a-target family" "with --features its results" \
  --features "$WG" "$WG"
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for p in d["problems"]:
    p["beta"] = 0.5
json.dump(d, open(sys.argv[2], "w"))' "$WG" "$T/other.json" || exit 1
expect2 "another problem" "problems (sizes and options)" \
  --features "$T/other.json" "$TC"
expect2 "another size" "problems (sizes and options)" \
  --features "$RUNS/gemm-wg-bf16-8192-sm_90a-20261201T185459Z.json" "$TC"
expect2 "no files" "no results" --features "$T/out" "$TC"
exit $fail
