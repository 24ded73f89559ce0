#!/usr/bin/env python3
"""StringZilla's CUDA (or CPU) Levenshtein matrix, timed in-process: the peer of
`warpmatch distance --all-vs-all` (issue 12: "at least as fast as StringZilla's CUDA
LevenshteinDistances on its own cross product").

StringZilla 5's `stringzillas.LevenshteinDistances` computes the cross product of two string
collections. This script draws |A| x |B| random ACGT strings of MIN..MAX bytes (seeded), writes
them as A.fa and B.fa into --out-dir so that warpmatch computes the same matrix from the same
bytes, times the engine call after warm-up (median of --repeats; `sz.Strs` construction is timed
apart), and prints one JSON object: the timings, the matrix's shape and the sum of its
distances (warpmatch's sum must be equal).

  python3 bench/peers/stringzilla_matrix.py --out-dir /tmp/sz --a 317 --b 316
  warpmatch distance --all-vs-all /tmp/sz/A.fa /tmp/sz/B.fa --stats
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np


def random_strings(rng, count, lo, hi):
    alphabet = np.frombuffer(b"ACGT", dtype=np.uint8)
    lengths = rng.integers(lo, hi + 1, size=count)
    return [alphabet[rng.integers(0, 4, size=int(n))].tobytes() for n in lengths]


def write_fasta(path, prefix, strings):
    with open(path, "wb") as f:
        for i, s in enumerate(strings):
            f.write(b">%s%d\n%s\n" % (prefix.encode(), i, s))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", type=int, default=317, help="strings in A (matrix rows)")
    p.add_argument("--b", type=int, default=316, help="strings in B (matrix columns)")
    p.add_argument("--min", type=int, default=100, help="shortest string")
    p.add_argument("--max", type=int, default=300, help="longest string")
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--device", choices=["gpu", "cpu"], default="gpu")
    p.add_argument("--out-dir", required=True, help="where A.fa and B.fa are written")
    args = p.parse_args()

    rng = np.random.default_rng(args.seed)
    a = random_strings(rng, args.a, args.min, args.max)
    b = random_strings(rng, args.b, args.min, args.max)
    os.makedirs(args.out_dir, exist_ok=True)
    write_fasta(os.path.join(args.out_dir, "A.fa"), "a", a)
    write_fasta(os.path.join(args.out_dir, "B.fa"), "b", b)
    result = {"peer": "StringZilla LevenshteinDistances", "shape": [args.a, args.b],
              "cells": int(sum(len(x) for x in a) * sum(len(y) for y in b)), "device": args.device}
    try:
        import stringzilla as sz
        import stringzillas as szs
    except ImportError as e:  # the peer is optional: say so in the JSON, exit 0
        result["skip"] = f"cannot import stringzilla/stringzillas: {e}"
        print(json.dumps(result))
        return 0
    result["version"] = sz.__version__
    scope = szs.DeviceScope(gpu_device=0) if args.device == "gpu" else szs.DeviceScope()
    engine = szs.LevenshteinDistances(capabilities=scope)
    t0 = time.perf_counter()
    strs_a, strs_b = sz.Strs(a), sz.Strs(b)
    result["strs_ms"] = (time.perf_counter() - t0) * 1e3
    for _ in range(2):  # warm-up: CUDA context, module load, the engine's buffers
        d = engine(strs_a, strs_b, device=scope)
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        d = engine(strs_a, strs_b, device=scope)
        times.append((time.perf_counter() - t0) * 1e3)
    result["ms_median"] = statistics.median(times)
    result["ms_min"] = min(times)
    result["ms_all"] = [round(t, 4) for t in times]
    result["sum_distances"] = int(np.asarray(d, dtype=np.uint64).sum())
    result["capabilities"] = str(getattr(engine, "__capabilities__", ""))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
