#!/usr/bin/env python3
"""What a Python user's call costs: warpmatch's functions next to the library a Python user
would otherwise call, in one run, on the same inputs, results checked equal first.

Most of our Python users call us in loops (one read, one primer, one pair at a time), on one
large buffer, or on many reads at once (find_many, count_many). So each row is timed two ways, by what it is: short calls as microseconds per call
(the binding's fixed cost dominates), large ones as GB/s. Peers (PyPI): edlib (edit distance,
best approximate hit), pyahocorasick (many literals), StringZilla (exact search), and Python's
own bytes.count. A peer that is not installed leaves its cell empty.

  python3 bench/python_calls.py                      # every row, table on stdout
  python3 bench/python_calls.py --rows distance_short,count_short --json out.json
  python3 bench/python_calls.py --backend cuda       # warpmatch's rows on the GPU

Each timing is the median of --repeats rounds; a per-call row's round runs its call in a loop
of about --round-seconds. The JSON holds the machine, the commit and warpmatch.build_info().
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import warpmatch

ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)


def dna(rng, n: int) -> bytes:
    return ACGT[rng.integers(0, 4, size=n)].tobytes()


def mutate(rng, s: bytes, rate: float) -> bytes:
    """s with about rate * len(s) random substitutions, insertions and deletions (a third each)."""
    x = np.frombuffer(s, dtype=np.uint8)
    r = rng.random(len(x))
    out = np.where(r < rate / 3, ACGT[rng.integers(0, 4, size=len(x))], x)  # substitutions
    insert = (r >= rate / 3) & (r < 2 * rate / 3)
    keep = ~((r >= 2 * rate / 3) & (r < rate))  # deletions dropped
    counts = keep.astype(np.int64) * (1 + insert)
    y = np.repeat(out, counts)
    ends = np.cumsum(counts) - 1
    y[ends[insert]] = ACGT[rng.integers(0, 4, size=int(insert.sum()))]  # the inserted byte after
    return y.tobytes()


def optional(name: str):
    try:
        return __import__(name)
    except ImportError:
        return None


def per_call(fn, round_seconds: float, repeats: int) -> float:
    """Median seconds per call of fn() over `repeats` rounds of about round_seconds each."""
    fn()  # warm: first-call costs (imports, a matcher's lazy state) are not a call's
    t0 = time.perf_counter()
    n = 0
    while n == 0 or time.perf_counter() - t0 < round_seconds / 4:
        fn()
        n += 1
    estimate = (time.perf_counter() - t0) / n
    loops = max(1, round(round_seconds / estimate))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


PEERS_TIMED = True


def peer_call(fn, round_seconds: float, repeats: int) -> float | None:
    """per_call for a peer, or None under --no-peers (their results are still checked)."""
    return per_call(fn, round_seconds, repeats) if PEERS_TIMED else None


class Row:
    def __init__(self, name: str, what: str, unit: str, bytes_per_call: int = 0):
        self.name, self.what, self.unit, self.bytes_per_call = name, what, unit, bytes_per_call
        self.cells: dict[str, float] = {}  # implementation -> seconds per call

    def add(self, impl: str, seconds: float | None):
        if seconds is not None:
            self.cells[impl] = seconds

    def show(self, s: float) -> str:
        if self.unit == "us":
            return f"{s * 1e6:.2f} us"
        if self.unit == "ms":
            return f"{s * 1e3:.2f} ms"
        return f"{self.bytes_per_call / s / 1e9:.2f} GB/s ({s * 1e3:.1f} ms)"


def check(name: str, ours, theirs):
    if ours != theirs:
        raise SystemExit(f"python_calls: {name}: warpmatch's result {ours!r} differs from the peer's {theirs!r}")


def rows_distance(args, rng, edlib, out):
    be = args.backend
    for name, n, rate in (("distance_short", 150, 0.1), ("distance_long", 10_000, 0.05)):
        a = dna(rng, n)
        b = mutate(rng, a, rate)
        r = Row(name, f"edit_distance of one pair of {len(a)} and {len(b)} bytes, per call", "us")
        ours = lambda: warpmatch.edit_distance(a, b, backend=be).distance
        if edlib:
            check(name, ours(), edlib.align(a, b, task="distance")["editDistance"])
            r.add("edlib", peer_call(lambda: edlib.align(a, b, task="distance"), args.round_seconds, args.repeats))
        r.add("warpmatch", per_call(ours, args.round_seconds, args.repeats))
        out.append(r)
    a = dna(rng, 1000)
    b = mutate(rng, a, 0.1)
    r = Row("align_1k", f"edit_distance(align=True) of {len(a)} and {len(b)} bytes, per call", "us")
    ours = lambda: warpmatch.edit_distance(a, b, align=True, backend=be)
    if edlib:
        check("align_1k", ours().distance, edlib.align(a, b, task="path")["editDistance"])
        r.add("edlib", peer_call(lambda: edlib.align(a, b, task="path"), args.round_seconds, args.repeats))
    r.add("warpmatch", per_call(ours, args.round_seconds, args.repeats))
    out.append(r)

    # 100,000 pairs of 100-300 bytes: one batch call against the loop a user writes with edlib.
    count = args.pairs
    lengths = rng.integers(100, 301, size=count)
    sa = [dna(rng, int(n)) for n in lengths]
    sb = [mutate(rng, s, 0.1) for s in sa]
    r = Row("distances_batch", f"edit_distances of {count} pairs of 100-300 bytes, per batch", "ms")
    ours = lambda: warpmatch.edit_distances(sa, sb, backend=be)
    if edlib:
        loop = lambda: [edlib.align(x, y, task="distance")["editDistance"] for x, y in zip(sa, sb)]
        check("distances_batch", ours().tolist(), loop())
        r.add("edlib (loop)", peer_call(loop, args.round_seconds, args.repeats))
    r.add("warpmatch", per_call(ours, args.round_seconds, args.repeats))
    out.append(r)


def rows_exact(args, rng, sz, ahocorasick, out):
    be = args.backend
    word = b"GATTACAG"
    line = dna(rng, 150)
    line = line[:60] + word + line[60:]
    m = warpmatch.ExactMatcher(word, backend=be)
    r = Row("count_short", f"ExactMatcher.count of an {len(word)}-byte word in a {len(line)}-byte read, per call", "us")
    check("count_short", m.count(line), line.count(word))
    r.add("bytes.count", peer_call(lambda: line.count(word), args.round_seconds, args.repeats))
    if sz:
        r.add("stringzilla.count", peer_call(lambda: sz.count(line, word), args.round_seconds, args.repeats))
    r.add("warpmatch", per_call(lambda: m.count(line), args.round_seconds, args.repeats))
    out.append(r)

    r = Row("find_short", f"ExactMatcher.find (positions) in a {len(line)}-byte read, per call", "us")
    check("find_short", m.find(line)["start"].tolist(), [line.find(word)])
    r.add("bytes.find", peer_call(lambda: line.find(word), args.round_seconds, args.repeats))
    r.add("warpmatch", per_call(lambda: m.find(line), args.round_seconds, args.repeats))
    out.append(r)

    r = Row("compile_count_short", "ExactMatcher(word).count(read): a new matcher per call", "us")
    r.add("bytes.count", peer_call(lambda: line.count(word), args.round_seconds, args.repeats))
    r.add("warpmatch", per_call(lambda: warpmatch.ExactMatcher(word, backend=be).count(line),
                                args.round_seconds, args.repeats))
    out.append(r)

    big = dna(rng, 1 << 20) * args.text_mib  # a repeated MiB: generation stays fast
    rare = b"ACGTTGCAACGTTGCAGG"
    r = Row("count_large", f"ExactMatcher.count of an {len(rare)}-byte word in {len(big) >> 20} MiB", "GB/s", len(big))
    mr = warpmatch.ExactMatcher(rare, backend=be)
    check("count_large", mr.count(big), _overlapping(big, rare))
    r.add("bytes.count", peer_call(lambda: big.count(rare), args.round_seconds, args.repeats))
    if sz:
        r.add("stringzilla.count", peer_call(lambda: sz.count(big, rare), args.round_seconds, args.repeats))
    r.add("warpmatch", per_call(lambda: mr.count(big), args.round_seconds, args.repeats))
    out.append(r)

    words_path = next((p for p in ("/usr/share/dict/american-english", "/usr/share/dict/words") if os.path.exists(p)), None)
    if words_path:
        with open(words_path, "rb") as f:
            vocab = [w for w in f.read().split() if len(w) >= 3 and w.isascii()]
        pick = rng.choice(len(vocab), size=1000, replace=False)
        words = sorted({vocab[i] for i in pick})
        filler = [vocab[i] for i in rng.integers(0, len(vocab), size=(args.text_mib << 20) // 9)]
        text = b" ".join(filler)
        mm = warpmatch.ExactMatcher(words, backend=be)
        r = Row("multi_large", f"ExactMatcher of {len(words)} words: count in {len(text) >> 20} MiB of words",
                "GB/s", len(text))
        if ahocorasick:
            A = ahocorasick.Automaton(ahocorasick.STORE_LENGTH)
            for w in words:
                A.add_word(w.decode())
            A.make_automaton()
            s = text.decode()
            aho = lambda: sum(1 for _ in A.iter(s))
            check("multi_large", mm.count(text), aho())
            r.add("pyahocorasick", peer_call(aho, args.round_seconds, max(1, args.repeats // 2)))
        r.add("warpmatch", per_call(lambda: mm.count(text), args.round_seconds, args.repeats))
        out.append(r)


def _overlapping(text: bytes, word: bytes) -> int:
    n, at = 0, text.find(word)
    while at >= 0:
        n += 1
        at = text.find(word, at + 1)
    return n


def rows_approx(args, rng, edlib, out):
    be = args.backend
    primer = dna(rng, 20)
    read = dna(rng, 150)
    read = read[:70] + mutate(rng, primer, 0.1) + read[70:]
    m = warpmatch.ApproxMatcher(primer, best=True, backend=be)
    r = Row("approx_best_short", f"ApproxMatcher(best=True): a {len(primer)}-byte primer in a {len(read)}-byte read, per call", "us")
    if edlib:
        theirs = edlib.align(primer, read, mode="HW", task="locations")
        check("approx_best_short", int(m.find(read)["distance"][0]), theirs["editDistance"])
        r.add("edlib HW", peer_call(lambda: edlib.align(primer, read, mode="HW", task="locations"),
                                   args.round_seconds, args.repeats))
    r.add("warpmatch", per_call(lambda: m.find(read), args.round_seconds, args.repeats))
    out.append(r)

    genome = dna(rng, args.genome_mib << 20)
    mk = warpmatch.ApproxMatcher(primer, k=3, backend=be)
    r = Row("approx_k_large", f"ApproxMatcher(k=3).find: a 20-byte primer in {args.genome_mib} MiB", "GB/s", len(genome))
    if edlib:
        # edlib reports the best distance's end positions only; with k=3 on random DNA that is
        # the count of ends at the minimum, which warpmatch's hits must contain.
        theirs = edlib.align(primer, genome, mode="HW", task="locations", k=3)
        hits = mk.find(genome)
        if theirs["editDistance"] >= 0:
            best_ends = {int(e) for e, d in zip(hits["end"], hits["distance"]) if d == theirs["editDistance"]}
            check("approx_k_large", best_ends >= {e + 1 for _, e in theirs["locations"]}, True)
        r.add("edlib HW k=3 (best only)", peer_call(lambda: edlib.align(primer, genome, mode="HW", task="locations", k=3),
                                                   args.round_seconds, max(1, args.repeats // 2)))
    r.add("warpmatch", per_call(lambda: mk.find(genome), args.round_seconds, args.repeats))
    out.append(r)


def rows_reads(args, rng, sz, edlib, out):
    """Many short reads: one call for all of them (count_many, find_many) against a Python loop
    of one call a read, ours and the peers'. Cells are seconds per read."""
    be = args.backend
    n = args.reads
    reads = [dna(rng, 150) for _ in range(n)]
    kmer = dna(rng, 8)
    m = warpmatch.ExactMatcher(kmer, backend=be)
    per_read = lambda fn, repeats=args.repeats: per_call(fn, args.round_seconds, repeats) / n
    peer_read = lambda fn: (peer_call(fn, args.round_seconds, max(1, args.repeats // 2)) or 0) / n or None
    r = Row("reads_count", f"ExactMatcher(8-mer).count_many over {n} reads of 150 nt, per read", "us")
    want = [_overlapping(x, kmer) for x in reads]
    check("reads_count", m.count_many(reads).tolist(), want)
    r.add("warpmatch count loop", peer_read(lambda: [m.count(x) for x in reads]))
    r.add("bytes.count loop (no overlaps)", peer_read(lambda: [x.count(kmer) for x in reads]))
    if sz:
        r.add("stringzilla.count loop", peer_read(lambda: [sz.count(x, kmer) for x in reads]))
    r.add("warpmatch", per_read(lambda: m.count_many(reads)))
    out.append(r)

    primer = dna(rng, 20)
    hit_reads = [x[:60] + mutate(rng, primer, 0.1) + x[60:] if i % 4 == 0 else x for i, x in enumerate(reads)]
    a = warpmatch.ApproxMatcher(primer, k=3, backend=be)
    r = Row("reads_approx", f"ApproxMatcher(20 nt, k=3).find_many over {n} reads (1 in 4 holds it), per read", "us")
    hits = a.find_many(hit_reads)
    if edlib:  # per read, the best distance within k: edlib's against the least of our hits'
        best = {}
        for t, d in zip(hits["text"].tolist(), hits["distance"].tolist()):
            best[t] = min(d, best.get(t, d))
        theirs = [edlib.align(primer, x, mode="HW", task="distance", k=3)["editDistance"] for x in hit_reads[:2000]]
        check("reads_approx", [best.get(i, -1) for i in range(len(theirs))], theirs)
        r.add("edlib HW k=3 loop (best only)",
              peer_read(lambda: [edlib.align(primer, x, mode="HW", task="locations", k=3) for x in hit_reads]))
    r.add("warpmatch find loop", peer_read(lambda: [a.find(x) for x in hit_reads]))
    r.add("warpmatch", per_read(lambda: a.find_many(hit_reads)))
    out.append(r)


def commit() -> str:
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="distance,exact,approx,reads", help="groups: distance, exact, approx, reads")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--round-seconds", type=float, default=0.2)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--text-mib", type=int, default=32)
    ap.add_argument("--no-peers", action="store_true", help="time warpmatch only (the peers once, in another run)")
    ap.add_argument("--genome-mib", type=int, default=16)
    ap.add_argument("--reads", type=int, default=100_000, help="reads of the 'reads' group")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    edlib, sz, ahocorasick = optional("edlib"), optional("stringzilla"), optional("ahocorasick")
    if args.no_peers:
        global PEERS_TIMED
        PEERS_TIMED = False
    groups = set(args.rows.split(","))
    rows: list[Row] = []
    if "distance" in groups:
        rows_distance(args, rng, edlib, rows)
    if "exact" in groups:
        rows_exact(args, rng, sz, ahocorasick, rows)
    if "approx" in groups:
        rows_approx(args, rng, edlib, rows)
    if "reads" in groups:
        rows_reads(args, rng, sz, edlib, rows)

    # The commit is the script's checkout; `module` says which installed warpmatch ran.
    info = {"commit": commit(), "module": os.path.dirname(warpmatch.__file__), "build": warpmatch.build_info(), "machine": platform.node(),
            "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "python": sys.version.split()[0], "backend": args.backend,
            "devices": [str(d) for d in warpmatch.devices()]}
    print(f"python_calls: script at commit {info['commit']}, warpmatch from {info['module']}, "
          f"{info['cores']} cores, backend {args.backend}, median of {args.repeats}")
    print(f"{'row':<22} {'warpmatch':>24} {'peer':>34}  ratio")
    for r in rows:
        ours = r.cells.get("warpmatch")
        peers = [(k, v) for k, v in r.cells.items() if k != "warpmatch"]
        first = True
        for k, v in peers or [("-", None)]:
            ratio = f"{v / ours:.2f}x" if v and ours else "-"
            peer = f"{k} {r.show(v)}" if v else "-"
            print(f"{r.name if first else '':<22} {r.show(ours) if first else '':>24} {peer:>34}  {ratio}")
            first = False
    print("ratio: the peer's time over warpmatch's (> 1: warpmatch is faster)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "rows": [{"name": r.name, "what": r.what, "unit": r.unit,
                                                "bytes_per_call": r.bytes_per_call, "seconds_per_call": r.cells}
                                               for r in rows]}, f, indent=1)


if __name__ == "__main__":
    main()
