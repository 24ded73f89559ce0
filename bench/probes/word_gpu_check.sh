#!/bin/bash
# find/approx -w (and a DNA k-mer set) on the GPU against the CPU (sixteenth session): the
# same output with --backend cuda as with --backend cpu on a generated word text and FASTA;
# exit status 1 when any differs. Run from the repository root with .device/ staged:
#   run(command="bash bench/probes/word_gpu_check.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wc; mkdir -p $W
python3 - <<'PY'
import random
r = random.Random(3)
words = ["the", "then", "other", "fox_1", "fox", "a-b", "error", "errors", "x"]
with open("/tmp/wc/t.txt", "w") as f:
    f.write(" ".join(r.choice(words) + r.choice(["", ",", ".", "_", "1", " ", "-"]) for _ in range(3_000_000)))
seq = "".join(r.choice("ACGT") for _ in range(4_000_000))
with open("/tmp/wc/g.fa", "w") as f:
    for i in range(4):
        f.write(f">r{i}\n")
        s = seq[i * 1_000_000:(i + 1) * 1_000_000]
        f.write("\n".join(s[j:j + 60] for j in range(0, len(s), 60)) + "\n")
with open("/tmp/wc/k.txt", "w") as f:
    for i in range(500):
        at = r.randrange(len(seq) - 12)
        f.write((seq[at:at + 12] if i % 2 else "".join(r.choice("ACGT") for _ in range(12))) + "\n")
PY
same_on_both find -w the $W/t.txt
same_on_both find -w -c fox $W/t.txt
same_on_both find -w -i -e THE -e then -e fox $W/t.txt
same_on_both find -w -c -e the -e other -e error -e errors $W/t.txt
same_on_both find -w --window 1M fox $W/t.txt
same_on_both approx -w -k 1 other $W/t.txt
same_on_both approx -w -k 1 -c errors $W/t.txt
same_on_both approx -w -k 1 --window 1M errors $W/t.txt
same_on_both find -w -l fox $W/t.txt $W/g.fa
same_on_both find -c -f $W/k.txt $W/g.fa
exit $fail
