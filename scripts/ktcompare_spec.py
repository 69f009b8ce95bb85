"""ktcompare_spec.py -- a described kernel's config as Kernel Tuner's
tune_kernel arguments, for scripts/kernel_tuner_compare.py.

build_spec reads the config (ktcompare_config.read_config) and gives
  - tune_params: the space, in the config's order;
  - restrictions: the config's constraints as Python strings over the
    parameters (threads, smem_bytes and the problem's dimensions written
    out), as Kernel Tuner takes them;
  - problem_size, grid_div, block_size_names: the launch, where the grid
    is ceil(dimension / (product of parameters)) as Kernel Tuner computes
    it;
  - the arguments, constants, reference launch and tolerances.
Spec.check_translation evaluates every point of the space both ways (the
tuner's C semantics and the Python strings) and refuses any difference;
Spec.derived_config writes a config of a sub-space for the tuner.
Nothing here needs a GPU, cupy or Kernel Tuner.
"""
import itertools
import os
import random

from ktcompare_config import (ConfigError, Expr, Node, read_config,
                              strip_parens)

# element types: numpy's name, and the tolerance the tuner takes by default
# (tuner/pipeline/config_user_run.c, default_tolerance)
TYPES = {
    "fp64": ("float64", 1e-12, 1e-9), "fp32": ("float32", 1e-6, 1e-5),
    "fp16": ("float16", 1e-3, 1e-2),
    "int8": ("int8", 0, 0), "int16": ("int16", 0, 0),
    "int32": ("int32", 0, 0), "int64": ("int64", 0, 0),
    "uint8": ("uint8", 0, 0), "uint16": ("uint16", 0, 0),
    "uint32": ("uint32", 0, 0), "uint64": ("uint64", 0, 0),
}
AXES = "xyz"
DEFAULT_BLOCK_NAMES = ["block_size_x", "block_size_y", "block_size_z"]
# points whose translation is checked one by one; a larger space is
# checked on a seeded sample of this many
CHECK_POINTS = 200000


class Buffer:
    def __init__(self, name, dtype, count, init, output, atol, rtol):
        self.name, self.dtype, self.count, self.init = name, dtype, count, init
        self.output, self.atol, self.rtol = output, atol, rtol

    def describe(self):
        return {"name": self.name, "kind": "buffer", "dtype": self.dtype,
                "count": self.count, "init": self.init,
                "output": self.output, "atol": self.atol,
                "rtol": self.rtol}


class Scalar:
    def __init__(self, name, dtype, value):
        self.name, self.dtype, self.value = name, dtype, value

    def describe(self):
        return {"name": self.name, "kind": "scalar", "dtype": self.dtype,
                "value": self.value}


class Launch:
    """grid and block (Exprs) and smem (Expr or None) of a kernel."""

    def __init__(self, grid, block, smem):
        self.grid, self.block, self.smem = grid, block, smem

    def shape(self, env):
        pad = [1, 1, 1]
        g = [e.eval(env) for e in self.grid] + pad[len(self.grid):]
        b = [e.eval(env) for e in self.block] + pad[len(self.block):]
        return g, b, self.smem.eval(env) if self.smem else 0


class Spec:
    """The config, in Kernel Tuner's terms (module docstring)."""

    def where(self, node):
        return "%s:%d" % (self.path, node.line)

    def env(self, point):
        """The names an expression of this point may read."""
        env = dict(self.dims)
        env.update(point)
        env["threads"] = 1
        for e in self.launch.block:
            env["threads"] *= e.eval(env)
        env["smem_bytes"] = 0
        if self.launch.smem:
            env["smem_bytes"] = self.launch.smem.eval(env)
        return env

    def points(self):
        names = list(self.tune_params)
        for values in itertools.product(*self.tune_params.values()):
            yield dict(zip(names, values))

    def size(self):
        n = 1
        for v in self.tune_params.values():
            n *= len(v)
        return n

    def valid(self, point):
        """Whether point meets every constraint (the tuner's semantics)."""
        env = self.env(point)
        return all(e.eval(env) for e, _ in self.constraints)

    def valid_points(self):
        return [p for p in self.points() if self.valid(p)]

    def kt_grid(self, point):
        """The grid as Kernel Tuner computes it (kernel_tuner/util.py,
        get_grid_dimensions: float division, then ceil)."""
        out = []
        for i in range(3):
            d = 1
            for f in self.grid_div[i]:
                d *= int(eval(f, {}, dict(point)))
            out.append(int(-(-self.problem_size[i] // d)))
        return out

    def check_translation(self, seed=1):
        """Every point (or a seeded sample of CHECK_POINTS): the tuner's
        constraints and Kernel Tuner's restrictions select alike, and the
        grid and block are the same.  ConfigError names the first point
        that differs; returns how many points were checked."""
        pts = list(self.points()) if self.size() <= CHECK_POINTS else None
        if pts is None:
            rng = random.Random(seed)
            names = list(self.tune_params)
            pts = [dict(zip(names, (rng.choice(v) for v in
                                    self.tune_params.values())))
                   for _ in range(CHECK_POINTS)]
        for p in pts:
            try:
                env = self.env(p)
            except (ArithmeticError, KeyError) as e:
                raise ConfigError("%s: launch: %s at %s" %
                                  (self.where(self.launch_node), e, p))
            for (e, node), r in zip(self.constraints, self.restrictions):
                try:
                    ours = bool(e.eval(env))
                except ArithmeticError as x:
                    raise ConfigError("%s: constraint \"%s\": %s at %s" %
                                      (self.where(node), e.text, x, p))
                theirs = bool(eval(r, {}, dict(p)))
                if ours != theirs:
                    raise ConfigError(
                        "%s: constraint \"%s\" is %s at %s but Kernel "
                        "Tuner's \"%s\" is %s" %
                        (self.where(node), e.text, ours, p, r, theirs))
            if not self.valid(p):
                continue
            grid, block, _ = self.launch.shape(env)
            kt_block = [p.get(n, 1) for n in self.block_size_names]
            if grid != self.kt_grid(p) or block != kt_block:
                raise ConfigError(
                    "%s: launch: grid %s block %s at %s, but Kernel Tuner "
                    "would launch grid %s block %s" %
                    (self.where(self.launch_node), grid, block, p,
                     self.kt_grid(p), kt_block))
        return len(pts)

    def kernel_tuner_args(self):
        """What tune_kernel takes, arrays aside (JSON-friendly)."""
        n = len(self.launch.block)
        return {
            "kernel_name": self.kernel_name,
            "kernel_source": self.kernel_file,
            "problem_size": list(self.problem_size),
            "tune_params": {k: list(v) for k, v in self.tune_params.items()},
            "restrictions": list(self.restrictions),
            "grid_div_x": self.grid_div[0], "grid_div_y": self.grid_div[1],
            "grid_div_z": self.grid_div[2],
            # None: Kernel Tuner's default names, as a user leaves them
            "block_size_names": None if self.block_size_names[:n] ==
            DEFAULT_BLOCK_NAMES[:n] else self.block_size_names[:n],
            "smem": self.launch.smem.text if self.launch.smem else None,
            "arguments": [a.describe() for a in self.arguments],
            "constants": [c.describe() for c in self.constants],
            "reference": self.reference_describe(),
        }

    def reference_describe(self):
        r = self.reference
        if r["kind"] == "default":
            return {"kind": "default", "point": self.default_point()}
        return {"kind": "kernel", "kernel": r["kernel"], "file": r["file"],
                "grid": [e.text for e in r["launch"].grid],
                "block": [e.text for e in r["launch"].block],
                "smem": r["launch"].smem.text if r["launch"].smem else None}

    def default_point(self):
        """The space's first point: each parameter's first value."""
        return {k: v[0] for k, v in self.tune_params.items()}

    def derived_config(self, out_path, tune_params=None):
        """Writes a config for the tuner: this one, with the kernel's and
        other files made absolute, the problem narrowed to the chosen
        size, and the space replaced by tune_params (default: this
        space).  Returns out_path."""
        root, text = self.root, self.root.text
        edits = []
        base = os.path.dirname(os.path.abspath(self.path))

        def files(node):
            if node.kind == "group":
                for k, v in node.value.items():
                    if k == "file" and v.kind == "string" and \
                            not os.path.isabs(v.value):
                        edits.append((v.start, v.end, _quote(
                            os.path.join(base, v.value))))
                    else:
                        files(v)
            elif node.kind in ("array", "list"):
                for v in node.value:
                    files(v)
        files(root)
        space = tune_params or self.tune_params
        body = "".join("  %s = [%s];\n" % (k, ", ".join(str(x) for x in v))
                       for k, v in space.items())
        edits.append((self.space_node.start, self.space_node.end,
                      "{\n" + body + "}"))
        if len(self.sizes_node.value) > 1:
            s = self.sizes_node.value[self.problem_index]
            edits.append((self.sizes_node.start, self.sizes_node.end,
                          "( " + text[s.start:s.end] + " )"))
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        header = ("# Written by scripts/kernel_tuner_compare.py from %s\n" %
                  os.path.abspath(self.path))
        with open(out_path, "w") as f:
            f.write(header + text)
        return out_path

    def subspace(self, keep):
        """A copy of tune_params with the values of keep (name -> values)
        in their place; every name and value must be in the space."""
        out = {}
        for k, v in self.tune_params.items():
            if k in keep:
                bad = [x for x in keep[k] if x not in v]
                if bad:
                    raise ValueError("%s has no value %s (it has %s)" %
                                     (k, bad, v))
                out[k] = [x for x in v if x in keep[k]]
            else:
                out[k] = list(v)
        for k in keep:
            if k not in self.tune_params:
                raise ValueError("the space has no parameter '%s' (it has "
                                 "%s)" % (k, ", ".join(self.tune_params)))
        return out


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _need(spec, node, key, what):
    m = node.get(key) if node is not None else None
    if m is None:
        raise ConfigError("%s: missing '%s' (%s)" %
                          (spec.where(node or spec.root), key, what))
    return m


def _expr(spec, node, what, allowed):
    """node's text (a string, or an integer) as an Expr reading only the
    names in allowed."""
    if node.kind == "int":
        return Expr(str(node.value))
    if node.kind != "string":
        raise ConfigError("%s: %s: expected an expression in quotes" %
                          (spec.where(node), what))
    try:
        e = Expr(node.value)
    except ValueError as x:
        raise ConfigError("%s: %s \"%s\": %s" % (spec.where(node), what,
                                                 node.value, x))
    unknown = sorted(e.names() - set(allowed))
    if unknown:
        raise ConfigError("%s: %s \"%s\": names %s, which %s" %
                          (spec.where(node), what, node.value,
                           ", ".join(unknown), allowed.why))
    return e


class _Names(set):
    def __init__(self, names, why):
        set.__init__(self, names)
        self.why = why


def _list(node):
    return node.value if node.kind in ("array", "list") else [node]


def _launch(spec, node, where, scope):
    grid = [_expr(spec, e, "%s.grid" % where, scope)
            for e in _list(_need(spec, node, "grid", "1 to 3 expressions"))]
    block = [_expr(spec, e, "%s.block" % where, scope)
             for e in _list(_need(spec, node, "block",
                                  "1 to 3 expressions"))]
    smem = node.get("smem")
    return Launch(grid, block,
                  _expr(spec, smem, "%s.smem" % where, scope)
                  if smem is not None else None)


def _init(spec, node):
    """An init as ["random", lo, hi], ["constant", v], ["ramp", a, step]
    or ["zeros"]; None where the config gives none."""
    if node is None:
        return None
    if node.kind == "string":
        if node.value == "zeros":
            return ["zeros"]
        if node.value == "ramp":
            return ["ramp", 0.0, 1.0]
    elif node.kind == "group" and len(node.value) == 1:
        (k, v), = node.value.items()
        if k == "constant" and v.kind in ("int", "float"):
            return ["constant", float(v.value)]
        if k in ("random", "ramp") and v.kind in ("array", "list") and \
                len(v.value) == 2:
            return [k, float(v.value[0].value), float(v.value[1].value)]
    raise ConfigError("%s: init: expected \"zeros\", \"ramp\", { random = "
                      "[lo, hi]; }, { constant = v; } or { ramp = [start, "
                      "step]; }" % spec.where(node))


def _type(spec, node, what):
    if node.kind != "string" or node.value not in TYPES:
        raise ConfigError("%s: %s: %s is not an element type Kernel Tuner's "
                          "numpy arguments hold (%s; no bf16)" %
                          (spec.where(node), what, node.plain(),
                           ", ".join(TYPES)))
    return node.value


def build_spec(path, problem_index=0):
    """The config at path in Kernel Tuner's terms (ConfigError: FILE:LINE
    and why, for bad input and for what Kernel Tuner cannot express)."""
    spec = Spec()
    spec.path = path
    spec.root = root = read_config(path)
    base = os.path.dirname(os.path.abspath(path))
    spec.name = root.get("name").value if root.get("name") else "kernel"

    kernel = _need(spec, root, "kernel", "the kernel: { file; name; }")
    if kernel.kind != "group":
        raise ConfigError("%s: kernel: not a described kernel (a group { "
                          "file; name; })" % spec.where(kernel))
    spec.kernel_name = _need(spec, kernel, "name", "the kernel's name").value
    spec.kernel_file = os.path.join(
        base, _need(spec, kernel, "file", "the .cu file").value)
    try:
        with open(spec.kernel_file) as f:
            spec.source = f.read()
    except OSError as e:
        raise ConfigError("%s: kernel.file: cannot read %s: %s" %
                          (spec.where(kernel.get("file")), spec.kernel_file,
                           e.strerror))

    problem = _need(spec, root, "problem", "dims and sizes")
    spec.dim_names = [d.value for d in
                      _list(_need(spec, problem, "dims", "the names"))]
    spec.sizes_node = sizes = _need(spec, problem, "sizes", "[...] sizes")
    if sizes.kind == "array":  # one size, [a, b]
        sizes = spec.sizes_node = _wrap(sizes)
    for s in sizes.value:
        if s.kind not in ("array", "list") or \
                len(s.value) != len(spec.dim_names) or \
                any(x.kind != "int" for x in s.value):
            raise ConfigError("%s: problem.sizes: each size here is [%s] "
                              "in numbers (size classes are not read by "
                              "this comparison)" %
                              (spec.where(s), ", ".join(spec.dim_names)))
    if not 0 <= problem_index < len(sizes.value):
        raise ConfigError("%s: problem.sizes: no size %d (it lists %d)" %
                          (spec.where(sizes), problem_index,
                           len(sizes.value)))
    spec.problem_index = problem_index
    spec.dims = dict(zip(spec.dim_names,
                         sizes.value[problem_index].plain()))

    spec.space_node = space = _need(spec, root, "space", "the parameters")
    spec.tune_params = {}
    for k, v in space.value.items():
        vals = []
        for e in _list(v):
            if e.kind == "int":
                vals.append(e.value)
            elif e.kind == "group" and set(e.value) <= {"from", "to", "step",
                                                        "times"}:
                g = e.plain()
                x = g["from"]
                while x <= g["to"]:
                    vals.append(x)
                    x = x + g["step"] if "step" in g else x * g["times"]
            else:
                raise ConfigError("%s: space.%s: only whole numbers and "
                                  "ranges compare with Kernel Tuner "
                                  "(swizzle names are not macros it "
                                  "defines)" % (spec.where(e), k))
        spec.tune_params[k] = vals

    params = list(spec.tune_params)
    scope = _Names(params + spec.dim_names + ["threads", "smem_bytes"],
                   "is neither a parameter, a dimension, threads nor "
                   "smem_bytes")
    spec.launch_node = launch = _need(spec, root, "launch",
                                      "grid and block")
    spec.launch = _launch(spec, launch, "launch", scope)

    # the block: each dimension one parameter, as Kernel Tuner names them
    names = []
    for i, e in enumerate(spec.launch.block):
        t = e.tree
        if t[0] != "name" or t[1] not in spec.tune_params:
            raise ConfigError("%s: launch.block[%d] \"%s\": Kernel Tuner "
                              "takes each block dimension from one "
                              "parameter" % (spec.where(launch), i, e.text))
        names.append(t[1])
    for i in range(len(names), 3):
        default = DEFAULT_BLOCK_NAMES[i]
        if default in spec.tune_params:
            raise ConfigError("%s: launch.block has %d dimensions, but "
                              "Kernel Tuner would take parameter %s as "
                              "block %s" % (spec.where(launch), len(names),
                                            default, AXES[i]))
        names.append(default)
    spec.block_size_names = names

    # the grid: ceil(dims / parameters), or dims alone
    spec.problem_size, spec.grid_div = [1, 1, 1], [[], [], []]
    dims_only = _Names(spec.dim_names, "")
    for i, e in enumerate(spec.launch.grid):
        t = e.tree
        if not e.names() - dims_only:
            spec.problem_size[i] = e.eval(spec.dims)
            continue
        num = den = None
        if t[0] == "call" and t[1] == "ceil_div":
            num, den = t[2]
        bad = num is None or \
            e.names(num) - dims_only or \
            e.names(den) - set(params)
        if bad:
            raise ConfigError("%s: launch.grid[%d] \"%s\": Kernel Tuner "
                              "computes a grid as ceil(problem / divisors): "
                              "write it ceil(DIMS / (PARAMS)) with the "
                              "problem's dimensions over parameters" %
                              (spec.where(launch), i, e.text))
        spec.problem_size[i] = e.eval(spec.dims, num)
        spec.grid_div[i] = [strip_parens(e.py(None, f))
                            for f in e.factors(den)]

    # constraints, with threads, smem_bytes and the dimensions written out
    subst = {d: str(v) for d, v in spec.dims.items()}
    subst["threads"] = "(%s)" % " * ".join(spec.block_size_names[
        :len(spec.launch.block)])
    subst["smem_bytes"] = "(%s)" % spec.launch.smem.py(subst) \
        if spec.launch.smem else "0"
    spec.constraints, spec.restrictions = [], []
    cnode = root.get("constraints")
    for c in (_list(cnode) if cnode is not None else []):
        e = _expr(spec, c, "constraint", scope)
        spec.constraints.append((e, c))
        spec.restrictions.append(strip_parens(e.py(subst)))

    spec.arguments = [_argument(spec, a, i) for i, a in enumerate(
        _list(_need(spec, root, "arguments", "the kernel's arguments")))]
    if not any(isinstance(a, Buffer) and a.output for a in spec.arguments):
        raise ConfigError("%s: arguments: no output" %
                          spec.where(root.get("arguments")))
    spec.constants = []
    consts = root.get("constants")
    for c in (_list(consts) if consts is not None else []):
        t = _type(spec, _need(spec, c, "type", "its element type"),
                  "constants.type")
        count = _expr(spec, _need(spec, c, "count", "its elements"),
                      "constants.count", dims_only)
        spec.constants.append(Buffer(
            _need(spec, c, "name", "the __constant__ symbol").value,
            TYPES[t][0], count.eval(spec.dims),
            _init(spec, c.get("init")), False, 0, 0))

    check = root.get("check")
    ref = check.get("reference") if check is not None else None
    if ref is None or (ref.kind == "string" and ref.value == "default"):
        spec.reference = {"kind": "default"}
    elif ref.kind == "group":
        f = ref.get("file")
        spec.reference = {
            "kind": "kernel",
            "kernel": _need(spec, ref, "kernel", "its name").value,
            "file": os.path.join(base, f.value) if f else spec.kernel_file,
            "launch": _launch(spec, ref, "check.reference", scope)}
    else:
        raise ConfigError("%s: check.reference: \"default\" or { kernel; "
                          "grid; block; }" % spec.where(ref))
    return spec


def _wrap(node):
    """[a, b] as a list of one size, keeping the text's place."""
    return Node("list", [node], node.line, node.start, node.end)


def _argument(spec, a, i):
    what = "arguments[%d]" % i
    if a.kind != "group":
        raise ConfigError("%s: %s: expected a group" % (spec.where(a), what))
    name = a.get("name").value if a.get("name") else "argument %d" % i
    dims_only = _Names(spec.dim_names,
                       "Kernel Tuner's arguments are fixed for the run: "
                       "only the problem's dimensions")
    if a.get("scalar") is not None:
        t = _type(spec, a.get("scalar"), what + ".scalar")
        v = _need(spec, a, "value", "an expression")
        value = float(v.value) if v.kind == "float" else \
            _expr(spec, v, what + ".value", dims_only).eval(spec.dims)
        return Scalar(name, TYPES[t][0], value)
    t = _type(spec, _need(spec, a, "buffer", "its element type"),
              what + ".buffer")
    count = _expr(spec, _need(spec, a, "count", "its elements"),
                  what + ".count", dims_only).eval(spec.dims)
    out = a.get("output")
    atol, rtol = TYPES[t][1], TYPES[t][2]
    output = False
    if out is not None and out.kind == "bool":
        output = out.value
    elif out is not None and out.kind == "group":
        output = True
        atol = float(out.value["atol"].value) if "atol" in out.value \
            else atol
        rtol = float(out.value["rtol"].value) if "rtol" in out.value \
            else rtol
    return Buffer(name, TYPES[t][0], count,
                  _init(spec, a.get("init")), output,
                  atol, rtol)
