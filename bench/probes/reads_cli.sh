#!/bin/bash
# Files of short reads end to end on the GPU machine (eighteenth session): 4 M reads of
# 150 nt from a random genome (FASTQ, ~1.2 GB, and its gzip), searched by `find -c` with one
# 8-mer, --strand both, 1000 20-mers (-f), and `approx -c` (one 19-mer with k = 2; two
# primers on both strands with k = 3), on --backend
# cpu / cuda / auto, process start to exit with peak RSS; then whether cuda prints what cpu
# prints (hits listed as TSV, approx's with CIGARs), and seqkit locate (when it is on the
# path or staged) on the same file.
# With .device/warpmatch_before.gz staged (an earlier build's warpmatch.gz), each job also runs
# that build on the CPU in the same rounds, and a FASTA copy of the reads and ripgrep join in
# (twentieth session: the parse on all threads, io/short_records.cpp).
# Reads come in batches of whole records (io::TextStream::next_windows) and find scans a
# batch's reads as one text, approx with k + 1 gap bytes between reads
# (Searcher::search_records). Run from the repository root with
# .device/ staged (scripts/build_for_gpu.sh):
#   run(command="bash bench/probes/reads_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wr; mkdir -p $W
python3 - <<'PY'
import os, random
rng = random.Random(5)
reads = int(os.environ.get("READS", "4000000"))
genome = os.urandom(1 << 24).translate(bytes(b"ACGT"[i % 4] for i in range(256)))
qual = b"I" * 150
with open("/tmp/wr/reads.fq", "wb") as f:
    for i in range(reads):
        at = rng.randrange(len(genome) - 150)
        f.write(b"@r%d\n%s\n+\n%s\n" % (i, genome[at:at + 150], qual))
with open("/tmp/wr/k1000.txt", "w") as g:
    for i in range(1000):
        at = rng.randrange(len(genome) - 20)
        g.write(genome[at:at + 20].decode() + "\n")
PY
[[ -f $D/warpmatch_before.gz && ! -x $D/warpmatch_before ]] && { gzip -dc $D/warpmatch_before.gz > $D/warpmatch_before; chmod +x $D/warpmatch_before; }
awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2 { print }' $W/reads.fq > $W/reads.fa
printf ">a\nGATTACAGGATTACAGATT\n>b\nTTGACCGTAAGCAGGCTA\n" > $W/p2.fa
gzip -1 -c $W/reads.fq > $W/reads.fq.gz
ls -la $W
for round in 1 2; do
  for job in "find -c GATTACAG" "find -c --strand both GATTACAG" "find -c -f $W/k1000.txt" "approx -c -k 2 GATTACAGGATTACAGATT" "approx -c -k 3 --strand both --patterns $W/p2.fa"; do
    for backend in cpu cuda auto; do
      timed $D/warpmatch $job --backend $backend $W/reads.fq
    done
    [[ -x $D/warpmatch_before ]] && timed $D/warpmatch_before $job --backend cpu $W/reads.fq
  done
  for bin in $D/warpmatch $D/warpmatch_before; do
    [[ -x $bin ]] && timed $bin find -c GATTACAG --backend cpu $W/reads.fa
  done
  timed $D/rg -c GATTACAG $W/reads.fq
done
timed $D/warpmatch find -c -f $W/k1000.txt --backend auto $W/reads.fq.gz
timed $D/warpmatch find -c -f $W/k1000.txt --backend cpu $W/reads.fq.gz
$D/warpmatch find -c -f $W/k1000.txt --stats --backend cuda $W/reads.fq 2>&1 | tail -3
head -n 2600000 $W/reads.fq > $W/part.fq  # 650,000 whole reads
same_on_both find --tsv --strand both GATTACAG $W/part.fq
same_on_both find --tsv -f $W/k1000.txt $W/part.fq
same_on_both approx --tsv -k 2 GATTACAGGATTACAGATT $W/part.fq
same_on_both approx --tsv --cigar -k 3 --strand both --patterns $W/p2.fa $W/part.fq
[[ -x $D/seqkit || ! -f $D/seqkit.gz ]] || { gzip -dc $D/seqkit.gz > $D/seqkit; chmod +x $D/seqkit; }
if command -v seqkit >/dev/null || [[ -x $D/seqkit ]]; then
  S=$(command -v seqkit || echo $D/seqkit)
  python3 - "$S" $W/reads.fq <<'PY'
import subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run([sys.argv[1], "locate", "-j", "16", "-p", "GATTACAG", sys.argv[2]], stdout=subprocess.PIPE)
print(f"seqkit locate -j 16 -p GATTACAG (both strands): {(time.perf_counter() - t0) * 1e3:.1f} ms, {len(p.stdout.splitlines()) - 1} rows")
PY
fi
[[ $fail == 0 ]] && echo "reads probe: cuda output equals cpu output" || echo "reads probe: DIFFER"
