#!/bin/bash
# merge_fp8.sh -- the fp8 wgmma job (issue 32 part 2) shipped by `tuner
# merge`: a run of configs/gemm-wg-fp8.cfg's problem (two points, timed by
# the fake worker; NVRTC compiles them for sm_90a) merged into a dispatch
# header whose sm_90 entry, compiled as for sm_90a, is the run's winner
# with the fp8 problem's derived macros (IN_FP8, PROMOTE, TRANS_B), found
# the same by the run-time lookup.  --features cannot pair it with the
# committed bf16 mma.sync run: not the same problem (exit 2, nothing
# written); no other family computes fp8, so a plain merge ships it.
# Usage: merge_fp8.sh TUNER FAKE_WORKER SRC RUNS
set -u
TUNER=$1
export TUNER_WORKER=$2
SRC=$3
RUNS=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

sed -e 's/stages = \[3, 4, 5, 6\];/stages = [4, 5];/' \
  -e 's/bn = \[64, 128\];/bn = [128];/' -e 's/bk = \[64, 128\];/bk = [128];/' \
  -e 's/swizzle = \[32, 64, 128\];/swizzle = [128];/' \
  -e 's/producer = \[0, 1\];/producer = [1];/' \
  -e 's/maxnreg = \[0, 1\];/maxnreg = [1];/' -e 's/cluster = \[1, 2\];/cluster = [1];/' \
  -e 's/persistent = \[0, 132\];/persistent = [0];/' \
  -e 's/group_m = \[0, 8\];/group_m = [8];/' -e 's/epilogue = \[0, 1\];/epilogue = [0];/' \
  -e "s|\"\\.\\./templates|\"$SRC/templates|" \
  "$SRC/configs/gemm-wg-fp8.cfg" > "$T/fp8.cfg"
# the fake worker times each point 1 + id/100 ms: the first wins
"$TUNER" --config "$T/fp8.cfg" -q -o "$T/run" > "$T/log" 2>&1 ||
  { cat "$T/log"; bad "the fp8 run exited $?"; exit 1; }
J=$(ls "$T"/run/*.json | head -1)
want=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
p = d["best"]["params"]
assert d["problems"][0]["input"] == "e4m3", d["problems"][0]
print(p["bm"], p["bn"], p["bk"], p["stages"], 1, 1, 1)' "$J") || exit 1

"$TUNER" merge -q -o "$T/out" "$J" > "$T/log" 2>&1 ||
  { cat "$T/log"; bad "merge exited $?"; }
H=$T/out/gemm-wg-fp8_dispatch.h
[ -f "$H" ] || { bad "no $H"; exit 1; }
cat > "$T/prog.c" <<'PROG'
#include <stdio.h>
#include "gemm-wg-fp8_dispatch.h"
int main(void)
{
  const gemm_wg_fp8_config *c = gemm_wg_fp8_lookup(NULL, 9, 0);
#ifdef __CUDA_ARCH__
  (void)c;
  printf("%d %d %d %d %d %d %d\n", GEMM_WG_FP8_BM, GEMM_WG_FP8_BN,
         GEMM_WG_FP8_BK, GEMM_WG_FP8_STAGES, GEMM_WG_FP8_IN_FP8,
         GEMM_WG_FP8_PROMOTE, GEMM_WG_FP8_TRANS_B);
#else
  printf("%d %d %d %d 1 1 1\n", c->bm, c->bn, c->bk, c->stages);
#endif
  return 0;
}
PROG
run() {
  ${CC:-cc} -std=c11 -Wall -Werror "$@" -I"$T/out" -o "$T/prog" \
    "$T/prog.c" && "$T/prog"
}
got=$(run -D__CUDA_ARCH__=900 -D__CUDA_ARCH_FEAT_SM90_ALL)
[ "$got" = "$want" ] || bad "sm_90a: '$got', want '$want'"
got=$(run)
[ "$got" = "$want" ] || bad "run-time lookup of 9.0: '$got', want '$want'"

"$TUNER" merge -q -o "$T/bad" --features "$J" \
  "$RUNS/gemm-bf16-sm_90-20261201T114416Z.json" > "$T/log" 2>&1
rc=$?
[ $rc -eq 2 ] || bad "--features with the bf16 run: exit $rc, want 2"
grep -q "problems (sizes and options)" "$T/log" || { cat "$T/log"; bad "no reason"; }
[ -z "$(ls -A "$T/bad" 2>/dev/null)" ] || bad "--features wrote files"
[ $fail -eq 0 ] && echo "ok: the fp8 winner ($want) shipped"
exit $fail
