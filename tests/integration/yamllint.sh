#!/usr/bin/env bash
# The k8s manifests (scripts/k8s/*.yaml) pass yamllint in strict mode with
# the project's .yamllint.  Skips (77) without yamllint, but fails in CI (CI
# set), which installs it.
# Usage: yamllint.sh SOURCE_DIR
set -u
src=$1
if ! command -v yamllint >/dev/null 2>&1; then
  echo "SKIP: yamllint is not installed (scripts/setup.sh installs it)"
  [ -n "${CI:-}" ] && exit 1
  exit 77
fi
shopt -s nullglob
files=("$src"/scripts/k8s/*.yaml "$src"/scripts/k8s/*.yml)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no manifests in scripts/k8s"; exit 1; }
cd "$src" && yamllint -s "${files[@]}"
