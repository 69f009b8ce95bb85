#!/usr/bin/env bash
# On a GPU: `tuner calibrate --device 0` writes a complete profile whose
# figures are sane, and whose stride sweep follows the model: a 4-byte
# load at stride 32 (32 wavefronts) takes between 16 and 64 times as long
# as at stride 1, odd strides cost as stride 1, and the time one
# wavefront adds is positive.
set -u
tuner=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tuner" calibrate --device 0 --output "$tmp/profile.json" -r 5 \
  >"$tmp/summary" 2>"$tmp/err"
rc=$?
cat "$tmp/summary" "$tmp/err"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
python3 - "$tmp/profile.json" "$tmp/summary" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
summary = open(sys.argv[2]).read()
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
for k in ("schema", "tuner_version", "date", "host", "command", "device",
          "toolkit", "settings", "measurements", "shared_memory"):
    need(k in d, "key " + k)
dev = d["device"]
need(dev["sm_count"] > 0 and dev["clock_rate_khz"] > 0, "device figures")
need("calibrate" in d["command"], "command")
m = d["measurements"]
cc = tuple(int(x) for x in dev["cc"].split("."))
for k, lo, hi in (("sm_clock", 200, 5000), ("launch_overhead", 0.1, 100),
                  ("global_copy", 50, 50000), ("memcpy_dtod", 50, 50000),
                  ("fp32_fma", 0.5, 1000), ("int_imad", 100, 1e6),
                  ("int_shift_lop3", 100, 1e6)):
    x = m[k]
    need(x["measured"] and x["unit"] and x["method"], k + " recorded")
    need(lo <= x["median"] <= hi, f"{k} = {x['median']} {x['unit']}")
    need(x["min"] <= x["q1"] <= x["median"] <= x["q3"] <= x["max"], k + " order")
if cc >= (8, 0):
    x = m["tensor_mma_bf16"]
    need(x["measured"] and x["median"] > 5, f"mma {x}")
    # one mma.sync is dense: far above the fp32 FMA rate
    need(x["median"] > m["fp32_fma"]["median"], "mma above fp32")
# the clock attribute and clock64 agree within a factor 2 (boost moves it)
need(0.5 < m["sm_clock"]["median"] * 1000 / dev["clock_rate_khz"] < 2,
     "measured SM clock against the attribute")
w = {x["width"]: x for x in d["shared_memory"]["widths"]}
need(sorted(w) == [4, 8, 16], "widths")
for width, x in w.items():
    s = x["strides"]
    need(len(s) == 64 and s[0]["stride"] == 1 and s[63]["stride"] == 64,
         f"{width}: strides")
    need(x["sm_ns_per_wavefront"] > 0 and x["warp_cycles_per_wavefront"] > 0,
         f"{width}: time per wavefront")
s4 = w[4]["strides"]
for key in ("warp_ratio", "sm_ratio"):
    r32 = s4[31][key]
    need(s4[31]["predicted_wavefronts"] == 32, "model: 32 wavefronts")
    need(16 <= r32 <= 64, f"4 bytes, stride 32, {key} = {r32:.2f} (model 32)")
    for odd in (3, 31, 33, 63):
        r = s4[odd - 1][key]
        need(0.8 <= r <= 1.5, f"4 bytes, stride {odd}, {key} = {r:.2f} (model 1)")
s16 = w[16]["strides"]
need(4 <= s16[7]["sm_ratio"] <= 16,
     f"16 bytes, stride 8, sm_ratio = {s16[7]['sm_ratio']:.2f} (model 8)")
need("stride" in summary and "warp.ratio" in summary, "summary table")
for b in bad:
    print("FAIL:", b)
if bad:
    sys.exit(1)
print("ok: profile complete; 4-byte stride 32: %.2f (one warp), %.2f (many)"
      % (s4[31]["warp_ratio"], s4[31]["sm_ratio"]))
PY
