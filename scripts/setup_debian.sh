#!/usr/bin/env bash
# Installs warpmatch's build and test dependencies from Debian 12 packages (idempotent).
# The CUDA toolkit is optional and not installed here: with nvcc on PATH (or in
# /usr/local/cuda/bin) the build includes the CUDA backend, without it the CPU build is made.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libcli11-dev libfmt-dev nlohmann-json3-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # test oracles, benchmark peers and real data
  ripgrep bowtie2-examples wamerican libedlib-dev libhyperscan-dev libdivsufsort-dev
  libdeflate-dev libisal-dev libzstd-dev
  seqkit tabix zstd
  time  # /usr/bin/time: the CLI tests' peak-memory measurements
  # fuzzing (scripts/fuzz.sh): clang with libFuzzer
  clang libclang-rt-14-dev
  # the Python package (built in a venv: Debian's system Python is externally managed)
  python3-dev python3-venv
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
