#!/usr/bin/env bash
# A run that meets a full disk (issue 31, part 4), against tests/fake_worker,
# no GPU.  The full disk is RLIMIT_FSIZE (ulimit -f, then prlimit on the
# running tuner), with SIGXFSZ ignored as a shell's trap '' XFSZ leaves it:
# every write of the tuner past the limit fails (EFBIG) where a full disk
# fails it with ENOSPC, on the same code paths, without root or a mount.
#
# 1. Full from the start (8 KiB, less than a results file): the run stops
#    before it measures anything, exit 1, naming the write; no file left.
# 2. Full in the middle: after 4 candidates the limit drops to the
#    journal's size; the run stops at its next write, exit 1, saying what
#    to --resume; that results file exists; --resume, with room again,
#    ends with the results of a run that met no full disk.
# 3. The journal alone (a results file lost, or never written by an
#    older tuner), its last line cut short: --resume X.jsonl and --resume
#    X.json (missing) both end so, the cut line dropped, not joined to the
#    next.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$1 fake=$2 cfg=$3  # TUNER FAKE_WORKER CONFIG
test_start
export TUNER_WORKER=$fake
run() { "$tuner" --config "$cfg" --no-prune -q --cache-dir "$tmp/cache" "$@"; }
# runs "$@" with SIGXFSZ ignored, so that a write past the limit fails
nosig() { bash -c 'trap "" XFSZ; exec "$@"' nosig "$@"; }
# the same statuses and medians as the reference, and N resumed at least
same_as_ref() { # RESULTS N
  python3 - "$1" "$tmp"/ref/*.json "$2" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ca = {c["id"]: (c["status"], c.get("median_ms")) for c in a["candidates"]}
cb = {c["id"]: (c["status"], c.get("median_ms")) for c in b["candidates"]}
assert ca == cb, [(i, ca[i], cb[i]) for i in ca if ca[i] != cb.get(i)]
assert a["best"]["id"] == b["best"]["id"], (a["best"], b["best"])
assert a["run"]["resumed"] >= int(sys.argv[3]), a["run"]["resumed"]
PY
}

run -o "$tmp/ref" >/dev/null 2>"$tmp/ref.err" ||
  { echo "FAIL: the reference run: $(cat "$tmp/ref.err")"; exit 1; }

# 1. full from the start
FAKE_WORKER_LOG="$tmp/jobs1.log" nosig bash -c 'ulimit -f 8; exec "$@"' \
  limit "$tuner" --config "$cfg" --no-prune -q --cache-dir "$tmp/cache" \
  -o "$tmp/full1" >"$tmp/full1.out" 2>"$tmp/full1.err"
rc=$?
measured=$(grep -c '^candidate' "$tmp/jobs1.log" 2>/dev/null)
left=$(find "$tmp/full1" -type f 2>/dev/null | wc -l)
if [ $rc -eq 1 ] && [ "${measured:-0}" -eq 0 ] && [ "$left" -eq 0 ] &&
   grep -q "File too large" "$tmp/full1.err"; then
  echo "ok 1: full from the start: stopped before measuring:" \
    "$(head -n 1 "$tmp/full1.err")"
else
  echo "FAIL 1: exit $rc, ${measured:-0} candidates measured, $left files" \
    "left: $(cat "$tmp/full1.err")"
  find "$tmp/full1" -type f 2>/dev/null
  fail=1
fi

# 2. full in the middle
# (bash -c, not nosig: $! must be the tuner, which bash -c execs)
FAKE_WORKER_DELAY_MS=150 FAKE_WORKER_LOG="$tmp/jobs2.log" \
  bash -c 'trap "" XFSZ; exec "$@"' nosig \
  "$tuner" --config "$cfg" --no-prune -q --cache-dir "$tmp/cache" \
  -o "$tmp/full2" >"$tmp/full2.out" 2>"$tmp/full2.err" &
pid=$!
wait_jobs 4 "$tmp/jobs2.log" || echo "note: the run did not get far"
journal=$(ls "$tmp"/full2/*.jsonl 2>/dev/null | head -n 1)
if [ -z "$journal" ]; then
  echo "FAIL 2: no journal while measuring"; kill "$pid"; exit 1
fi
prlimit --pid "$pid" --fsize="$(stat -c %s "$journal")"
wait "$pid"
rc=$?
results=$(sed -n 's/^tuner: .* continue with --resume //p' "$tmp/full2.err")
done_before=$(grep -c '"kind":"candidate"' "$journal")
cp "$journal" "$tmp/journal-copy"
if [ $rc -ne 1 ] || [ -z "$results" ] || [ ! -f "$results" ]; then
  echo "FAIL 2: exit $rc, said --resume '$results':"; cat "$tmp/full2.err"
  fail=1
elif [ "$done_before" -lt 3 ]; then
  echo "FAIL 2: only $done_before candidates in the journal"; fail=1
else
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$results" ||
    { echo "FAIL 2: $results does not parse"; fail=1; }
  run --resume "$results" >/dev/null 2>"$tmp/resume2.err" ||
    { echo "FAIL 2: --resume: $(cat "$tmp/resume2.err")"; fail=1; }
  same_as_ref "$results" 3 ||
    { echo "FAIL 2: the resumed results differ"; fail=1; }
  [ $fail -eq 0 ] && echo "ok 2: full after $done_before candidates:" \
    "$(grep -v '^tuner: what was' "$tmp/full2.err" | head -n 1);" \
    "--resume ends as the reference"
fi

# 3. the journal alone, its last line cut short
base=$(basename "$journal" .jsonl)
for how in jsonl json; do
  mkdir -p "$tmp/alone-$how"
  cp "$tmp/journal-copy" "$tmp/alone-$how/$base.jsonl"
  printf '{"kind":"candidate","id":' >>"$tmp/alone-$how/$base.jsonl"
  run --resume "$tmp/alone-$how/$base.$how" >/dev/null \
    2>"$tmp/alone-$how.err" ||
    { echo "FAIL 3 --resume $base.$how: $(cat "$tmp/alone-$how.err")"
      fail=1; continue; }
  same_as_ref "$tmp/alone-$how/$base.json" 3 ||
    { echo "FAIL 3 --resume $base.$how: the results differ"; fail=1; }
  python3 - "$tmp/alone-$how/$base.jsonl" <<'PY' || fail=1
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    try:
        json.loads(line)
    except ValueError as e:
        sys.exit("FAIL 3: %s:%d does not parse: %s" % (sys.argv[1], n, e))
PY
  grep -q "cut short" "$tmp/alone-$how.err" ||
    { echo "FAIL 3: no note about the cut line"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok 3: --resume of the journal alone (.jsonl, and" \
  "a missing .json) ends as the reference; the cut line dropped"
exit $fail
