#!/usr/bin/env bash
# The Python package: builds it with `pip install .` into a virtual environment (build/pyenv;
# Debian 12's system Python is externally managed) and runs its pytest suite (python/tests).
# CPU-only by default so CI stays fast; WARPMATCH_CUDA=AUTO (or ON) compiles the CUDA backend
# in when nvcc is present. GPU tests skip, with their reason printed, without a GPU.
# Usage: scripts/test_python.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${WARPMATCH_VENV:-build/pyenv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "nanobind>=2.0" numpy pytest edlib pyahocorasick \
  "dask[dataframe]>=2023.1" "distributed>=2023.1" "pandas>=1.5"
export WARPMATCH_CUDA="${WARPMATCH_CUDA:-OFF}"
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
# The build reuses build/wheel/<tag> between runs; -j follows the machine.
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
  "$py" -m pip install -q --disable-pip-version-check --no-build-isolation .
# Run from python/tests' parent so the installed package (not python/warpmatch) is imported.
"$py" -m pytest -q -rs -p no:cacheprovider python/tests "$@"
