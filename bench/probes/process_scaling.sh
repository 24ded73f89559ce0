#!/usr/bin/env bash
# What N independent single-threaded searches get from this host: the ceiling under
# warpmatch.dask's scaling (issue 13), without Dask. N processes of
# `warpmatch find -c --backend cpu --threads 1` each scan the same file (page cache) at once;
# the table gives the wall and the per-process rate. Then the same N pinned to CPUs 0..N-1 and
# to every other CPU (if hyperthread siblings are neighbours, the second spreads them).
# JOB exact (default): `find -c`, memory-bound; approx: `approx -k 2 -c` of a 16-mer, compute-
# bound (what the host gives N busy cores: turbo and shared caches, without memory's ceiling).
# Usage: process_scaling.sh WARPMATCH [BYTES] [JOB]   (BYTES default 1G; the file goes in $TMPDIR)
set -euo pipefail
wm=$1; bytes=${2:-1G}; job=${3:-exact}
case $job in
  exact) search=(find -c --backend cpu --threads 1 zyzzyva) ;;
  approx) search=(approx -k 2 -c --backend cpu --threads 1 GATTACAGATTACAGA) ;;
  *) echo "process_scaling.sh: JOB is exact or approx" >&2; exit 2 ;;
esac
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
{ yes "the quick brown fox jumps over the lazy dog while warpmatch counts" || true; } | head -c "$bytes" > "$dir/text"
cat "$dir/text" > /dev/null
size=$(stat -c %s "$dir/text")
lscpu | grep -E "^(CPU\(s\)|Thread|Core|Socket|Model name|L3|NUMA)" || true
run() {  # $1 = N, $2 = cpu list mode (none|first|spread)
  local n=$1 mode=$2 t0 t1 i
  t0=$(date +%s.%N)
  for ((i = 0; i < n; i++)); do
    case $mode in
      none) "$wm" "${search[@]}" "$dir/text" > /dev/null & ;;
      first) taskset -c "$i" "$wm" "${search[@]}" "$dir/text" > /dev/null & ;;
      spread) taskset -c "$(( (2 * i) % $(nproc) + (2 * i) / $(nproc) ))" "$wm" "${search[@]}" "$dir/text" > /dev/null & ;;
    esac
  done
  wait
  t1=$(date +%s.%N)
  python3 -c "import sys; n=$n; w=$t1-$t0; r=$size/w/1e9; print(f'{sys.argv[1]:>7} N={n:<3} wall {w:7.3f} s  per process {r:6.2f} GB/s  total {n*r:7.2f} GB/s')" "$mode"
}
for mode in none first spread; do
  for n in 1 2 4 8 16; do
    [[ $n -le $(nproc) ]] || continue
    run "$n" "$mode"; run "$n" "$mode"
  done
done
