"""ktcompare_device.py -- the GPU parts of scripts/kernel_tuner_compare.py,
each run in a child process of it (python3 ktcompare_device.py PHASE
JOB.json): cupy and Kernel Tuner are imported only here, and only inside
the phases, so that the parent reads this module without them.

Phases (JOB.json says what; each writes its result JSON to job["result"]):
  kt        Kernel Tuner's tune_kernel, brute force, on the space; the
            whole call timed; a soft time limit (SIGALRM) stops it with
            what its cache file holds
  estimate  the same on a few points, to foresee the whole space's time
  retime    both bests compiled alike (cupy, Kernel Tuner's defines and
            options), checked against the reference and timed in
            interleaved rounds of CUDA events, in one process

The inputs are the config's (seeded), built once per process; the
reference is the config's check.reference, run once through cupy.
"""
import json
import os
import signal
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktcompare_spec import build_spec  # noqa: E402

SEED = 20261204


def log(msg):
    print("[ktcompare %s] %s" % (time.strftime("%H:%M:%S"), msg),
          flush=True)


def json_safe(x):
    """Kernel Tuner's results and env, as JSON: numpy values as numbers,
    its error objects as their names."""
    import numpy as np
    if type(x).__name__.endswith("Config"):  # a str subclass, named
        return type(x).__name__
    if isinstance(x, dict):
        return {str(k): json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    if isinstance(x, np.ndarray):
        return json_safe(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


# ---- Kernel Tuner's entries, complete or from a cut-off cache ----

def read_kt_cache(path):
    """The entries of Kernel Tuner's cache file, also of a run stopped
    before it closed the file (util.py, close_cache)."""
    with open(path) as f:
        text = f.read().rstrip()
    if text.endswith(","):
        text = text[:-1] + "}\n}"
    elif text.endswith("{"):
        text += "}\n}"
    data = json.loads(text)
    return list(data.get("cache", {}).values())


def kt_counts(entries, tune_params):
    """What Kernel Tuner did with each configuration it reached."""
    names = list(tune_params)
    n = {"reached": 0, "compiled": 0, "timed": 0, "compile_failed": 0,
         "launch_failed": 0, "invalid": 0}
    best = None
    sums = {"compile_s": 0.0, "verification_s": 0.0, "benchmark_s": 0.0}
    for e in entries:
        if not e:
            continue
        n["reached"] += 1
        err = e.get("__error__")
        if err is not None and type(err) is not str:
            err = type(err).__name__  # its errors are str subclasses
        if err and "InvalidConfig" in err:
            n["invalid"] += 1
            continue
        n["compiled"] += 1
        if err and "CompilationFailed" in err:
            n["compile_failed"] += 1
        elif err:
            n["launch_failed"] += 1
        elif isinstance(e.get("time"), (int, float)):
            n["timed"] += 1
            if best is None or e["time"] < best["time"]:
                best = {"params": {k: e[k] for k in names},
                        "time": e["time"], "times": e.get("times")}
        for k, s in (("compile_time", "compile_s"),
                     ("verification_time", "verification_s"),
                     ("benchmark_time", "benchmark_s")):
            if isinstance(e.get(k), (int, float)):
                sums[s] += e[k] / 1000.0
    return n, best, sums


# ---- inputs and the reference, through cupy ----

def make_inputs(spec, seed=SEED):
    """The arguments and constants as numpy values, seeded; outputs the
    config gives no init are NaN (floats) or zeros, so that a candidate
    that leaves an element unwritten fails the check."""
    import numpy as np
    rng = np.random.default_rng(seed)

    def fill(b):
        dt = np.dtype(b.dtype)
        init = b.init
        if init is None:
            if b.output:
                return np.full(b.count, np.nan if dt.kind == "f" else 0, dt)
            init = ["random", -1.0, 1.0] if dt.kind == "f" else \
                ["random", 0, 100]
        if init[0] == "zeros":
            return np.zeros(b.count, dt)
        if init[0] == "constant":
            return np.full(b.count, init[1], dt)
        if init[0] == "ramp":
            return (init[1] + init[2] * np.arange(b.count)).astype(dt)
        if dt.kind == "f":
            return rng.uniform(init[1], init[2], b.count).astype(dt)
        return rng.integers(int(init[1]), int(init[2]) + 1, b.count,
                            dtype=dt)

    args = [fill(a) if hasattr(a, "count") else np.dtype(a.dtype).type(
        a.value) for a in spec.arguments]
    consts = {c.name: fill(c) for c in spec.constants}
    return args, consts


def kt_prefix(spec, point):
    """The #defines Kernel Tuner puts before the source (util.py,
    prepare_kernel_string): grid, block, the parameters, kernel_tuner."""
    grid = spec.kt_grid(point)
    block = [point.get(n, 1) for n in spec.block_size_names]
    defines = {}
    for i, a in enumerate("xyz"):
        defines["grid_size_" + a] = grid[i]
    for i, n in enumerate(spec.block_size_names):
        defines[n] = block[i]
    defines.update(point)
    defines["kernel_tuner"] = 1
    return "".join("#define %s %s\n" % kv for kv in defines.items())


def cupy_module(source, prefix, name):
    """source compiled as Kernel Tuner's cupy backend compiles it."""
    import cupy as cp
    return cp.RawModule(code=prefix + source, options=("--std=c++11",),
                        name_expressions=[name])


def set_constants(module, consts):
    import cupy as cp
    for k, v in consts.items():
        sym = module.get_global(k)
        cp.ndarray(v.shape, v.dtype, sym)[:] = cp.asarray(v)


def device_args(host_args):
    import cupy as cp
    import numpy as np
    return [cp.asarray(a) if isinstance(a, np.ndarray) else a
            for a in host_args]


def reference(spec, host_args, consts):
    """The reference's outputs (host arrays; None for the others)."""
    import cupy as cp
    point = spec.default_point()
    env = spec.env(point)
    ref = spec.reference
    if ref["kind"] == "default":
        source, name, launch = spec.source, spec.kernel_name, spec.launch
    else:
        with open(ref["file"]) as f:
            source = f.read()
        name, launch = ref["kernel"], ref["launch"]
    grid, block, smem = launch.shape(env)
    mod = cupy_module(source, kt_prefix(spec, point), name)
    set_constants(mod, consts)
    dev = device_args(host_args)
    mod.get_function(name)(tuple(grid), tuple(block), tuple(dev),
                           shared_mem=smem)
    cp.cuda.Device().synchronize()
    return [cp.asnumpy(d) if getattr(a, "output", False) else None
            for a, d in zip(spec.arguments, dev)]


class OutputCheck:
    """The tuner's check of a candidate's outputs against the reference's:
    |x - ref| <= atol + rtol |ref| for floating outputs (NaN differs),
    integers exactly.  The bound is computed once, in the output's own
    type, so that each check is three passes over the output."""

    def __init__(self, spec, answer):
        import numpy as np
        self.parts = []
        for a, r in zip(spec.arguments, answer):
            if r is None:
                continue
            if r.dtype.kind == "f":
                bound = (a.atol + a.rtol * np.abs(r)).astype(r.dtype)
            else:
                bound = None
            self.parts.append((r, bound, np.empty_like(r),
                               np.empty(r.shape, bool)))
        self.outs = [i for i, r in enumerate(answer) if r is not None]

    def __call__(self, got):
        """got: the outputs, in argument order (others None)."""
        import numpy as np
        for i, (r, bound, diff, flags) in zip(self.outs, self.parts):
            g = got[i]
            if bound is None:
                if not np.array_equal(g, r):
                    return False
                continue
            np.subtract(g, r, out=diff)
            np.abs(diff, out=diff)
            np.less_equal(diff, bound, out=flags)
            if not flags.all():
                return False
        return True


# ---- the phases ----

class TimeLimit(BaseException):
    """Raised by SIGALRM; a BaseException, so that Kernel Tuner's own
    `except Exception` does not swallow it."""


def _alarm(signum, frame):
    raise TimeLimit()


def tune(spec, job, tune_params, restrictions, cache):
    """One tune_kernel call as the job says; returns (status, seconds,
    results, env)."""
    import cupy as cp
    import numpy as np
    from kernel_tuner import tune_kernel
    cp.cuda.Device(job["device"]).use()
    t = time.perf_counter()
    host_args, consts = make_inputs(spec)
    answer = reference(spec, host_args, consts)
    check = OutputCheck(spec, answer)
    log("inputs and reference ready in %.1f s" % (time.perf_counter() - t))
    a = spec.kernel_tuner_args()
    smem_args = None
    if spec.launch.smem is not None:
        smem_args = {"size": lambda p: spec.env(p)["smem_bytes"]}
    kw = dict(
        grid_div_x=a["grid_div_x"], grid_div_y=a["grid_div_y"],
        grid_div_z=a["grid_div_z"], restrictions=restrictions,
        answer=answer,
        # Kernel Tuner hands over a copy of answer; the check holds its own
        verify=lambda ref, got, atol=None: check(got),
        block_size_names=a["block_size_names"], smem_args=smem_args,
        cmem_args=consts or None, lang=job["lang"], device=job["device"],
        cache=cache, strategy="brute_force")
    status, results, env = "done", None, {}
    limit = int(job.get("time_limit") or 0)
    signal.signal(signal.SIGALRM, _alarm)
    log("tune_kernel: %d configurations before restrictions, lang=%s%s" %
        (int(np.prod([len(v) for v in tune_params.values()])),
         job["lang"], ", time limit %d s" % limit if limit else ""))
    t0 = time.perf_counter()
    try:
        if limit:
            signal.alarm(limit)
        results, env = tune_kernel(spec.kernel_name, spec.kernel_file,
                                   tuple(a["problem_size"]), host_args,
                                   tune_params, **kw)
    except TimeLimit:
        status = "stopped at the time limit (%d s)" % limit
    except Exception as e:  # Kernel Tuner's own failure: say which
        status = "failed: %s: %s" % (type(e).__name__,
                                     str(e).strip().splitlines()[0]
                                     if str(e).strip() else "")
        traceback.print_exc()
    finally:
        signal.alarm(0)
    seconds = time.perf_counter() - t0
    log("tune_kernel %s after %.1f s" % (status, seconds))
    return status, seconds, results, env


def phase_kt(job):
    t_proc = job["started"]
    spec = build_spec(job["config"], job["problem"])
    tune_params = job["tune_params"]
    cache = job["cache"]
    if os.path.exists(cache):
        os.remove(cache)
    from importlib.metadata import version
    out = {"phase": "kt", "kernel_tuner": version("kernel_tuner"),
           "lang": job["lang"]}
    log("Kernel Tuner %s" % out["kernel_tuner"])
    status, seconds, results, env = tune(spec, job, tune_params,
                                         spec.restrictions, cache)
    if results is None:
        try:
            results = read_kt_cache(cache)
        except (OSError, ValueError) as e:
            log("no cache to read: %s" % e)
            results = []
    counts, best, sums = kt_counts(results, tune_params)
    out.update({"status": status, "tune_kernel_s": seconds,
                "process_s": time.time() - t_proc, "counts": counts,
                "best": best, "times_from_results": sums,
                "backend": kt_backend(job["lang"]),
                "env": env, "results": results})
    return json_safe(out)


def kt_backend(lang):
    """The backend Kernel Tuner took for lang (core.py's choice)."""
    if lang.upper() != "CUDA":
        return lang
    try:
        from kernel_tuner.backends.nvcuda import driver
        if driver:
            return "nvcuda (cuda-python)"
    except ImportError:
        pass
    return "cupy"


def phase_estimate(job):
    """tune_kernel on job["points"] alone; the time of one configuration
    and the fixed part, from its results' own timings."""
    spec = build_spec(job["config"], job["problem"])
    chosen = {tuple(p[k] for k in job["tune_params"]) for p in
              job["points"]}
    names = list(job["tune_params"])

    def only(p):
        return tuple(p[k] for k in names) in chosen
    status, seconds, results, _ = tune(spec, job, job["tune_params"],
                                       only, None)
    per = []
    for r in results or []:
        if r:
            per.append(sum(r.get(k, 0) for k in (
                "compile_time", "verification_time", "benchmark_time",
                "framework_time", "strategy_time")) / 1000.0)
    each = sum(per) / len(per) if per else None
    # the first configuration runs twice (Kernel Tuner's warm-up)
    fixed = seconds - each * (len(per) + 1) if each else None
    return json_safe({
        "phase": "estimate", "status": status, "tune_kernel_s": seconds,
        "points": len(per), "per_config_s": each,
        "fixed_s": max(fixed, 0.0) if fixed is not None else None,
        "per_config_all_s": per})


def phase_retime(job):
    """Both bests compiled alike and timed in the same process."""
    import cupy as cp
    import numpy as np
    spec = build_spec(job["config"], job["problem"])
    cp.cuda.Device(job["device"]).use()
    host_args, consts = make_inputs(spec)
    check = OutputCheck(spec, reference(spec, host_args, consts))
    dev = device_args(host_args)
    outs = [i for i, a in enumerate(spec.arguments)
            if getattr(a, "output", False)]
    kernels, failed = {}, {}
    for who, point in job["bests"].items():
        try:
            mod = cupy_module(spec.source, kt_prefix(spec, point),
                              spec.kernel_name)
            set_constants(mod, consts)
            grid, block, smem = spec.launch.shape(spec.env(point))
            fn = mod.get_function(spec.kernel_name)
            for i in outs:
                dev[i][...] = cp.asarray(host_args[i])
            fn(tuple(grid), tuple(block), tuple(dev), shared_mem=smem)
            cp.cuda.Device().synchronize()
        except Exception as e:  # that one alone is not re-timed
            failed[who] = {"params": point, "error": "%s: %s" % (
                type(e).__name__, str(e).strip()[:300])}
            log("retime: %s %s failed: %s" %
                (who, point, failed[who]["error"]))
            continue
        got = [cp.asnumpy(d) if i in outs else None
               for i, d in enumerate(dev)]
        kernels[who] = {"fn": fn, "grid": tuple(grid), "block": tuple(block),
                        "smem": smem, "point": point, "mod": mod,
                        "correct": check(got)}
        log("retime: %s %s compiled, output %s" %
            (who, point, "correct" if kernels[who]["correct"] else
             "WRONG"))
    rounds, per_round, warm = job["rounds"], job["per_round"], job["warmup"]
    stream = cp.cuda.Stream(non_blocking=True)
    samples = {w: [] for w in kernels}
    medians = {w: [] for w in kernels}
    order = sorted(kernels)
    with stream:
        for w in order:
            k = kernels[w]
            set_constants(k["mod"], consts)
            for _ in range(warm):
                k["fn"](k["grid"], k["block"], tuple(dev),
                        shared_mem=k["smem"])
        stream.synchronize()
        for r in range(rounds):
            # alternate which goes first, so that neither always follows
            # the other
            for w in (order if r % 2 == 0 else order[::-1]):
                k = kernels[w]
                set_constants(k["mod"], consts)
                ev = [(cp.cuda.Event(), cp.cuda.Event())
                      for _ in range(per_round)]
                for a, b in ev:
                    a.record(stream)
                    k["fn"](k["grid"], k["block"], tuple(dev),
                            shared_mem=k["smem"])
                    b.record(stream)
                stream.synchronize()
                t = [cp.cuda.get_elapsed_time(a, b) for a, b in ev]
                samples[w] += t
                medians[w].append(float(np.median(t)))
    out = {"phase": "retime", "device": cp.cuda.runtime.getDeviceProperties(
        job["device"])["name"].decode(), "rounds": rounds,
        "per_round": per_round, "warmup": warm, "configs": {},
        "failed": failed}
    if failed:
        out["status"] = "failed for %s" % ", ".join(sorted(failed))
    for w, k in kernels.items():
        s = np.array(samples[w])
        m = np.array(medians[w])
        out["configs"][w] = {
            "params": k["point"], "correct": k["correct"],
            "median_ms": float(np.median(s)),
            "q1_ms": float(np.percentile(s, 25)),
            "q3_ms": float(np.percentile(s, 75)),
            "min_ms": float(s.min()),
            "round_medians_ms": [float(x) for x in m],
            "round_spread": float((m.max() - m.min()) / np.median(m) / 2)}
    return out


PHASES = {"kt": phase_kt, "estimate": phase_estimate,
          "retime": phase_retime}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in PHASES:
        print("usage: ktcompare_device.py {%s} JOB.json" %
              "|".join(PHASES), file=sys.stderr)
        return 2
    with open(sys.argv[2]) as f:
        job = json.load(f)
    job.setdefault("started", time.time())
    try:
        out = PHASES[sys.argv[1]](job)
        rc = 0
    except Exception as e:  # report it in the result, and fail
        traceback.print_exc()
        out = {"phase": sys.argv[1], "status": "failed: %s: %s" %
               (type(e).__name__, e)}
        rc = 1
    tmp = job["result"] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, job["result"])
    return rc


if __name__ == "__main__":
    sys.exit(main())
