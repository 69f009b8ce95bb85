#!/usr/bin/env bash
# `tuner calibrate`'s arguments: each bad one exits 2 with a message that
# names it, before any GPU work, and writes nothing; --help exits 0; a GPU
# that is not there (no driver, or an ordinal past the last GPU) exits 3
# with the reason, as `tuner --device` does.
set -u
tuner=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() { # expect STATUS PATTERN ARGS...: exit status and a stderr line
  local want=$1 pat=$2
  shift 2
  "$tuner" calibrate "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne "$want" ] || ! grep -q -- "$pat" "$tmp/err"; then
    echo "FAIL: tuner calibrate $*: exit $rc (want $want), stderr:"
    cat "$tmp/err"
    fail=1
  fi
}

expect 2 "--device: 'x' is not an integer in \[0, 1023\]" --device x
expect 2 "--device: '-1' is not an integer" --device -1
expect 2 "--repetitions: '2' is not an integer in \[3, 1000\]" -r 2
expect 2 "--warmup: 'many' is not an integer" --warmup many
expect 2 "unexpected argument 'extra'" extra
expect 2 "unrecognized option '--bogus'" --bogus
expect 2 "--output: empty path" --output ""
# a regular file where a folder is needed: refused before the GPU
touch "$tmp/file"
expect 2 "cannot write the profile under '$tmp/file'" \
  --output "$tmp/file/profile.json" --device 0
expect 2 "cannot write the profile under '$tmp/file/sub'" \
  --output "$tmp/file/sub/" --device 0
# a bad argument wins over a missing GPU: exit 2, not 3
expect 2 "--device: '99999'" --device 99999 --output "$tmp/p.json"
[ -e "$tmp/p.json" ] && { echo "FAIL: a profile written on bad input"; fail=1; }

"$tuner" calibrate --help >"$tmp/help" 2>&1 || { echo "FAIL: --help"; fail=1; }
grep -q "Usage: tuner calibrate" "$tmp/help" || { echo "FAIL: usage"; fail=1; }
"$tuner" --help | grep -q "tuner calibrate" ||
  { echo "FAIL: tuner --help does not name calibrate"; fail=1; }

# no such GPU: without a driver "no NVIDIA driver", with one "no GPU 1023"
expect 3 "no NVIDIA driver\|no GPU 1023" --device 1023 --output "$tmp/p.json"
[ -e "$tmp/p.json" ] && { echo "FAIL: a profile written without a GPU"; fail=1; }
ls "$tmp"/*.tmp.* >/dev/null 2>&1 && { echo "FAIL: temporary left"; fail=1; }

[ $fail -eq 0 ] && echo "ok: calibrate's arguments"
exit $fail
