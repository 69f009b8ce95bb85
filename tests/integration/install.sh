#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, and the installed tuner at work
# from there: its version, and the dry run of the installed transpose
# config, whose "../templates/..." names the installed template.
# Usage: install.sh CMAKE BUILD_DIR VERSION HELP2MAN
set -u
cmake=$1
build=$2
version=$3
help2man=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix
fail=0
if ! "$cmake" --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1; then
  echo "FAIL: cmake --install: $(cat "$tmp/install.log")"
  exit 1
fi
files="bin/tuner share/tuner/templates/transpose.cu
  share/tuner/templates/gemm.cu share/tuner/templates/smem_layout.h
  share/tuner/configs/transpose.cfg share/tuner/configs/gemm.cfg
  share/doc/tuner/README.md share/doc/tuner/docs/config.md
  share/doc/tuner/docs/fleet.md share/doc/tuner/docs/results.md"
[ -n "$help2man" ] && files="$files share/man/man1/tuner.1"
for f in $files; do
  [ -s "$p/$f" ] || { echo "FAIL: not installed: $f"; fail=1; }
done
[ -x "$p/bin/tuner" ] || { echo "FAIL: bin/tuner is not executable"; exit 1; }

out=$("$p/bin/tuner" --version 2>&1)
[ "$out" = "tuner $version" ] ||
  { echo "FAIL: installed --version: '$out'"; fail=1; }

# from another folder, so that nothing is found by chance in the build's
cd "$tmp" || exit 1
"$p/bin/tuner" --config "$p/share/tuner/configs/transpose.cfg" --dry-run \
  --arch sm_90 -q --cache-dir "$tmp/cache" >"$tmp/dry.out" 2>"$tmp/dry.err"
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: installed dry run: exit $rc: $(cat "$tmp/dry.err")"; fail=1
elif ! grep -q ' compiled ' "$tmp/dry.out" ||
     grep -qE ' (compile_error|failed) ' "$tmp/dry.out"; then
  echo "FAIL: installed dry run: no compiled candidate, or a compile error"
  fail=1
fi
[ -e "$tmp/results" ] && { echo "FAIL: the dry run wrote results/"; fail=1; }
[ $fail -eq 0 ] && echo "install: $(tail -1 "$tmp/dry.err")"
exit $fail
