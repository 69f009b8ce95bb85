#!/usr/bin/env bash
# On a GPU: `tuner calibrate --device 0` writes a complete profile whose
# figures are sane, and whose stride sweep follows the model: with many
# warps on every SM, each stride's time against stride 1 is within 25% of
# the model's wavefront ratio, at every width (a 4-byte load at stride 32
# costs 32 times stride 1); one warp alone rises with the wavefronts;
# odd strides cost as stride 1.
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
                  ("int_shift_lop3", 100, 1e6), ("global_tiles_64", 50, 50000),
                  ("global_tiles_128", 50, 50000),
                  ("global_tiles_256", 50, 50000),
                  ("global_tiles_512", 50, 50000)):
    x = m[k]
    need(x["measured"] and x["unit"] and x["method"], k + " recorded")
    need(lo <= x["median"] <= hi, f"{k} = {x['median']} {x['unit']}")
    need(x["min"] <= x["q1"] <= x["median"] <= x["q3"] <= x["max"], k + " order")
# a tiled transpose's DRAM rows: longer rows are not slower
need(m["global_tiles_512"]["median"] >= m["global_tiles_64"]["median"],
     "tiled copy: 512-byte rows at least as fast as 64-byte ones")
if cc >= (8, 0):
    x = m["tensor_mma_bf16"]
    need(x["measured"] and x["median"] > 5, f"mma {x}")
    # one mma.sync is dense: far above the fp32 FMA rate
    need(x["median"] > m["fp32_fma"]["median"], "mma above fp32")
# the copy engine's boxes (sm_90 on): every shape measured, a box of 64
# rows no cheaper than one of 8 of the same width, and at 8 rows a box of
# 32-byte rows moves fewer bytes a ns than one of 128 (a row is a request)
tma = [k for k in m if k.startswith("tma_")]
if cc >= (9, 0):
    need(len(tma) == 16, f"{len(tma)} copy engine boxes, 16 expected")
    for k in tma:
        x = m[k]
        need(x["measured"] and x["unit"] == "ns" and 1 <= x["median"] <= 1e5,
             f"{k} = {x.get('median')}")
    for op in ("load", "store"):
        for wb in (32, 64, 128, 256):
            need(m[f"tma_{op}_64x{wb}B"]["median"] >=
                 m[f"tma_{op}_8x{wb}B"]["median"], f"tma {op} {wb}B: rows")
        need(m[f"tma_{op}_8x32B"]["median"] * 4 >
             m[f"tma_{op}_8x128B"]["median"], f"tma {op}: bytes a ns")
else:
    need(all(not m[k]["measured"] for k in tma), "no copy engine before sm_90")
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
need(s4[31]["predicted_wavefronts"] == 32, "model: 32 wavefronts at stride 32")
# many warps on every SM: the SM's time per load follows the model's
# wavefronts at every width and stride (on an H200: within 1%)
for width, x in w.items():
    for s in x["strides"]:
        r, p = s["sm_ratio"], s["predicted_ratio"]
        need(p / 1.25 <= r <= p * 1.25,
             f"{width} bytes, stride {s['stride']}: sm_ratio {r:.2f}, "
             f"model {p:.2f}")
    need(0.5 <= x["sm_cycles_per_wavefront"] <= 2,
         f"{width}: {x['sm_cycles_per_wavefront']:.3f} cycles a wavefront")
# one warp alone: a load instruction costs at least a few cycles (about 4
# on an H200) however few its wavefronts, so its ratios are compressed
# below the model's; they still rise with the wavefronts, stride 32 costs
# 8 to 64 times stride 1, and odd strides cost as stride 1
need(8 <= s4[31]["warp_ratio"] <= 64,
     f"4 bytes, stride 32, warp_ratio = {s4[31]['warp_ratio']:.2f}")
need(s4[1]["warp_ratio"] <= s4[3]["warp_ratio"] <= s4[7]["warp_ratio"]
     <= s4[15]["warp_ratio"] <= s4[31]["warp_ratio"] * 1.01,
     "one warp's ratios rise with the stride's wavefronts")
for odd in (3, 31, 33, 63):
    for key in ("warp_ratio", "sm_ratio"):
        r = s4[odd - 1][key]
        need(0.8 <= r <= 1.25, f"4 bytes, stride {odd}, {key} = {r:.2f} (model 1)")
need("stride" in summary and "warp.ratio" in summary, "summary table")
for b in bad:
    print("FAIL:", b)
if bad:
    sys.exit(1)
print("ok: profile complete; 4-byte stride 32: %.2f (one warp), %.2f (many)"
      % (s4[31]["warp_ratio"], s4[31]["sm_ratio"]))
PY
