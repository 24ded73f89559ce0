"""Shared fixtures and oracles for warpmatch's Python tests.

The oracles are independent of warpmatch: plain Python loops, pyahocorasick, edlib.
"""
from __future__ import annotations

import mmap
import random

import numpy as np
import pytest

import warpmatch

HAVE_GPU = bool(warpmatch.devices())
requires_gpu = pytest.mark.skipif(
    not HAVE_GPU,
    reason="no CUDA GPU visible to warpmatch (devices() is empty"
    + ("" if warpmatch.build_info()["cuda_compiled"] else "; this build has no CUDA")
    + "): GPU test skipped",
)


def random_bytes(rng: random.Random, n: int, alphabet: bytes = b"ACGT") -> bytes:
    return bytes(rng.choice(alphabet) for _ in range(n))


def exact_oracle(text: bytes, patterns: list[bytes]) -> list[tuple[int, int, int]]:
    """Every (pattern, start, end) by a double loop, in (start, pattern) order."""
    out = []
    for s in range(len(text)):
        for i, p in enumerate(patterns):
            if text.startswith(p, s):
                out.append((i, s, s + len(p)))
    return out


def edit_distance_oracle(a: bytes, b: bytes) -> int:
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[-1]


def approx_oracle(text: bytes, pattern: bytes, k: int | None, best: bool) -> list[tuple[int, int, int]]:
    """(start, end, distance) per the header's semantics: for each end e, dist(e) = min over
    s <= e of ED(pattern, text[s:e]); start = the largest s reaching it. O(n^2 m)."""
    hits = []
    for e in range(1, len(text) + 1):
        best_d, best_s = None, None
        for s in range(e, -1, -1):
            d = edit_distance_oracle(pattern, text[s:e])
            if best_d is None or d < best_d:
                best_d, best_s = d, s
        hits.append((best_s, e, best_d))
    if best:
        if not hits:
            return []
        dmin = min(h[2] for h in hits)
        if k is not None and dmin > k:
            return []
        return [h for h in hits if h[2] == dmin]
    kk = min(k, len(pattern))
    return [h for h in hits if h[2] <= kk]


def apply_cigar(a: bytes, b_piece: bytes, cigar: str, distance_convention: bool = False) -> tuple[bytes, int]:
    """Applies a '=XID' CIGAR to a (reading replacement/inserted bytes from b_piece).

    One convention (SAM's, a the query): 'I' is a byte of a absent from b (the text),
    'D' a byte of b absent from a. `distance_convention` is kept for callers; since issue 16
    edit_distance uses the same convention as approximate search."""
    import re

    out, i, j, cost = bytearray(), 0, 0, 0
    for n, op in re.findall(r"(\d+)([=XID])", cigar):
        n = int(n)
        if op == "=":
            assert a[i : i + n] == b_piece[j : j + n]
            out += a[i : i + n]
            i += n
            j += n
        elif op == "X":
            out += b_piece[j : j + n]
            i += n
            j += n
            cost += n
        elif op == "I":  # a pattern (a) byte absent from the text: consumes a
            i += n
            cost += n
        else:  # 'D': a text byte absent from the pattern
            out += b_piece[j : j + n]
            j += n
            cost += n
    assert i == len(a)
    return bytes(out), cost


def bytes_like_kinds(data: bytes, tmp_path) -> list[tuple[str, object]]:
    """The same bytes as every accepted kind of input."""
    kinds: list[tuple[str, object]] = [
        ("bytes", data),
        ("bytearray", bytearray(data)),
        ("memoryview", memoryview(data)),
        ("memoryview-slice", memoryview(b"##" + data + b"##")[2 : 2 + len(data)]),
        ("numpy-uint8", np.frombuffer(data, dtype=np.uint8).copy()),
        ("numpy-int8", np.frombuffer(data, dtype=np.int8)),
    ]
    if data:
        path = tmp_path / "mm.bin"
        path.write_bytes(data)
        f = open(path, "rb")
        kinds.append(("mmap", mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)))
        f.close()
    return kinds
