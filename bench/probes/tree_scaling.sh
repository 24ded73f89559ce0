#!/bin/bash
# How `find -r` over many small files scales with -j on the GPU machine (twenty-first
# session): the walk alone (bench/probes/walk_probe.cpp), then `find -r -c` one rare word
# over /usr/include, /usr/share and /usr/lib with -j 1, 2, 4, 8, 16 next to ripgrep's, with
# user and system seconds, and --stats' account of the files searched ahead (who searched the
# batches, who waited how long); perf's busiest functions where perf is installed.
#   run(command="bash bench/probes/tree_scaling.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
export TIMED_CPU=1
g++ -O2 -std=c++20 -Icli -Isrc -Iinclude bench/probes/walk_probe.cpp cli/input_walk.cpp -o /tmp/walk_probe || exit 1
for dir in /usr/include /usr/share /usr/lib; do
  echo "== $dir: $(find $dir -type f | wc -l) files, $(du -sh $dir | cut -f1)"
  /tmp/walk_probe $dir
  for j in 1 2 4 8 16; do timed $D/warpmatch find -r -c -j $j Sherlock $dir; done
  for j in 1 2 4 8 16; do timed $D/rg -uuu -F -c -j $j Sherlock $dir; done
  for j in 16; do timed $D/warpmatch find -r -c -j $j Sherlock $dir; timed $D/rg -uuu -F -c -j $j Sherlock $dir; done
  for j in 4 16; do $D/warpmatch find -r -c -j $j --stats Sherlock $dir 2>&1 >/dev/null | grep -v "backend choice"; done
done
if command -v perf >/dev/null; then
  perf record -q -g -o /tmp/perf.data $D/warpmatch find -r -c Sherlock /usr/include > /dev/null 2>&1
  perf report -i /tmp/perf.data --stdio --no-children --sort pid 2>/dev/null | grep -E "^ +[0-9]" | head -20
  perf report -i /tmp/perf.data --stdio --no-children --sort symbol -g none 2>/dev/null | grep -E "^ +[0-9]" | head -30
else
  echo "no perf here"
fi
command -v strace >/dev/null && strace -c -f $D/warpmatch find -r -c Sherlock /usr/include 2>&1 >/dev/null | head -15
