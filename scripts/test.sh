#!/usr/bin/env bash
# Builds (if needed) and runs the tests with CTest.  Every test has a label
# (tests/CMakeLists.txt): cpu, nvrtc, slurm or gpu; the ones labelled gpu
# run only where `nvidia-smi` sees a GPU.  TUNER_TEST_EXCLUDE names more
# labels to leave out (e.g. "nvrtc-compile"; several: "a|b").  Extra
# arguments go to ctest (e.g. -R model, -L cpu).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
build=${TUNER_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=${TUNER_BUILD_TYPE:-Release} \
  -DTUNER_WERROR=ON ${TUNER_CMAKE_ARGS:-}
cmake --build "$build" -j"$(nproc)"
exclude=${TUNER_TEST_EXCLUDE:-}
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test: no GPU: skipping the tests labelled gpu"
  exclude=gpu${exclude:+|$exclude}
fi
labels=()
if [ -n "$exclude" ]; then
  labels=(-LE "^($exclude)\$")
fi
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "${labels[@]}" "$@"
