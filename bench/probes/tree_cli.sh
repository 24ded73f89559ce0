#!/bin/bash
# Trees of many small files end to end on the GPU machine (twenty-first session: files
# searched ahead on all threads, cli/file_jobs.hpp), process start to exit with peak RSS
# (with $OUT set, the e2e JSON of job 13 lands there):
# warpmatch (all threads, and -j 1: one file after the other, as before) next to ripgrep
# (all threads, and -j 1) on
#   - e2e job 13's tree: 50,000 files of English-like text (~21 KiB each, 1 GiB),
#   - the machine's /usr/include and /usr/lib (headers, libraries: binary files too),
# for `-c` one rare word, `-l` a common word, hits of a common word listed, `-c -f` 100
# words, `approx -c -k 1`; then whether all threads print what -j 1 prints (md5).
# Run from the repository root with .device/ staged (scripts/build_for_gpu.sh):
#   run(command="bash bench/probes/tree_cli.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/wt; mkdir -p $W
# The tree of `warpmatch-bench e2e`'s job 13 (timed there too, with ripgrep), kept.
[[ -x $D/warpmatch-bench ]] || { gzip -dc $D/warpmatch-bench.gz > $D/warpmatch-bench; chmod +x $D/warpmatch-bench; }
$D/warpmatch-bench e2e --warpmatch $D/warpmatch --rg $D/rg --rows tree --repeats 3 --dir $W --keep \
  --words $D/words --json ${OUT:-/tmp}/bench_e2e_tree.json ${TREE_ARGS:-} 2>&1 | tail -12
T=$(ls -d $W/warpmatch-e2e-*/tree | head -1)
grep -v "'" $D/words | awk 'length($0) >= 6' | shuf -n 100 --random-source=<(yes) > $W/w100.txt
du -sh $T /usr/include /usr/lib 2>/dev/null
find /usr/include -type f | wc -l; find /usr/lib -type f | wc -l
for round in 1 2; do
  for dir in $T /usr/include ${TREE_SYSTEM_DIRS-/usr/lib}; do
    for job in "-c Sherlock" "-l the" "-c -f $W/w100.txt"; do
      timed $D/warpmatch find -r $job $dir
      timed $D/warpmatch find -j 1 -r $job $dir
      [[ $job == "-c -f"* ]] && rgjob="-c -f $W/w100.txt" || rgjob="$job"
      timed $D/rg -uuu -F $rgjob $dir
      timed $D/rg -uuu -j 1 -F $rgjob $dir
    done
  done
  timed $D/warpmatch find -r -n --lines the $T
  timed $D/warpmatch find -j 1 -r -n --lines the $T
  timed $D/rg -uuu -F -n the $T
  timed $D/warpmatch approx -r -c -k 1 Sherlock $T
  timed $D/warpmatch approx -j 1 -r -c -k 1 Sherlock $T
done
$D/warpmatch find -r -c --stats Sherlock $T 2>&1 >/dev/null | tail -2
$D/warpmatch find -r -c -f $W/w100.txt --stats $T 2>&1 >/dev/null | tail -3
timed $D/warpmatch find -r -c -f $W/w100.txt --backend cuda $T
for job in "-c Sherlock" "-n the" "-l the" "-c -f $W/w100.txt" "--lines -C 1 Sherlock"; do
  for dir in $T /usr/include; do
    a=$($D/warpmatch find -r $job $dir 2>&1 | md5sum); b=$($D/warpmatch find -j 1 -r $job $dir 2>&1 | md5sum)
    [[ $a == "$b" ]] && echo "same: find -r $job $dir" || { echo "DIFFER: find -r $job $dir"; fail=1; }
  done
done
a=$($D/warpmatch approx -r -k 1 Sherlock $T | md5sum); b=$($D/warpmatch approx -j 1 -r -k 1 Sherlock $T | md5sum)
[[ $a == "$b" ]] && echo "same: approx -r -k 1" || { echo "DIFFER: approx -r -k 1"; fail=1; }
[[ $fail == 0 ]] && echo "tree probe: all threads print what -j 1 prints" || echo "tree probe: DIFFER"
