# Shared by the probe scripts run on the GPU machine (source it after cd to the repository
# root): D = the staged .device/ with its libraries on the path and warpmatch unpacked;
# timed CMD... = one process's wall ms, peak RSS and the sum of its "NAME:COUNT" lines (with
# TIMED_CPU set, its user and system CPU seconds too);
# same_on_both ARGS... = whether `warpmatch ARGS --backend cpu` and `--backend cuda` print the
# same (sets fail=1 when not).
D=$PWD/.device
export LD_LIBRARY_PATH=$D/lib
[[ -x $D/warpmatch ]] || { gzip -dc $D/warpmatch.gz > $D/warpmatch; chmod +x $D/warpmatch; }
fail=0

timed() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
ms = (time.perf_counter() - t0) * 1e3
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = usage.ru_maxrss / 1024
out = p.stdout.decode().splitlines()
try:
    total = sum(int(l.rsplit(":", 1)[1]) for l in out if ":" in l)
except ValueError:  # not counts: the lines printed
    total = len(out)
exe = sys.argv[1].rsplit("/", 1)[-1]  # named unless it is the build under test
args = ("" if exe == "warpmatch" else exe + " ") + " ".join(a.rsplit("/", 1)[-1] if a.startswith("/tmp/") else a for a in sys.argv[2:])
cpu = f"user {usage.ru_utime:.2f} sys {usage.ru_stime:.2f} s" if __import__("os").environ.get("TIMED_CPU") else ""
print(f"{args:70s} rc={p.returncode} {ms:8.1f} ms {rss:7.0f} MiB  total {total} {cpu}", flush=True)
PY
}

same_on_both() {
  local a b n
  a=$("$D/warpmatch" "$@" --backend cpu | md5sum); b=$("$D/warpmatch" "$@" --backend cuda | md5sum)
  n=$("$D/warpmatch" "$@" --backend cpu | wc -l)
  if [[ $a == "$b" ]]; then echo "same ($n lines): $*"; else echo "DIFFER: $*"; fail=1; fi
}
