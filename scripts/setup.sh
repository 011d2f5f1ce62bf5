#!/usr/bin/env bash
# Installs the Debian packages Kuota needs to build, test and benchmark
# (clang 14, lld and libFuzzer for the CI build and the fuzz targets).
# Idempotent: runs apt-get only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build g++ pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev libcpp-httplib-dev sqlite3 libssl-dev libjemalloc-dev
  python3 python3-yaml curl chromium
  clang-14 llvm-14 lld-14 libfuzzer-14-dev
  gnuplot-nox prometheus
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all build dependencies present"
