#!/usr/bin/env bash
# Builds (if needed) and runs the tests with CTest.  Tests that need a GPU
# carry the label `gpu` and run only where `nvidia-smi` sees one.
# Extra arguments go to ctest (e.g. -R model).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
build=${TUNER_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=${TUNER_BUILD_TYPE:-Release} \
  -DTUNER_WERROR=ON ${TUNER_CMAKE_ARGS:-}
cmake --build "$build" -j"$(nproc)"
if nvidia-smi -L >/dev/null 2>&1; then
  labels=()
else
  echo "test: no GPU: skipping the tests labelled gpu"
  labels=(-LE gpu)
fi
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "${labels[@]}" "$@"
