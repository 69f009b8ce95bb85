#!/usr/bin/env python3
"""test_check_tree.py ROOT -- check_tree.py passes on the tree and fails,
naming what is wrong, on copies of it with one fault planted in each
(each case judged by the problems it adds to the tree's own):

- a file including a header of a folder above its own (README.md's order);
- the same order read from README.md: swapping two rows of its table makes
  the tree's own includes upward;
- a file calling a function of a folder above its own (no include);
- two files calling each other, and three calling in a ring;
- and, as a case that must pass, two files with a static function of the
  same name (not a call between them).
Exits 0 when every case comes out as expected, 1 otherwise."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1])
CHECK = os.path.join(ROOT, "tests", "tree", "check_tree.py")
failures = []


def copy_tree(dst):
    for d in ("tuner", "templates"):
        if os.path.isdir(os.path.join(ROOT, d)):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(dst, d))
    shutil.copy(os.path.join(ROOT, "README.md"), dst)


def check(root):
    p = subprocess.run([sys.executable, CHECK, root], capture_output=True,
                       text=True)
    return p.returncode, p.stdout + p.stderr


def plant(root, files, rows=None, readme=None):
    """Writes files {path: text} under root, lists each new module in its
    folder's row of README.md (so the table holds), and edits README.md
    with readme(text) if given."""
    path = os.path.join(root, "README.md")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    for rel, body in files.items():
        with open(os.path.join(root, rel), "w", encoding="utf-8") as fh:
            fh.write(body)
        folder, name = rel.split("/")[1], os.path.basename(rel)[:-2]
        text, n = re.subn(r"^(\|\s*`tuner/%s/`\s*\|)" % folder,
                          r"\1 `%s`," % name, text, flags=re.M)
        if n != 1:
            failures.append("no row of README.md for tuner/%s/" % folder)
    if readme:
        text = readme(text)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def problems_of(out):
    return [l for l in out.splitlines()
            if l.startswith("tree: ") and "problem(s)" not in l]


def case(name, files, expect, readme=None):
    """Plants files into a fresh copy; expect: the lines check_tree must
    print beyond those of the tree as it is (all of them, and no other
    problem), or [] for none: so each case tests the checker, whatever
    the tree's own state (tree_rules tests that)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy_tree(tmp)
        plant(tmp, files, readme=readme)
        rc, out = check(tmp)
    problems = [p for p in problems_of(out) if p not in BEFORE]
    ok = (rc != 0) == bool(expect or BEFORE)
    for e in expect:
        if not any(e in p for p in problems):
            ok = False
    if len(problems) != len(expect):
        ok = False
    print("%s: %s" % ("ok" if ok else "FAIL", name))
    if not ok:
        failures.append(name)
        print("  expected exit %d with %s; got exit %d:\n%s"
              % (1 if expect else 0, expect, rc, out))


# the tree as it is
rc, out = check(ROOT)
BEFORE = set(problems_of(out))
print("%s: the tree passes" % ("ok" if rc == 0 else "FAIL"))
if rc != 0:
    failures.append("the tree")
    print(out)

case("an upward include (model/ includes gpu/)",
     {"tuner/model/planted_up.c":
      '#include "gpu/worker.h"\n\nint tn_planted_up(void);\n'
      "int tn_planted_up(void)\n{\n  return 0;\n}\n"},
     ["tuner/model/planted_up.c includes gpu/worker.h: tuner/model/ is "
      "below tuner/gpu/ in README.md's table"])


def swap_rows(text):
    """README.md with the rows of tuner/gpu/ and tuner/pipeline/ swapped."""
    lines = text.split("\n")
    g = [i for i, l in enumerate(lines) if l.startswith("| `tuner/gpu/`")]
    p = [i for i, l in enumerate(lines)
         if l.startswith("| `tuner/pipeline/`")]
    if len(g) == 1 and len(p) == 1:
        lines[g[0]], lines[p[0]] = lines[p[0]], lines[g[0]]
    return "\n".join(lines)


with tempfile.TemporaryDirectory() as tmp:
    copy_tree(tmp)
    plant(tmp, {}, readme=swap_rows)
    rc, out = check(tmp)
ok = rc == 1 and re.search(r"tuner/pipeline/\S+ includes gpu/\S+: "
                           r"tuner/pipeline/ is below tuner/gpu/", out)
print("%s: the order is README.md's (gpu/ and pipeline/ swapped)"
      % ("ok" if ok else "FAIL"))
if not ok:
    failures.append("README order")
    print(out)

case("an upward call without an include (model/ calls gpu/)",
     {"tuner/model/planted_call.c":
      "int tn_worker_start(void);\nint tn_planted_call(void);\n"
      "int tn_planted_call(void)\n{\n  return tn_worker_start();\n}\n"},
     ["tuner/model/planted_call calls tn_worker_start of gpu/worker: "
      "tuner/model/ is below tuner/gpu/ in README.md's table"])


def caller(me, other):
    return ("int tn_planted_%s(int n);\nint tn_planted_%s(int n);\n\n"
            "int tn_planted_%s(int n)\n{\n  return n > 0 ? "
            "tn_planted_%s(n - 1) : 0;\n}\n" % (me, other, me, other))


case("two files calling each other",
     {"tuner/fleet/planted_a.c": caller("a", "b"),
      "tuner/fleet/planted_b.c": caller("b", "a")},
     ["call cycle: fleet/planted_a -> fleet/planted_b (tn_planted_b) -> "
      "fleet/planted_a (tn_planted_a)"])

case("three files calling in a ring",
     {"tuner/base/planted_x.c": caller("x", "y"),
      "tuner/base/planted_y.c": caller("y", "z"),
      "tuner/base/planted_z.c": caller("z", "x")},
     ["call cycle: base/planted_x -> base/planted_y (tn_planted_y) -> "
      "base/planted_z (tn_planted_z) -> base/planted_x (tn_planted_x)"])

same = ("static int helper(int n)\n{\n  return n > 0 ? helper(n - 1) : 0;\n}"
        "\n\nint tn_planted_%s(int n);\nint tn_planted_%s(int n)\n{\n"
        "  return helper(n);\n}\n")
case("two static functions of one name (no call between the files)",
     {"tuner/fleet/planted_c.c": same % ("c", "c"),
      "tuner/fleet/planted_d.c": same % ("d", "d")},
     [])

if failures:
    print("FAILED: " + "; ".join(failures))
sys.exit(1 if failures else 0)
