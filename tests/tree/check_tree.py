#!/usr/bin/env python3
"""check_tree.py ROOT -- the rules the source tree keeps (issues 10, 35).

A module is a file name without its extension, under tuner/ (results.c +
results.h is pipeline/results); its folder is its layer.

- No C file or header under tuner/, nor template, reaches 700 lines.
- No include cycle between modules: module A depends on B when a file of
  A includes B's header.  A cycle of any length fails, not only A <-> B.
- Layers: README.md's table of the tuner/ folders lists them lowest
  first (tuner/main.c last); a file includes headers only of its own
  folder and of the folders above it in the table (below it as layers),
  and calls only functions of those.
- No two modules call each other, nor does a longer ring of them: A
  calls B when A's code names a function that B defines (a function of a
  .c file that is not static, or a static inline one of a header).
- Every folder under tuner/ has a README.md saying what it holds.
- The README's architecture table names every folder of tuner/ and, in
  its row, every module (.c file) of it; every tuner/ path the README
  names exists.
Prints each broken rule and exits 1; exits 0 when all hold."""
import os
import re
import sys

LIMIT = 700

IDENT = re.compile(r"[A-Za-z_]\w*")
TOKEN = re.compile(r"[A-Za-z_]\w*|\d\w*|\S")


def strip_c(text):
    """text with comments, strings and character literals blanked (their
    newlines kept, so lines still count)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_preprocessor(text):
    """(code, macros): text without its preprocessor lines, and the bodies
    of its #define lines (what a use of the macro runs)."""
    code, macros = [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("#"):
            block = [line]
            while block[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                block.append(lines[i])
            if re.match(r"\s*#\s*define\b", line):
                macros.append(" ".join(b.rstrip("\\") for b in block))
            code.extend([""] * len(block))
        else:
            code.append(line)
        i += 1
    return "\n".join(code), "\n".join(macros)


def functions(code):
    """[(name, specifiers, body_tokens)] of the function definitions in
    code (preprocessor lines removed), and the tokens outside them."""
    toks = TOKEN.findall(code)
    defs, outside = [], []
    i, depth, start = 0, 0, 0
    while i < len(toks):
        t = toks[i]
        if (depth == 0 and IDENT.fullmatch(t) and i + 1 < len(toks)
                and toks[i + 1] == "("):
            j, p = i + 1, 0
            while j < len(toks):
                p += toks[j] == "("
                p -= toks[j] == ")"
                if p == 0:
                    break
                j += 1
            k = j + 1
            while k < len(toks) and toks[k] == "__attribute__":
                k, p = k + 1, 0
                while k < len(toks):
                    p += toks[k] == "("
                    p -= toks[k] == ")"
                    k += 1
                    if p == 0:
                        break
            if k < len(toks) and toks[k] == "{":
                e, b = k, 0
                while e < len(toks):
                    b += toks[e] == "{"
                    b -= toks[e] == "}"
                    if b == 0:
                        break
                    e += 1
                defs.append((t, set(toks[start:i]), toks[i + 1:e + 1]))
                i = start = e + 1
                continue
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif t == ";" and depth == 0:
            start = i + 1
        outside.append(t)
        i += 1
    return defs, outside


def main():
    root = os.path.abspath(sys.argv[1])
    src = os.path.join(root, "tuner")
    problems = []
    files = []
    for dirpath, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.join(dirpath, n))
    files.sort()
    if not files:
        problems.append("no C files under %s" % src)
    text = {}
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text[f] = fh.read()

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

    def module(path):
        rel = os.path.relpath(path, src)
        return os.path.splitext(rel)[0]

    def folder(m):
        """A module's layer: its folder, or the file for tuner/main.c."""
        return m.split("/")[0] + "/" if "/" in m else m + ".c"

    # the layers, lowest first, as README.md's table lists them
    with open(os.path.join(root, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    order = re.findall(r"^\|\s*`tuner/([a-z_]+/|[a-z_]+\.c)`\s*\|", readme,
                       re.M)
    rank = {d: i for i, d in enumerate(order)}

    def below(m, target, what):
        """A problem when module m's folder is below target's."""
        a, b = folder(m), folder(target)
        if a == b or a not in rank or b not in rank or rank[b] < rank[a]:
            return
        problems.append("%s: tuner/%s is below tuner/%s in README.md's "
                        "table" % (what, a, b))

    # 2. module graph of includes
    deps = {}
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for f in files:
        m = module(f)
        deps.setdefault(m, set())
        for line in text[f].split("\n"):
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
                below(m, t, "%s includes %s" % (os.path.relpath(f, root),
                                                g.group(1)))

    def cycles(graph, kind, label):
        """Every cycle of graph once, by depth-first search."""
        state, stack, seen = {}, [], set()

        def visit(m):
            state[m] = 1
            stack.append(m)
            for t in sorted(graph.get(m, ())):
                if state.get(t) == 1:
                    cyc = stack[stack.index(t):] + [t]
                    key = frozenset(cyc)
                    if key not in seen:
                        seen.add(key)
                        problems.append(kind + " cycle: " + label(cyc))
                elif state.get(t) is None:
                    visit(t)
            stack.pop()
            state[m] = 2
        for m in sorted(graph):
            if state.get(m) is None:
                visit(m)

    cycles(deps, "include", lambda cyc: " -> ".join(cyc))

    # 3. module graph of calls: who names a function that another defines
    defined = {}   # function -> module
    uses = {}      # module -> set of names its code uses
    own = {}       # module -> every function it defines, static or not
    for f in files:
        m = module(f)
        code, macros = split_preprocessor(strip_c(text[f]))
        defs, outside = functions(code)
        own.setdefault(m, set()).update(d[0] for d in defs)
        names = uses.setdefault(m, set())
        for name, spec, body in defs:
            if "static" not in spec or "inline" in spec:
                defined.setdefault(name, m)
            names.update(t for t in body if IDENT.fullmatch(t))
        if f.endswith(".c"):
            # initializers and declarations name functions too (a table
            # of function pointers)
            names.update(t for t in outside if IDENT.fullmatch(t))
        names.update(IDENT.findall(macros))
    calls = {m: {} for m in uses}  # caller -> callee -> names
    for m, names in uses.items():
        for name in names:
            t = defined.get(name)
            if t is None or t == m or name in own[m]:
                continue
            calls[m].setdefault(t, set()).add(name)
    for m in sorted(calls):
        for t in sorted(calls[m]):
            below(m, t, "tuner/%s calls %s of %s"
                  % (m, ", ".join(sorted(calls[m][t])), t))

    def ring(cyc):
        """A -> B (names) -> C ... for a call cycle."""
        parts = [cyc[0]]
        for a, b in zip(cyc, cyc[1:]):
            parts.append("%s (%s)" % (b, ", ".join(sorted(calls[a][b]))))
        return " -> ".join(parts)

    cycles({m: set(c) for m, c in calls.items()}, "call", ring)

    # 4. folder READMEs
    folders = sorted(d for d in os.listdir(src)
                     if os.path.isdir(os.path.join(src, d)))
    for d in folders:
        if not os.path.isfile(os.path.join(src, d, "README.md")):
            problems.append("tuner/%s/ has no README.md" % d)

    # 5. the README's table follows the tree
    for d in folders:
        if "tuner/%s/" % d not in readme:
            problems.append("README.md does not name tuner/%s/" % d)
    for m in sorted(deps):
        if folder(m) not in rank:
            problems.append("README.md's table has no row for tuner/%s, "
                            "so its layer is unknown" % folder(m))
            rank[folder(m)] = -1  # once
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
    n_calls = sum(len(c) for c in calls.values())
    print("tree: %d files, %d modules, %d folders, %d calls between modules "
          "checked; %d problem(s)"
          % (len(files), len(deps), len(folders), n_calls, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
