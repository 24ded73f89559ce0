#!/usr/bin/env python3
"""Why some Dask tasks of the same 1 GiB range take 1.5-1.9x longer on 8 workers (issue 13):
does a task's thread lose its CPU (thread time below wall, involuntary switches) or run slower
on it? Tasks submitted directly (client.submit), each mapping the file and counting a rare word
over its range, timed inside the task; 1 worker, 8 workers, then 8 workers pinned to CPUs
0, 2, .., 14. Its finding (2026-11-26, H200 host, 8 GiB of zeros): the slow tasks ran the whole
time (thread time = wall, no involuntary switches) but slower, 94-192 ms against 90-112 alone;
pinned, 93-141 ms (bench/BASELINE.md).

    python3 bench/probes/dask_task_probe.py FILE     (8 GiB, in the page cache)
"""
import mmap, os, resource, sys, time
import distributed
import warpmatch
def getcpu():
    import ctypes
    return ctypes.CDLL(None).sched_getcpu()

PATH = sys.argv[1]
SIZE = os.path.getsize(PATH)
_m = None

def task(lo, hi):
    global _m
    if _m is None:
        _m = warpmatch.ExactMatcher(b"zyzzyva", backend="cpu", threads=1)
    r0 = resource.getrusage(resource.RUSAGE_THREAD)
    c0 = getcpu(); w0 = time.perf_counter(); t0 = time.thread_time()
    with open(PATH, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        with memoryview(mm) as v:
            n = _m.count(v[lo:hi])
        w1 = time.perf_counter()
    w2 = time.perf_counter(); t1 = time.thread_time(); c1 = getcpu()
    r1 = resource.getrusage(resource.RUSAGE_THREAD)
    return dict(lo=lo, scan=(w1 - w0) * 1e3, unmap=(w2 - w1) * 1e3, cpu=(t1 - t0) * 1e3, c0=c0, c1=c1,
                inv=r1.ru_nivcsw - r0.ru_nivcsw, vol=r1.ru_nvcsw - r0.ru_nvcsw, minflt=r1.ru_minflt - r0.ru_minflt,
                pid=os.getpid(), n=n)

def pin(dask_worker):
    i = int(dask_worker.name)
    cpu = 2 * i
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), {cpu})
        except OSError:
            pass
    return cpu

def rounds(client, label, nworkers, reps=4):
    GB = 1 << 30
    ranges = [(lo, min(SIZE, lo + GB)) for lo in range(0, SIZE, GB)]
    for r in range(reps):
        t = time.perf_counter()
        futs = [client.submit(task, lo, hi, pure=False) for lo, hi in ranges]
        res = client.gather(futs)
        wall = (time.perf_counter() - t) * 1e3
        print(f"{label} round {r}: wall {wall:.0f} ms; tasks (scan/cpu/unmap ms, cpu start>end, invol/vol switches, minflt):")
        for x in sorted(res, key=lambda x: -x["scan"]):
            print(f"   pid {x['pid']} {x['scan']:6.1f}/{x['cpu']:6.1f}/{x['unmap']:5.1f}  cpu {x['c0']}>{x['c1']}  "
                  f"sw {x['inv']}/{x['vol']}  flt {x['minflt']}")
        sys.stdout.flush()

if __name__ == "__main__":
    for n in (1, 8):
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
             distributed.Client(c) as client:
            client.wait_for_workers(n)
            rounds(client, f"{n} workers", n, reps=2 if n == 1 else 4)
            if n == 8:
                print("pinned:", client.run(pin))
                rounds(client, "8 workers pinned to 0,2,..,14", n)
