"""edit_distance / edit_distances against edlib and a plain DP; lcs against brute force."""
from __future__ import annotations

import random

import numpy as np
import pytest

import warpmatch
from conftest import apply_cigar, bytes_like_kinds, edit_distance_oracle, random_bytes


@pytest.mark.parametrize("seed", range(25))
def test_edit_distance_random(seed):
    rng = random.Random(seed)
    alphabet = bytes(range(256)) if seed % 5 == 0 else b"ACGT"
    a = random_bytes(rng, rng.randint(0, 80), alphabet)
    b = random_bytes(rng, rng.randint(0, 80), alphabet)
    want = edit_distance_oracle(a, b)
    r = warpmatch.edit_distance(a, b, align=True)
    assert r.distance == want
    out, cost = apply_cigar(a, b, r.cigar, distance_convention=True)
    assert out == b and cost == want
    assert warpmatch.edit_distance(a, b).cigar is None
    k = rng.randint(0, 10)
    bounded = warpmatch.edit_distance(a, b, k=k)
    assert bounded.distance == (want if want <= k else None)


@pytest.mark.parametrize("seed", range(10))
def test_edit_distance_against_edlib(seed):
    edlib = pytest.importorskip("edlib")
    rng = random.Random(500 + seed)
    a = random_bytes(rng, rng.randint(100, 5000), b"ACGT")
    b = bytearray(a)
    for _ in range(rng.randint(0, 200)):
        i = rng.randrange(len(b) + 1)
        op = rng.randrange(3)
        if op == 0 and i < len(b):
            b[i] = rng.choice(b"ACGT")
        elif op == 1:
            b.insert(i, rng.choice(b"ACGT"))
        elif i < len(b):
            del b[i]
    b = bytes(b)
    want = edlib.align(a, b, mode="NW", task="distance")["editDistance"]
    assert warpmatch.edit_distance(a, b).distance == want
    assert warpmatch.edit_distance(a, b, k=want).distance == want
    if want > 0:
        assert warpmatch.edit_distance(a, b, k=want - 1).distance is None


def test_edit_distance_every_kind(tmp_path):
    for name, a in bytes_like_kinds(b"kitten\x00", tmp_path):
        assert warpmatch.edit_distance(a, "sitting\x00").distance == 3, name
    assert warpmatch.edit_distance("", "").distance == 0
    assert warpmatch.edit_distance("", "", align=True).cigar == ""
    assert warpmatch.edit_distance("abc", "").distance == 3
    assert warpmatch.edit_distance("é", "e").distance == 2  # UTF-8 bytes


def test_edit_distances_pairs_and_cross():
    rng = random.Random(9)
    a = [random_bytes(rng, rng.randint(0, 40)) for _ in range(30)]
    b = [random_bytes(rng, rng.randint(0, 40)) for _ in range(30)]
    d = warpmatch.edit_distances(a, b)
    assert d.dtype == np.int64 and d.tolist() == [edit_distance_oracle(x, y) for x, y in zip(a, b)]
    m = warpmatch.edit_distances(a[:7], b[:5], cross=True)
    assert m.shape == (7, 5)
    assert m.tolist() == [[edit_distance_oracle(x, y) for y in b[:5]] for x in a[:7]]
    bounded = warpmatch.edit_distances(a, b, k=10)
    assert bounded.tolist() == [v if v <= 10 else -1 for v in d.tolist()]
    assert warpmatch.edit_distances([], []).tolist() == []
    assert warpmatch.edit_distances([b"ab"], [], cross=True).shape == (1, 0)


@pytest.mark.parametrize("k", [None, 0, 7, 60])
def test_edit_distances_cross_matrix_against_edlib_and_pairs(k):
    """cross=True runs the library's edit_distance_matrix: every cell equals edlib and the
    pair path (edit_distances over the explicit pairs), with and without a bound."""
    edlib = pytest.importorskip("edlib")
    rng = random.Random(31 if k is None else 31 + k)
    a = [random_bytes(rng, rng.randint(0, 300)) for _ in range(12)] + [b""]
    b = [random_bytes(rng, rng.randint(0, 300)) for _ in range(9)] + [b"", b"ACGT"]
    m = warpmatch.edit_distances(a, b, k=k, cross=True)
    assert m.shape == (len(a), len(b)) and m.dtype == np.int64
    pairs_a = [x for x in a for _ in b]
    pairs_b = [y for _ in a for y in b]
    assert m.ravel().tolist() == warpmatch.edit_distances(pairs_a, pairs_b, k=k).tolist()
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            want = edlib.align(x, y, mode="NW", task="distance")["editDistance"] if x and y else max(len(x), len(y))
            assert m[i, j] == (want if k is None or want <= k else -1), (i, j)
    one_row = warpmatch.edit_distances([a[0]], b, k=k, cross=True)
    assert one_row.tolist() == [m[0].tolist()]
    assert warpmatch.edit_distances([], b, cross=True).shape == (0, len(b))


def test_edit_distance_bad_arguments():
    with pytest.raises(ValueError, match="2 sequences in seqs_a but 1"):
        warpmatch.edit_distances(["a", "b"], ["a"])
    with pytest.raises(TypeError):
        warpmatch.edit_distances("ab", "cd")
    with pytest.raises(ValueError):
        warpmatch.edit_distance("a", "b", k=-2)
    with pytest.raises(ValueError):
        warpmatch.edit_distance("a", "b", backend="nope")
    with pytest.raises(TypeError):
        warpmatch.edit_distance("a", None)


def lcs_oracle(a: bytes, b: bytes):
    best, pairs, subs = 0, [], set()
    for i in range(len(a)):
        for j in range(len(b)):
            n = 0
            while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
                n += 1
            if n > best:
                best, pairs = n, []
            if n == best and n > 0:
                pairs.append((i, j))
    subs = {a[i : i + best] for i, _ in pairs}
    return best, len(subs), sorted(pairs)


def mem_oracle(a: bytes, b: bytes, min_length: int):
    out = []
    for i in range(len(a)):
        for j in range(len(b)):
            if i > 0 and j > 0 and a[i - 1] == b[j - 1]:
                continue
            n = 0
            while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
                n += 1
            if n >= min_length:
                out.append((i, j, n))
    return sorted(out)


@pytest.mark.parametrize("seed", range(20))
def test_lcs_random(seed):
    rng = random.Random(seed)
    alphabet = bytes(range(256)) if seed % 4 == 0 else b"ACG"
    a = random_bytes(rng, rng.randint(0, 60), alphabet)
    b = random_bytes(rng, rng.randint(0, 60), alphabet)
    length, count, pairs = lcs_oracle(a, b)
    r = warpmatch.lcs(a, b)
    assert (r.length, r.count, r.total_pairs) == (length, count if length else 0, len(pairs) if length else 0)
    assert r.positions.dtype.names == ("a", "b")
    assert [tuple(p) for p in r.positions.tolist()] == (pairs if length else [])
    limited = warpmatch.lcs(a, b, max_matches=1)
    assert len(limited.positions) == min(1, r.total_pairs) and limited.total_pairs == r.total_pairs
    mins = rng.randint(1, 4)
    mems = warpmatch.lcs(a, b, min_length=mins)
    want = mem_oracle(a, b, mins)
    assert mems.total == len(want)
    assert [tuple(m) for m in mems.mems.tolist()] == want[:1000]


def test_lcs_nul_and_kinds(tmp_path):
    for name, a in bytes_like_kinds(b"\x00\x00abc\x00", tmp_path):
        r = warpmatch.lcs(a, b"zz\x00abc\x00")
        assert r.length == 5 and r.positions.tolist() == [(1, 2)], name
    assert warpmatch.lcs("", "abc").length == 0
    with pytest.raises(ValueError):
        warpmatch.lcs("a", "b", min_length=0)
    with pytest.raises(ValueError):
        warpmatch.lcs("a", "b", min_length=-1)
