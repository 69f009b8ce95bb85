#!/usr/bin/env bash
# `tuner --version` and the subcommands' --version print "tuner VERSION",
# VERSION being project()'s in CMakeLists.txt (passed by CMake), and exit 0.
# Usage: version.sh TUNER VERSION
set -u
tuner=$1
version=$2
fail=0
for sub in "" merge conflicts; do
  out=$("$tuner" $sub --version 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || [ "$out" != "tuner $version" ]; then
    echo "FAIL: tuner ${sub:+$sub }--version: exit $rc, '$out'," \
         "expected 'tuner $version'"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "version: tuner $version"
exit $fail
