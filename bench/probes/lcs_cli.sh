#!/bin/bash
# lcs of two genomes end to end on the GPU machine (twentieth session: the CPU's 32-bit
# suffix arrays): a random 100 MB genome and a copy with a substitution every 997 bases,
# `warpmatch lcs` on --backend cpu / cuda / auto, process start to exit with peak RSS, two
# rounds; with .device/warpmatch_before.gz staged (an earlier build's warpmatch.gz), that build
# on the CPU in the same rounds. Run from the repository root with .device/ staged
# (scripts/build_for_gpu.sh):
#   run(command="bash bench/probes/lcs_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wl; mkdir -p $W
MB=${MB:-100}
python3 - "$MB" <<'PY'
import os, random, sys
n = int(sys.argv[1]) * 1000 * 1000
rng = random.Random(3)
g = bytearray(os.urandom(n).translate(bytes(b"ACGT"[i % 4] for i in range(256))))
open("/tmp/wl/a.txt", "wb").write(g)
for i in range(0, len(g), 997): g[i] = ord("ACGT"[rng.randrange(4)])
open("/tmp/wl/b.txt", "wb").write(g)
PY
[[ -f $D/warpmatch_before.gz && ! -x $D/warpmatch_before ]] && { gzip -dc $D/warpmatch_before.gz > $D/warpmatch_before; chmod +x $D/warpmatch_before; }
for round in 1 2; do
  for backend in cpu cuda auto; do
    timed $D/warpmatch lcs --backend $backend $W/a.txt $W/b.txt
  done
  [[ -x $D/warpmatch_before ]] && timed $D/warpmatch_before lcs --backend cpu $W/a.txt $W/b.txt
done
$D/warpmatch lcs --backend cpu --stats $W/a.txt $W/b.txt 2>&1 | tail -2
