#!/usr/bin/env bash
# The compile cache on a shared host (issue 31, part 3): the default
# folder is the user's own, made mode 0700, never a folder that every user
# shares; a folder that another user owns or that others can write is
# refused (exit 2, before any work: no GPU worker started, nothing
# written).  The cases that need another user's files need root (chown);
# elsewhere they are said to be left out.
set -u
tuner=$1
fake=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1  # a relative HOME below must not land elsewhere
fail=0
small=$src/tests/fleet/small.cfg
fakecfg=$src/tests/configs/cpu-fake.cfg
me=$(id -u)
root=0
[ "$me" -eq 0 ] && root=1

# 1. no HOME, no XDG_CACHE_HOME: the cache is $TMPDIR/tuner-<uid>, 0700
env -u HOME -u XDG_CACHE_HOME -u TUNER_CACHE_DIR TMPDIR="$tmp" \
  "$tuner" --config "$small" --predict --arch sm_80 -q -o "$tmp/out1" \
  >"$tmp/1.out" 2>&1 || { echo "FAIL 1: the run"; cat "$tmp/1.out"; fail=1; }
dir=$tmp/tuner-$me
if [ ! -d "$dir" ]; then
  echo "FAIL 1: no cache in $dir:"; find "$tmp" -name '*.tnc' | head -3
  fail=1
else
  mode=$(stat -c %a "$dir")
  owner=$(stat -c %u "$dir")
  n=$(find "$dir" -name '*.tnc' | wc -l)
  [ "$mode" = 700 ] && [ "$owner" = "$me" ] && [ "$n" -gt 0 ] ||
    { echo "FAIL 1: $dir mode $mode owner $owner, $n entries"; fail=1; }
  [ -e "$tmp/.cache" ] && { echo "FAIL 1: a cache under $tmp/.cache"; fail=1; }
  [ $fail -eq 0 ] && echo "ok 1: without HOME the cache is $dir, mode 700"
fi
# a relative HOME is not a place: the same folder
rm -rf "$dir"
env -u XDG_CACHE_HOME -u TUNER_CACHE_DIR HOME=relative TMPDIR="$tmp" \
  "$tuner" --config "$small" --predict --arch sm_80 -q -o "$tmp/out1b" \
  >"$tmp/1b.out" 2>&1 ||
  { echo "FAIL 1b: the run"; cat "$tmp/1b.out"; fail=1; }
[ -d "$dir" ] && [ ! -e "$tmp/relative" ] ||
  { echo "FAIL 1b: a relative HOME was used"; fail=1; }

# 2. refused: exit 2 naming why, the GPU worker never started, no output
refused() { # NAME WHY-PATTERN CACHE-DIR [ENV...]
  local name=$1 why=$2 cache=$3
  shift 3
  rm -f "$tmp/jobs.log"
  env "$@" TUNER_WORKER="$fake" FAKE_WORKER_LOG="$tmp/jobs.log" \
    "$tuner" --config "$fakecfg" -q --no-prune -o "$tmp/out-$name" \
    ${cache:+--cache-dir "$cache"} >"$tmp/$name.out" 2>&1
  local rc=$?
  if [ $rc -ne 2 ] || ! grep -q "compile cache .*$why" "$tmp/$name.out" ||
     [ -e "$tmp/jobs.log" ] || [ -e "$tmp/out-$name" ]; then
    echo "FAIL 2 $name: exit $rc, $(head -n 2 "$tmp/$name.out")"
    [ -e "$tmp/jobs.log" ] && echo "  the GPU worker ran"
    [ -e "$tmp/out-$name" ] && echo "  $tmp/out-$name written"
    fail=1
  else
    echo "ok 2 $name: refused: $(grep -o 'is shared: [^;]*' "$tmp/$name.out")"
  fi
}
mkdir -m 0775 "$tmp/group"
refused group "its group can write it" "$tmp/group"
mkdir "$tmp/world" && chmod 1777 "$tmp/world"
refused world "every user can write it" "$tmp/world"
mkdir -m 0700 "$tmp/own"
if [ $root -eq 1 ]; then
  mkdir -m 0700 "$tmp/theirs" && chown 65534 "$tmp/theirs"
  refused theirs "user 65534 owns it" "$tmp/theirs"
  ln -s "$tmp/own" "$tmp/their-link" && chown -h 65534 "$tmp/their-link"
  refused their-link "a link that user 65534 owns" "$tmp/their-link"
  # the default place itself, made first by another user
  mkdir -m 0700 "$tmp/t2" && mkdir -m 0700 "$tmp/t2/tuner-$me" &&
    chown 65534 "$tmp/t2/tuner-$me"
  refused default "user 65534 owns it" "" -u HOME -u XDG_CACHE_HOME \
    -u TUNER_CACHE_DIR TMPDIR="$tmp/t2"
else
  echo "note: not root: another user's folder and link left out"
fi

# 3. a folder of one's own, and one a link of one's own names: used
for c in own own-link; do
  [ $c = own-link ] && ln -s "$tmp/own" "$tmp/own-link"
  TUNER_WORKER="$fake" "$tuner" --config "$fakecfg" -q --no-prune \
    -o "$tmp/out-$c" --cache-dir "$tmp/$c" >"$tmp/$c.out" 2>&1 ||
    { echo "FAIL 3 $c: $(cat "$tmp/$c.out")"; fail=1; }
done
n=$(find "$tmp/own" -name '*.tnc' | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL 3: nothing cached in $tmp/own"; fail=1; }
exit $fail
