#!/usr/bin/env python3
"""Dask scaling of warpmatch.dask.search on one host (issue 13).

Writes a plain DNA-like file of --bytes (default 4 GiB; random ACGT, --pattern holding 'N'
planted --plant times, so exact search finds exactly the planted copies), then for each N of
--workers (default 1,2,4,8,16, capped at the host's cores) starts a distributed.LocalCluster
of N worker processes (one thread each; matchers with threads=1) and times two jobs over the
file in --blocksize ranges, with the workers free to float over all cores and then pinned each to
its own share of them (warpmatch.dask.pin_workers; --pin):

  exact   warpmatch.dask.search(ExactMatcher(pattern)) and its hit count
  approx  warpmatch.dask.search(ApproxMatcher(pattern, k=--approx-k)) on the file's first
          --approx-bytes (default 1 GiB; CPU approximate search is several times slower)

One warm-up run (page cache, worker compile) then the median of --repeats. Besides each N's
speed-up over one worker (and efficiency = speed-up / N; the issue's target is >= 0.8 at N = 8
on the 16-core GPU host), every row is set against a direct single-process call of the same
job in this process on all cores (ExactMatcher(...).count / ApproxMatcher(...).find over the
mmap'd file, threads=0) and, where a GPU is visible, on the GPU (backend='cuda'); --cli PATH
also times the command line's `find -c` on the same file. With
dask-cuda installed and a GPU visible, a LocalCUDACluster smoke run (one worker per GPU,
backend='cuda') times the exact job too; without it the reason is printed.

Every run's hit count must equal the direct call's (exit status 2 otherwise). A run over its
--run-timeout, or a cluster that will not start in --start-timeout, is reported and the rest
goes on; --budget (s) stops before a worker count that would start past it. Output: a table,
and --json with every sample plus device, commit and versions.

    build/pyenv/bin/python bench/dask_scaling.py --bytes 4G --json dask_scaling.json
"""
from __future__ import annotations

import argparse
import json
import mmap
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import TimeoutError as FutureTimeout


def forget(future) -> None:
    """Releases a run's result and waits until the scheduler has dropped its key: the next run
    builds the same graph (same keys), and a compute that reached the scheduler before the
    release reused the result still held (a 64-task search then "took" 10 ms)."""
    key = future.key
    client = future.client
    future.release()
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline and client.run_on_scheduler(lambda dask_scheduler: key in dask_scheduler.tasks):
        time.sleep(0.002)


def parse_size(s: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().rstrip("B").rstrip("I")
    return int(float(s[:-1]) * units[s[-1]]) if s[-1] in units else int(s)


def make_input(path: str, size: int, pattern: bytes, plant: int, seed: int = 13) -> int:
    """Random ACGT in 16 MiB chunks (a pattern holding 'N' cannot occur by chance) with up to
    `plant` copies of the pattern at random places; returns how many were written (copies that
    would cross a chunk or overlap the one before are left out)."""
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


def commit_of() -> str:
    """The commit measured: WM_COMMIT (run_on_gpu.sh sets it from the staged build), else git."""
    if os.environ.get("WM_COMMIT"):
        return os.environ["WM_COMMIT"]
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("warpmatch", "numpy", "pandas", "dask", "distributed", "dask_cuda"):
        try:
            out[name] = __import__(name).__version__
        except Exception:  # absent, or failing to import: recorded, not fatal
            out[name] = None
    return out


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def timed(run, repeats: int):
    """(median seconds, samples, last result) of `repeats` runs after one warm-up."""
    result = run()
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        result = run()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples), samples, result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bytes", default="4G")
    ap.add_argument("--approx-bytes", default="1G", help="the approx job reads the file's first this many bytes")
    ap.add_argument("--workers", default="1,2,4,8,16", help="worker counts (capped at the host's cores)")
    ap.add_argument("--blocksize", default="auto",
                    help="byte range per task (default auto: warpmatch.dask.auto_blocksize, the input over twice "
                         "the cluster's threads, 64M to 1G; its comment has the sizes measured)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--plant", type=int, default=1000)
    ap.add_argument("--pattern", default="GATTACANNGATTACA")
    ap.add_argument("--approx-k", type=int, default=2)
    ap.add_argument("--jobs", default="exact,approx")
    ap.add_argument("--run-timeout", type=float, default=120, help="s per timed run")
    ap.add_argument("--start-timeout", type=float, default=90, help="s for a cluster to start")
    ap.add_argument("--budget", type=float, default=0, help="s for the whole benchmark (0 = none)")
    ap.add_argument("--no-cuda-cluster", action="store_true", help="skip the dask-cuda smoke run")
    ap.add_argument("--pin", choices=["off", "on", "both"], default="both",
                    help="workers pinned to their own share of the cores (warpmatch.dask.pin_workers): off, on, "
                         "or both, round by round interleaved on each cluster (default), each compared with one worker the same way")
    ap.add_argument("--cli", default=None, help="a warpmatch CLI to time `find -c` on the same file (cpu, and cuda "
                    "where a GPU is)")
    ap.add_argument("--dir", default=None, help="where the input file goes (default: a temp dir)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    started = time.perf_counter()

    import distributed

    import warpmatch
    import warpmatch.dask as wd

    size = parse_size(args.bytes)
    approx_size = min(size, parse_size(args.approx_bytes))
    blocksize = None if args.blocksize == "auto" else parse_size(args.blocksize)
    pattern = args.pattern.encode()
    cores = os.cpu_count() or 1
    counts = sorted({min(int(n), cores) for n in args.workers.split(",") if int(n) > 0})
    jobs = [j for j in args.jobs.split(",") if j]
    gpus = warpmatch.devices()
    info = {"host": platform.node(), "cpu": cpu_model(), "cores": cores, "gpus": [g["name"] for g in gpus],
            "commit": commit_of(), "versions": versions(), "warpmatch": warpmatch.build_info()}
    print(f"dask_scaling: commit {info['commit']}, {cores} cores ({info['cpu']}), GPUs {info['gpus'] or 'none'}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()))

    tmp = tempfile.mkdtemp(dir=args.dir, prefix="dask_scaling_")
    path = os.path.join(tmp, "input.txt")
    approx_path = os.path.join(tmp, "approx.txt")
    ok = True
    try:
        t0 = time.perf_counter()
        planted = make_input(path, size, pattern, args.plant)
        if "approx" in jobs:
            if approx_size == size:
                approx_path = path
            else:
                with open(path, "rb") as src, open(approx_path, "wb") as dst:
                    left = approx_size
                    while left:
                        left -= dst.write(src.read(min(left, 16 << 20)))
        print(f"input: {size / 1e9:.2f} GB ({planted} x {args.pattern}; approx job: first {approx_size / 1e9:.2f} GB, "
              f"k={args.approx_k}) in {tmp}, written in {time.perf_counter() - t0:.1f} s; blocksize "
              + (f"{blocksize >> 20} MiB" if blocksize else "auto (about two tasks per worker's thread, 64 MiB to 1 GiB)"))

        def job_input(job: str) -> tuple[str, int]:
            return (path, size) if job == "exact" else (approx_path, approx_size)

        def matcher(job: str, **kw):
            if job == "exact":
                return warpmatch.ExactMatcher(pattern, **kw)
            return warpmatch.ApproxMatcher(pattern, k=args.approx_k, **kw)

        # Direct single-process calls: the library on all cores, and on the GPU where one is.
        direct: dict[str, dict] = {}
        for job in jobs:
            p, nbytes = job_input(job)
            backends = ["cpu"] + (["cuda"] if gpus else [])
            for backend in backends:
                m = matcher(job, backend=backend, threads=0)

                # Mapped afresh each run, as a task maps its range: a mapping kept from the
                # warm-up has its page tables filled, which made the CPU row 1.5-2x faster
                # than a first call (twenty-ninth session, bench/BASELINE.md).
                def run(m=m, p=p, job=job):
                    with open(p, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                        return m.count(mm) if job == "exact" else len(m.find(mm))
                med, samples, hits = timed(run, args.repeats)
                direct[f"{job}/{backend}"] = {"seconds": med, "samples": samples, "hits": hits, "bytes": nbytes}
                print(f"direct {job:6} {backend:4}: {med:8.3f} s {nbytes / med / 1e9:7.2f} GB/s, {hits} hits")
        if args.cli and "exact" in jobs:
            for backend in ["cpu"] + (["cuda"] if gpus else []):
                cmd = [args.cli, "find", "-c", "--backend", backend, args.pattern, path]

                def run_cli():
                    out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.run_timeout)
                    return int(out.stdout.strip() or -1)
                try:
                    med, samples, hits = timed(run_cli, args.repeats)
                except (OSError, ValueError, subprocess.SubprocessError) as e:
                    print(f"!!! CLI {' '.join(cmd)}: {type(e).__name__}: {e}")
                    ok = False
                    continue
                direct[f"cli/{backend}"] = {"seconds": med, "samples": samples, "hits": hits, "bytes": size,
                                            "command": cmd}
                print(f"CLI    exact  {backend:4}: {med:8.3f} s {size / med / 1e9:7.2f} GB/s, {hits} hits")
                ok = ok and hits == planted
        if "exact" in jobs and direct["exact/cpu"]["hits"] != planted:
            print(f"!!! direct exact count {direct['exact/cpu']['hits']} != planted {planted}")
            ok = False

        rows = []
        for n in counts:
            elapsed = time.perf_counter() - started
            if args.budget and rows and elapsed > args.budget * 0.6:
                print(f"--- stopping before {n} workers: {elapsed:.0f} s of the {args.budget:.0f} s budget used")
                break
            t_start = time.perf_counter()
            try:
                cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                   dashboard_address=None, timeout=args.start_timeout)
            except Exception as e:  # a cluster that does not start: reported, the rest goes on
                print(f"!!! {n} workers: LocalCluster did not start ({type(e).__name__}: {e})")
                ok = False
                continue
            with cluster, distributed.Client(cluster, timeout=args.start_timeout) as client:
                client.wait_for_workers(n, timeout=args.start_timeout)
                start_s = time.perf_counter() - t_start
                # Free and pinned rounds interleaved (every other round in reverse order), as the
                # e2e benchmark times a job's rows: run one after the other, one worker's approx
                # drifted 3.4 -> 4.1 s between the blocks and made a ratio of the drift.
                states = {"off": [False], "on": [True], "both": [False, True]}[args.pin]
                for job in jobs:
                    p, nbytes = job_input(job)
                    m = matcher(job, backend="cpu", threads=1)

                    def run():
                        future = client.compute(wd.search(m, p, blocksize=blocksize))
                        try:
                            return len(future.result(timeout=args.run_timeout))
                        except FutureTimeout:
                            future.cancel()
                            raise
                        finally:
                            forget(future)
                    samples: dict[bool, list[float]] = {s: [] for s in states}
                    shares: dict[bool, dict] = {}
                    seen: set[int] = set()
                    try:
                        for r in range(args.repeats + 1):  # round 0 is each state's warm-up
                            for pinned in (states if r % 2 == 0 else states[::-1]):
                                shares[pinned] = wd.pin_workers(client, pin=pinned)
                                t = time.perf_counter()
                                seen.add(run())
                                if r:
                                    samples[pinned].append(time.perf_counter() - t)
                    except FutureTimeout:
                        print(f"!!! {n} workers, {job}: a run took over {args.run_timeout:.0f} s (--run-timeout)")
                        ok = False
                        continue
                    finally:
                        wd.pin_workers(client, pin=False)
                    want = direct[f"{job}/cpu"]["hits"]
                    if seen != {want}:
                        print(f"!!! {n} workers, {job}: {sorted(seen)} hits, the direct call found {want}")
                        ok = False
                    hits = want if seen == {want} else sorted(seen)
                    for pinned in states:
                        med = statistics.median(samples[pinned])
                        rows.append({"job": job, "workers": n, "pinned": pinned, "seconds": med,
                                     "samples": samples[pinned], "hits": hits, "bytes": nbytes,
                                     "cluster_start_s": start_s, "cpus": dict(shares[pinned])})
                        print(f"{n:3} workers {job:6} {'pinned' if pinned else 'free  '}: {med:8.3f} s "
                              f"{nbytes / med / 1e9:7.2f} GB/s (cluster up in {start_s:.1f} s"
                              + (f"; CPUs per worker {sorted(len(c) for c in shares[pinned].values())}"
                                 if pinned else "") + ")")

        cuda_row = None
        if "exact" in jobs and not args.no_cuda_cluster:
            cuda_row = cuda_cluster_smoke(args, path, size, pattern, planted, bool(gpus))
            ok = ok and (cuda_row is None or cuda_row.get("ok", True))

        print(f"\n{'job':6} {'workers':>7} {'pinned':>6} {'median s':>9} {'GB/s':>7} {'vs 1 worker':>11} "
              f"{'efficiency':>10} {'vs direct cpu':>13}" + (f" {'vs direct cuda':>14}" if gpus else ""))
        for job, pinned in [(job, pinned) for job in jobs for pinned in (False, True)]:
            mine = [r for r in rows if r["job"] == job and r["pinned"] == pinned]
            if not mine:
                continue
            one = next((r["seconds"] for r in mine if r["workers"] == 1), None)
            for r in mine:
                r["speedup"] = one / r["seconds"] if one else None
                r["efficiency"] = r["speedup"] / r["workers"] if one else None
                r["vs_direct_cpu"] = direct[f"{job}/cpu"]["seconds"] / r["seconds"]
                r["vs_direct_cuda"] = direct[f"{job}/cuda"]["seconds"] / r["seconds"] if gpus else None
                cells = [f"{r['speedup']:11.2f}" if one else f"{'-':>11}",
                         f"{r['efficiency']:10.2f}" if one else f"{'-':>10}",
                         f"{r['vs_direct_cpu']:13.3f}"]
                if gpus:
                    cells.append(f"{r['vs_direct_cuda']:14.3f}")
                print(f"{job:6} {r['workers']:>7} {'yes' if pinned else 'no':>6} {r['seconds']:>9.3f} "
                      f"{r['bytes'] / r['seconds'] / 1e9:>7.2f} " + " ".join(cells))
            eight = next((r for r in mine if r["workers"] == 8 and r["speedup"]), None)
            if eight:
                verdict = "MET" if eight["speedup"] >= 6.4 else "NOT MET"
                print(f"target ({job}, {'pinned' if pinned else 'not pinned'}): speed-up >= 0.8 x 8 = 6.4 at 8 "
                      f"workers: {eight['speedup']:.2f} {verdict}")
        print("(vs direct: the direct single-process call's seconds / the cluster's; > 1 = the cluster is faster)")
        if cuda_row and "seconds" in cuda_row:
            print(f"LocalCUDACluster ({cuda_row['workers']} GPU worker(s)), exact: {cuda_row['seconds']:.3f} s "
                  f"{size / cuda_row['seconds'] / 1e9:.2f} GB/s; direct cuda call "
                  f"{direct['exact/cuda']['seconds']:.3f} s")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"info": info, "bytes": size, "approx_bytes": approx_size, "blocksize": blocksize,
                           "pattern": args.pattern, "approx_k": args.approx_k, "planted": planted,
                           "repeats": args.repeats, "direct": direct, "rows": rows, "cuda_cluster": cuda_row,
                           "ok": ok, "seconds_total": time.perf_counter() - started}, f, indent=1)
            print(f"JSON: {args.json}")
        return 0 if ok else 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cuda_cluster_smoke(args, path: str, size: int, pattern: bytes, planted: int, have_gpu: bool) -> dict | None:
    """The exact job on a dask-cuda LocalCUDACluster (one worker per GPU, backend='cuda'), or
    None with the reason printed when dask-cuda or a GPU is missing."""
    if not have_gpu:
        print("LocalCUDACluster: skipped (no GPU visible to warpmatch)")
        return None
    try:
        from dask_cuda import LocalCUDACluster
    except Exception as e:  # not installed, or its dependencies missing (numba, pynvml)
        print(f"LocalCUDACluster: skipped (dask_cuda not importable: {type(e).__name__}: {e})")
        return None
    import distributed

    import warpmatch
    import warpmatch.dask as wd

    try:
        with LocalCUDACluster(dashboard_address=None, timeout=args.start_timeout) as cluster, \
                distributed.Client(cluster, timeout=args.start_timeout) as client:
            workers = len(client.scheduler_info()["workers"])
            m = warpmatch.ExactMatcher(pattern, backend="cuda", threads=1)

            def run():
                return len(client.compute(wd.search(m, path, blocksize=None if args.blocksize == "auto" else parse_size(args.blocksize)))
                           .result(timeout=args.run_timeout))
            med, samples, hits = timed(run, args.repeats)
    except Exception as e:
        print(f"!!! LocalCUDACluster run failed: {type(e).__name__}: {e}")
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    if hits != planted:
        print(f"!!! LocalCUDACluster: {hits} hits, planted {planted}")
    return {"ok": hits == planted, "workers": workers, "seconds": med, "samples": samples, "hits": hits}


if __name__ == "__main__":
    sys.exit(main())
