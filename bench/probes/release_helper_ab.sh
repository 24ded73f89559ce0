#!/usr/bin/env bash
# The release helper (cli/process_end.hpp) against ending with the GPU context held
# (WARPMATCH_GPU_RELEASE=inline), on the GPU machine, from the repository root with .device/:
#   bash bench/probes/release_helper_ab.sh TEXT PATTERN_FILE [ROUNDS]
# (e.g. e2e's kept text.txt and words.txt). Two ways, each ROUNDS times, interleaved:
#   apart        one `find -c -f` at a time, 1 s between runs: a user's single command,
#                wall = spawn to reaped with its output read to the end (probe_lib's timed)
#   back-to-back 5 runs one after the other (a script's loop): ms per run, where the next run's
#                CUDA start-up may meet the previous run's release
# Every run's counts must agree (the totals are printed).
set -euo pipefail
source bench/probes/probe_lib.sh
text=$1 patterns=$2 rounds=${3:-3}
loop() {  # ms per run of 5 back-to-back runs
  local s e
  s=$(date +%s%N)
  for _ in 1 2 3 4 5; do "$@" >/dev/null; done
  e=$(date +%s%N)
  echo "$(((e - s) / 5000000)) ms per run"
}
for ((r = 1; r <= rounds; ++r)); do
  for mode in helper inline; do
    sleep 1
    if [[ $mode == inline ]]; then export WARPMATCH_GPU_RELEASE=inline; else unset WARPMATCH_GPU_RELEASE; fi
    echo -n "round $r $mode apart: "; timed "$D/warpmatch" find -c -f "$patterns" "$text" | sed 's/  */ /g'
    for b in auto cuda; do
      sleep 1
      echo -n "round $r $mode back-to-back --backend $b: "; loop "$D/warpmatch" find -c -f "$patterns" "$text" --backend "$b"
    done
  done
done
unset WARPMATCH_GPU_RELEASE
