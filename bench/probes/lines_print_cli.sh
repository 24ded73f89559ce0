#!/bin/bash
# grep's line output when much of a large file is printed (twenty-second session): 2 GiB of
# English-like text (short lines of dictionary words), `find --lines` of a common word and a
# frequent letter (with and without -n), -o, the hits (START:MATCH, the default; rg -o -b
# prints the same bytes as OFFSET:MATCH), 1000 words, -v and context (twenty-third
# session), -o of a frequent letter and of 1000 words (twenty-fourth: grep -o's picks, made on
# the searcher's thread; rg -o picks the leftmost-first pattern where grep picks the longest,
# so o-f1000 is timed, not compared), process start to exit with the
# output written to a file in /dev/shm (what a redirect writes: /dev/null would leave out the
# write), next to ripgrep and to the build before the lines were printed on all threads
# (.device/warpmatch-before.gz, when staged) in the same run; then the outputs of a 256 MiB
# part against ripgrep's (md5).
# Run from the repository root with .device/ staged (scripts/build_for_gpu.sh):
#   run(command="bash bench/probes/lines_print_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wp; mkdir -p $W
PYTHONHASHSEED=0 python3 - <<'PY'  # (the word set's order: the same text on every run)
import random
rng = random.Random(3)
letters = "etaoinshrdlcumwfgypbvkjxqz"
words = list({"".join(rng.choice(letters[: rng.randint(8, 26)]) for _ in range(rng.randint(1, 10))) for _ in range(60000)})
words += ["the"] * 3000
lines, size = [], 0
while size < (256 << 20):
    line = " ".join(rng.choice(words) for _ in range(rng.randint(4, 16)))
    lines.append(line)
    size += len(line) + 1
open("/tmp/wp/part.txt", "w").write("\n".join(lines) + "\n")
open("/tmp/wp/w1000.txt", "w").write("\n".join(rng.sample(words[:60000], 1000)) + "\n")
PY
for i in $(seq 8); do cat $W/part.txt; done > $W/big.txt
ls -la $W
RG=$(command -v rg || echo $D/rg)
[[ -x $RG ]] || RG=
BEFORE=
if [[ -f $D/warpmatch-before.gz ]]; then gzip -dc $D/warpmatch-before.gz > $W/before; chmod +x $W/before; BEFORE=$W/before; fi
# to_file NAME CMD...: wall ms and peak RSS of CMD with stdout to /dev/shm/NAME, and its size.
to_file() {
  local name=$1; shift
  python3 - "$name" "$@" <<'PY'
import os, resource, subprocess, sys, time
name, cmd = sys.argv[1], sys.argv[2:]
with open("/dev/shm/" + name, "wb") as out:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE)
    ms = (time.perf_counter() - t0) * 1e3
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
size = os.path.getsize("/dev/shm/" + name)
print(f"{name:28s} rc={p.returncode} {ms:8.1f} ms {rss:7.0f} MiB  {size / 1e6:9.1f} MB out", flush=True)
os.remove("/dev/shm/" + name)
PY
}
# JOBS (default: all of them) picks rows by name; each row runs warpmatch, the build before
# (when staged) and ripgrep's equivalent (none for the pipe-less -j 1 row).
JOBS=${JOBS:-"lines-the lines-n-the lines-n-e o-n-the hits-the lines-f1000 pipe-lines-n-the j1-lines-n-the v-the v-n-the c1-n-the a2-n-qz"}
# row NAME: "WARPMATCH ARGS|RIPGREP ARGS" of a row (no ripgrep arguments: no ripgrep run).
row() {
  local f=$W/big.txt
  case $1 in
    lines-the) echo "find --lines the $f|-F the $f" ;;
    lines-n-the) echo "find --lines -n the $f|-n -F the $f" ;;
    lines-n-e) echo "find --lines -n e $f|-n -F e $f" ;;
    o-n-the) echo "find -o -n the $f|-o -n -F the $f" ;;
    o-e) echo "find -o e $f|-o -F e $f" ;;
    o-f1000) echo "find -o -f $W/w1000.txt $f|-o -F -f $W/w1000.txt $f" ;;
    hits-the) echo "find the $f|-o -b -F the $f" ;;
    lines-f1000) echo "find --lines -f $W/w1000.txt $f|-F -f $W/w1000.txt $f" ;;
    j1-lines-n-the) echo "find -j 1 --lines -n the $f|" ;;
    v-the) echo "find -v the $f|-v -F the $f" ;;
    v-n-the) echo "find -v -n the $f|-v -n -F the $f" ;;
    c1-n-the) echo "find -n -C 1 the $f|-n -C 1 -F the $f" ;;
    a2-n-qz) echo "find -n -A 2 qz $f|-n -A 2 -F qz $f" ;;
  esac
}
for round in 1 2; do
  for job in $JOBS; do
    for prog in warpmatch before; do
      X=$D/warpmatch; [[ $prog == before ]] && X=$BEFORE
      [[ -n $X ]] || continue
      if [[ $job == pipe-lines-n-the ]]; then to_file "$prog-$job" bash -c "cat $W/big.txt | $X find --lines -n the"
      else to_file "$prog-$job" $X $(row $job | cut -d'|' -f1); fi
    done
    [[ -n $RG ]] || continue
    if [[ $job == pipe-lines-n-the ]]; then to_file "rg-$job" bash -c "cat $W/big.txt | $RG -n -F the"
    elif [[ -n $(row $job | cut -d'|' -f2) ]]; then to_file "rg-$job" $RG $(row $job | cut -d'|' -f2); fi
  done
  to_file cat-big cat $W/big.txt  # the floor of writing 2 GiB to /dev/shm
done
# The outputs on the 256 MiB part: warpmatch's against ripgrep's (md5).
same_as_rg() {  # "WARPMATCH ARGS" "RG ARGS"
  local a b
  a=$($D/warpmatch $1 $W/part.txt | md5sum); b=$($RG $2 $W/part.txt | md5sum)
  if [[ $a == "$b" ]]; then echo "same as rg: $1"; else echo "DIFFER from rg: $1"; fail=1; fi
}
if [[ -n $RG ]]; then
  same_as_rg "find --lines the" "-F the"
  same_as_rg "find --lines -n the" "-n -F the"
  same_as_rg "find --lines -n e" "-n -F e"
  same_as_rg "find -o -n the" "-o -n -F the"
  same_as_rg "find --lines -f $W/w1000.txt" "-F -f $W/w1000.txt"
  same_as_rg "find -o -b the" "-o -b -F the"
  same_as_rg "find -o -b e" "-o -b -F e"
  same_as_rg "find -v -n the" "-v -n -F the"
  same_as_rg "find -n -C 1 the" "-n -C 1 -F the"
  same_as_rg "find -n -A 2 qz" "-n -A 2 -F qz"
  a=$(cat $W/part.txt | $D/warpmatch find --lines -n the | md5sum); b=$($RG -n -F the $W/part.txt | md5sum)
  [[ $a == "$b" ]] && echo "same as rg: through a pipe" || { echo "DIFFER from rg: through a pipe"; fail=1; }
  [[ $fail == 0 ]] && echo "lines print probe: warpmatch prints what ripgrep prints" || echo "lines print probe: DIFFER"
fi
# -o of a pattern set picks as GNU grep -o does (leftmost, then longest), where present.
if command -v grep >/dev/null; then
  a=$($D/warpmatch find -o -b -f $W/w1000.txt $W/part.txt | md5sum); b=$(LC_ALL=C grep -o -b -F -f $W/w1000.txt $W/part.txt | md5sum)
  [[ $a == "$b" ]] && echo "same as GNU grep: find -o -b -f w1000" || echo "DIFFER from GNU grep: find -o -b -f w1000"
fi
