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
tuner=$1 cfg=$2  # TUNER CONFIG
nvdisasm=${TUNER_NVDISASM:-}
if [ -z "$nvdisasm" ] || [ ! -x "$nvdisasm" ]; then
  echo "no nvdisasm: skipped"
  exit 77
fi
test_start
"$tuner" --config "$cfg" --dry-run --arch sm_90a --no-prune -q \
  --cache-dir "$tmp/cache" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
python3 - "$tmp/cache" "$nvdisasm" <<'PY' || fail=1
import glob, re, subprocess, sys
cache, nvdisasm = sys.argv[1], sys.argv[2]
entries = glob.glob(cache + "/**/*.tnc", recursive=True)
bad, seen = [], 0
for path in entries:
    blob = open(path, "rb").read()
    head, _, rest = blob.partition(b"\n")
    f = head.decode().split()
    if len(f) < 6 or f[2] != "ok":
        continue
    log_bytes, cubin_bytes = int(f[3]), int(f[4])
    log = rest[:log_bytes].decode(errors="replace")
    cubin = rest[log_bytes:log_bytes + cubin_bytes]
    open(path + ".cubin", "wb").write(cubin)
    sass = subprocess.run([nvdisasm, "-c", path + ".cubin"], check=True,
                          capture_output=True, text=True).stdout
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
