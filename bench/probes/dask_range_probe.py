#!/usr/bin/env python3
"""What a warpmatch.dask task's way of reading its byte range costs, without Dask (issue 13).

N processes at once (fork), each scanning its share of a file in --block ranges the way a
plain-file task does (open, mmap, count over a memoryview of the range, close), with the
mapping made as --modes say: shared (Python's ACCESS_READ, the task's way today), private
(MAP_PRIVATE, the CLI's), and each of those with madvise POPULATE_READ (Linux 5.14: the range's
page tables filled in one call) or WILLNEED on the range first; `pread` copies each range
through a reusable 4 MiB buffer (os.preadv: no mapping, no page faults, one copy from the page
cache); `warm` maps the whole file once, reads it once untimed, then times the scan (page tables
already filled: what the direct single-process benchmark rows measure after their warm-up). A
mode ending in `@threads` runs the N shares as N threads of one process instead of N processes.
Per mode and N: the wall from the first start to the last end and the per-worker rate.

    python3 bench/probes/dask_range_probe.py FILE --workers 1,8 --block 256M
"""
import argparse
import mmap
import multiprocessing as mp
import os
import queue
import threading
import time

import warpmatch

MADV_POPULATE_READ = 22  # <linux/mman.h>; Python's mmap module does not name it


def size_arg(s: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * units[s[-1].upper()]) if s[-1].upper() in units else int(s)


PREAD_CHUNK = 4 << 20


def scan(path, ranges, mode, out, ready=None):
    mode = mode.split("@")[0]
    m = warpmatch.ExactMatcher(b"zyzzyva", backend="cpu", threads=1)
    total = 0
    if mode == "warm":
        with open(path, "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        view = memoryview(mm)
        for lo, hi in ranges:  # fills this process's page tables (untimed)
            m.count(view[lo:hi])
        if ready is not None:
            ready()
        t0 = time.perf_counter()
        for lo, hi in ranges:
            total += m.count(view[lo:hi])
        out.put((time.perf_counter() - t0, total))
        view.release()
        mm.close()
        return
    if mode == "pread":
        buf = bytearray(PREAD_CHUNK)
        view = memoryview(buf)
        fd = os.open(path, os.O_RDONLY)
        t0 = time.perf_counter()
        for lo, hi in ranges:  # chunks do not overlap: the probe's pattern is absent
            for at in range(lo, hi, PREAD_CHUNK):
                n = os.preadv(fd, [view[: min(PREAD_CHUNK, hi - at)]], at)
                total += m.count(view[:n])
        os.close(fd)
        out.put((time.perf_counter() - t0, total))
        view.release()
        return
    t0 = time.perf_counter()
    for lo, hi in ranges:
        with open(path, "rb") as f:
            if mode.startswith("private"):
                mm = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
            else:
                mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            page = mmap.PAGESIZE
            a = lo // page * page
            if mode.endswith("+populate"):
                mm.madvise(MADV_POPULATE_READ, a, hi - a)
            elif mode.endswith("+willneed"):
                mm.madvise(mmap.MADV_WILLNEED, a, hi - a)
            with memoryview(mm) as view:
                total += m.count(view[lo:hi])
            mm.close()
    out.put((time.perf_counter() - t0, total))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--workers", default="1,8")
    ap.add_argument("--block", default="256M")
    ap.add_argument("--modes", default="shared,shared+populate,shared+willneed,private,private+populate,pread,warm,"
                    "shared@threads,pread@threads")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    size = os.path.getsize(args.file)
    block = size_arg(args.block)
    ranges = [(lo, min(size, lo + block)) for lo in range(0, size, block)]
    print(f"{args.file}: {size / 2**30:.2f} GiB in {len(ranges)} ranges of {block >> 20} MiB; {os.cpu_count()} CPUs")
    ctx = mp.get_context("fork")
    for mode in args.modes.split(","):
        for n in [int(x) for x in args.workers.split(",")]:
            for _ in range(args.repeats):
                shares = [ranges[i::n] for i in range(n)]
                if mode.endswith("@threads"):
                    q = queue.Queue()
                    procs = [threading.Thread(target=scan, args=(args.file, s, mode, q)) for s in shares]
                    barrier = None
                else:
                    q = ctx.Queue()
                    # warm: each process fills its page tables, then all start the timed scan together
                    barrier = ctx.Barrier(n + 1) if mode == "warm" else None
                    procs = [ctx.Process(target=scan, args=(args.file, s, mode, q, barrier.wait if barrier else None))
                             for s in shares]
                if barrier:  # started before the clock, which runs from the barrier
                    for p in procs:
                        p.start()
                    barrier.wait()
                    t0 = time.perf_counter()
                else:
                    t0 = time.perf_counter()
                    for p in procs:
                        p.start()
                got = [q.get() for _ in procs]
                for p in procs:
                    p.join()
                wall = time.perf_counter() - t0
                busy = max(t for t, _ in got)
                print(f"{mode:18} N={n:<3} wall {wall:7.3f} s  {size / wall / 1e9:6.2f} GB/s  "
                      f"slowest process {busy:6.3f} s, per process {size / n / busy / 1e9:5.2f} GB/s  "
                      f"hits {sum(h for _, h in got)}")


if __name__ == "__main__":
    main()
