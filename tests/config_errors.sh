#!/usr/bin/env bash
# Every broken config stops the run before any work with "FILE:LINE: what",
# exit status 2, and writes nothing.  Each tests/configs/bad-*.cfg says on
# its first line what to expect: "# expect: LINE: text in the message".
set -u
tuner=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for cfg in "$dir"/bad-*.cfg; do
  n=$((n + 1))
  expect=$(head -1 "$cfg" | sed -n 's/^# expect: //p')
  line=${expect%%:*}
  text=${expect#*: }
  for mode in run dry; do
    out="$tmp/out-$mode"
    if [ $mode = dry ]; then
      msg=$("$tuner" --config "$cfg" --dry-run --arch sm_80 --no-cache \
            --output "$out" 2>&1 >/dev/null)
    else
      msg=$("$tuner" --config "$cfg" --no-cache --output "$out" 2>&1 >/dev/null)
    fi
    rc=$?
    if [ $rc -ne 2 ]; then
      echo "FAIL $cfg ($mode): exit $rc, expected 2: $msg"; fail=1; continue
    fi
    case "$msg" in
      "tuner: $cfg:$line: "*"$text"*) ;;
      *) echo "FAIL $cfg ($mode): got '$msg', expected '$cfg:$line: ...$text...'"
         fail=1 ;;
    esac
    if [ -e "$out" ]; then
      echo "FAIL $cfg ($mode): wrote $out"; fail=1
    fi
  done
done
# a config that is not there
msg=$("$tuner" --config "$tmp/none.cfg" --dry-run 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 2 ] || [[ "$msg" != *"none.cfg: cannot read"* ]]; then
  echo "FAIL missing file: exit $rc: $msg"; fail=1
fi
# bad options
for args in "--device x" "--jobs 0" "--repetitions -3" "--bogus" \
            "--config $dir/../../configs/transpose.cfg extra" \
            "--config $dir/../../configs/transpose.cfg --dry-run --arch sm_99"; do
  # shellcheck disable=SC2086
  "$tuner" $args >/dev/null 2>&1
  rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL options '$args': exit $rc"; fail=1; fi
done
[ $fail -eq 0 ] && echo "ok: $n broken configs and the bad options give file:line and exit 2"
exit $fail
