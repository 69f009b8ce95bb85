#!/usr/bin/env bash
# The batched transposes end to end with the fake worker (no GPU): runs of
# transpose_batched ([batch, rows, cols]) and transpose_heads ([batch,
# heads, rows, cols]) over several sizes, their results naming each size
# with its batch; merged into headers whose lookup by size takes the
# batch and finds each size tuned exactly (compiled and run here), two
# sizes that differ in the batch alone told apart; two sizes that are
# one launch ([2, 4, ...] and [4, 2, ...]) refused in a config; a results
# file whose size overflows refused by the merge with exit 2, nothing
# written; scripts/widths_table.py's rows of both families.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$(absolute "$1") fake=$2 src=$3  # TUNER FAKE_WORKER SOURCE_DIR
test_start
export TUNER_WORKER=$fake
export FAKE_WORKER_SCRIPT="1:fast"
# config NAME FAMILY SIZES: $tmp/NAME.cfg, of fp16
config() { transpose_config "$tmp/$1.cfg" "$1" "$2" "$3" fp16; }
config tb transpose_batched "[2, 64, 64], [8, 64, 64], [3, 96, 32]"
config th transpose_heads "[2, 4, 64, 32], [2, 2, 32, 64]"
for job in tb th; do
  "$tuner" --config "$tmp/$job.cfg" --cache-dir "$tmp/cache" -q \
    --output "$tmp/run-$job" >"$tmp/$job.out" 2>&1 ||
    { echo "FAIL: run $job exited $?"; cat "$tmp/$job.out"; fail=1; }
  "$tuner" merge -q --output "$tmp/h" "$tmp"/run-$job/*.json \
    >"$tmp/merge-$job.out" 2>&1 ||
    { echo "FAIL: merge $job exited $?"; cat "$tmp/merge-$job.out"; fail=1; }
done
python3 - "$tmp"/run-tb/*.json "$tmp"/run-th/*.json <<'PY' || fail=1
import json, sys
tb, th = (json.load(open(p)) for p in sys.argv[1:3])
assert tb["family"] == "transpose_batched", tb["family"]
assert [p["size"] for p in tb["problems"]] == \
    [[2, 64, 64], [8, 64, 64], [3, 96, 32]], tb["problems"]
# bytes read and written: the whole batch
assert tb["problems"][1]["work"] == 2 * 8 * 64 * 64 * 2, tb["problems"][1]
assert [p["size"] for p in th["problems"]] == \
    [[2, 4, 64, 32], [2, 2, 32, 64]], th["problems"]
assert len(tb["best_by_size"]) == 3 and len(th["best_by_size"]) == 2
PY
grep -q '^#define TB_SM_90_SIZE1_BATCH 8$' "$tmp/h/sm_90/tb.h" ||
  { echo "FAIL: tb.h has no SIZE1_BATCH 8"; fail=1; }
grep -q '^#define TH_SM_90_SIZE0_HEADS 4$' "$tmp/h/sm_90/th.h" ||
  { echo "FAIL: th.h has no SIZE0_HEADS 4"; fail=1; }
# the lookups, compiled: every size tuned finds its own row
cat >"$tmp/lookup.c" <<'C'
#include <stdio.h>
#define TUNER_ONLY_ARCH_NAMES
#include "sm_90/tb.h"
#include "tb_dispatch.h"
#include "th_dispatch.h"
static int bad;
#define WANT(got, want)                                                    \
  do {                                                                     \
    if ((got) != (want)) {                                                 \
      printf("FAIL: %s is %d, not %d\n", #got, (int)(got), (int)(want));  \
      bad = 1;                                                             \
    }                                                                      \
  } while (0)
int main(void)
{
  WANT(tb_sm_90_nearest_size(2, 64, 64), 0);
  WANT(tb_sm_90_nearest_size(8, 64, 64), 1);
  WANT(tb_sm_90_nearest_size(3, 96, 32), 2);
  WANT(tb_sm_90_nearest_size(7, 64, 64), 1);
  WANT(tb_lookup_size("NVIDIA H200", 9, 0, 8, 64, 64)->size_index, 1);
  WANT(tb_lookup_size("NVIDIA H200", 9, 0, 2, 64, 64)->size_index, 0);
  WANT(th_lookup_size("NVIDIA H200", 9, 0, 2, 4, 64, 32)->size_index, 0);
  WANT(th_lookup_size("NVIDIA H200", 9, 0, 2, 2, 32, 64)->size_index, 1);
  /* the heads' matrices are one number: 4 x 2 is 2 x 4 */
  WANT(th_lookup_size("NVIDIA H200", 9, 0, 4, 2, 64, 32)->size_index, 0);
  return bad;
}
C
if cc -std=c11 -Wall -Werror -I"$tmp/h" -o "$tmp/lookup" "$tmp/lookup.c" \
     >"$tmp/cc.out" 2>&1; then
  "$tmp/lookup" || fail=1
else
  echo "FAIL: the headers do not compile:"; cat "$tmp/cc.out"; fail=1
fi
# [2, 4, ...] and [4, 2, ...] are one launch: one size for the family
config same transpose_heads "[2, 4, 64, 32], [4, 2, 64, 32]"
msg=$("$tuner" --config "$tmp/same.cfg" --dry-run -q 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && [[ "$msg" == *"same.cfg:4: "*"4x2x64x32 is the same size as 2x4x64x32"* ]] ||
  { echo "FAIL: same size: exit $rc: $msg"; fail=1; }
# a results file whose size overflows: refused before anything is written
python3 - "$tmp"/run-tb/*.json "$tmp/over.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
doc["problems"][0]["size"] = [2147483647, 2147483647, 2147483647]
json.dump(doc, open(sys.argv[2], "w"))
PY
msg=$("$tuner" merge -q --output "$tmp/h-over" "$tmp/over.json" 2>&1)
rc=$?
[ $rc -eq 2 ] && [[ "$msg" == *"over.json: problems[0].size: more than 2^62 bytes"* ]] ||
  { echo "FAIL: overflowing size: exit $rc: $msg"; fail=1; }
[ -e "$tmp/h-over" ] && { echo "FAIL: the refused merge wrote"; fail=1; }
# the table by width takes both families: a row a size, named with its
# batch; a size of the wrong rank refused (exit 2)
table=$(python3 "$src/scripts/widths_table.py" "$tmp"/run-tb/*.json \
  "$tmp"/run-th/*.json 2>&1) ||
  { echo "FAIL: widths_table.py exited $?: $table"; fail=1; }
for size in 2x64x64 8x64x64 3x96x32 2x4x64x32 2x2x32x64; do
  [[ "$table" == *"| $size |"* ]] ||
    { echo "FAIL: widths_table.py has no row of $size"; fail=1; }
done
python3 - "$tmp"/run-th/*.json "$tmp/rank.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
doc["problems"][0]["size"] = [4, 64, 32]
json.dump(doc, open(sys.argv[2], "w"))
PY
msg=$(python3 "$src/scripts/widths_table.py" "$tmp/rank.json" 2>&1)
rc=$?
[ $rc -eq 2 ] && [[ "$msg" == *"problems[0]: not a transpose_heads problem"* ]] ||
  { echo "FAIL: a size of the wrong rank: exit $rc: $msg"; fail=1; }
[ $fail -eq 0 ] && echo "ok: batched transposes"
exit $fail
