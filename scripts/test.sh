#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine (as root): installs dependencies,
# builds, runs every test with CTest, then builds the Python package and runs its pytest
# suite (scripts/test_python.sh). GPU tests skip with a message when no GPU is visible.
# Then (issue 16) the CPU suite again under ASan + UBSan (the `debug` preset: clang, one build
# for the suite and the libFuzzer targets) and each libFuzzer target for a short fixed time
# (scripts/fuzz.sh, which finds them built); WARPMATCH_SANITIZE=0 skips both,
# WARPMATCH_FUZZ_SECONDS sets the fuzzing time per target (default 30; fuzz_kernels 15,
# WARPMATCH_FUZZ_KERNELS_SECONDS).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_debian.sh
preset="${WARPMATCH_PRESET:-default}"
start=$SECONDS
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)" "$@"
echo "test.sh: $preset build and tests took $((SECONDS - start)) s"
start=$SECONDS
bash scripts/test_python.sh
echo "test.sh: Python package and tests took $((SECONDS - start)) s"
if [ "${WARPMATCH_SANITIZE:-1}" != 0 ]; then
  start=$SECONDS
  cmake --preset debug > /dev/null
  cmake --build --preset debug -j "$(nproc)"
  # ASan's allocator reserves much more virtual memory; leaks are errors.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset debug -j "$(nproc)" "$@"
  echo "test.sh: ASan + UBSan build and tests took $((SECONDS - start)) s"
  start=$SECONDS
  WARPMATCH_FUZZ_KERNELS_SECONDS="${WARPMATCH_FUZZ_KERNELS_SECONDS:-15}" bash scripts/fuzz.sh "${WARPMATCH_FUZZ_SECONDS:-30}"
  echo "test.sh: fuzzing took $((SECONDS - start)) s"
fi
