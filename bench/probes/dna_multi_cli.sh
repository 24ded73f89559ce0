#!/bin/bash
# DNA multi-pattern search end to end on the GPU machine (sixteenth session, issue 12): 1000
# k-mers (12 nt, and 24 nt; half cut from the genome) over a 1 GiB random-ACGT FASTA, `find -c -f`
# with --backend cpu / cuda / auto (and --strand both), process start to exit with peak RSS,
# 3 rounds interleaved, then one --stats line per backend. Run from the repository root with
# .device/ staged (scripts/build_for_gpu.sh), e.g. through the device tool:
#   run(command="bash bench/probes/dna_multi_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/w; mkdir -p $W
python3 - <<'PY'
import os, random
n = int(os.environ.get("GENOME_BYTES", str(1 << 30)))
seq = os.urandom(n).translate(bytes(b"ACGT"[i % 4] for i in range(256)))
random.seed(7)
for name, L in (("k12", 12), ("k24", 24)):
    with open(f"/tmp/w/{name}.txt", "w") as g:
        for i in range(1000):
            if i % 2 == 0:
                at = random.randrange(n - L); g.write(seq[at:at + L].decode() + "\n")
            else:
                g.write("".join(random.choice("ACGT") for _ in range(L)) + "\n")
with open("/tmp/w/genome.fa", "wb") as f:
    f.write(b">chr1\n")
    mv = memoryview(seq)
    for i in range(0, n, 1 << 20):
        block = mv[i:i + (1 << 20)]
        f.write(b"\n".join(block[j:j + 80] for j in range(0, len(block), 80)) + b"\n")
PY
cat $W/genome.fa > /dev/null
for r in 1 2 3; do
  for b in cpu cuda auto; do
    timed $D/warpmatch find -c -f $W/k12.txt --backend $b $W/genome.fa
  done
  timed $D/warpmatch find -c -f $W/k24.txt --backend cpu $W/genome.fa
  timed $D/warpmatch find -c -f $W/k24.txt --backend cuda $W/genome.fa
  timed $D/warpmatch find -c -f $W/k12.txt --strand both --backend cpu $W/genome.fa
  timed $D/warpmatch find -c -f $W/k12.txt --strand both --backend cuda $W/genome.fa
done
echo "--- stats:"
for b in cpu cuda auto; do $D/warpmatch find -c -f $W/k12.txt --backend $b --stats $W/genome.fa 2>&1 >/dev/null | head -2; done
