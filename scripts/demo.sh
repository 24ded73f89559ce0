#!/usr/bin/env bash
# The main job on real data, from a fresh Debian 12 machine (as root): installs dependencies,
# builds, then searches the phage lambda genome (Debian package bowtie2-examples) for the
# BamHI restriction site GGATCC and a primer (exact, then within 2 edits), printing matches,
# JSON lines and statistics, then compares the genome with a long read (edit distance of a
# prefix, longest common substring).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_debian.sh
bash scripts/build.sh "${WARPMATCH_PRESET:-default}"
wm="build/${WARPMATCH_PRESET:-default}/warpmatch"
genome=/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz
reads=/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz
set -x
"$wm" info
"$wm" find --stats GGATCC "$genome"
primer=gcagcgcaacacccttatct   # a 20-mer of the genome at offset 1000, lower case: -i
"$wm" find -c --stats -i "$primer" "$genome" "$reads"
"$wm" find --json -m 3 GGATCC "$genome"
"$wm" approx -k 2 --cigar --max-hits 5 -i "$primer" "$reads"
"$wm" lcs --max-matches 3 "$genome" /usr/share/doc/bowtie2/examples/reads/longreads.fq.gz
"$wm" distance --stats -s GATTACAGATTACA GATCACAGATTTACA
