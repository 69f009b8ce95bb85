#!/usr/bin/env bash
# Every broken config stops the run before any work with "FILE:LINE: what",
# exit status 2, and writes nothing.  Each tests/fixtures/configs/bad-*.cfg
# says on its first line what to expect: "# expect: LINE: text in the
# message"; a second line "# expect-file: NAME" says the error is in NAME
# (a file it includes, relative to tests/fixtures/configs/) rather than in
# the config itself.
# The runs start in an empty working folder: an @include or a template is
# found from the folder of the file that names it, never from the working
# one.
set -u
tuner=$1
dir=$2
case "$tuner" in /*) ;; *) tuner=$PWD/$tuner ;; esac
case "$dir" in /*) ;; *) dir=$PWD/$dir ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cwd"
cd "$tmp/cwd" || exit 1
fail=0
n=0
for cfg in "$dir"/bad-*.cfg; do
  n=$((n + 1))
  expect=$(head -1 "$cfg" | sed -n 's/^# expect: //p')
  line=${expect%%:*}
  text=${expect#*: }
  file=$(sed -n '2s/^# expect-file: //p' "$cfg")
  file=${file:+$dir/$file}
  file=${file:-$cfg}
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
      "tuner: $file:$line: "*"$text"*) ;;
      *) echo "FAIL $cfg ($mode): got '$msg'," \
              "expected '$file:$line: ...$text...'"
         fail=1 ;;
    esac
    if [ -e "$out" ] || [ -n "$(ls -A "$tmp/cwd")" ]; then
      echo "FAIL $cfg ($mode): wrote $out or into the working folder"; fail=1
    fi
  done
done
# an error that every architecture gives alike (a plan's lane outside its
# array) is the config's: the run, for no architecture named, does not
# blame the architectures for it
msg=$("$tuner" --config "$dir/bad-user-plan-outside.cfg" --no-cache \
      --output "$tmp/out-arch" 2>&1 >/dev/null)
case "$msg" in
  *"no architecture"*) echo "FAIL plan outside blames the architectures: $msg"
                       fail=1 ;;
esac
msg=$("$tuner" --config "$dir/bad-limits-every-arch.cfg" --no-cache \
      --output "$tmp/out-arch" 2>&1 >/dev/null)
case "$msg" in
  *"no architecture the tuner knows can run any point"*) ;;
  *) echo "FAIL limits of every architecture not said: $msg"; fail=1 ;;
esac
# a config that is not there
msg=$("$tuner" --config "$tmp/none.cfg" --dry-run 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 2 ] || [[ "$msg" != *"none.cfg: cannot read"* ]]; then
  echo "FAIL missing file: exit $rc: $msg"; fail=1
fi
# bad options
for args in "--device x" "--jobs 0" "--repetitions -3" "--bogus" \
            "--config $dir/../../../configs/transpose.cfg extra" \
            "--config $dir/../../../configs/transpose.cfg --dry-run \
             --arch sm_99"; do
  # shellcheck disable=SC2086
  "$tuner" $args >/dev/null 2>&1
  rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL options '$args': exit $rc"; fail=1; fi
done
[ $fail -eq 0 ] && echo "ok: $n broken configs and the bad options give file:line and exit 2"
exit $fail
