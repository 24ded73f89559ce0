#!/usr/bin/env bash
# Runs ON the GPU machine: the same benchmarks from two builds, interleaved (before, after, per
# benchmark) so that both see the same machine in the same run — issue 11's "numbers unchanged
# within noise" check, or any before/after of a change.
#
#   bash scripts/bench_before_after.sh BEFORE AFTER OP...        (e.g. find multi approx)
#
# BEFORE / AFTER: a `warpmatch-bench` program, or an older `warpmatch` CLI that still had
# `warpmatch bench OP` (before issue 11 moved the benchmarks out); gzip-compressed ones are
# unpacked. Each benchmark runs with its defaults plus WM_BENCH_ARGS, under WM_BENCH_TIMEOUT
# seconds (default 120). Tables go to $OUT/before_after.log, the JSON of every run into
# $OUT/before_after_json.tar.gz; the last lines printed are each run's target lines.
set -uo pipefail
OUT=${OUT:-/tmp/warpmatch-out}
mkdir -p "$OUT"
unpack() {  # a path, gzip-compressed or not -> an executable path
  local f=$1
  if [[ $f == *.gz ]]; then gzip -dc "$f" >"${f%.gz}" && f=${f%.gz}; fi
  chmod +x "$f"
  echo "$f"
}
before=$(unpack "$1") after=$(unpack "$2")
shift 2
work=$(mktemp -d)
log="$OUT/before_after.log"
: >"$log"
run() {  # label binary op
  local label=$1 bin=$2 op=$3 cmd
  if [[ $(basename "$bin") == warpmatch-bench* ]]; then cmd=("$bin" "$op"); else cmd=("$bin" bench "$op"); fi
  printf '\n======== %s: %s %s\n' "$label" "$op" "$("$bin" --version 2>/dev/null | head -1)" | tee -a "$log"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout --kill-after=10 "${WM_BENCH_TIMEOUT:-120}" "${cmd[@]}" --json "$work/${op}_$label.json" ${WM_BENCH_ARGS:-} \
    >>"$log" 2>&1
  echo "$label $op: rc $?, $((SECONDS - t0)) s" | tee -a "$log"
}
for op in "$@"; do
  run before "$before" "$op"
  run after "$after" "$op"
done
tar -czf "$OUT/before_after_json.tar.gz" -C "$work" .
grep -E '^(======== |(before|after) [a-z-]+: rc)|target' "$log" | cut -c1-160
