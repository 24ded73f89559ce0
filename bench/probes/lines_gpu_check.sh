#!/bin/bash
# find/approx -n, --lines, -v, context lines (-A/-B/-C) and -o on the GPU against the CPU
# (seventeenth session): the same
# output with --backend cuda as with --backend cpu on a generated text of short and long
# lines (plain, gzip, small windows); exit status 1 when any differs. Run from the repository
# root with .device/ staged:
#   run(command="bash bench/probes/lines_gpu_check.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
source bench/probes/probe_lib.sh
W=/tmp/lc; mkdir -p $W
python3 - <<'PY'
import random
r = random.Random(5)
words = ["the", "then", "other", "fox", "error", "errors", "x", "ERROR", "warn"]
lines = []
for i in range(400_000):
    n = r.choice([0, 1, 3, 8, 20, 200])
    lines.append(" ".join(r.choice(words) for _ in range(n)))
with open("/tmp/lc/t.txt", "w") as f:
    f.write("\n".join(lines))
PY
gzip -k -f $W/t.txt
same_on_both find -n error $W/t.txt
same_on_both find --lines -n error $W/t.txt
same_on_both find --lines -n error $W/t.txt.gz
same_on_both find --lines -n --window 1M -i error $W/t.txt
same_on_both find -v -n -e fox -e warn $W/t.txt
same_on_both find -c --lines -w the $W/t.txt
same_on_both find --lines -m 1000 -e then -e other $W/t.txt.gz
same_on_both approx -n -k 1 errors $W/t.txt
same_on_both approx --lines -n -k 1 --window 1M errors $W/t.txt
same_on_both approx -v -c -k 1 other $W/t.txt
same_on_both find -C 2 -n error $W/t.txt
same_on_both find -B 1 -A 3 -m 500 -e fox -e warn $W/t.txt.gz
same_on_both find -o -n -i error $W/t.txt
same_on_both approx -A 1 -n -k 1 --window 1M errors $W/t.txt
echo "grep -c error: $(grep -c error $W/t.txt), find -c --lines: $("$D/warpmatch" find -c --lines error $W/t.txt --backend cuda)"
exit $fail
