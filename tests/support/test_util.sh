# The steps the shell tests (tests/integration, tests/gpu) took in the same
# words, sourced by them:
#   . "$(dirname "$0")/../support/test_util.sh"
# Each is a small function that sets or prints what its comment says; what
# a test does differently stays written out in that test.
# They read the test's tuner and src and set tmp, fail and out for it,
# which shellcheck cannot see from this file alone.
# shellcheck shell=bash disable=SC2034,SC2154

# Sets tmp, a fresh folder removed when the test exits, and fail=0, which
# each check sets to 1 and the test exits with.
test_start() {
  tmp=$(mktemp -d) || exit 1
  trap 'rm -rf "$tmp"' EXIT
  fail=0
}

# Prints PATH made absolute, so that it still names the file after a cd.
absolute() { # PATH
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}

# Waits until the scripted worker has started N candidate jobs, as its
# FAKE_WORKER_LOG says, at most 60 s; fails when it has not.
wait_jobs() { # N LOG
  local n
  for _ in $(seq 600); do  # a wait for an event, bounded; not a timer
    n=$(grep -c '^candidate' "$2" 2>/dev/null)
    [ "${n:-0}" -ge "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

# Tunes CONFIG with racing and again with --full-protocol, into
# $tmp/race and $tmp/full (their stdout and stderr beside them as .out and
# .err), so that the two can be compared; a run that fails sets fail=1.
race_and_full() { # CONFIG
  local mode flag
  for mode in race full; do
    flag=""
    [ $mode = full ] && flag=--full-protocol
    "$tuner" --config "$1" --no-prune --cache-dir "$tmp/cache" -q $flag \
      --output "$tmp/$mode" >"$tmp/$mode.out" 2>"$tmp/$mode.err" ||
      { echo "FAIL $mode: exit $?"; cat "$tmp/$mode.err"; fail=1; }
  done
}

# Writes FILE, a config of two points of the transposes' threads' path
# (pad 0 and 1), quick to time with the scripted worker; its problem
# stands on line 4, which the tests' expected messages name.
transpose_config() { # FILE NAME FAMILY SIZES ELEM
  cat >"$1" <<CFG
name = "$2";
family = "$3";
template = "$src/templates/transpose.cu";
problem = { sizes = ( $4 ); elem = "$5"; };
space = { tile = [32]; rows_per_thread = [4]; vec = [2]; pad = [0, 1]; };
bench = { repetitions = 5; warmup = 1; timeout_s = 5.0; seed = 7; };
CFG
}

# Tunes CONFIG whole on GPU 0 into $tmp/NAME (NAME: CONFIG's name less
# .cfg), which it sets as out, the table in $out.table and stderr in
# $out.err; shows stderr's last lines, and on a failed run says so and
# fails.
gpu_tune() { # CONFIG
  local rc
  out="$tmp/$(basename "$1" .cfg)"
  "$tuner" --config "$1" --device 0 --no-prune --no-cache -q \
    --output "$out" >"$out.table" 2>"$out.err"
  rc=$?
  tail -3 "$out.err"
  [ $rc -eq 0 ] || { echo "FAIL $1: exit $rc"; cat "$out.table"; return 1; }
}
