#!/usr/bin/env bash
# Installs what the tuner and its default tests need (scripts/deps.sh
# base: Debian/Ubuntu packages, and nvdisasm from PyPI), builds it, and
# runs the main job: tuning configs/transpose.cfg on GPU 0, or, on a
# machine without a GPU, the dry run for the default architecture (it says
# so).  Needs the CUDA toolkit (NVRTC) already installed, as NVIDIA ships
# it.  Then scripts/test.sh runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh base
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# the same configuration scripts/test.sh builds, so that it builds nothing
# again
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTUNER_WERROR=ON
cmake --build build -j"$(nproc)"

if nvidia-smi -L >/dev/null 2>&1; then
  echo "setup: tuning configs/transpose.cfg on GPU 0"
  ./build/tuner --config configs/transpose.cfg --device 0
else
  echo "setup: no GPU here: dry run of configs/transpose.cfg for the default" \
       "architecture (model, limits and NVRTC compiles; nothing is timed)"
  ./build/tuner --config configs/transpose.cfg --dry-run
fi
