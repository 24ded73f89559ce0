#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine (as root): installs dependencies,
# builds, runs every test with CTest, then builds the Python package and runs its pytest
# suite (scripts/test_python.sh). GPU tests skip with a message when no GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_debian.sh
preset="${WARPMATCH_PRESET:-default}"
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)" "$@"
bash scripts/test_python.sh
