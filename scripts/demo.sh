#!/usr/bin/env bash
# The main job on real data, from a fresh Debian 12 machine (as root): installs dependencies,
# builds, then searches the phage lambda genome (Debian package bowtie2-examples) for the
# BamHI restriction site GGATCC and a primer, printing matches, JSON lines and statistics.
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
"$wm" find -c --stats -i gatcgcgt "$genome" "$reads"
"$wm" find --json -m 3 GGATCC "$genome"
