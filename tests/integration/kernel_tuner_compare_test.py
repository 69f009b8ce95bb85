#!/usr/bin/env python3
"""kernel_tuner_compare_test.py -- scripts/kernel_tuner_compare.py without a
GPU, cupy or Kernel Tuner.

Usage: kernel_tuner_compare_test.py SRC TMP [TUNER]
  without TUNER (label cpu): --check of the examples; options and configs
    that must be refused (exit 2, FILE:LINE for a config), among them a
    constraint whose Python translation would select other points; the
    libconfig reader on every syntax the configs may use; Kernel Tuner's
    cache files, closed or cut off, counted; the space shrunk to a budget;
  with TUNER (label nvrtc): --check --tuner, which compares the tuner's
    own constraint pruning and launches (a --predict run) with Kernel
    Tuner's restrictions and grid, on conv2d.cfg and on the syntax
    variant.
"""
import json
import os
import re
import shutil
import subprocess
import sys

SRC, TMP = sys.argv[1], sys.argv[2]
TUNER = sys.argv[3] if len(sys.argv) > 3 else None
SCRIPT = os.path.join(SRC, "scripts", "kernel_tuner_compare.py")
CONV = os.path.join(SRC, "configs", "examples", "conv2d")
sys.path.insert(0, os.path.join(SRC, "scripts"))
import ktcompare_device  # noqa: E402
import ktcompare_spec  # noqa: E402
import kernel_tuner_compare  # noqa: E402

failures = []
passed = 0


def ok(cond, what):
    global passed
    if cond:
        passed += 1
        print("ok: " + what)
    else:
        failures.append(what)
        print("FAILED: " + what)


def run(args):
    p = subprocess.run([sys.executable, SCRIPT] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, cwd=SRC, timeout=900)
    return p.returncode, p.stdout


CONV_TEXT = open(os.path.join(CONV, "conv2d.cfg")).read()
os.makedirs(TMP, exist_ok=True)
shutil.copy(os.path.join(CONV, "conv2d.cu"), TMP)


def variant(name, old, new):
    """conv2d.cfg with old replaced by new, beside a copy of conv2d.cu."""
    if old not in CONV_TEXT:
        raise SystemExit("test setup: %r is not in conv2d.cfg" % old)
    path = os.path.join(TMP, name + ".cfg")
    with open(path, "w") as f:
        f.write(CONV_TEXT.replace(old, new))
    return path


# Every syntax of the configs at once: comments of three kinds, ':' for
# '=', hex, adjacent strings, ranges by step and by times, two sizes, a
# constraint with % ?: && and a grid by ceil_div.
SYNTAX = """# a comment
name = "conv2d";   // another
kernel : { file = "conv2d.cu"; name = "con" "v2d"; };
problem = { dims = ["rows", "cols"]; sizes = ( [0x100, 256], [96, 160] ); };
/* a block
   comment */
space = {
  block_size_x = [16, 32, 64];
  block_size_y = { from = 1; to = 16; times = 2; };
  tile_size_x = [1, { from = 2; to = 4; step = 2; }];
  tile_size_y = [1, 2];
  pad = [0, 1];
};
constraints = [ "threads % 64 == 0 && (pad ? tile_size_x <= 2 : 1)",
                "threads <= 1024" ];
launch = {
  block = ["block_size_x", "block_size_y"];
  grid = ["ceil_div(cols, block_size_x * tile_size_x)",
          "ceil(rows / (block_size_y * tile_size_y))"];
};
arguments = (
  { name = "out"; buffer = "fp32"; count = "rows * cols"; output = true; },
  { name = "in"; buffer = "fp32"; count = "(rows + 16) * (cols + 16)";
    init = { random = [-1.0, 1.0]; }; },
  { name = "rows"; scalar = "int32"; value = "rows"; },
  { name = "cols"; scalar = "int32"; value = "cols"; }
);
constants = (
  { name = "d_filter"; type = "fp32"; count = 289;
    init = { random = [0.0, 1.0]; }; }
);
check = {
  reference = { kernel = "conv2d_naive"; block = [32, 8];
                grid = ["ceil(cols / 32)", "ceil(rows / 8)"]; };
};
rate = { work = "2 * 289 * rows * cols"; unit = "GFLOP/s"; };
"""
syntax_cfg = os.path.join(TMP, "syntax.cfg")
with open(syntax_cfg, "w") as f:
    f.write(SYNTAX)

if TUNER:
    for cfg, extra in ((os.path.join(CONV, "conv2d.cfg"), []),
                       (syntax_cfg, ["--problem", "1"])):
        rc, out = run(["--check", "--config", cfg, "--tuner", TUNER] + extra)
        ok(rc == 0 and "tuner --predict on the sub-space" in out and
           "check: ok" in out,
           "--check --tuner %s%s: the tuner prunes and launches as Kernel "
           "Tuner would" % (os.path.basename(cfg), " ".join([""] + extra)))
        if rc != 0:
            print(out)
else:
    rc, out = run(["--check"])
    ok(rc == 0 and "check: ok" in out, "--check of conv2d.cfg")
    if rc != 0:
        print(out)

    # the reader: what the text says, value by value
    spec = ktcompare_spec.build_spec(syntax_cfg, 1)
    ok(spec.tune_params == {"block_size_x": [16, 32, 64],
                            "block_size_y": [1, 2, 4, 8, 16],
                            "tile_size_x": [1, 2, 4], "tile_size_y": [1, 2],
                            "pad": [0, 1]}
       and spec.kernel_name == "conv2d" and
       spec.dims == {"rows": 96, "cols": 160} and
       spec.grid_div[0] == ["block_size_x", "tile_size_x"] and
       spec.problem_size == [160, 96, 1],
       "the reader: comments, ':', hex, strings, ranges, sizes, ceil_div")
    rc, out = run(["--check", "--config", syntax_cfg, "--problem", "1"])
    ok(rc == 0, "--check of the syntax variant, second size")
    sub = spec.derived_config(os.path.join(TMP, "derived.cfg"),
                              {"block_size_x": [32], "block_size_y": [2, 4],
                               "tile_size_x": [1], "tile_size_y": [2],
                               "pad": [1]})
    back = ktcompare_spec.build_spec(sub, 0)
    ok(back.dims == spec.dims and back.tune_params["block_size_y"] == [2, 4]
       and os.path.isabs(back.kernel_file) and
       back.restrictions == spec.restrictions,
       "a derived config: one size, the sub-space, absolute file")

    # options refused before any work
    bad_options = [
        ([], "neither OUT nor --check"),
        ([os.path.join(TMP, "o"), "--check"], "both OUT and --check"),
        (["--check", "--kt-limit", "0"], "a limit of 0"),
        (["--check", "--keep", "nope=1"], "--keep of an unknown parameter"),
        (["--check", "--keep", "block_size_x=3"], "--keep of a value the "
         "space lacks"),
        (["--check", "--keep", "block_size_x=a"], "--keep of a word"),
        (["--check", "--config", os.path.join(TMP, "none.cfg")],
         "a missing config"),
        (["--check", "--tuner", os.path.join(TMP, "conv2d.cu")],
         "a --tuner that is no program"),
        (["--check", "--problem", "1"], "a size the config lacks"),
        (["--bogus"], "an unknown option"),
    ]
    for args, what in bad_options:
        rc, out = run(args)
        ok(rc == 2 and "Traceback" not in out, "exit 2: " + what)

    # configs refused with FILE:LINE
    bad_configs = [
        ("grid_trunc", '"ceil(cols / (block_size_x * tile_size_x))"',
         '"cols / (block_size_x * tile_size_x)"', "launch",
         "a grid Kernel Tuner cannot compute (truncating)"),
        ("block_expr", 'block = ["block_size_x", "block_size_y"]',
         'block = ["block_size_x * 2", "block_size_y"]', "launch",
         "a block dimension that is not one parameter"),
        ("swizzle", "pad = [0, 1];", 'pad = [0, 1]; sw = ["none"];',
         "sw", "a parameter of swizzle names"),
        ("bf16", 'buffer = "fp32"; count = "rows * cols"',
         'buffer = "bf16"; count = "rows * cols"', "bf16",
         "a bf16 buffer (no numpy type)"),
        # C truncates -3 / 2 to -1, Python floors it to -2: the
        # restriction string would select other points
        ("c_division", "pad = [0, 1];", "pad = [0, 1]; off = [-3, 3];",
         "Kernel Tuner's", "a constraint whose Python form selects "
         "otherwise", '"threads <= 1024"',
         '"threads <= 1024", "off / 2 != -2"'),
        ("bad_syntax", "sizes = ( [4096, 4096] );",
         "sizes = ( [4096, 4096 );", "expected", "a libconfig syntax error"),
        ("expr", '"threads >= 64"', '"threads >= "', "constraint",
         "an expression syntax error"),
        ("unknown", '"threads >= 64"', '"threadz >= 64"', "threadz",
         "a constraint naming an unknown name"),
        ("scalar", 'value = "rows";', 'value = "rows * pad";', "pad",
         "a scalar argument that names a parameter"),
    ]
    for case in bad_configs:
        name, old, new, word, what = case[:5]
        path = variant(name, old, new)
        if len(case) > 5:
            with open(path) as f:
                text = f.read().replace(case[5], case[6])
            with open(path, "w") as f:
                f.write(text)
        rc, out = run(["--check", "--config", path])
        ok(rc == 2 and re.search(re.escape(path) + r":\d+: ", out) and
           word in out and "Traceback" not in out,
           "exit 2 with FILE:LINE: " + what)
        if rc != 2:
            print(out)

    # Kernel Tuner's cache file, as util.py writes it: a header without
    # its last "}\n}", then one entry a line, each ending in ','; closed
    # by replacing the last ',' with "}\n}"
    header = json.dumps({"device_name": "d", "kernel_name": "conv2d",
                         "tune_params_keys": ["a"], "tune_params":
                         {"a": [1, 2, 3, 4]}, "cache": {}},
                        indent="")[:-3]
    entries = [
        ("1", {"a": 1, "time": 2.0, "times": [2.0], "compile_time": 500}),
        ("2", {"a": 2, "time": 1.5, "times": [1.5], "compile_time": 400}),
        ("3", {"a": 3, "__error__": "CompilationFailedConfig",
               "compile_time": 300}),
        ("4", {"a": 4, "__error__": "InvalidConfig"}),
    ]
    body = "".join("\n" + json.dumps({k: v})[1:-1] + "," for k, v in entries)
    for label, text in (("cut off", header + body),
                        ("closed", header + body[:-1] + "}\n}"),
                        ("empty", header)):
        path = os.path.join(TMP, "cache-%s.json" % label.replace(" ", ""))
        with open(path, "w") as f:
            f.write(text)
        ents = ktcompare_device.read_kt_cache(path)
        n, best, sums = ktcompare_device.kt_counts(ents, {"a": []})
        if label == "empty":
            ok(n["reached"] == 0 and best is None, "an empty cache file")
            continue
        ok(n["reached"] == 4 and n["compiled"] == 3 and n["timed"] == 2 and
           n["compile_failed"] == 1 and n["invalid"] == 1 and
           best["params"] == {"a": 2} and abs(sums["compile_s"] - 1.2) <
           1e-9, "a %s cache file counted" % label)

    # the space shrunk to a budget: each step drops the last value of the
    # longest list; the result fits and keeps a prefix of every list
    spec = ktcompare_spec.build_spec(os.path.join(CONV, "conv2d.cfg"))
    full = spec.tune_params
    budget = len(spec.valid_points()) // 3
    tp = kernel_tuner_compare.shrink(spec, full, lambda n: n <= budget)
    n = kernel_tuner_compare.count_valid(spec, tp)
    ok(0 < n <= budget and all(full[k][:len(v)] == v for k, v in
                               tp.items()) and
       any(len(v) < len(full[k]) for k, v in tp.items()),
       "a space shrunk to %d of %d points (%d)" %
       (budget, len(spec.valid_points()), n))

print("%d passed, %d failed" % (passed, len(failures)))
sys.exit(1 if failures else 0)
