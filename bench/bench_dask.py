#!/usr/bin/env python3
"""Dask scaling of warpmatch.dask.search on the CPU backend (issue 13).

Writes a plain DNA-like file of --bytes (default 4 GiB) with a rare pattern planted --plant
times, then for N = 1, 2, 4, ... --max-workers (default: all cores) starts a
distributed.LocalCluster of N worker processes (one thread each; the matcher uses 1 thread per
task), runs warpmatch.dask.search over the file in --blocksize ranges, and prints the median
wall time, GB/s, speed-up over N = 1 and efficiency (speed-up / N; the issue's target is
>= 0.8 at N = 8 on the 16-core GPU host). Every run's hit count must equal the planted count
(exit status 2 otherwise). With --cli, the same search by the command line
(`warpmatch find -c`) for comparison. --json writes every sample.

    build/pyenv/bin/python bench/bench_dask.py --bytes 4G --max-workers 16 --json dask.json

The page cache matters: the file is read once before timing (a warm-up run per N).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def parse_size(s: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().rstrip("B").rstrip("I")
    return int(float(s[:-1]) * units[s[-1]]) if s[-1] in units else int(s)


def make_input(path: str, size: int, pattern: bytes, plant: int, seed: int = 13) -> int:
    """Random ACGT in 16 MiB chunks (the default pattern cannot occur by chance: it holds 'N')
    with up to `plant` copies of the pattern at random places; returns how many were written
    (copies that would cross a chunk or overlap the one before are left out)."""
    rng = random.Random(seed)
    chunk = 16 << 20
    table = bytes.maketrans(bytes(range(256)), b"ACGT" * 64)
    positions = sorted(rng.randrange(0, max(1, size - len(pattern))) for _ in range(plant))
    with open(path, "wb") as f:
        written, planted, last_end = 0, 0, -1
        while written < size:
            n = min(chunk, size - written)
            block = bytearray(os.urandom(n).translate(table))
            for p in positions:
                if written <= p and p + len(pattern) <= written + n and p >= last_end:
                    block[p - written : p - written + len(pattern)] = pattern
                    planted += 1
                    last_end = p + len(pattern)
            f.write(block)
            written += n
    return planted


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bytes", default="4G")
    ap.add_argument("--max-workers", type=int, default=os.cpu_count())
    ap.add_argument("--blocksize", default="64M")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--plant", type=int, default=1000)
    ap.add_argument("--pattern", default="GATTACANNGATTACA")
    ap.add_argument("--approx-k", type=int, default=None, help="search with ApproxMatcher(k) instead")
    ap.add_argument("--dir", default=None, help="where the input file goes (default: a temp dir)")
    ap.add_argument("--cli", default=None, help="path of the warpmatch CLI to time on the same file")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import distributed

    import warpmatch
    import warpmatch.dask as wd

    size = parse_size(args.bytes)
    blocksize = parse_size(args.blocksize)
    pattern = args.pattern.encode()
    tmp = tempfile.mkdtemp(dir=args.dir, prefix="bench_dask_")
    path = os.path.join(tmp, "input.txt")
    try:
        t0 = time.perf_counter()
        expected = make_input(path, size, pattern, args.plant)
        print(f"input: {size / 1e9:.2f} GB at {path} ({time.perf_counter() - t0:.1f} s to write), "
              f"{expected} x {args.pattern}, blocksize {blocksize >> 20} MiB")
        if args.approx_k is None:
            matcher = warpmatch.ExactMatcher(pattern, threads=1, backend="cpu")
        else:
            matcher = warpmatch.ApproxMatcher(pattern, k=args.approx_k, threads=1, backend="cpu")
        ns = []
        n = 1
        while n < args.max_workers:
            ns.append(n)
            n *= 2
        ns.append(args.max_workers)
        rows, ok = [], True
        for n in ns:
            with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                          dashboard_address=None) as cluster, distributed.Client(cluster) as client:
                samples = []
                for rep in range(args.repeats + 1):  # the first is a warm-up (page cache, compile)
                    t = time.perf_counter()
                    hits = wd.search(matcher, path, blocksize=blocksize).compute()
                    dt = time.perf_counter() - t
                    if args.approx_k is None and len(hits) != expected:
                        print(f"!!! N={n}: {len(hits)} hits, expected {expected}")
                        ok = False
                    if rep:
                        samples.append(dt)
                med = statistics.median(samples)
                rows.append({"workers": n, "seconds": med, "samples": samples, "hits": len(hits)})
                client.close()
        base = rows[0]["seconds"]
        print(f"\n{'workers':>7} {'median s':>9} {'GB/s':>7} {'speed-up':>8} {'efficiency':>10}")
        for r in rows:
            r["speedup"] = base / r["seconds"]
            r["efficiency"] = r["speedup"] / r["workers"]
            print(f"{r['workers']:>7} {r['seconds']:>9.3f} {size / r['seconds'] / 1e9:>7.2f} "
                  f"{r['speedup']:>8.2f} {r['efficiency']:>10.2f}")
        cli_row = None
        if args.cli:
            cmd = [args.cli, "find", "-c", "--backend", "cpu", args.pattern, path]
            times = []
            for rep in range(args.repeats + 1):
                t = time.perf_counter()
                out = subprocess.run(cmd, check=False, capture_output=True, text=True).stdout.strip()
                if rep:
                    times.append(time.perf_counter() - t)
            cli_row = {"command": cmd, "seconds": statistics.median(times), "output": out}
            print(f"\nCLI ({' '.join(cmd)}): {cli_row['seconds']:.3f} s, "
                  f"{size / cli_row['seconds'] / 1e9:.2f} GB/s, count {out}")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"bytes": size, "blocksize": blocksize, "pattern": args.pattern, "approx_k": args.approx_k,
                           "host_cores": os.cpu_count(), "warpmatch": warpmatch.build_info(), "rows": rows,
                           "cli": cli_row}, f, indent=1)
        return 0 if ok else 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
