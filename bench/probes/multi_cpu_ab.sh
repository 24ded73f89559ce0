#!/bin/bash
# The CPU multi-pattern rows of `warpmatch-bench multi` (16 threads, no GPU, no Hyperscan)
# from two builds in one call, rounds interleaved: .device/warpmatch-bench-before.gz (an
# earlier build: scripts/build_for_gpu.sh in a worktree, its warpmatch-bench.gz copied here)
# and .device/warpmatch-bench.gz. Run from the repository root with .device/ staged:
#   run(command="bash bench/probes/multi_cpu_ab.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
D=$PWD/.device
export LD_LIBRARY_PATH=$D/lib
for b in warpmatch-bench warpmatch-bench-before; do
  [[ -x $D/$b ]] || { gzip -dc $D/$b.gz > $D/$b; chmod +x $D/$b; }
done
for round in 1 2; do
  for b in warpmatch-bench-before warpmatch-bench; do
    echo "== $b, round $round"
    $D/$b multi --bytes ${WM_AB_BYTES:-1G} --repeats 3 --no-gpu --no-hyperscan --words $D/words --commit ab 2>&1 |
      grep -E "^-- |cpu fast"
  done
done
