#!/usr/bin/env python3
"""check_tree.py ROOT -- the rules the source tree keeps (issue 10).

- No C file or header under tuner/, nor template, reaches 700 lines.
- No include cycle between modules: a module is a file name without its
  extension (results.c + results.h); module A depends on B when a file of A
  includes B's header.  A cycle of any length fails, not only A <-> B.
- Every folder under tuner/ has a README.md saying what it holds.
- The README's architecture table names every folder of tuner/ and, in
  its row, every module (.c file) of it; every tuner/ path the README
  names exists.
Prints each broken rule and exits 1; exits 0 when all hold."""
import os
import re
import sys

LIMIT = 700


def main():
    root = sys.argv[1]
    src = os.path.join(root, "tuner")
    problems = []
    files = []
    for dirpath, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.join(dirpath, n))
    if not files:
        problems.append("no C files under %s" % src)

    # 1. sizes, of the tuner's C and of the templates
    templates = os.path.join(root, "templates")
    sized = list(files)
    if os.path.isdir(templates):
        sized += [os.path.join(templates, n) for n in os.listdir(templates)
                  if n.endswith((".cu", ".h", ".cuh"))]
    for f in sized:
        with open(f, encoding="utf-8") as fh:
            lines = sum(1 for _ in fh)
        if lines >= LIMIT:
            problems.append("%s: %d lines (the limit is under %d)"
                            % (os.path.relpath(f, root), lines, LIMIT))

    # 2. module graph
    def module(path):
        rel = os.path.relpath(path, src)
        return os.path.splitext(rel)[0]
    deps = {}
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for f in files:
        m = module(f)
        deps.setdefault(m, set())
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                g = inc.match(line)
                if not g:
                    continue
                target = os.path.normpath(
                    os.path.join(src, g.group(1)))
                if not os.path.exists(target):
                    target = os.path.normpath(
                        os.path.join(os.path.dirname(f), g.group(1)))
                if not target.startswith(src + os.sep) or \
                        not os.path.exists(target):
                    continue  # templates/, generated files, system
                t = module(target)
                if t != m:
                    deps[m].add(t)
    # cycles by depth-first search, reporting each once
    state, stack, seen_cycles = {}, [], set()

    def visit(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(deps.get(m, ())):
            if state.get(t) == 1:
                cyc = stack[stack.index(t):] + [t]
                key = frozenset(cyc)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    problems.append("include cycle: " + " -> ".join(cyc))
            elif state.get(t) is None:
                visit(t)
        stack.pop()
        state[m] = 2
    for m in sorted(deps):
        if state.get(m) is None:
            visit(m)

    # 3. folder READMEs
    folders = sorted(d for d in os.listdir(src)
                     if os.path.isdir(os.path.join(src, d)))
    for d in folders:
        if not os.path.isfile(os.path.join(src, d, "README.md")):
            problems.append("tuner/%s/ has no README.md" % d)

    # 4. the README's table follows the tree
    with open(os.path.join(root, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    for d in folders:
        if "tuner/%s/" % d not in readme:
            problems.append("README.md does not name tuner/%s/" % d)
    for p in sorted(set(re.findall(r"(?<![\w/.-])tuner/[A-Za-z0-9_./]+", readme))):
        p = p.rstrip(".")
        if not os.path.exists(os.path.join(root, p)):
            problems.append("README.md names %s, which does not exist" % p)

    # the table: row `tuner/X/` | `m1`, `m2` (+ `m3`) | ... lists every
    # module of X, and nothing that is not there
    rows = re.findall(r"^\|\s*`tuner/([a-z_]+)/`\s*\|([^|]*)\|", readme,
                      re.M)
    for d, cell in rows:
        listed = set(re.findall(r"`([A-Za-z0-9_]+)`", cell))
        have = set(os.path.splitext(n)[0]
                   for n in os.listdir(os.path.join(src, d))
                   if n.endswith(".c")) if os.path.isdir(
                       os.path.join(src, d)) else set()
        for m in sorted(listed - have):
            if not os.path.exists(os.path.join(src, d, m + ".h")):
                problems.append("README.md: tuner/%s/ lists `%s`, which is "
                                "not there" % (d, m))
        for m in sorted(have - listed):
            problems.append("README.md: tuner/%s/%s.c is not in the table"
                            % (d, m))
    if folders and not rows:
        problems.append("README.md has no table of the tuner/ folders")

    for p in problems:
        print("tree: " + p)
    print("tree: %d files, %d modules, %d folders checked; %d problem(s)"
          % (len(files), len(deps), len(folders), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
