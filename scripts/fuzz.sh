#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/fuzz_*.cpp) for SECONDS each (default 60) from its seed
# corpus in fuzz/corpus/<target>, after building them in the `debug` tree (clang, ASan +
# UBSan). New inputs go to build/debug/corpus/<target> (the seeds in the repository stay
# small); a crash or a disagreement with the reference stops the run with its input saved as
# build/debug/crash-* — turn it into a named regression test (tests/test_fuzz_regressions.cpp).
# WARPMATCH_FUZZ_KERNELS_SECONDS sets fuzz_kernels' time apart (default SECONDS): CI gives it
# less, its build (the kernels under the host emulation) being the heaviest.
#   scripts/fuzz.sh 600        ten minutes per target
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake --preset debug > /dev/null
cmake --build --preset fuzz -j "$(nproc)"
status=0
for target in input ops cli kernels; do
  work="build/debug/corpus/$target"
  mkdir -p "$work"
  target_seconds="$seconds"
  if [ "$target" = kernels ]; then target_seconds="${WARPMATCH_FUZZ_KERNELS_SECONDS:-$seconds}"; fi
  echo "fuzz: $target for ${target_seconds}s"
  # The target's own status decides (a crash, a leak, a timeout or a disagreement): read as
  # `if ! target | grep` and then ${PIPESTATUS[0]}, it was the status of the `if`, and a crash
  # found in CI passed unnoticed (fifteenth session).
  log="build/debug/$target.log"
  if "build/debug/fuzz_$target" -max_total_time="$target_seconds" -max_len=4096 -timeout=20 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix=build/debug/ "$work" "fuzz/corpus/$target" > "$log" 2>&1; then
    target_status=0
  else
    target_status=$?
  fi
  grep -E "^(#[0-9]+[[:space:]]+DONE|Done|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|fuzz_|SUMMARY|artifact_prefix|Test unit written)" "$log" || true
  if [ "$target_status" -ne 0 ]; then
    echo "fuzz: $target FAILED (status $target_status; see $log and build/debug/crash-* or leak-*/timeout-*)"
    status=1
  fi
done
exit "$status"
