#!/bin/bash
# Large literal sets end to end on the GPU machine (seventeenth session): 10^5 and 10^6 random
# DNA 20-mers (half cut from the genome) over a 1 GiB random-ACGT FASTA, and 10^6 random a-z
# words of 6-12 letters over 1 GiB of English-like text, `find -c -f` with --backend cpu /
# cuda / auto, process start to exit with peak RSS, 2 rounds interleaved, then one --stats
# line per set and backend (compile time, scan rate, the filter's key). The sets whose 4- and
# 8-byte keys pass most starts, which the long-key scan bitmap (core::PrefixIndex::long_key)
# filters. Run from the repository root with .device/ staged (scripts/build_for_gpu.sh):
#   run(command="bash bench/probes/large_sets_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wl; mkdir -p $W
python3 - <<'PY'
import os, random
n = int(os.environ.get("GENOME_BYTES", str(1 << 30)))
seq = os.urandom(n).translate(bytes(b"ACGT"[i % 4] for i in range(256)))
rng = random.Random(7)
for name, count in (("k100k", 100000), ("k1m", 1000000)):
    with open(f"/tmp/wl/{name}.txt", "w") as g:
        for i in range(count):
            if i % 2 == 0:
                at = rng.randrange(n - 20); g.write(seq[at:at + 20].decode() + "\n")
            else:
                g.write("".join(rng.choices("ACGT", k=20)) + "\n")
with open("/tmp/wl/genome.fa", "wb") as f:
    f.write(b">chr1\n")
    mv = memoryview(seq)
    for i in range(0, n, 1 << 20):
        block = mv[i:i + (1 << 20)]
        f.write(b"\n".join(block[j:j + 80] for j in range(0, len(block), 80)) + b"\n")
letters = "abcdefghijklmnopqrstuvwxyz"
words = ["".join(rng.choices(letters, k=rng.randint(6, 12))) for _ in range(1000000)]
with open("/tmp/wl/w1m.txt", "w") as g:
    g.write("\n".join(words) + "\n")
# English-like text: random words of a Zipf-ish vocabulary; 1000 of the set's words planted.
vocab = ["".join(rng.choices(letters, k=rng.randint(1, 10))) for _ in range(50000)]
chunk = " ".join(rng.choices(vocab, weights=[1 / (i + 1) for i in range(len(vocab))], k=200000)).encode() + b"\n"
with open("/tmp/wl/text.txt", "wb") as f:
    written = 0
    while written < n:
        planted = chunk.replace(b" ", b" " + words[rng.randrange(len(words))].encode() + b" ", 3)
        f.write(planted); written += len(planted)
PY
cat $W/genome.fa $W/text.txt > /dev/null
for r in 1 2; do
  for b in cpu cuda auto; do
    timed $D/warpmatch find -c -f $W/k100k.txt --backend $b $W/genome.fa
    timed $D/warpmatch find -c -f $W/k1m.txt --backend $b $W/genome.fa
    timed $D/warpmatch find -c -f $W/w1m.txt --backend $b $W/text.txt
  done
done
for b in cpu cuda auto; do
  for s in "k100k.txt genome.fa" "k1m.txt genome.fa" "w1m.txt text.txt"; do
    set -- $s
    echo "== --backend $b -f $1 $2"
    $D/warpmatch find -c --stats -f $W/$1 --backend $b $W/$2 2>&1 >/dev/null | sed 's/warpmatch stats: //'
  done
done
