#!/bin/bash
# grep's line output end to end on the GPU machine (nineteenth session): 4 GiB of English-like
# text (short lines of dictionary words), `find --lines` / `-v` / `-c --lines` / `-m` with one
# word, a frequent letter and 1000 words (-f), on --backend cpu / cuda / auto, process start
# to exit with peak RSS, next to ripgrep (when staged) in the same run; then whether cuda
# prints what cpu prints on a 256 MiB part. The CPU searches each line only up to its first
# hit (first_match_per_line); the GPU lists every hit and keeps one per line.
# Run from the repository root with .device/ staged (scripts/build_for_gpu.sh):
#   run(command="bash bench/probes/lines_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wl; mkdir -p $W
python3 - <<'PY'
import random
rng = random.Random(3)
letters = "etaoinshrdlcumwfgypbvkjxqz"
words = list({"".join(rng.choice(letters[: rng.randint(8, 26)]) for _ in range(rng.randint(1, 10))) for _ in range(60000)})
lines, size = [], 0
while size < (256 << 20):
    line = " ".join(rng.choice(words) for _ in range(rng.randint(4, 16)))
    lines.append(line)
    size += len(line) + 1
open("/tmp/wl/part.txt", "w").write("\n".join(lines) + "\n")
open("/tmp/wl/w1000.txt", "w").write("\n".join(rng.sample(words, 1000)) + "\n")
PY
for i in $(seq 16); do cat $W/part.txt; done > $W/big.txt
ls -la $W
RG=$(command -v rg || echo $D/rg)
[[ -x $RG ]] || RG=
W1=$(sed -n 500p $W/w1000.txt)
for round in 1 2; do
  for job in "find --lines -c $W1" "find -v -c e" "find --lines -c e" "find --lines -c -f $W/w1000.txt" "find --lines -m 1000 -c e"; do
    for backend in cpu cuda auto; do
      timed $D/warpmatch $job --backend $backend $W/big.txt
    done
  done
  if [[ -n $RG ]]; then
    timed $RG -F -c $W1 $W/big.txt
    timed $RG -F -v -c e $W/big.txt
    timed $RG -F -c e $W/big.txt
    timed $RG -F -c -f $W/w1000.txt $W/big.txt
  fi
done
$D/warpmatch find --lines -c -f $W/w1000.txt --stats --backend auto $W/big.txt 2>&1 | tail -4
same_on_both find --lines -n $W1 $W/part.txt
same_on_both find -v -n e $W/part.txt
same_on_both find --lines -f $W/w1000.txt $W/part.txt
same_on_both find --lines -m 5000 -C 1 -f $W/w1000.txt $W/part.txt
[[ $fail == 0 ]] && echo "lines probe: cuda output equals cpu output" || echo "lines probe: DIFFER"
