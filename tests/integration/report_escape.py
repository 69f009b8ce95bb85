#!/usr/bin/env python3
"""report_escape.py TUNER OUT RESULTS... -- every string of a results file
reaches `tuner report`'s page as text, never as markup.

For each string field of each results file (array elements counted as one
field: every candidate's "reason" at once), the field is set to a payload
that would open an element, close an attribute, start a comment or a
script if it went into the page as it is, and the file is reported as a
run and as a fleet.  The reader may refuse the file (exit 2: the field is
checked, and nothing is written); if it takes it, the page is parsed and
must hold no element, attribute or comment the payload brings.  Exit 0
when every field passes, 1 otherwise (naming the field and the mode)."""
import html.parser
import json
import os
import subprocess
import sys

MARK = "x-evil"
PAYLOAD = ("\"' ><" + MARK + " " + MARK + "-attr=1 onerror=alert(1)>&amp;"
           "</" + MARK + "><script>" + MARK + "()</script><!-- ]]> \u0007")


class Page(html.parser.HTMLParser):
    """What a page holds that its payload brought."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad = []

    def handle_starttag(self, tag, attrs):
        if tag in (MARK, "script"):
            self.bad.append("<%s>" % tag)
        for name, value in attrs:
            if name.startswith(MARK) or name.startswith("on"):
                self.bad.append("%s=%r on <%s>" % (name, value, tag))
            if value is not None and MARK in value and "<" not in value:
                # an attribute that got only a piece of the payload: the
                # quote ended it
                self.bad.append("a cut payload in %s on <%s>" % (name, tag))

    def handle_comment(self, data):
        if MARK in data or "]]>" in data:
            self.bad.append("a comment from the payload")


def fields(doc):
    """The paths of every string leaf, array indices as '*'."""
    out = set()

    def walk(o, path):
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, path + (k,))
        elif isinstance(o, list):
            for v in o:
                walk(v, path + ("*",))
        elif isinstance(o, str):
            out.add(path)

    walk(doc, ())
    return sorted(out)


def set_all(o, path, value):
    """A copy of o with every string at path (where there is one) set."""
    if not path:
        return value if isinstance(o, str) else o
    head, rest = path[0], path[1:]
    if head == "*":
        return [set_all(v, rest, value) for v in o] if isinstance(o, list) \
            else o
    if not isinstance(o, dict) or head not in o:
        return o
    o = dict(o)
    o[head] = set_all(o[head], rest, value)
    return o


def main():
    tuner, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    failures = taken = refused = 0
    for src in sys.argv[3:]:
        with open(src, encoding="utf-8") as f:
            doc = json.load(f)
        for path in fields(doc):
            name = ".".join(path)
            bad = set_all(doc, path, PAYLOAD)
            results = os.path.join(out, "evil.json")
            with open(results, "w", encoding="utf-8") as f:
                json.dump(bad, f)
            for mode in ([], ["--fleet"]):
                page = os.path.join(out, "page.html")
                if os.path.exists(page):
                    os.remove(page)
                p = subprocess.run([tuner, "report"] + mode +
                                   [results, "-o", page],
                                   capture_output=True, text=True)
                what = "%s: %s (%s)" % (os.path.basename(src), name,
                                        "fleet" if mode else "run")
                if p.returncode == 2:
                    refused += 1
                    if os.path.exists(page):
                        print("FAIL %s: refused, but wrote the page" % what)
                        failures += 1
                    continue
                if p.returncode != 0:
                    print("FAIL %s: exit %d: %s" % (what, p.returncode,
                                                    p.stderr.strip()))
                    failures += 1
                    continue
                taken += 1
                with open(page, encoding="utf-8") as f:
                    text = f.read()
                parser = Page()
                parser.feed(text)
                parser.close()
                if parser.bad:
                    print("FAIL %s: the page got %s" %
                          (what, ", ".join(parser.bad)))
                    failures += 1
    print("%d reports taken, %d refused, %d failures" % (taken, refused,
                                                         failures))
    if taken == 0:
        print("FAIL: no field reached a page")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
