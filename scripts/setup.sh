#!/usr/bin/env bash
# Installs what the tuner needs (Debian/Ubuntu packages), builds it, and runs
# the main job: tuning configs/transpose.cfg on GPU 0, or, on a machine
# without a GPU, the dry run for the default architecture (it says so).
# Needs the CUDA toolkit (NVRTC) already installed, as NVIDIA ships it.
set -euo pipefail
cd "$(dirname "$0")/.."

packages="cmake pkg-config gcc libconfig-dev libjansson-dev libxxhash-dev
  libsodium-dev help2man"
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  echo "setup: installing$missing"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq $missing
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"

if nvidia-smi -L >/dev/null 2>&1; then
  echo "setup: tuning configs/transpose.cfg on GPU 0"
  ./build/tuner --config configs/transpose.cfg --device 0
else
  echo "setup: no GPU here: dry run of configs/transpose.cfg for the default" \
       "architecture (model, limits and NVRTC compiles; nothing is timed)"
  ./build/tuner --config configs/transpose.cfg --dry-run
fi
