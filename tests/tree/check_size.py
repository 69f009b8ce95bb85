#!/usr/bin/env python3
"""check_size.py -- the tracked tree within its size budget (issue 35).

Usage: check_size.py ROOT [BUDGET_BYTES]   the files git tracks under ROOT
                                           (their sizes on disk, as
                                           `git ls-files -z | xargs -0 du
                                           -cb` counts them) at most BUDGET
                                           (default 10 MB, 10,000,000 bytes)
       check_size.py --self TMP            the check on planted trees: one
                                           under the budget passes, one with
                                           a planted large file fails and
                                           names it first

Exit status: 0 within the budget; 1 over it (the total, the largest files
and folders named); 2 bad use; 77 ROOT is not a git checkout (a source
archive: nothing to count), which fails instead under CI (set to anything).
"""
import os
import subprocess
import sys

BUDGET = 10 * 1000 * 1000
SHOW = 12


def tracked(root):
    """(path, bytes) of every tracked file, or None outside a checkout."""
    try:
        p = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError:
        return None
    if p.returncode != 0:
        return None
    out = []
    for name in p.stdout.decode("utf-8", "replace").split("\0"):
        if not name:
            continue
        try:  # a link counts as itself, as du does
            out.append((name, os.lstat(os.path.join(root, name)).st_size))
        except OSError:  # tracked but deleted here: nothing on disk
            pass
    return out


def mb(n):
    return "%.2f MB" % (n / 1e6)


def check(root, budget):
    files = tracked(root)
    if files is None:
        why = "%s is not a git checkout: no tracked files to count" % root
        if os.environ.get("CI"):
            print("FAIL: " + why)
            return 1
        print("SKIP: " + why)
        return 77
    total = sum(n for _, n in files)
    print("tracked: %d files, %s (%d bytes) of a budget of %s" % (
        len(files), mb(total), total, mb(budget)))
    if total <= budget:
        return 0
    print("FAIL: the tracked tree is %s over its budget; the largest files:"
          % mb(total - budget))
    for name, n in sorted(files, key=lambda f: -f[1])[:SHOW]:
        print("  %10d  %s" % (n, name))
    dirs = {}
    for name, n in files:
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            dirs[d] = dirs.get(d, 0) + n
    print("the largest folders:")
    for d, n in sorted(dirs.items(), key=lambda f: -f[1])[:SHOW]:
        print("  %10d  %s/" % (n, d))
    return 1


def self_test(tmp):
    fails = 0

    def git(*args):
        subprocess.run(["git", "-C", tmp] + list(args), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    git("init", "-q")
    with open(os.path.join(tmp, "small.txt"), "w") as f:
        f.write("x" * 1000)
    os.makedirs(os.path.join(tmp, "data"))
    git("add", "small.txt")
    if check(tmp, 2000) != 0:
        print("FAIL: 1000 tracked bytes against a budget of 2000")
        fails += 1
    # untracked files do not count
    with open(os.path.join(tmp, "data", "untracked.bin"), "wb") as f:
        f.truncate(5000)
    if check(tmp, 2000) != 0:
        print("FAIL: an untracked file counted")
        fails += 1
    # a planted file over the budget fails, named first
    with open(os.path.join(tmp, "data", "planted.bin"), "wb") as f:
        f.truncate(BUDGET + 1)
    git("add", "data/planted.bin")
    p = subprocess.run([sys.executable, os.path.abspath(__file__), tmp],
                       stdout=subprocess.PIPE, universal_newlines=True)
    lines = p.stdout.splitlines()
    largest = [l for l in lines if l.startswith("  ")]
    if p.returncode != 1 or not largest or \
            not largest[0].endswith("data/planted.bin"):
        print("FAIL: a planted file of %d bytes: exit %d, output:\n%s" % (
            BUDGET + 1, p.returncode, p.stdout))
        fails += 1
    else:
        print("ok: the planted file fails the budget and is named first")
    return 1 if fails else 0


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "--self":
        return self_test(a[1])
    if len(a) not in (1, 2) or a[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    budget = BUDGET
    if len(a) == 2:
        try:
            budget = int(a[1])
        except ValueError:
            print("check_size.py: BUDGET_BYTES: %s: a number expected" % a[1],
                  file=sys.stderr)
            return 2
    return check(a[0], budget)


if __name__ == "__main__":
    sys.exit(main())
