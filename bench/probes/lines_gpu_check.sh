#!/bin/bash
# find/approx -n, --lines and -v on the GPU against the CPU (seventeenth session): the same
# output with --backend cuda as with --backend cpu on a generated text of short and long
# lines (plain, gzip, small windows); exit status 1 when any differs. Run from the repository
# root with .device/ staged:
#   run(command="bash bench/probes/lines_gpu_check.sh", carry=[".device"])
cd "$(dirname "$0")/../.."
D=$PWD/.device; export LD_LIBRARY_PATH=$D/lib
[[ -x $D/warpmatch ]] || { gzip -dc $D/warpmatch.gz > $D/warpmatch; chmod +x $D/warpmatch; }
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
fail=0
check() {
  local a b; a=$("$D/warpmatch" "$@" --backend cpu | md5sum); b=$("$D/warpmatch" "$@" --backend cuda | md5sum)
  local n; n=$("$D/warpmatch" "$@" --backend cpu | wc -l)
  if [[ $a == "$b" ]]; then echo "same ($n lines): $*"; else echo "DIFFER: $*"; fail=1; fi
}
check find -n error $W/t.txt
check find --lines -n error $W/t.txt
check find --lines -n error $W/t.txt.gz
check find --lines -n --window 1M -i error $W/t.txt
check find -v -n -e fox -e warn $W/t.txt
check find -c --lines -w the $W/t.txt
check find --lines -m 1000 -e then -e other $W/t.txt.gz
check approx -n -k 1 errors $W/t.txt
check approx --lines -n -k 1 --window 1M errors $W/t.txt
check approx -v -c -k 1 other $W/t.txt
echo "grep -c error: $(grep -c error $W/t.txt), find -c --lines: $("$D/warpmatch" find -c --lines error $W/t.txt --backend cuda)"
exit $fail
