#!/usr/bin/env bash
# Builds (if needed) and runs the tests with CTest (tests/README.md).
#   scripts/test.sh [--all] [CTEST_ARGS...]
# The default set: the tests labelled cpu and nvrtc but the exhaustive
# compiles (nvrtc-compile), and those labelled gpu where nvidia-smi sees a
# GPU; beyond the CUDA toolkit they need what scripts/setup.sh installs.
# --all: every test (gpu ones only with a GPU), after installing what the
# heavy ones need (scripts/deps.sh heavy: Slurm, Chromium, Java, the Nu
# HTML checker).  CTEST_ARGS go to ctest: with -R NAME or -L LABEL they
# choose from every test (gpu ones only with a GPU), e.g.
# `scripts/test.sh -L nvrtc-compile`.  The last line counts the tests that
# did not run, and why.
# Environment: TUNER_BUILD_DIR (build), TUNER_BUILD_TYPE (Release),
# TUNER_CMAKE_ARGS (more cmake arguments), TUNER_TEST_EXCLUDE (more labels
# to leave out, "a|b").
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [ "${1:-}" = --all ]; then
  all=1
  shift
  scripts/deps.sh heavy
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
build=${TUNER_BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${TUNER_BUILD_TYPE:-Release}" \
  -DTUNER_WERROR=ON ${TUNER_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"

exclude=${TUNER_TEST_EXCLUDE:-}
chosen=0
for a in "$@"; do
  case $a in -R | -L | --tests-regex | --label-regex) chosen=1 ;; esac
done
if [ $all -eq 0 ] && [ $chosen -eq 0 ]; then
  exclude="nvrtc-compile|browser|slurm${exclude:+|$exclude}"
fi
gpu=1
if ! nvidia-smi -L >/dev/null 2>&1; then
  gpu=0
  exclude="gpu${exclude:+|$exclude}"
fi
labels=()
[ -n "$exclude" ] && labels=(-LE "^($exclude)\$")
case $build in
/*) junit=$build/Testing/test-results.xml ;;
*) junit=$PWD/$build/Testing/test-results.xml ;;
esac
rm -f "$junit"
rc=0
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" \
  --output-junit "$junit" "${labels[@]}" "$@" || rc=$?
python3 scripts/test_summary.py "$build" "$junit" "$exclude" "$gpu" "$all" ||
  rc=1
exit $rc
