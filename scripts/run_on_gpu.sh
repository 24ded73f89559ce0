#!/usr/bin/env bash
# Runs ON the lent GPU machine, from the repository root, with .device/ carried
# (scripts/build_for_gpu.sh makes it here). Through the device tool:
#
#   run(command="bash scripts/run_on_gpu.sh all", carry=[".device"], timeout_s=600)
#
# Usage: scripts/run_on_gpu.sh [STEP...] [-- EXTRA BENCH ARGS...]
#   STEP: info    nvidia-smi, OS, `warpmatch info`                    -> $OUT/info.log
#         tests   the whole GoogleTest binary (GPU tests included)       -> $OUT/tests.log
#         find    `warpmatch-bench find` (1 GiB text, ripgrep peer)      -> $OUT/bench_find.{log,json}
#         bench   every benchmark of warpmatch-bench (WM_BENCHES, default: find multi approx
#                 approx-sets distance lcs), tables appended to $OUT/bench.log, JSON to $OUT/bench_<op>.json
#         e2e     `warpmatch-bench e2e` (the CLI end to end, 8 GiB text + 1 GiB FASTA generated in
#                 $WM_E2E_DIR or /tmp; ripgrep, seqkit, zstd carried) -> $OUT/bench_e2e.{log,json}
#                 Not part of `all`: run it in a call of its own (limit WM_E2E_TIMEOUT, default 540 s;
#                 jobs 1-9 took ~380 s with --repeats 2 on the H200 (2026-11-26) and job 10 (10,000
#                 guides, ~60 s a row) then ran past the limit: run job 10 in a call of its own,
#                 e.g. run(command="bash scripts/run_on_gpu.sh info e2e -- --repeats 2 --rows
#                 word,stdin,words,fasta,gz,bgzf,zst,tiny,pairs,primers,offtarget", ...) and then
#                 `e2e -- --rows guides --repeats 1`
#         inputs  the input layer's profile: warpmatch-bench e2e's FASTA (plain, .gz, BGZF, .zst) and text
#                 generated once (WM_INPUTS_BYTES, default 1G), then `find -c --stats` on each
#                 at -j 16/15/8/1, through stdin too, next to gzip/zstd -dc   -> $OUT/inputs.log
#         feed    the GPU fed from the page cache: one word in an 8 GiB text (WM_FEED_BYTES),
#                 `find -c --stats` with --backend cuda and cpu, twice each; a carried
#                 .device/warpmatch_old.gz (an earlier build) runs too, for a before/after
#                 -> $OUT/feed.log
#         sanitize  (issue 16; first run on the H200 at 635d40a) compute-sanitizer's
#                 memcheck, racecheck, initcheck and synccheck over the GPU tests, a bounded
#                 subset per tool (WM_SANITIZE_FILTER_<TOOL> overrides; WM_SANITIZE_MEMCHECK_ALL=1:
#                 memcheck over every CUDA suite, one run per suite), each run under WM_SANITIZE_TIMEOUT s
#                 (default 120; a run cut by it reports the tests it finished); needs
#                 compute-sanitizer on PATH, in /usr/local/cuda/bin or carried as
#                 .device/compute-sanitizer/  -> $OUT/sanitize.log (ERROR SUMMARY per tool);
#                 WM_SANITIZE_TOOLS="memcheck" (or "racecheck initcheck synccheck") runs some
#         scaling `warpmatch-bench scaling` (issue 17): exact resident and host-fed, 1000 literals,
#                 approx with 1000 guides, 1M pairs on 1, 2, 4, 8 GPUs (as many as the machine has),
#                 the aggregate host-to-device bandwidth; for a kind with several GPUs (nvidia-h100-x2,
#                 -x4, ...); not part of `all`   -> $OUT/bench_scaling.{log,json}
#                 (limit WM_SCALING_TIMEOUT, default 540 s)
#         python  (issue 13) the Python package's pytest suite on the GPU: the cp312 wheel and the
#                 test-only wheels that `scripts/build_for_gpu.sh --python` stages in .device-python/
#                 (carry=[".device-python"]; needs no .device), installed into /tmp/wm-site for the
#                 machine's python3, then pytest -rs (GPU tests must run: the step fails when
#                 warpmatch sees no GPU) under WM_PYTHON_TIMEOUT s (default 400)  -> $OUT/python.log
#         dask    (issue 13) bench/dask_scaling.py: warpmatch.dask on distributed.LocalClusters of
#                 1, 2, 4, 8, 16 workers over a generated WM_DASK_BYTES (default 4G) file, an exact
#                 and an approximate job (its first WM_DASK_APPROX_BYTES, default 1G), next to direct
#                 single-process calls on all cores and on the GPU, then a dask-cuda LocalCUDACluster
#                 smoke run (skipped, saying why, when dask_cuda does not import). The wheels
#                 `scripts/build_for_gpu.sh --python` stages (carry=[".device-python"]; no .device
#                 needed) installed offline into the venv /tmp/wm-dask-venv (system site packages:
#                 the machine's pandas, numpy & co.); limit WM_DASK_TIMEOUT s (default 540; the
#                 benchmark stops starting clusters past 60 % of it)  -> $OUT/dask_scaling.{log,json}
#         pycalls bench/python_calls.py: what a Python user's call costs next to edlib,
#                 pyahocorasick, StringZilla and bytes.count, with backend auto, cuda and cpu in
#                 turn (the wheels as for `python`)  -> $OUT/python_calls.{log,json}
#         all     info tests bench (the default)
#   EXTRA BENCH ARGS go to every benchmark, e.g. `find -- --bytes 256M --repeats 3`.
#   Environment: WM_TESTS_TIMEOUT (s, default 200), WM_TEST_SHARDS (default: cores / 2, 4-8),
#                WM_BENCH_TIMEOUT (s, default 330),
#                GTEST_FILTER (as GoogleTest reads it).
# The device tool returns at most 8 files from $OUT: each step writes at most two.
# Exit status: the worst of the steps' (0 = all passed).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
D="$root/.device"
B="$D/warpmatch-bench"  # the benchmarks; `e2e` times the warpmatch beside it
OUT=${OUT:-/tmp/warpmatch-out}
mkdir -p "$OUT"
tests_timeout=${WM_TESTS_TIMEOUT:-200}
bench_timeout=${WM_BENCH_TIMEOUT:-150}  # per benchmark
e2e_timeout=${WM_E2E_TIMEOUT:-540}

steps=()
extra=()
while (($#)); do
  case "$1" in
    --) shift; extra=("$@"); break ;;
    all) steps+=(info tests bench) ;;
    info|tests|bench|find|e2e|inputs|feed|sanitize|scaling|python|pycalls|dask) steps+=("$1") ;;
    *) echo "run_on_gpu.sh: unknown step '$1' (info, tests, find, bench, e2e, inputs, feed, sanitize, scaling, python, pycalls, dask, all)" >&2; exit 2 ;;
  esac
  shift
done
((${#steps[@]})) || steps=(info tests bench)

# The tests read real data from Debian's paths (bowtie2-examples, wamerican); the GPU machine
# has no such packages, so put the carried copies there (the machine is ephemeral).
bt2=/usr/share/doc/bowtie2/examples
for f in "$D"/data/*.fa.gz; do [[ -e $f ]] && mkdir -p $bt2/reference && cp -n "$f" $bt2/reference/; done
for f in "$D"/data/*.fq.gz; do [[ -e $f ]] && mkdir -p $bt2/reads && cp -n "$f" $bt2/reads/; done
[[ -r $D/words && ! -e /usr/share/dict/words ]] && mkdir -p /usr/share/dict && cp "$D/words" /usr/share/dict/words

# build_for_gpu.sh stages the binaries gzipped (transfer limit).
for z in "$D"/warpmatch.gz "$D"/warpmatch-bench.gz "$D"/warpmatch_tests.gz "$D"/seqkit.gz; do
  [[ -f $z ]] && gzip -dc "$z" >"${z%.gz}"
done
only_python=1
for s in "${steps[@]}"; do [[ $s == python || $s == pycalls || $s == dask ]] || only_python=0; done
if ((!only_python)) && [[ ! -x $D/warpmatch && ! -f $D/warpmatch ]]; then
  echo "run_on_gpu.sh: $D/warpmatch is missing: run scripts/build_for_gpu.sh here first and" \
       "carry .device (carry=[\".device\"])" >&2
  exit 2
fi
chmod +x "$D"/warpmatch "$D"/warpmatch-bench "$D"/warpmatch_tests "$D"/rg "$D"/seqkit "$D"/zstd/zstd "$D"/zstd/run-zstd 2>/dev/null

export PATH="$D:$PATH"
export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export WARPMATCH_CLI="$D/warpmatch"              # CLI tests run this binary
export WARPMATCH_BENCH="$B"                        # and test_bench_e2e this one
export WARPMATCH_TEST_DATA_DIR="$root/tests/data"  # for tests that read fixtures
export GTEST_COLOR=no
commit=$(cat "$D/COMMIT" 2>/dev/null || echo unknown)

declare -a summary
worst=0
record() {  # step rc seconds
  local what
  case $2 in
    0) what=ok ;;
    124|137) what="TIMED OUT (rc $2)" ;;
    *) what="FAILED (rc $2)" ;;
  esac
  summary+=("$(printf '%-6s %-18s %4ss' "$1" "$what" "$3")")
  (($2 > worst)) && worst=$2
}
banner() { printf '\n======== %s ========\n' "$*"; }

step_info() {
  {
    echo "commit: $commit"
    echo "host: $(hostname), $(nproc) CPUs, kernel $(uname -r), $(ldd --version 2>&1 | head -1)"
    grep -m1 'model name' /proc/cpuinfo
    grep MemTotal /proc/meminfo
    echo
    nvidia-smi -L || echo "nvidia-smi -L failed"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
      --format=csv 2>/dev/null
    echo
    "$D/warpmatch" info
  } 2>&1 | tee "$OUT/info.log"
}

# The suite in WM_TEST_SHARDS GoogleTest shards run side by side: one process took 270 s on the
# H100 at bf3e4ba, over the step's limit; shards share the GPU (correctness only). Default: one
# shard per two cores, 4 to 8 (4 shards took 191 s of the 200 s limit on the H200 at 79f592d,
# the slowest tests being CPU work: a kernel's emulation 51 s, windowed streams 45 s).
step_tests() {
  local cores; cores=$(nproc 2>/dev/null || echo 8)
  local default_shards=$((cores / 2)); ((default_shards < 4)) && default_shards=4; ((default_shards > 8)) && default_shards=8
  local shards=${WM_TEST_SHARDS:-$default_shards} i rc=0 r
  echo "running $D/warpmatch_tests in $shards shards (log: $OUT/tests.log, limit ${tests_timeout}s)"
  local pids=()
  for ((i = 0; i < shards; i++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
      timeout --kill-after=10 "$tests_timeout" "$D/warpmatch_tests" >"$OUT/tests.shard$i" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < shards; i++)); do
    wait "${pids[$i]}"; r=$?
    ((r > rc)) && rc=$r
  done
  for ((i = 0; i < shards; i++)); do cat "$OUT/tests.shard$i"; rm -f "$OUT/tests.shard$i"; done >"$OUT/tests.log"
  # the end of GoogleTest's reports: totals, skipped and failed tests (summed over shards)
  awk '/^\[==========\] [0-9]+ tests? from .* ran/ {ran += $2}
       /^\[  PASSED  \] [0-9]+ test/ {passed += $4}
       /^\[  SKIPPED \] [0-9]+ test/ {skipped += $4}
       /^\[  FAILED  \] [0-9]+ test/ {failed += $4}
       END {printf "[==========] %d tests ran in all shards\n[  PASSED  ] %d tests.\n[  SKIPPED ] %d tests\n[  FAILED  ] %d tests\n", ran, passed, skipped, failed}' "$OUT/tests.log"
  grep -E '^\[  (SKIPPED|FAILED)  ?\] [A-Z]' "$OUT/tests.log" | awk '!seen[$0]++' | head -40
  if grep -q ': Failure$' "$OUT/tests.log"; then
    echo "-- first failures:"
    grep -A6 ': Failure$' "$OUT/tests.log" | head -50
  fi
  ((rc == 124 || rc == 137)) && echo "!!! tests TIMED OUT after ${tests_timeout}s; the log ends:" &&
    tail -15 "$OUT/tests.log"
  return $rc
}

# Every benchmark of warpmatch-bench (WM_BENCHES to choose), tables appended to bench.log,
# one JSON each (the device tool returns at most 8 files: info, tests, bench.log + 5 JSON).
step_bench() {
  local op rc=0 t0
  : >"$OUT/bench.log"
  for op in ${WM_BENCHES:-find multi approx approx-sets distance lcs}; do
    if ! "$B" "$op" --help >/dev/null 2>&1; then
      echo "bench $op: not in this build, skipped" | tee -a "$OUT/bench.log"
      continue
    fi
    local args=(--json "$OUT/bench_$op.json")
    if [[ $op == find ]]; then
      [[ -r $D/words ]] && args+=(--words "$D/words")
      [[ -x $D/rg ]] && args+=(--rg "$D/rg") || args+=(--rg none)
      args+=(--commit "$commit")
    fi
    banner "bench $op" | tee -a "$OUT/bench.log"
    t0=$SECONDS
    timeout --kill-after=10 "$bench_timeout" "$B" "$op" "${args[@]}" "${extra[@]}" \
      2>&1 | tee -a "$OUT/bench.log"
    local r=${PIPESTATUS[0]}
    echo "bench $op: rc $r, $((SECONDS - t0)) s" | tee -a "$OUT/bench.log"
    ((r > rc)) && rc=$r
  done
  return $rc
}

step_find() {
  local words=() rg=(--rg none)
  [[ -r $D/words ]] && words=(--words "$D/words")
  [[ -x $D/rg ]] && rg=(--rg "$D/rg")
  timeout --kill-after=10 "$bench_timeout" "$B" find --json "$OUT/bench_find.json" \
    "${words[@]}" "${rg[@]}" --commit "$commit" "${extra[@]}" 2>&1 | tee "$OUT/bench_find.log"
}

# One job over 1, 2, 4, 8 GPUs (bench/bench_scaling.cpp): speed-up per row against one GPU,
# the aggregate host-to-device bandwidth of the same GPUs measured in the run.
step_scaling() {
  timeout --kill-after=10 "${WM_SCALING_TIMEOUT:-540}" "$B" scaling --json "$OUT/bench_scaling.json" \
    --commit "$commit" "${extra[@]}" 2>&1 | tee "$OUT/bench_scaling.log"
}

# The command line end to end next to its peers (bench/bench_e2e.cpp): the carried ripgrep and
# seqkit, the machine's zstd or else the carried one (its libraries apart, through run-zstd).
step_e2e() {
  local args=(--json "$OUT/bench_e2e.json" --commit "$commit")
  [[ -r $D/words ]] && args+=(--words "$D/words")
  if [[ -x $D/rg ]]; then args+=(--rg "$D/rg"); elif ! command -v rg >/dev/null; then args+=(--rg none); fi
  if [[ -x $D/seqkit ]]; then args+=(--seqkit "$D/seqkit"); elif ! command -v seqkit >/dev/null; then args+=(--seqkit none); fi
  if ! command -v zstd >/dev/null; then
    if [[ -x $D/zstd/run-zstd ]]; then args+=(--zstd "$D/zstd/run-zstd"); else args+=(--zstd none); fi
  fi
  [[ -n ${WM_E2E_DIR:-} ]] && args+=(--dir "$WM_E2E_DIR")
  echo "free space for the generated data: $(df -h "${WM_E2E_DIR:-${TMPDIR:-/tmp}}" | tail -1)"
  # `auto` weighs rates measured on this machine, as a user would after installing.
  "$D/warpmatch" tune --cost-model --cost-bytes 1G 2>&1 | tee "$OUT/tune_cost_model.log"
  timeout --kill-after=10 "$e2e_timeout" "$B" e2e "${args[@]}" "${extra[@]}" 2>&1 |
    tee "$OUT/bench_e2e.log"
  return "${PIPESTATUS[0]}"
}

# Where an input's time goes: `--stats` splits the wall time into scanning and the rest
# (reading, decompressing, parsing); -j varies the cores the search and the parser take.
step_inputs() {
  local dir=${WM_E2E_DIR:-/tmp}/wm-inputs bytes=${WM_INPUTS_BYTES:-1G} f j
  local W="$D/warpmatch" z=zstd
  local T=(/usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak")
  [[ -x /usr/bin/time ]] || T=(bash -c 'TIMEFORMAT="%R s wall, %U s user, %S s sys"; time "$@"' timed)
  command -v zstd >/dev/null || z="$D/zstd/run-zstd"
  rm -rf "$dir"; mkdir -p "$dir"
  {
    "$B" e2e --warpmatch "$W" --rows stdin,fasta,gz,bgzf,zst --bytes "$bytes" --fasta-bytes "$bytes" --repeats 1 \
      --keep --dir "$dir" --no-gpu --rg none --seqkit none --zstd none --json "$dir/e2e.json" 2>&1 | tail -25
    local data; data=$(dirname "$(find "$dir" -name genome.fa.gz | head -1)")
    ls -la "$data"
    for f in genome.fa genome.fa.gz genome.bgzf.fa.gz genome.fa.zst; do
      for j in 16 15 8 1; do
        echo "== find -c --backend cpu -j $j ACGTACGT $f"
        "${T[@]}" "$W" find -c --stats --backend cpu -j "$j" \
          ACGTACGT "$data/$f" 2>&1 | grep -v 'backend choice'
      done
    done
    for j in 16 8; do
      echo "== cat text.txt | find -c -j $j"
      cat "$data/text.txt" | "${T[@]}" "$W" find -c --stats \
        --backend cpu -j "$j" zyzzyva - 2>&1 | grep -v 'backend choice'
    done
    echo "== cat text.txt > /dev/null"; "${T[@]}" cat "$data/text.txt" >/dev/null
    echo "== cat text.txt | cat > /dev/null"; "${T[@]}" bash -c "cat '$data/text.txt' | cat >/dev/null"
    echo "== gzip -dc"; "${T[@]}" gzip -dc "$data/genome.fa.gz" >/dev/null
    echo "== zstd -dc"; "${T[@]}" $z -dc -q "$data/genome.fa.zst" >/dev/null
    command -v perf >/dev/null && echo "perf: present" || echo "perf: absent"
  } 2>&1 | tee "$OUT/inputs.log"
  rm -rf "$dir"
}

step_feed() {
  local dir=${WM_E2E_DIR:-/tmp}/wm-feed bytes=${WM_FEED_BYTES:-8G} b r
  local bins=("$D/warpmatch")
  if [[ -f $D/warpmatch_old.gz ]]; then
    gzip -dc "$D/warpmatch_old.gz" >"$D/warpmatch_old" && chmod +x "$D/warpmatch_old" && bins+=("$D/warpmatch_old")
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  {
    "$B" e2e --rows word --bytes "$bytes" --repeats 1 --keep --dir "$dir" --no-gpu --rg none \
      --seqkit none --zstd none --json "$dir/e2e.json" 2>&1 | grep -E '^1 ' | head -3
    local text; text=$(find "$dir" -name text.txt | head -1)
    ls -la "$text"
    for r in 1 2; do
      for b in "${bins[@]}"; do
        for backend in cuda cpu; do
          echo "== $(basename "$b") --backend $backend (run $r)"
          local t0=$EPOCHREALTIME
          timeout --kill-after=5 120 "$b" find -c --stats --backend "$backend" Sherlock "$text" 2>&1 | grep -v "backend choice"
          awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "wall %.3f s\n", b - a}'
        done
      done
    done
  } 2>&1 | tee "$OUT/feed.log"
  rm -rf "$dir"
}

# compute-sanitizer over the GPU tests (issue 16). UNTESTED: written without a GPU; the first
# run on the GPU machine should check the tool is found and each subset fits its limit.
step_sanitize() {
  local cs="" tool rc=0 r filter
  for c in compute-sanitizer /usr/local/cuda/bin/compute-sanitizer "$D/compute-sanitizer/compute-sanitizer"; do
    if command -v "$c" >/dev/null 2>&1; then cs=$c; break; fi
  done
  : >"$OUT/sanitize.log"
  if [[ -z $cs ]]; then
    echo "sanitize: compute-sanitizer not found (PATH, /usr/local/cuda/bin, .device/compute-sanitizer)" |
      tee -a "$OUT/sanitize.log"
    return 1
  fi
  local suites=(ApproxCuda ApproxSetCuda CudaExact MultiCuda DistanceCuda LcsCuda MemCuda CudaFaults)
  # racecheck / initcheck / synccheck are 10-100x slower than memcheck: one small test per kernel family.
  local small='ApproxCuda.PaperExampleAbabaInAaabbbaaHasDistanceOne:ApproxCuda.PatternLongerThanTextAndTinyTexts'
  small+=':CudaExact.EdgeSizesEmptyOneByteAndPatternLongerThanText:CudaExact.FloodGivesOneMatchPerPosition'
  small+=':MultiCuda.LongPatternsAndTextEnds:DistanceCuda.KnownVectorsEveryAlgorithm:DistanceCuda.EmptyIdenticalAndOneSided'
  small+=':LcsCuda.EmptyAndOneByteInputs:LcsCuda.AdversarialInputsMatchTheOracle'
  small+=':ApproxSetCuda.SmallTilesGroupsAndSegmentsGiveTheSameHits:MemCuda.*'
  local memcheck_more='ApproxSetCuda.*:LcsCuda.*:ApproxCuda.ForcedTinyChunksAndPieceCountsCrossBoundaries'
  memcheck_more+=':ApproxCuda.FloodsPeriodicTextsAndWordBoundaries:ApproxCuda.ManyPatternsInOneCallEqualCpu'
  memcheck_more+=':ApproxCuda.LambdaPhageReadsEqualCpu:ApproxCuda.PublicApiGivesIdenticalHitsStartsAndCigarsOnBothBackends'
  memcheck_more+=':CudaExact.RandomTextsOverAlphabets2And4And256MatchOracle:CudaExact.MultiMegabyteTextsMatchOracleWithDefaultAndSmallChunks'
  memcheck_more+=':CudaExact.PeriodicTextMatchesOracle:MultiCuda.RandomSetsMatchHyperscanOverAlphabets'
  memcheck_more+=':DistanceCuda.MyersStripesRandomAgainstCpuAllAlphabetsAndShapes:DistanceCuda.MyersStripesSeveralPassesAgainstCpu'
  memcheck_more+=':DistanceCuda.PaperTilesEveryBlockSizeAgainstCpu:DistanceCuda.LambdaGenomeAgainstMutatedCopies'
  # One run per (tool, filter): memcheck takes each CUDA suite in a run of its own, so a slow
  # suite under the tool cannot hide the others' results.
  # WM_SANITIZE_TOOLS picks the tools (a whole pass outgrows one 600 s device call: run
  # memcheck in one call, the other three in the next).
  local runs=() tools=${WM_SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}
  for tool in $tools; do
    local var="WM_SANITIZE_FILTER_${tool^^}"
    if [[ $tool == memcheck && -z ${!var:-} && ${WM_SANITIZE_MEMCHECK_ALL:-0} == 1 ]]; then
      # Every test of every CUDA suite, one run per suite (on the H200 four suites outgrow
      # 120 s under memcheck: a cut run reports the tests it finished).
      local suite
      for suite in "${suites[@]}"; do runs+=("memcheck $suite.*"); done
    elif [[ $tool == memcheck && -z ${!var:-} ]]; then
      # The bounded default: the small list and, per suite, tests that finished within seconds
      # under memcheck on the H200 (ApproxSetCuda and LcsCuda whole).
      runs+=("memcheck $small:$memcheck_more")
    elif [[ $tool == racecheck ]]; then
      # ApproxSetCuda's test outgrew 48 s under racecheck on the H200: the rest.
      runs+=("$tool ${!var:-${small/:ApproxSetCuda.SmallTilesGroupsAndSegmentsGiveTheSameHits/}}")
    else
      runs+=("$tool ${!var:-$small}")
    fi
  done
  local run
  for run in "${runs[@]}"; do
    tool=${run%% *}; filter=${run#* }
    echo "== compute-sanitizer --tool $tool, tests $filter" | tee -a "$OUT/sanitize.log"
    timeout --kill-after=10 "${WM_SANITIZE_TIMEOUT:-120}" "$cs" --tool "$tool" --error-exitcode 99 \
      "$D/warpmatch_tests" --gtest_filter="$filter" >>"$OUT/sanitize.log" 2>&1
    r=$?
    echo "== $tool ($filter): exit $r" | tee -a "$OUT/sanitize.log"
    ((r > rc)) && rc=$r
  done
  grep -E '^(== |========= ERROR SUMMARY|\[  (PASSED|FAILED|SKIPPED)  ?\] [0-9])' "$OUT/sanitize.log"
  echo "-- where the reported errors are (first device frame, by count):"
  grep -A4 -E '^========= (Invalid|Uninitialized|Race|Barrier|Misaligned|Out-of-range|Program hit)' "$OUT/sanitize.log" |
    grep -E 'Device Frame|^========= (Invalid|Uninitialized|Race|Barrier|Misaligned|Out-of-range|Program hit)' |
    sed -E 's/\+0x[0-9a-f]+//; s/ in (block|thread).*//' | sort | uniq -c | sort -rn | head -20
  return $rc
}

# The Python package (issue 13): .device-python/ from `scripts/build_for_gpu.sh --python`.
step_python() {
  local P="$root/.device-python" site=/tmp/wm-site rc
  install_python_site "$P" "$site" || return $?
  {
    echo "python: $(python3 --version) at $(command -v python3); staged: $(head -1 "$P/MANIFEST.txt" 2>/dev/null)"
    # From a folder without python/: the installed package, never the source tree's, is imported.
    (cd /tmp && PYTHONPATH="$site" LD_LIBRARY_PATH="$P/lib:$LD_LIBRARY_PATH" python3 -c '
import warpmatch
print("build_info:", warpmatch.build_info())
print("devices:", [d["name"] for d in warpmatch.devices()])
assert warpmatch.build_info()["cuda_compiled"] and warpmatch.devices(), "no GPU visible to warpmatch: GPU tests would only skip"
') || exit 4
    # Run from the repository root like scripts/test_python.sh (python/ is not on sys.path).
    PYTHONPATH="$site" LD_LIBRARY_PATH="$P/lib:$LD_LIBRARY_PATH" PYTHONUNBUFFERED=1 \
      timeout --kill-after=10 "${WM_PYTHON_TIMEOUT:-400}" python3 -m pytest -rs -p no:cacheprovider python/tests
  } 2>&1 | tee "$OUT/python.log"
  rc=$?
  return $rc
}

# The staged cp312 wheel and test-only wheels, installed offline into a folder for PYTHONPATH.
install_python_site() {
  local P=$1 site=$2
  if ! ls "$P"/warpmatch-*.whl >/dev/null 2>&1; then
    echo "no $P/warpmatch-*.whl: run scripts/build_for_gpu.sh --python here and carry .device-python" >&2
    return 2
  fi
  rm -rf "$site"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" \
    "$P"/warpmatch-*.whl "$P"/wheels/*.whl || return 3
}

# What a Python user's call costs (bench/python_calls.py), backend auto, cuda and cpu in turn,
# each in a fresh interpreter (auto's choices start from a process without CUDA).
step_pycalls() {
  local P="$root/.device-python" site=/tmp/wm-site rc=0 b
  install_python_site "$P" "$site" || return $?
  {
    for b in auto cuda cpu; do  # the peers timed once, beside auto (what a user gets)
      (cd /tmp && PYTHONPATH="$site" LD_LIBRARY_PATH="$P/lib:$LD_LIBRARY_PATH" PYTHONUNBUFFERED=1 \
        timeout --kill-after=10 "${WM_PYCALLS_TIMEOUT:-150}" python3 "$root/bench/python_calls.py" --backend "$b" \
        $([[ $b == auto ]] || echo --no-peers) --json "$OUT/python_calls_$b.json" "${extra[@]}") || rc=$?
    done
  } 2>&1 | tee "$OUT/python_calls.log"
  return $rc
}

# The staged wheels installed offline into a folder on PYTHONPATH, beside the machine's own
# packages (pandas, numpy, ...), as the python step does: a --system-site-packages venv did not
# see the machine's numpy (its first run on the H200 machine).
step_dask() {
  local P="$root/.device-python" py=python3 site=/tmp/wm-dask-site limit=${WM_DASK_TIMEOUT:-540} rc
  if ! ls "$P"/warpmatch-*.whl >/dev/null 2>&1; then
    echo "no $P/warpmatch-*.whl: run scripts/build_for_gpu.sh --python here and carry .device-python" >&2
    return 2
  fi
  rm -rf "$site"
  export PYTHONPATH="$site"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" \
    "$P"/warpmatch-*.whl "$P"/wheels/*.whl || return 3
  if ls "$P"/dask-cuda/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" \
      "$P"/dask-cuda/*.whl || echo "dask-cuda wheels did not install: the LocalCUDACluster run will be skipped"
  else
    echo "no $P/dask-cuda/ wheels: the LocalCUDACluster run will be skipped"
  fi
  {
    echo "python: $("$py" --version) ($py); staged: $(head -1 "$P/MANIFEST.txt" 2>/dev/null)"
    # From /tmp: the installed package is imported, not the source tree's python/warpmatch.
    (cd /tmp && WM_COMMIT=$(sed -n 's/^commit: //p' "$P/MANIFEST.txt" 2>/dev/null | head -1) \
      LD_LIBRARY_PATH="$P/lib:$LD_LIBRARY_PATH" PYTHONUNBUFFERED=1 \
      timeout --kill-after=20 "$limit" "$py" "$root/bench/dask_scaling.py" --bytes "${WM_DASK_BYTES:-4G}" \
      --approx-bytes "${WM_DASK_APPROX_BYTES:-1G}" --budget "$limit" --json "$OUT/dask_scaling.json" "${extra[@]}")
  } 2>&1 | grep --line-buffered -vE ' - (INFO|DEBUG) - ' |
    tee -a "$OUT/dask_scaling.log"
  rc=${PIPESTATUS[0]}
  return $rc
}

for s in "${steps[@]}"; do
  banner "$s"
  t0=$SECONDS
  "step_$s"
  record "$s" $? $((SECONDS - t0))
done

banner "summary (commit $commit)"
printf '%s\n' "${summary[@]}"
if [[ -f $OUT/tests.log ]]; then
  grep -E '^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ tests?' "$OUT/tests.log" | awk '!seen[$0]++'
fi
for log in "$OUT/bench_find.log" "$OUT/bench.log" "$OUT/bench_scaling.log"; do
  [[ -f $log ]] || continue
  echo "-- $(basename "$log") (targets):"
  grep -iE 'target|MET|bench [a-z]+: rc' "$log" | grep -v '^$' | head -60
done
if [[ -f $OUT/bench_e2e.log ]]; then
  echo "-- bench_e2e.log (targets):"
  sed -n '/^targets (PERF.md/,$p' "$OUT/bench_e2e.log" | head -40
  grep -E '^(!!!|warpmatch-bench e2e: error)' "$OUT/bench_e2e.log" | head -5
fi
if [[ -f $OUT/dask_scaling.log ]]; then
  echo "-- dask_scaling.log:"
  grep -E '^(dask_scaling|direct|job|exact|approx|target|LocalCUDACluster|!!!|---)' "$OUT/dask_scaling.log" | head -40
fi
if [[ -f $OUT/python.log ]]; then
  echo "-- python.log:"
  grep -E '^(build_info|devices|SKIPPED|FAILED|ERROR)|[0-9]+ (passed|failed)' "$OUT/python.log" | head -40
fi
echo "-- files in \$OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
exit $worst
