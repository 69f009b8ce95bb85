#!/usr/bin/env bash
# The compile cache on a shared host (issue 31, part 3): the default
# folder is the user's own, made mode 0700, never a folder that every user
# shares; a folder that another user owns or that others can write is
# refused (exit 2, before any work: no GPU worker started, nothing
# written) unless it has a key (--cache-key): then every entry carries an
# HMAC-SHA256 by the key, and an entry planted by whoever can write the
# folder without the key fails authentication, is said so and compiled
# again.  The cases that need another user's files need root (chown);
# elsewhere they are said to be left out.
set -u
tuner=$1
fake=$2
check=$3
src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1  # a relative HOME below must not land elsewhere
fail=0
small=$src/tests/fixtures/configs/fleet-small.cfg
fakecfg=$src/tests/fixtures/configs/cpu-fake.cfg
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

# 4. a shared (group-writable) cache with a key
shared=$tmp/shared
mkdir -m 2775 "$shared"
head -c 32 /dev/urandom >"$tmp/key" && chmod 600 "$tmp/key"
keyed() { # NAME [OPTIONS...]: a prediction on the shared cache
  local name=$1
  shift
  "$tuner" --config "$small" --predict --arch sm_80 -q -o "$tmp/out-$name" \
    --cache-dir "$shared" "$@" >"$tmp/$name.out" 2>&1
}
keyed k1 --cache-key "$tmp/key" ||
  { echo "FAIL 4: the keyed run: $(cat "$tmp/k1.out")"; fail=1; }
n=$(find "$shared" -name '*.tnc' | wc -l)
"$check" "$shared" "$tmp/key" >"$tmp/check.out" ||
  { echo "FAIL 4: entries without a MAC by the key:"; cat "$tmp/check.out"
    fail=1; }
[ "$n" -gt 0 ] && echo "ok 4: a shared cache with a key: $n entries, each" \
  "with a MAC that verifies"
# whoever can write the folder but lacks the key: entries with good
# checksums (made by a run of their own) put over every one of ours
"$tuner" --config "$small" --predict --arch sm_80 -q -o "$tmp/out-evil" \
  --cache-dir "$tmp/evil" >/dev/null 2>&1 || { echo "FAIL 4: evil"; fail=1; }
cp "$tmp"/evil/*.tnc "$shared"/
"$check" "$shared" >/dev/null ||
  { echo "FAIL 4: the planted entries' checksums are not good"; fail=1; }
keyed k2 --cache-key "$tmp/key" ||
  { echo "FAIL 4: the run after the planting"; fail=1; }
bad=$(grep -c "compile cache entry .* fails authentication" "$tmp/k2.out")
grep -q "$n compiled (0 from the cache" "$tmp/k2.out" && [ "$bad" -eq "$n" ] ||
  { echo "FAIL 4: $bad of $n planted entries said, or served:"
    cat "$tmp/k2.out"; fail=1; }
[ $fail -eq 0 ] && echo "ok 4: $bad planted entries failed authentication" \
  "and were compiled again"
# rewritten with MACs: the next run (the key from the environment) is
# served from the cache, without a note
TUNER_CACHE_KEY=$tmp/key keyed k3 ||
  { echo "FAIL 4: the third run"; fail=1; }
grep -q "$n compiled ($n from the cache" "$tmp/k3.out" &&
  ! grep -q "compile cache entry" "$tmp/k3.out" ||
  { echo "FAIL 4: not served from the cache:"; cat "$tmp/k3.out"; fail=1; }
# key files that cannot serve, and no key: refused before any work
keyed nokey && { echo "FAIL 4: a shared cache without a key"; fail=1; }
grep -q "is shared: its group can write it" "$tmp/nokey.out" ||
  { echo "FAIL 4: $(cat "$tmp/nokey.out")"; fail=1; }
chmod 604 "$tmp/key"
keyed readable --cache-key "$tmp/key"
[ $? -eq 2 ] && grep -q "every user can read it" "$tmp/readable.out" ||
  { echo "FAIL 4: a key every user can read: $(cat "$tmp/readable.out")"
    fail=1; }
head -c 16 /dev/urandom >"$tmp/short" && chmod 600 "$tmp/short"
keyed short --cache-key "$tmp/short"
[ $? -eq 2 ] && grep -q "16 bytes" "$tmp/short.out" ||
  { echo "FAIL 4: a short key: $(cat "$tmp/short.out")"; fail=1; }
keyed missing --cache-key "$tmp/nothing"
[ $? -eq 2 ] && grep -q "No such file" "$tmp/missing.out" ||
  { echo "FAIL 4: no key file: $(cat "$tmp/missing.out")"; fail=1; }
exit $fail
