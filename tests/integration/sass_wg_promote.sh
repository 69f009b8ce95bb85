#!/usr/bin/env bash
# The promoted fp8 wgmma kernels' SASS, every point of CONFIG compiled for
# sm_90a by the tuner's NVRTC path: the fold adds each k-tile's sums
# without selects (no FSEL: a select beside every add cost as many
# instructions as the adds, run 54) and the wgmma descriptors stay in
# uniform registers (at most 40 R2UR in a kernel: rebuilt per thread they
# took 297 in the 256 x 128 point), and ptxas serialized none of their
# wgmma (no C7514 in its log: two sets of partial sums in a loop that
# went round with a chain in flight had it, and gained nothing).  Needs
# nvdisasm (TUNER_NVDISASM):
# without it, skipped (77).
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
# The kernels come from test_sass_widths (every point of CONFIG, its
# SASS and compile log dumped per candidate), which also checks their
# shared-memory widths against the plans.
sass_widths=$1 cfg=$2 cache=${3:-}  # TEST_SASS_WIDTHS CONFIG [CACHE_DIR]
nvdisasm=${TUNER_NVDISASM:-}
if [ -z "$nvdisasm" ] || [ ! -x "$nvdisasm" ]; then
  echo "no nvdisasm: skipped"
  exit 77
fi
test_start
mkdir -p "$tmp/dump"
"$sass_widths" "$cfg" sm_90 --dump "$tmp/dump" ${cache:+--cache "$cache"} \
  >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
python3 - "$tmp/dump" <<'PY' || fail=1
import glob, re, sys
bad, seen = [], 0
for path in sorted(glob.glob(sys.argv[1] + "/*.sass")):
    sass = open(path).read()
    log = open(path[:-len(".sass")] + ".log", errors="replace").read()
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)",
                     sass, re.M)
    if "QGMMA" not in ops:
        bad.append((path, "no QGMMA: not an fp8 wgmma kernel"))
        continue
    seen += 1
    fsel, r2ur = ops.count("FSEL"), ops.count("R2UR")
    if fsel or r2ur > 40:
        bad.append((path, "FSEL %d, R2UR %d" % (fsel, r2ur)))
    if "C7514" in log:
        bad.append((path, "ptxas serialized its wgmma (C7514)"))
for b in bad:
    print("NOT OK", *b)
assert seen and not bad, "%d kernels, %d not ok" % (seen, len(bad))
print("ok: %d promoted fp8 kernels, no FSEL, at most 40 R2UR, no "
      "C7514" % seen)
PY
exit "$fail"
