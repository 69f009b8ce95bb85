#!/usr/bin/env python3
"""Per-instruction cp.async (LDGSTS) wavefronts from an Nsight Compute report.

    ncu --section SourceCounters -o REPORT PROGRAM ...
    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > SRC.csv
    python3 scripts/smem_probe/ldgsts_source.py SRC.csv > ldgsts.tsv

Writes one row per LDGSTS instruction of every profiled kernel: the
kernel's index and name, the instruction's address (last 4 hex digits) and
text, how often it executed, its "L1 Wavefronts Shared" and "... Ideal",
and the wavefronts per execution.  Python 3 standard library only.
"""
import csv
import io
import sys


def kernels(text):
    """(name, rows) per kernel block of the source-page CSV."""
    for block in text.split('"Kernel Name"')[1:]:
        head, _, body = block.partition("\n")
        name = head.strip().strip(",").strip('"')
        yield name, list(csv.DictReader(io.StringIO(body)))


def number(s):
    try:
        return float((s or "").replace(",", ""))
    except ValueError:
        return None


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        text = open(argv[1]).read()
    except OSError as e:
        sys.stderr.write("ldgsts_source: %s\n" % e)
        return 2
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    out.writerow(["kernel", "name", "address", "sass", "executed",
                  "wavefronts", "ideal", "per_execution"])
    found = 0
    for k, (name, rows) in enumerate(kernels(text)):
        for r in rows:
            src = (r.get("Source") or "").strip()
            if not src.startswith("LDGSTS"):
                continue
            n = number(r.get("Instructions Executed"))
            w = number(r.get("L1 Wavefronts Shared"))
            ideal = number(r.get("L1 Wavefronts Shared Ideal"))
            if n is None or w is None:
                continue
            found += 1
            out.writerow([k, name[:60], (r.get("Address") or "")[-4:], src,
                          int(n), int(w), "NA" if ideal is None else int(ideal),
                          "%.4g" % (w / n) if n else "NA"])
    if not found:
        sys.stderr.write("ldgsts_source: no LDGSTS rows with counts in %s\n" % argv[1])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
