#!/usr/bin/env python3
"""kernel_tuner_compare.py -- Kernel Tuner and this tuner side by side on
one GPU: the same kernel file, space, constraints, launch, inputs and
reference (issue 34, part 8).

Usage:
  kernel_tuner_compare.py OUT [options]      on a GPU machine, from the
                                             repository root
  kernel_tuner_compare.py --check [options]  no GPU: the config read into
                                             Kernel Tuner's terms, checked

Steps of a run (each printed; each in a child process with a time limit;
what one writes survives the failure of a later one):
  1. the config read (scripts/ktcompare_spec.py): tune_params, restrictions
     and the launch as Kernel Tuner takes them, checked point by point
     against the tuner's own semantics;
  2. with --space auto: Kernel Tuner timed on a few points, its time for
     the whole space foreseen; the full space if that fits --kt-limit,
     else a sub-space (each step drops the last value of the parameter
     with the most values) that does; both tools tune the same points;
  3. the tuner: `TUNER --config CFG --device N --output TMP --cache-dir
     NEW -q`, the whole command timed, from an empty compile cache;
  4. Kernel Tuner: tune_kernel, brute force, its default timing (7
     iterations), the backend of --kt-lang (cupy: one NVRTC compile to
     cubin per configuration, from an empty CUPY_CACHE_DIR), the whole call
     timed; stopped at the limit if it runs over, with what its cache
     holds;
  5. both bests re-timed alike in one process (scripts/ktcompare_device.py,
     retime): compiled the same way (cupy, Kernel Tuner's #defines and
     options), checked against the reference, then timed with a CUDA event
     pair around each launch, in interleaved rounds;
  6. OUT/kt_compare.md (the table, also printed), OUT/kt_compare.json,
     Kernel Tuner's results and cache (kt_results.json, kt_cache.json),
     the tuner's results JSON, and OUT/kt_compare.log.

Options:
  --config FILE      a described kernel's config
                     (default configs/examples/conv2d/conv2d.cfg)
  --tuner BIN        the tuner (default build/tuner)
  --device N         the GPU (default 0)
  --problem I        which of the config's sizes (default 0)
  --space auto|full  (default auto, as in step 2)
  --keep NAME=V,...  tune only these values of NAME (repeat; implies a
                     fixed space)
  --kt-limit S       Kernel Tuner's time limit in seconds (default 300)
  --deadline S       the whole run's (default 540; a device command may
                     take 600)
  --kt-lang L        cupy (default; CUDA if cupy fails in step 2), CUDA
                     (Kernel Tuner's own choice: cuda-python where it
                     imports, else cupy) or nvcuda
  --rounds N, --per-round N   the re-timing (default 20 rounds of 50
                     launches of each best)
  --skip-kt, --skip-ours      leave one tool out
Exit status: 0 all steps done; 1 a step failed or was cut short (what it
measured is written); 2 bad input (nothing run).
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ktcompare_config import ConfigError  # noqa: E402
from ktcompare_spec import build_spec  # noqa: E402
import ktcompare_device  # noqa: E402  (cupy and Kernel Tuner: not here)
from ktcompare_report import table  # noqa: E402

DEFAULT_CONFIG = "configs/examples/conv2d/conv2d.cfg"
ESTIMATE_POINTS = 4
ESTIMATE_MARGIN = 1.15      # on the foreseen time of Kernel Tuner
RETIME_RESERVE_S = 75       # kept for step 5 when setting the others'
OURS_RESERVE_S = 90         # kept for step 3 when choosing the space


def fail(msg):
    print("kernel_tuner_compare: %s" % msg, file=sys.stderr)
    sys.exit(2)


class Run:
    """The run's output folder, log, clock and figures so far."""

    def __init__(self, args):
        self.args = args
        self.t0 = time.time()
        self.out = args.out
        os.makedirs(self.out, exist_ok=True)
        self.logf = open(os.path.join(self.out, "kt_compare.log"), "a")
        self.tmp = tempfile.mkdtemp(prefix="ktcompare-")
        self.data = {"steps": {}, "args": vars(args)}

    def say(self, msg):
        line = "[ktcompare %6.1f s] %s" % (time.time() - self.t0, msg)
        print(line, flush=True)
        self.logf.write(line + "\n")
        self.logf.flush()

    def left(self):
        return self.args.deadline - (time.time() - self.t0)

    def child(self, cmd, timeout, env=None, interrupt=signal.SIGTERM,
              cwd=None):
        """Runs cmd in its own process group, its output into the log and
        to stdout; at timeout, interrupt then (10 s on) kill the group.
        Returns (exit status or None if stopped, seconds)."""
        self.say("run (limit %d s): %s" % (timeout, " ".join(cmd)))
        t = time.perf_counter()
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                 start_new_session=True)
        except OSError as e:
            self.say("cannot start %s: %s" % (cmd[0], e.strerror))
            return -1, 0.0

        def pump():
            for raw in iter(p.stdout.readline, b""):
                line = raw.decode(errors="replace")
                sys.stdout.write(line)
                sys.stdout.flush()
                self.logf.write(line)
            self.logf.flush()
        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            rc = p.wait(timeout=max(timeout, 1))
        except subprocess.TimeoutExpired:
            self.say("time limit: stopping it")
            for sig, wait in ((interrupt, 10), (signal.SIGKILL, 10)):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            rc = None
        reader.join(timeout=5)
        return rc, time.perf_counter() - t

    def save(self):
        with open(os.path.join(self.out, "kt_compare.json"), "w") as f:
            json.dump(self.data, f, indent=1)


# ---- choosing the space ----

def parse_keep(spec, items):
    keep = {}
    for it in items or []:
        name, _, vals = it.partition("=")
        try:
            keep[name] = [int(v) for v in vals.split(",") if v != ""]
        except ValueError:
            fail("--keep %s: expected NAME=V1,V2,... in whole numbers" % it)
        if not keep[name]:
            fail("--keep %s: no values" % it)
    try:
        return spec.subspace(keep)
    except ValueError as e:
        fail("--keep: %s" % e)


def count_valid(spec, tune_params):
    saved = spec.tune_params
    spec.tune_params = tune_params
    try:
        return len(spec.valid_points())
    finally:
        spec.tune_params = saved


def shrink(spec, tune_params, fits):
    """Drops, while the space does not fit, the last value of the
    parameter with the most values (the first such in the config's
    order)."""
    tp = {k: list(v) for k, v in tune_params.items()}
    while not fits(count_valid(spec, tp)):
        name = max(tp, key=lambda k: (len(tp[k]), -list(tp).index(k)))
        if len(tp[name]) == 1:
            break
        tp[name].pop()
    return tp


# ---- the steps ----

def step_job(run, phase, job, timeout, cupy_cache=None):
    """Runs one phase of ktcompare_device.py; its result or None."""
    job = dict(job)
    job["result"] = os.path.join(run.tmp, phase + "-result.json")
    job["started"] = time.time()
    path = os.path.join(run.tmp, phase + "-job.json")
    with open(path, "w") as f:
        json.dump(job, f)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if cupy_cache:
        env["CUPY_CACHE_DIR"] = cupy_cache
    # in a folder of its own: Kernel Tuner writes its temp_*.cu files of a
    # failed configuration into the current one
    rc, secs = run.child([sys.executable, "-u",
                          os.path.join(HERE, "ktcompare_device.py"), phase,
                          path], timeout, env=env,
                         cwd=tempfile.mkdtemp(prefix=phase + "-",
                                              dir=run.tmp))
    try:
        with open(job["result"]) as f:
            res = json.load(f)
    except (OSError, ValueError):
        res = None
    run.say("%s: exit %s after %.1f s" % (phase, rc, secs))
    return res, rc, secs


def choose_space(run, spec, base_job):
    args = run.args
    full = spec.tune_params
    if args.keep:
        return parse_keep(spec, args.keep), "fixed by --keep"
    if args.space == "full" or args.skip_kt:
        return full, "full"
    budget = min(args.kt_limit,
                 run.left() - RETIME_RESERVE_S - OURS_RESERVE_S - 30)
    valid = spec.valid_points()
    sample = random.Random(1).sample(valid, min(ESTIMATE_POINTS,
                                                len(valid)))
    run.say("step 2: Kernel Tuner on %d points, to foresee its time on "
            "the %d of the full space (budget %d s)" %
            (len(sample), len(valid), budget))
    job = dict(base_job, points=sample, tune_params=full)
    res, rc, _ = step_job(run, "estimate", job, 120,
                          cupy_cache=tempfile.mkdtemp(dir=run.tmp))
    if base_job["lang"] == "cupy" and (not res or not res.get(
            "per_config_s")):
        # the cupy backend failed: Kernel Tuner's own choice of backend
        run.say("Kernel Tuner with cupy failed (%s): again with lang=CUDA, "
                "its own choice of backend" %
                (res or {}).get("status", "no result"))
        base_job["lang"] = job["lang"] = "CUDA"
        res, rc, _ = step_job(run, "estimate", job, 120)
    run.data["steps"]["estimate"] = res
    run.save()
    if not res or not res.get("per_config_s"):
        run.say("no estimate (%s): the full space, with the time limit" %
                (res or {}).get("status", "no result"))
        return full, "full (no estimate)"

    def foreseen(n):
        return (res["fixed_s"] + (n + 1) * res["per_config_s"]) * \
            ESTIMATE_MARGIN
    run.say("Kernel Tuner: %.2f s a configuration, %.1f s fixed: the full "
            "space foreseen at %.0f s" % (res["per_config_s"],
                                          res["fixed_s"],
                                          foreseen(len(valid))))
    if foreseen(len(valid)) <= budget:
        return full, "full (foreseen %.0f s of Kernel Tuner)" % \
            foreseen(len(valid))
    tp = shrink(spec, full, lambda n: foreseen(n) <= budget)
    n = count_valid(spec, tp)
    return tp, ("reduced: the full space's %d points were foreseen at %.0f "
                "s of Kernel Tuner, over the %d s budget; %d points, "
                "foreseen at %.0f s" % (len(valid), foreseen(len(valid)),
                                        budget, n, foreseen(n)))


def step_ours(run, spec, cfg):
    args = run.args
    out = os.path.join(run.tmp, "tuner-out")
    cache = tempfile.mkdtemp(prefix="cache-", dir=run.tmp)
    cmd = [args.tuner, "--config", cfg, "--device", str(args.device),
           "--output", out, "--cache-dir", cache, "-q"]
    limit = int(min(240, run.left() - RETIME_RESERVE_S - 60))
    rc, secs = run.child(cmd, limit, interrupt=signal.SIGINT)
    res = {"command": " ".join(cmd), "exit": rc, "wall_s": secs,
           "cache": "a new, empty --cache-dir"}
    found = sorted(f for f in (os.listdir(out) if os.path.isdir(out)
                               else []) if f.endswith(".json"))
    if not found:
        res["status"] = "failed: no results JSON (exit %s)" % rc
        return res
    path = os.path.join(out, found[-1])
    shutil.copy(path, os.path.join(run.out, found[-1]))
    res["results_file"] = found[-1]
    try:
        with open(path) as f:
            r = json.load(f)
    except ValueError as e:
        res["status"] = "failed: unreadable results: %s" % e
        return res
    res["status"] = "done" if rc == 0 else \
        "stopped (exit %s): what it measured" % rc
    cands = r.get("candidates", [])
    st = {}
    for c in cands:
        key = c.get("status", "?")
        if key == "pruned":
            key += " by " + str(c.get("pruned_by"))
        st[key] = st.get(key, 0) + 1
    run_info = r.get("run", {})
    res.update({
        "statuses": st, "candidates": len(cands),
        "timed": sum(1 for c in cands if c.get("median_ms") is not None),
        "raced_out": sum(1 for c in cands if c.get("raced_out")),
        "compile": run_info.get("compile"), "run_wall_s":
        run_info.get("wall_s"), "cost": run_info.get("cost"),
        "best": r.get("best"), "device": r.get("device")})
    return res


def step_kt(run, spec, base_job, tune_params):
    args = run.args
    soft = int(min(args.kt_limit, run.left() - RETIME_RESERVE_S))
    if soft < min(30, args.kt_limit):
        return {"status": "not run: %d s left before the deadline, %d s "
                "kept for the re-timing" % (run.left(), RETIME_RESERVE_S)}
    job = dict(base_job, tune_params=tune_params, time_limit=soft,
               cache=os.path.join(run.out, "kt_cache.json"))
    res, rc, secs = step_job(run, "kt", job, soft + 45,
                             cupy_cache=tempfile.mkdtemp(dir=run.tmp))
    if res is None:
        # stopped from outside: what the cache file holds
        res = {"status": "stopped from outside after %.0f s (%s)" %
               (secs, "killed at the time limit" if rc is None else
                "exit %s" % rc), "process_s": secs}
        try:
            ent = ktcompare_device.read_kt_cache(job["cache"])
            res["counts"], res["best"], res["times_from_results"] = \
                ktcompare_device.kt_counts(ent, tune_params)
        except (OSError, ValueError) as e:
            res["cache_error"] = str(e)
    results = res.pop("results", None)
    if results is not None:
        with open(os.path.join(run.out, "kt_results.json"), "w") as f:
            json.dump({"env": res.get("env"), "results": results}, f)
    res.pop("env", None)
    return res


def step_retime(run, base_job, bests):
    args = run.args
    job = dict(base_job, bests=bests, rounds=args.rounds,
               per_round=args.per_round, warmup=10)
    limit = int(max(30, min(150, run.left())))
    res, rc, _ = step_job(run, "retime", job, limit,
                          cupy_cache=tempfile.mkdtemp(dir=run.tmp))
    return res or {"status": "failed (exit %s)" % rc}


# ---- the dry check ----

def check(args):
    """No GPU: the config in Kernel Tuner's terms, translated and checked;
    with --tuner, the tuner's own constraints and launches compared on a
    sub-space (a --predict run: NVRTC, no GPU)."""
    try:
        spec = build_spec(args.config, args.problem)
    except ConfigError as e:
        fail(str(e))
    tp = parse_keep(spec, args.keep) if args.keep else spec.tune_params
    spec.tune_params = tp
    try:
        n = spec.check_translation()
    except ConfigError as e:
        fail(str(e))
    valid = spec.valid_points()
    a = spec.kernel_tuner_args()
    print("config %s: kernel %s in %s" % (args.config, a["kernel_name"],
                                          a["kernel_source"]))
    print("tune_params = %s" % json.dumps(a["tune_params"]))
    print("restrictions = %s" % json.dumps(a["restrictions"]))
    print("problem_size = %s, grid_div_x = %s, grid_div_y = %s, "
          "grid_div_z = %s, block_size_names = %s" %
          (tuple(a["problem_size"]), a["grid_div_x"], a["grid_div_y"],
           a["grid_div_z"], a["block_size_names"]))
    for x in a["arguments"]:
        print("argument %s" % json.dumps(x))
    for x in a["constants"]:
        print("cmem_args[%s] %s" % (x["name"], json.dumps(x)))
    print("reference %s" % json.dumps(a["reference"]))
    print("%d points, %d meet the constraints; the translation agrees on "
          "%d points" % (spec.size(), len(valid), n))
    tmp = tempfile.mkdtemp(prefix="ktcompare-check-")
    try:
        # the derived config reads back to the same kernel and sub-space
        sub = {k: v[:1] + v[-1:] if len(v) > 1 else v for k, v in tp.items()}
        path = spec.derived_config(os.path.join(tmp, "sub.cfg"), sub)
        back = build_spec(path, 0)
        if back.tune_params != sub or back.kernel_file != spec.kernel_file \
                or back.restrictions != spec.restrictions or \
                back.dims != spec.dims:
            fail("%s: the derived config does not read back as written" %
                 path)
        print("derived config of the sub-space %s reads back alike" %
              json.dumps(sub))
        if args.tuner:
            compare_with_tuner(args, back, path, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("check: ok")
    return 0


def compare_with_tuner(args, spec, cfg, tmp):
    """The tuner's pruning by constraints and its launches, against
    Kernel Tuner's restrictions and grid, on every point of cfg."""
    out = os.path.join(tmp, "predict")
    cmd = [args.tuner, "--config", cfg, "--predict", "--arch", "sm_90",
           "--no-cache", "--output", out, "-q"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=600)
    if p.returncode != 0:
        print(p.stdout)
        fail("%s: exit %d" % (" ".join(cmd), p.returncode))
    found = [f for f in os.listdir(out) if f.endswith(".json")]
    with open(os.path.join(out, found[0])) as f:
        cands = json.load(f)["candidates"]
    checked = 0
    for c in cands:
        point = c["params"]
        by_constraint = c.get("status") == "pruned" and \
            c.get("pruned_by") == "constraint"
        theirs = all(eval(r, {}, dict(point)) for r in spec.restrictions)
        if by_constraint == theirs:
            fail("tuner: %s is %s, but Kernel Tuner's restrictions %s it" %
                 (c["params_text"], "pruned by a constraint" if
                  by_constraint else "not pruned by one",
                  "admit" if theirs else "refuse"))
        if "launch" in c:
            grid = c["launch"]["grid"]
            block = c["launch"]["block"]
            kt_block = [point.get(n, 1) for n in spec.block_size_names]
            if grid != spec.kt_grid(point) or block != kt_block:
                fail("tuner: %s launches grid %s block %s, Kernel Tuner "
                     "would launch grid %s block %s" %
                     (c["params_text"], grid, block, spec.kt_grid(point),
                      kt_block))
            checked += 1
    names = list(spec.tune_params)
    theirs = sorted(tuple(c["params"][k] for k in names) for c in cands)
    mine = sorted(tuple(p[k] for k in names) for p in spec.points())
    if theirs != mine:
        fail("tuner: its %d candidates are not the %d points read here" %
             (len(theirs), len(mine)))
    print("tuner --predict on the sub-space: %d candidates, the same "
          "constraint pruning, %d launches alike" % (len(cands), checked))


# ---- main ----

def parse_args(argv):
    ap = argparse.ArgumentParser(
        usage="kernel_tuner_compare.py OUT [options] | --check [options]",
        description="Kernel Tuner and the tuner side by side "
        "(see the module's docstring)")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--config", default=DEFAULT_CONFIG)
    ap.add_argument("--tuner", default=None)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--problem", type=int, default=0)
    ap.add_argument("--space", choices=("auto", "full"), default="auto")
    ap.add_argument("--keep", action="append")
    ap.add_argument("--kt-limit", type=int, default=300)
    ap.add_argument("--deadline", type=int, default=540)
    ap.add_argument("--kt-lang", default="cupy",
                    choices=("cupy", "CUDA", "nvcuda"))
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--per-round", type=int, default=50)
    ap.add_argument("--skip-kt", action="store_true")
    ap.add_argument("--skip-ours", action="store_true")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        sys.exit(2 if e.code else 0)
    if args.check == (args.out is not None):
        fail("give OUT (a run) or --check, one of them")
    for k in ("kt_limit", "deadline", "rounds", "per_round"):
        if getattr(args, k) < 1:
            fail("--%s: must be at least 1" % k.replace("_", "-"))
    if args.problem < 0 or args.device < 0:
        fail("--problem and --device: must be at least 0")
    if not os.path.isfile(args.config):
        fail("--config %s: no such file" % args.config)
    if args.tuner is None and not args.check:
        args.tuner = "build/tuner"
    if args.tuner and not (os.path.isfile(args.tuner) and
                           os.access(args.tuner, os.X_OK)):
        fail("--tuner %s: not an executable file" % args.tuner)
    return args


def main(argv):
    args = parse_args(argv)
    if args.check:
        return check(args)
    try:
        spec = build_spec(args.config, args.problem)
        spec.check_translation()
    except ConfigError as e:
        fail(str(e))
    if args.keep:
        parse_keep(spec, args.keep)  # bad --keep: exit 2 before any work
    run = Run(args)
    run.say("step 1: %s read: %d points, %d meet the constraints; "
            "restrictions %s" % (args.config, spec.size(),
                                 len(spec.valid_points()),
                                 spec.restrictions))
    base_job = {"config": os.path.abspath(args.config),
                "problem": args.problem,
                "device": args.device, "lang": args.kt_lang}
    status = 0
    try:
        tune_params, how = choose_space(run, spec, base_job)
        spec_full = spec.tune_params
        cfg = args.config
        if tune_params != spec_full or len(spec.sizes_node.value) > 1:
            cfg = spec.derived_config(
                os.path.join(run.out, "kt_compare_space.cfg"), tune_params)
        spec.tune_params = tune_params
        run.data["space"] = {"how": how, "tune_params": tune_params,
                             "points": spec.size(),
                             "valid": len(spec.valid_points()),
                             "tuner_config": cfg,
                             "restrictions": spec.restrictions}
        run.say("space: %s: %s" % (how, json.dumps(tune_params)))
        run.save()
        if not args.skip_ours:
            run.say("step 3: the tuner")
            run.data["steps"]["ours"] = step_ours(run, spec, cfg)
            run.save()
        if not args.skip_kt:
            run.say("step 4: Kernel Tuner")
            run.data["steps"]["kt"] = step_kt(run, spec, base_job,
                                              tune_params)
            run.save()
        bests = {}
        kb = (run.data["steps"].get("kt") or {}).get("best")
        ob = (run.data["steps"].get("ours") or {}).get("best")
        if kb:
            bests["kt"] = kb["params"]
        if ob and ob.get("params"):
            bests["ours"] = ob["params"]
        if bests:
            run.say("step 5: the bests re-timed alike")
            run.data["steps"]["retime"] = step_retime(run, base_job, bests)
        for k in ("ours", "kt", "retime"):
            if (run.data["steps"].get(k) or {}).get("status",
                                                    "done") != "done":
                status = 1
        if set(bests) != {"kt", "ours"}:
            status = 1
    except KeyboardInterrupt:
        run.say("interrupted")
        status = 1
    finally:
        text = table(run.data, args, spec)
        with open(os.path.join(args.out, "kt_compare.md"), "w") as f:
            f.write(text)
        run.save()
        print(text)
        run.logf.close()
        shutil.rmtree(run.tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
