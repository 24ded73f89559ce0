#!/bin/bash
# approx --best / --best-per-cluster on files of short reads (nineteenth session): best mode
# searches each read by itself (the minimum is the read's own), so a read is one scan call:
# on the CPU one short lane group on the calling thread, on the GPU one launch per read.
# 200,000 reads of 150 nt (FASTQ), one primer, two primers on both strands, 100 primers;
# --backend cpu / cuda / auto, process start to exit; then whether cuda prints what cpu prints
# on 20,000 reads. With .device/warpmatch_before.gz staged (an earlier build's warpmatch.gz),
# that build on the CPU too, and whether it prints what this one prints. Run from the
# repository root with .device/ staged:
#   run(command="bash bench/probes/reads_best_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wb; mkdir -p $W
python3 - <<'PY'
import random
rng = random.Random(7)
genome = bytes(rng.choice(b"ACGT") for _ in range(1 << 20))
qual = b"I" * 150
with open("/tmp/wb/reads.fq", "wb") as f:
    for i in range(200000):
        at = rng.randrange(len(genome) - 150)
        f.write(b"@r%d\n%s\n+\n%s\n" % (i, genome[at:at + 150], qual))
with open("/tmp/wb/p100.fa", "wb") as g:
    for i in range(100):
        at = rng.randrange(len(genome) - 20)
        g.write(b">p%d\n%s\n" % (i, genome[at:at + 20]))
PY
[[ -f $D/warpmatch_before.gz && ! -x $D/warpmatch_before ]] && { gzip -dc $D/warpmatch_before.gz > $D/warpmatch_before; chmod +x $D/warpmatch_before; }
printf ">a\nGATTACAGGATTACAGATT\n>b\nTTGACCGTAAGCAGGCTA\n" > $W/p2.fa
head -n 80000 $W/reads.fq > $W/part.fq
for job in "approx -c --best GATTACAGGATTACAGATT" "approx -c --best --strand both --patterns $W/p2.fa" "approx -c --best-per-cluster -k 3 --patterns $W/p100.fa"; do
  for backend in cpu cuda auto; do
    timed timeout 120 $D/warpmatch $job --backend $backend $W/reads.fq
  done
  [[ -x $D/warpmatch_before ]] && timed timeout 120 $D/warpmatch_before $job --backend cpu $W/reads.fq
done
if [[ -x $D/warpmatch_before ]]; then
  for job in "approx --tsv --best --strand both --patterns $W/p2.fa" "approx --tsv --best-per-cluster -k 3 --patterns $W/p100.fa"; do
    a=$($D/warpmatch $job --backend cpu $W/reads.fq | md5sum); b=$($D/warpmatch_before $job --backend cpu $W/reads.fq | md5sum)
    [[ $a == "$b" ]] && echo "same as the earlier build: $job" || { echo "DIFFERS from the earlier build: $job"; fail=1; }
  done
fi
$D/warpmatch approx -c --best --patterns $W/p100.fa --stats --backend auto $W/reads.fq 2>&1 | tail -3
same_on_both approx --tsv --best GATTACAGGATTACAGATT $W/part.fq
same_on_both approx --tsv --best --strand both --patterns $W/p2.fa $W/part.fq
[[ $fail == 0 ]] && echo "best probe: cuda output equals cpu output" || echo "best probe: DIFFER"
