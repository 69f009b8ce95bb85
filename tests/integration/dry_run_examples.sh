#!/usr/bin/env bash
# The user's-kernel examples (configs/examples/, issue 34) as a dry run for
# sm_90: every candidate of the space compiles with NVRTC, and the model's
# wavefronts per block (and conflict degree) for chosen points equal the
# values worked out by hand below from the rules of docs/kernels.md: 32
# banks of 4 bytes; a 2- or 4-byte access costs the most distinct words
# one bank is asked for; a 16-byte load is served in quarter-warps, two
# merged when lanes 2k and 2k+1 share an address.  conv2d and softmax run
# a part of their space that takes every path of their kernels (the whole
# takes minutes on two cores), transpose_fp16 all of it.
#   usage: dry_run_examples.sh TUNER SRC EXAMPLE
set -u
tuner=$1
src=$2
example=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

case $example in
conv2d)
  space='space = {
  block_size_x = [16, 32];
  block_size_y = [2, 4];
  tile_size_x = [1, 2];
  tile_size_y = 1;
  pad = [0, 1];
};'
  # 16 x 4 threads (2 warps), tile 20 x 32 with pad 0: the tile load is 10
  # passes of 64 consecutive elements, one wavefront a warp (20); each of
  # the 289 taps reads rows ty, ty + 1 at columns 0..15, 32 words apart:
  # 2 words a bank, 2 x 2 x 289 = 1156.
  # With tile_size_x 2 the rows are 48 wide (16 banks apart): the taps take
  # one wavefront, 578 x 2 = 1156, the load 15 x 2 = 30.
  # Padded to 49: the taps' banks 0..15 and 17..32 meet at bank 0 (2 x 2 x
  # 578 = 2312); 10 of the load's 30 runs of 32 elements cross a row's
  # padding and take two (40).
  expect='block_size_x=16 block_size_y=4 tile_size_x=1 tile_size_y=1 pad=0|1176.0|2
block_size_x=16 block_size_y=4 tile_size_x=2 tile_size_y=1 pad=0|1186.0|1
block_size_x=16 block_size_y=4 tile_size_x=2 tile_size_y=1 pad=1|2352.0|2'
  ;;
softmax)
  space='space = {
  block_size_x = [32, 128, 1024];
  rows_per_block = [1, 2];
  items = [1, 4, 8];
  pad = [0, 1];
  reduce = [0, 1];
};'
  # cols = 4096.  32 threads, items 1, pad 0, tree: the stage and the
  # output 128 stores and loads of 32 consecutive words (128 + 128), the
  # two passes 256 more, the tree 2 x (1 store, 5 steps of 2 loads and a
  # store, 1 broadcast read) = 34: 546.
  # items 8, pad 0, shuffles: each pass reads 2 float4s a group, lanes 32
  # bytes apart: a quarter-warp asks banks 0-3 twice, 8 wavefronts an
  # access: 2 x 32 x 2 x 8 = 512, + 256 for the stage and output: 768.
  # 128 x 2 threads (8 warps), items 4, pad 1: groups 5 words apart.  The
  # stage's 32 lanes span words 0..38 (2-way: 32 x 8 x 2 = 512, the output
  # too); the passes are conflict-free (64 x 8 = 512); the tree: 8 stores,
  # 8 (warp, step) pairs with lanes at work per row x 2 rows x 3, 8
  # broadcasts, twice: 128.  1664.
  # 1024 threads, items 1, shuffles: stage, passes, output 128 + 256 +
  # 128; lane 0 of 32 warps stores twice (64); every warp reads the row's
  # 32 results as 8 float4s, twice, each a broadcast of 2 wavefronts (the
  # two merged halves): 32 x 16 x 2 = 1024.  1600.
  expect='block_size_x=32 rows_per_block=1 items=1 pad=0 reduce=0|546.0|1
block_size_x=32 rows_per_block=1 items=8 pad=0 reduce=1|768.0|2
block_size_x=128 rows_per_block=2 items=4 pad=1 reduce=0|1664.0|2
block_size_x=1024 rows_per_block=1 items=1 pad=0 reduce=1|1600.0|1'
  ;;
transpose_fp16)
  space=''
  # Rows of pairs (4 bytes); 2-byte reads of either half touch its word.
  # tile 32, no layout: a column read asks rows 0..31 of one pair column,
  # 16 words apart: 2 banks, 16 words each (16 x 8 loads x 4 warps = 512),
  # the row stores one wavefront (32): 544, degree 16.
  # tile 32, pack 2, cute(4,0,5): pair q of row r is at q ^ (r / 2 % 16);
  # the packed column read of rows 2 tx + e lands on banks q ^ tx + 16 e,
  # one wavefront (8 x 4 warps), the stores one too (4 x 4): 48.
  # tile 64, pack 1, xor (q ^ r, 32 pairs a row): column reads on banks
  # q ^ lane (128), row stores a permuted row (128): 256.
  # tile 64, pack 2, xor: rows 2 tx + e, tx and tx + 16 on one bank: 2 x
  # 32 x 4 warps x 2 = 256, the stores 64: 320.
  expect='tile=32 block_size_y=4 pack=1 pad=0 swz=none|544.0|16
tile=32 block_size_y=8 pack=2 pad=0 swz=cute(4,0,5)|48.0|1
tile=64 block_size_y=8 pack=1 pad=0 swz=xor|256.0|1
tile=64 block_size_y=4 pack=2 pad=0 swz=xor|320.0|2'
  ;;
*)
  echo "FAIL: no example '$example'"
  exit 1
  ;;
esac

# the example's folder copied (its kernel file is relative to the config),
# its space replaced by the smaller one
cp "$src/configs/examples/$example/"* "$tmp/"
cfg="$tmp/$example.cfg"
if [ -n "$space" ]; then
  printf '%s\n' "$space" >"$tmp/space"
  awk -v f="$tmp/space" '
    /^space = \{/ { while ((getline l < f) > 0) print l; skip = 1; done = 1;
                    next }
    skip && /^\};/ { skip = 0; next }
    !skip { print }
    END { if (!done) exit 3 }' "$src/configs/examples/$example/$example.cfg" \
    >"$cfg" || { echo "FAIL: no 'space = {' block in $example.cfg"; exit 1; }
fi

out=$("$tuner" --config "$cfg" --dry-run --arch sm_90 -j 2 -q \
      --cache-dir "$tmp/cache" 2>"$tmp/err")
rc=$?
err=$(cat "$tmp/err")
echo "$err" | tail -1
[ $rc -eq 0 ] || { echo "FAIL: exit $rc: $err"; fail=1; }
compiled=$(printf '%s\n' "$out" | grep -cE '^ +[0-9]+  .* compiled ')
[ "$compiled" -gt 0 ] || { echo "FAIL: nothing compiled: $out"; fail=1; }
[[ "$err" == *" compiled (0 from the cache, 0 failed)"* ]] ||
  { echo "FAIL: a compile failed: $err"; fail=1; }
printf '%s\n' "$out" | grep -E '^ +[0-9]+  ' | grep -vE ' (compiled|pruned) ' &&
  { echo "FAIL: a candidate neither compiled nor pruned"; fail=1; }

# the chosen points' wavefronts per block and degree
while IFS='|' read -r params wf deg; do
  got=$(printf '%s\n' "$out" | awk -v p="$params" '
    { i = index($0, "  " p " ") }
    i { split(substr($0, i + length(p) + 2), f); print f[2], f[3] }')
  if [ "$got" != "$wf $deg" ]; then
    echo "FAIL: $params: wavefronts and degree '$got', expected '$wf $deg'"
    fail=1
  fi
done <<<"$expect"

[ $fail -eq 0 ] && echo "ok: $example: $compiled compiled, the model's" \
  "wavefronts as worked out by hand"
exit $fail
