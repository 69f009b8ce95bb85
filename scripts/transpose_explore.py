#!/usr/bin/env python3
"""Writes wider copies of shipped transpose configs, for one exploring run
on a GPU (issue 33: which tile orders and packings lift the narrow widths
to the copy's speed), without widening the shipped spaces that CI
compiles whole.

Usage:
  transpose_explore.py CONFIG... [--set KEY=VALUES ...] [--add KEY=VALUES ...]
                       --out DIR

Each CONFIG (configs/X.cfg) is copied to configs/explore-X.cfg, and the
space file it @includes, if any, to configs/include/explore-...; in the
copy's space each KEY given to --set takes VALUES (a libconfig list,
"[1, 2, 4]") instead of its own, and each KEY given to --add (a parameter
the space leaves at its default) is added with VALUES.  DIR receives the
list of the written configs, one a line, for the run to tune.  Exit 2: a
config or a --set key not found, or a --add key already there.
"""
import argparse
import os
import re
import sys


def widen(text, sets):
    """text with each key's list replaced by the values given for it."""
    for key, values in sets:
        pat = re.compile(r"^(\s*%s\s*=\s*)\[[^\]]*\](\s*;)" % re.escape(key),
                         re.M)
        text = pat.sub(lambda m: m.group(1) + values + m.group(2), text)
    return text


def add_keys(text, adds):
    """text with `key = values;` opening its space block, for each key."""
    for key, values in reversed(adds):
        text = re.sub(r"^(space\s*=\s*\{\n)",
                      lambda m: m.group(1) + "  %s = %s;\n" % (key, values),
                      text, count=1, flags=re.M)
    return text


def present(text, adds, cfg):
    """1 (said so) if a key to add is already in text's space."""
    there = [k for k, _ in adds
             if re.search(r"^\s*%s\s*=" % re.escape(k), text, re.M)]
    if there:
        print("transpose_explore.py: %s: %s already in its space (--set)"
              % (cfg, ", ".join(there)), file=sys.stderr)
    return 1 if there else 0


def parse_sets(given):
    """[(key, values)] of KEY=[values] arguments, or None (said why)."""
    sets = []
    for s in given:
        key, sep, values = s.partition("=")
        if not sep or not re.fullmatch(r"[a-z_]+", key) or \
                not re.fullmatch(r"\[[-0-9, \"a-z()]*\]", values.strip()):
            print("transpose_explore.py: %r: KEY=[values]" % s,
                  file=sys.stderr)
            return None
        sets.append((key, values.strip()))
    return sets


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--add", action="append", default=[], dest="adds")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    sets = parse_sets(a.sets)
    adds = parse_sets(a.adds)
    if sets is None or adds is None:
        return 2
    written = []
    for cfg in a.configs:
        if not os.path.isfile(cfg):
            print("transpose_explore.py: %s: no such config" % cfg,
                  file=sys.stderr)
            return 2
        d, base = os.path.split(cfg)
        text = open(cfg).read()
        m = re.search(r'^@include "include/([^"]+)"', text, re.M)
        found = set()
        if m:
            inc = os.path.join(d, "include", m.group(1))
            inc_text = open(inc).read()
            new_inc = "explore-" + m.group(1)
            for key, values in sets:
                if re.search(r"^\s*%s\s*=" % re.escape(key), inc_text, re.M):
                    found.add(key)
            inc_text = widen(inc_text, sets)
            if re.search(r"^space\s*=", inc_text, re.M):
                if present(inc_text, adds, cfg):
                    return 2
                inc_text = add_keys(inc_text, adds)
            with open(os.path.join(d, "include", new_inc), "w") as f:
                f.write(inc_text)
            text = text.replace(m.group(0), '@include "include/%s"' % new_inc)
        for key, values in sets:
            if re.search(r"^\s*%s\s*=" % re.escape(key), text, re.M):
                found.add(key)
        text = widen(text, sets)
        if re.search(r"^space\s*=", text, re.M):
            if present(text, adds, cfg):
                return 2
            text = add_keys(text, adds)
        missing = [k for k, _ in sets if k not in found]
        if missing:
            print("transpose_explore.py: %s: no %s in its space"
                  % (cfg, ", ".join(missing)), file=sys.stderr)
            return 2
        text = re.sub(r'^name = "([^"]+)";', r'name = "explore-\1";', text,
                      count=1, flags=re.M)
        out = os.path.join(d, "explore-" + base)
        with open(out, "w") as f:
            f.write(text)
        written.append(out)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "configs.txt"), "w") as f:
        f.write("\n".join(written) + "\n")
    print("\n".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
