#!/usr/bin/env python3
"""`tuner plan` and scripts/plan_vs_ncu.py, without a GPU.

    python3 tests/integration/plan_check.py TUNER SRC

1. `tuner plan` on the conv2d example (configs/examples/conv2d) at points
   chosen by their parameters, against numbers worked out by hand below.
2. Its bad input: no plan, a family of the tuner's own, ids that are no
   valid point, a bad `line` on an access.
3. The script on a recorded profile (tests/fixtures/plan-check: ncu's raw and
   source pages written by hand in the format ncu prints, and a run's
   results and journal): equal, differing (each differing access named,
   with and without its source lines), and the input it must refuse.
4. The script's run on a GPU machine, with a stand-in for ncu that
   answers from the same recorded profile: the commands it runs, a
   permission error, a hang.
Prints one line per check; exits 1 on the first that fails.
Python 3 standard library only.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TUNER, SRC = (os.path.abspath(a) for a in sys.argv[1:3])
HERE = os.path.join(SRC, "tests", "fixtures", "plan-check")
SCRIPT = os.path.join(SRC, "scripts", "plan_vs_ncu.py")
EXAMPLE = os.path.join(SRC, "configs", "examples", "conv2d", "conv2d.cfg")
CHECK = os.path.join(HERE, "conv2d-check.cfg")
NOPLAN = os.path.join(HERE, "conv2d-noplan.cfg")
RESULTS = os.path.join(HERE, "results",
                       "conv2d-check-sm_90-20270101T000000Z.json")
TMP = tempfile.mkdtemp(prefix="plan_check.")


def fail(what):
    print("FAIL: " + what)
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(1)


def ok(what):
    print("ok: " + what)


def run(cmd, env=None, cwd=SRC):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, cwd=cwd, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what, detail=""):
    if not cond:
        fail(what + ("\n" + detail if detail else ""))
    ok(what)


def config_line(path, text):
    """The line of path that holds text (the test finds its own lines)."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    fail("%s has no line with %r" % (path, text))


# ------------------------------------------------------ 1. tuner plan
rc, out, err = run([TUNER, "plan", "--config", EXAMPLE, "--json"])
expect(rc == 0, "tuner plan --json on the conv2d example", err)
doc = json.loads(out)
expect(doc["schema"] == "tuner-plan-1" and doc["arch"] == "sm_90",
       "its schema and the default architecture")
expect(len(doc["points"]) == doc["space"]["valid"] > 0,
       "every valid point is listed (%d)" % doc["space"]["valid"])
access = {a["name"]: a for a in doc["accesses"]}
expect(access["tile load"]["kind"] == "st" and
       access["filter taps"]["kind"] == "ld",
       "the tile load counts as st, the filter taps as ld")
for p in doc["points"]:
    for pp in p["per_problem"]:
        for k in doc["kinds"]:
            total = [sum(pp["accesses"][a["index"]][x]
                         for a in doc["accesses"] if a["kind"] == k)
                     for x in ("insts", "wavefronts")]
            if total != [pp["kinds"][k]["insts"],
                         pp["kinds"][k]["wavefronts"]]:
                fail("point %d: the %s totals are not its accesses' sum"
                     % (p["id"], k))
ok("each point's totals by kind are the sums of its accesses")


def point(bx, by, tx, ty, pad):
    for p in doc["points"]:
        if p["params"] == {"block_size_x": bx, "block_size_y": by,
                           "tile_size_x": tx, "tile_size_y": ty, "pad": pad}:
            return p
    fail("no valid point %s" % ((bx, by, tx, ty, pad),))


def counts(p, name):
    c = p["per_problem"][0]["accesses"][access[name]["index"]]
    return c["insts"], c["wavefronts"]


# By hand, on the 4096 x 4096 image with the 17 x 17 filter (halo 16).
#
# block 32 x 2, one output a thread (64 threads, 2 warps): grid
# 4096/32 x 4096/2 = 128 x 2048 = 262144 blocks.  The tile is
# (2 + 16) x (32 + 16) = 18 x 48 = 864 floats, stored by `tid + k * 64`
# for k < ceil(864 / 64) = 14: warp 0 stores on all 14 passes, warp 1 on
# 13 (its last elements, 864 to 895, are past the tile): 27 warp stores a
# block.  With pad 0 each store is 32 consecutive words, one wavefront.
# With pad 1 element e sits at word e + e / 48, so a warp's 32 elements
# that straddle a row end span 33 words whose first and last share a bank:
# two wavefronts.  The warps start at multiples of 32 and rows end at
# multiples of 48: the odd row ends 48, 144, ..., 816 (9 of them) fall
# inside a warp's 32 elements, the even ones on a warp boundary.  So
# 27 + 9 = 36 wavefronts a block.  The taps: each warp loads row ty,
# columns 0..31 (32 consecutive words, one wavefront whatever the pad),
# 289 times: 2 x 289 loads a block.
B = 128 * 2048
expect(counts(point(32, 2, 1, 1, 0), "tile load") == (27 * B, 27 * B),
       "block 32x2 pad 0: tile load 27 st and 27 wavefronts a block")
expect(counts(point(32, 2, 1, 1, 1), "tile load") == (27 * B, 36 * B),
       "block 32x2 pad 1: tile load 27 st, 36 wavefronts a block")
for pad in (0, 1):
    expect(counts(point(32, 2, 1, 1, pad), "filter taps") ==
           (2 * 289 * B, 2 * 289 * B),
           "block 32x2 pad %d: 2 x 289 conflict-free tap loads a block" % pad)
# block 16 x 4 (64 threads): grid 256 x 1024 = 262144 blocks; the tile is
# 20 x 32 = 640 floats, 10 passes of both warps, each a full row of 32
# words (pad 0 or 1): 20 stores of one wavefront.  A tap loads rows ty
# and ty + 1 of a warp's two half-warps, 16 columns each: with pad 0 the
# rows are 32 words apart, every bank asked for two words: 2 wavefronts;
# with pad 1 (33 apart) banks 1..15 still twice: 2 wavefronts.
B = 256 * 1024
for pad in (0, 1):
    p = point(16, 4, 1, 1, pad)
    expect(counts(p, "tile load") == (20 * B, 20 * B) and
           counts(p, "filter taps") == (2 * 289 * B, 2 * 2 * 289 * B),
           "block 16x4 pad %d: 20 stores, 2 x 289 two-way tap loads a block"
           % pad)
# 2 x 2 outputs a thread on block 32 x 2: grid 4096/64 x 4096/4 = 64 x
# 1024 = 65536 blocks; the tile (4 + 16) x (64 + 16) = 1600 floats, 25
# passes of both warps (1600 = 25 x 64): 50 stores a block, each of 32
# consecutive words with pad 0, one wavefront.  The taps: 289 x 2 x 2
# loads a warp, each of row ty's 32 consecutive words.
B = 64 * 1024
p = point(32, 2, 2, 2, 0)
expect(counts(p, "tile load") == (50 * B, 50 * B) and
       counts(p, "filter taps") == (2 * 289 * 4 * B, 2 * 289 * 4 * B),
       "tile 2x2 on block 32x2 pad 0: 50 stores, 2 x 1156 tap loads a block")

sel = point(32, 2, 1, 1, 1)["id"]
rc, out, err = run([TUNER, "plan", "--config", EXAMPLE, "--ids", str(sel)])
rows = [ln.split() for ln in out.splitlines()]
expect(rc == 0 and ["tile", "load", "conv2d.cfg:%d" % access["tile load"]
                    ["config_line"], "-", "st", str(27 * 128 * 2048),
                    str(36 * 128 * 2048)] in rows and
       ["launch", "st", str(27 * 128 * 2048), str(36 * 128 * 2048)] in rows,
       "tuner plan --ids %d: its table" % sel, out + err)
expect(sum(1 for ln in out.splitlines() if ln.startswith("id ")) == 1,
       "--ids lists only the ids asked for")

# ------------------------------------------------------ 2. bad input
rc, out, err = run([TUNER, "plan", "--config", NOPLAN])
expect(rc == 2 and "declares no plan" in err and out == "",
       "a config without a plan: exit 2, said, nothing written", err)
rc, out, err = run([TUNER, "plan", "--config",
                    os.path.join(SRC, "configs", "transpose.cfg")])
expect(rc == 2 and "the tuner's own" in err,
       "a family compiled into the tuner: exit 2", err)
invalid = [p for p in range(doc["space"]["points"])
           if p not in {q["id"] for q in doc["points"]}][0]
rc, out, err = run([TUNER, "plan", "--config", EXAMPLE, "--ids",
                    str(invalid)])
expect(rc == 2 and "point %d is not valid on sm_90: constraint" % invalid
       in err, "--ids of an excluded point: exit 2 with its reason", err)
for bad in ("99999", "3-1", "x", "1,", "-1"):
    rc, out, err = run([TUNER, "plan", "--config", EXAMPLE, "--ids", bad])
    if rc != 2 or "--ids" not in err:
        fail("--ids %s: exit %d, %s" % (bad, rc, err))
ok("--ids out of range or malformed: exit 2")
rc, out, err = run([TUNER, "plan", "--config", EXAMPLE, "--arch", "sm_1"])
expect(rc == 2 and "unknown" in err, "an unknown --arch: exit 2", err)

with open(CHECK) as f:
    check_text = f.read()
tile_line = config_line(CHECK, 'name = "tile load"')
for line, why in (("line = 99;", "past the end of conv2d.cu (72 lines)"),
                  ("line = 0;", "line"),
                  ('line = "36";', "line"),
                  ("line = [36, 1, 2, 3, 4, 5, 6, 7, 8];", "1 to 8 lines"),
                  ("line = [];", "1 to 8 lines")):
    cfg = os.path.join(TMP, "line.cfg")
    with open(cfg, "w") as f:
        f.write(check_text.replace("line = 36;", line).replace(
            'file = "conv2d.cu"', 'file = "%s"' %
            os.path.join(HERE, "conv2d.cu")))
    rc, out, err = run([TUNER, "plan", "--config", cfg])
    if rc != 2 or "%s:%d:" % (cfg, tile_line) not in err or why not in err:
        fail("%s: exit %d, %s" % (line, rc, err))
ok("a bad `line` on an access: FILE:LINE, exit 2")

# ------------------------------------------------------ 3. the script, recorded
taps_line = config_line(CHECK, 'name = "filter taps"')


def script(name, *args, env=None):
    out_dir = os.path.join(TMP, name)
    rc, out, err = run([sys.executable, SCRIPT, "--tuner", TUNER,
                        "--out", out_dir] + list(args), env=env)
    return rc, out + err, out_dir


def recorded(name, raw, source=None, results=RESULTS, config=CHECK):
    args = ["--config", config, "--raw-csv", raw, "--results", results]
    if source:
        args += ["--source-csv", source]
    return script(name, *args)


rc, out, d = recorded("equal", os.path.join(HERE, "ncu_raw.csv"),
                      os.path.join(HERE, "ncu_source.csv"))
expect(rc == 0 and "4 compared with the plan: 4 equal, 0 differ" in out,
       "the recorded profile that equals the plan: exit 0", out)
with open(os.path.join(d, "plan_vs_ncu.tsv")) as f:
    tsv = [ln.split("\t") for ln in f.read().splitlines()]
head = tsv[0]
rows = [dict(zip(head, r)) for r in tsv[1:]]
expect(len(rows) == 8 and all(r["equal"] == "yes" for r in rows) and
       [(r["id"], r["step"], r["kind"], r["plan_wavefronts"])
        for r in rows[:2]] == [("1", "check", "ld", str(2 * 289 * 1024)),
                               ("1", "check", "st", str(36 * 1024))],
       "its table: the journal's order (id 1 first), a row per launch and "
       "kind", "\n".join(map(str, rows)))
expect(os.path.isfile(os.path.join(d, "ncu_raw.csv")) and
       os.path.isfile(os.path.join(d, "report.txt")),
       "the raw CSV and the report beside the table")

rc, out, d = recorded("differs", os.path.join(HERE, "ncu_raw_differs.csv"))
expect(rc == 1 and "0 equal, 4 differ" in out, "a differing profile: exit 1",
       out)
expect(re.search(r"launch 0 \(candidate 1's check launch.*pad=1\): differs "
                 r"in st\n  st: the plan 27648 instructions and 36864 "
                 r"wavefronts per launch, ncu 27648 and 27648\n    access "
                 r"'tile load' \(conv2d-check.cfg:%d\)" % tile_line, out),
       "the st that differs names its access and config line", out)
expect(re.search(r"launch 2 .*differs in ld, st\n  ld: the plan 591872 "
                 r"instructions and 591872 wavefronts per launch, ncu 0 and "
                 r"0\n    access 'filter taps' \(conv2d-check.cfg:%d\).*"
                 r"\(none executed\)" % taps_line, out),
       "an access the kernel does not execute is named", out)
expect("launch 1 (candidate 1's timed launch on problem 0; block_size_x=32 "
       "block_size_y=2 tile_size_x=1 tile_size_y=1 pad=1): differs in st: as "
       "launch 0" in out, "the same difference again is said once")

rc, out, d = recorded("attributed", os.path.join(HERE, "ncu_raw_differs.csv"),
                      os.path.join(HERE, "ncu_source_differs.csv"))
expect(rc == 1 and
       "access 'tile load' (conv2d-check.cfg:%d): declared 27648 st "
       "instructions and 36864 wavefronts per launch at conv2d.cu:36, "
       "measured 27648 and 27648" % tile_line in out,
       "with source lines: the access, its line, declared and measured", out)
expect("the kernel has no ld at conv2d.cu:51: access 'filter taps' "
       "(conv2d-check.cfg:%d) declares 591872 instructions per launch there"
       % taps_line in out, "with source lines: no ld where the plan says")
expect("conv2d.cu:35 executes 1024 st instructions (1024 wavefronts) per "
       "launch that no declared access names" in out,
       "with source lines: an instruction no access declares")

# The same launches in the layout ncu 2025.3 printed on the H200 ("File
# Path" and "Function Name" a launch, plain numbers): every SASS row twice
# under its line, and a store also under line 34, as ncu lists an inlined
# function's instruction under the function's line and the call site's.
# Each address counts once, at the line an access names (the tile's store
# at 36), else at the first it is under (candidate 0's extra store, at 34
# and 35, is said at 34).
rc, out, d = recorded("listed", os.path.join(HERE, "ncu_raw_differs.csv"),
                      os.path.join(HERE, "ncu_source_listed.csv"))
expect(rc == 1 and "cannot be tied" not in out and
       "access 'tile load' (conv2d-check.cfg:%d): declared 27648 st "
       "instructions and 36864 wavefronts per launch at conv2d.cu:36, "
       "measured 27648 and 27648" % tile_line in out and
       "the kernel has no ld at conv2d.cu:51" in out,
       "rows listed twice and under two lines: each address counted once, "
       "at the line an access names", out)
expect("conv2d.cu:34 executes 1024 st instructions (1024 wavefronts) per "
       "launch that no declared access names" in out and
       "conv2d.cu:35 executes" not in out and
       "executes 27648" not in out,
       "... else at the first line it is listed under", out)

rc, out, d = recorded("untied", os.path.join(HERE, "ncu_raw_differs.csv"),
                      os.path.join(HERE, "ncu_source.csv"))
expect(rc == 1 and "the source page cannot be tied to the launches" in out
       and "declared 27648 st instructions" not in out,
       "a source page of other launches is not used", out)


def variant(name, path, old, new):
    """A copy of a fixture with one change."""
    with open(path) as f:
        text = f.read()
    if old not in text:
        fail("%s has no %r" % (path, old))
    dst = os.path.join(TMP, name)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "w") as f:
        f.write(text.replace(old, new, 1))
    return dst


raw = variant("grid/ncu_raw.csv", os.path.join(HERE, "ncu_raw.csv"),
              '"(8, 128, 1)"', '"(8, 64, 1)"')
rc, out, d = recorded("grid", raw)
expect(rc == 3 and "launch 0 (ncu ID 0) has grid (8, 64, 1)" in out and
       "do not line up" in out,
       "a launch of another grid than the order says: exit 3", out)
raw = variant("short/ncu_raw.csv", os.path.join(HERE, "ncu_raw.csv"),
              '"3","48213"', '"x3","48213"')
rc, out, d = recorded("short", raw)
expect(rc == 3 and "ncu profiled 3 launches" in out,
       "fewer launches than the journal accounts for: exit 3", out)
with open(os.path.join(HERE, "ncu_raw.csv")) as f:
    lines = f.read().splitlines(True)
raw = os.path.join(TMP, "window", "ncu_raw.csv")
os.makedirs(os.path.dirname(raw))
with open(raw, "w") as f:
    f.write("".join(lines[:2] + lines[4:]))  # the header, the units, 2 and 3
rc, out, d = script("window", "--config", CHECK, "--raw-csv", raw,
                    "--results", RESULTS, "--launches", "2:2")
expect(rc == 0 and "2 launches of conv2d profiled (launches 2 to 3 of the 4 "
       "the run made)" in out and re.search(r"\n2 +candidate 0 +check", out),
       "--launches 2:2: the window's launches, compared with theirs", out)
rc, out, d = script("window-off", "--config", CHECK, "--raw-csv", raw,
                    "--results", RESULTS, "--launches", "1:2")
# launches 1 and 2 are candidate 1's timed launch and 0's checked one:
# the recorded 2 and 3 (candidate 0's) differ from candidate 1's plan
expect(rc == 1 and "launch 1 (candidate 1's timed launch" in out,
       "a window that is not the profiled one is not taken as equal", out)
# A reference that is the kernel itself (the space's default point, id 0
# here) is profiled too: once, before the first job, as the worker runs
# it when a job's problem is not the last one's (gpu/expected.c).
cfg = os.path.join(TMP, "default-ref", "conv2d-check.cfg")
os.makedirs(os.path.dirname(cfg))
with open(cfg, "w") as f:
    f.write(re.sub(r"check = \{.*?\n\};", 'check = { reference = "default"; };',
                   check_text, flags=re.S).replace(
        'file = "conv2d.cu"', 'file = "%s"' % os.path.join(HERE, "conv2d.cu")))
raw = os.path.join(TMP, "default-ref", "ncu_raw.csv")
with open(raw, "w") as f:
    f.write("".join(lines[:2] + lines[4:5] + lines[2:]))  # id 0's first
rc, out, d = script("default-ref", "--config", cfg, "--raw-csv", raw,
                    "--results", RESULTS)
expect(rc == 0 and "5 compared with the plan: 5 equal, 0 differ" in out and
       re.search(r"\n0 +reference 0 +reference", out),
       "a default-point reference: its launch placed first and compared", out)
rc, out, d = script("default-ref-missing", "--config", cfg, "--raw-csv",
                    os.path.join(HERE, "ncu_raw.csv"), "--results", RESULTS)
expect(rc == 3 and "ncu profiled 4 launches; the run's journal accounts for "
       "5" in out, "... and missing, the launches do not add up: exit 3", out)
raw = variant("ldsm/ncu_raw.csv", os.path.join(HERE, "ncu_raw.csv"),
              '"36,925","0","0","591,872"', '"36,925","0","2,048","591,872"')
rc, out, d = recorded("ldsm", raw)
expect(rc == 1 and "launch 0 (candidate 1's check launch on problem 0; "
       "block_size_x=32 block_size_y=2 tile_size_x=1 tile_size_y=1 pad=1): "
       "differs in ldsm\n  ldsm: the plan 0 instructions and 0 wavefronts "
       "per launch, ncu 2048 and 0\n    the plan declares no ldsm access; "
       "the kernel executes 2048 ldsm instructions (0 wavefronts) per launch"
       in out, "instructions of a kind the plan does not declare: exit 1",
       out)
raw = variant("perm/ncu_raw.csv", os.path.join(HERE, "ncu_raw.csv"),
              '"591,872","27,648","0","591,872"',
              '"n/a","27,648","0","591,872"')
rc, out, d = recorded("perm", raw)
expect(rc == 3 and "could not read smsp__sass_inst_executed_op_shared_ld"
       in out, "a counter ncu could not read: exit 3", out)

jdir = os.path.join(TMP, "failed", "results")
os.makedirs(jdir)
shutil.copy(RESULTS, jdir)
variant("failed/results/" + os.path.basename(RESULTS) + "l",
        RESULTS + "l", '"status":"ok"',
        '"status":"failed","reason":"the worker crashed"')
rc, out, d = recorded("failed", os.path.join(HERE, "ncu_raw.csv"),
                      results=os.path.join(jdir, os.path.basename(RESULTS)))
expect(rc == 3 and "candidate 1 ended failed (the worker crashed)" in out,
       "a candidate whose launches cannot be counted: exit 3", out)
other = variant("other/r.json", RESULTS, "pad=1", "pad=2")
shutil.copy(RESULTS + "l", other + "l")
rc, out, d = recorded("other", os.path.join(HERE, "ncu_raw.csv"),
                      results=other)
expect(rc == 2 and "not this config's" in out,
       "results of another config: exit 2", out)
rc, out, d = recorded("noplan", os.path.join(HERE, "ncu_raw.csv"),
                      config=NOPLAN)
expect(rc == 2 and "declares no plan" in out,
       "the script on a config without a plan: exit 2, said", out)

# ------------------------------------------------------ 4. the script, run
rc, out, d = script("no-ncu", "--config", CHECK, "--ncu",
                    os.path.join(TMP, "no", "ncu"))
expect(rc == 3 and "ncu not found" in out, "no ncu: exit 3, said", out)

# A stand-in for ncu: the profiling call checks the flags that make the
# count exact and leaves the recorded run's results; --import prints the
# recorded pages.  FAKE_NCU_MODE=perm answers as ncu does without access
# to the counters, =hang never ends.
FAKE = os.path.join(TMP, "bin", "ncu")
os.makedirs(os.path.dirname(FAKE))
with open(FAKE, "w") as f:
    f.write(r'''#!/usr/bin/env python3
import os, shutil, sys, time
a = sys.argv[1:]
here = os.environ["FAKE_NCU_FIXTURES"]
if "--import" in a:
    page = a[a.index("--page") + 1]
    name = {"raw": "ncu_raw.csv", "source": "ncu_source.csv"}[page]
    sys.stdout.write(open(os.path.join(here, name)).read())
    sys.exit(0)
mode = os.environ.get("FAKE_NCU_MODE", "")
if mode == "hang":
    time.sleep(600)
if mode == "perm":
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission "
          "to access NVIDIA GPU Performance Counters on the target device 0.")
    sys.exit(1)
need = [["--kernel-name-base", "function"],
        ["--kernel-name", "regex:^conv2d$"], ["--target-processes", "all"],
        ["-r", "1"], ["--warmup", "0"], ["--full-protocol"], ["--no-prune"],
        ["--section", "SourceCounters"]]
for n in need:
    if not any(a[i:i + len(n)] == n for i in range(len(a))):
        print("fake ncu: missing %s in %s" % (" ".join(n), a))
        sys.exit(9)
out = a[a.index("--output") + 1]
os.makedirs(out)
res = os.path.join(here, "results", "conv2d-check-sm_90-20270101T000000Z")
shutil.copy(res + ".json", out)
shutil.copy(res + ".jsonl", out)
open(a[a.index("-o") + 1] + ".ncu-rep", "w").close()
''')
os.chmod(FAKE, 0o755)
env = dict(os.environ, FAKE_NCU_FIXTURES=HERE)
rc, out, d = script("fake", "--config", CHECK, "--ncu", FAKE, env=env)
expect(rc == 0 and "4 equal, 0 differ" in out,
       "a run under (a stand-in for) ncu: exit 0", out)
with open(os.path.join(d, "commands.txt")) as f:
    cmds = f.read().splitlines()
expect(len(cmds) == 4 and cmds[1].startswith(FAKE + " --clock-control none")
       and "--page raw" in cmds[2] and "--print-source cuda,sass" in cmds[3]
       and all(c in out for c in cmds),
       "the commands it ran: printed and in commands.txt", "\n".join(cmds))
expect(os.path.isfile(os.path.join(d, "ncu_raw.csv")) and
       os.path.isfile(os.path.join(d, "ncu_source.csv")),
       "the raw and source CSVs beside the table")
rc, out, d = script("fake-window", "--config", CHECK, "--ncu", FAKE,
                    "--launches", "2:2", env=env)
expect(rc == 3 and "--launch-skip 2 --launch-count 2 " in out and
       "ncu profiled 4 launches from launch 2 on" in out,
       "--launches: ncu told to skip and count, and held to the window", out)
rc, out, d = script("fake-perm", "--config", CHECK, "--ncu", FAKE,
                    env=dict(env, FAKE_NCU_MODE="perm"))
expect(rc == 3 and "ERR_NVGPUCTRPERM" in out,
       "ncu without access to the counters: exit 3, said", out)
rc, out, d = script("fake-hang", "--config", CHECK, "--ncu", FAKE,
                    "--timeout", "2", env=dict(env, FAKE_NCU_MODE="hang"))
expect(rc == 3 and "timed out after 2 s (killed)" in out,
       "a profiled run that hangs is stopped: exit 3", out)

shutil.rmtree(TMP, ignore_errors=True)
print("all passed")
