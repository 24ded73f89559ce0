"""ApproxMatcher against a plain-Python semi-global DP and edlib (HW mode)."""
from __future__ import annotations

import random
import threading

import numpy as np
import pytest

import warpmatch
from conftest import apply_cigar, approx_oracle, bytes_like_kinds, random_bytes


def rows(hits) -> list[tuple[int, int, int]]:
    return [(int(s), int(e), int(d)) for s, e, d in hits[["start", "end", "distance"]].tolist()]


def test_dtype_is_the_contract():
    hits = warpmatch.ApproxMatcher("abc", k=1).find("xabx")
    assert hits.dtype.names == ("pattern", "strand", "start", "end", "distance")
    assert [hits.dtype[n] for n in hits.dtype.names] == [np.dtype(t) for t in ("u4", "S1", "u8", "u8", "u4")]


@pytest.mark.parametrize("seed", range(25))
def test_all_hits_random(seed):
    rng = random.Random(seed)
    alphabet = b"AC" if seed % 2 else b"ACGT"
    text = random_bytes(rng, rng.randint(0, 60), alphabet)
    pattern = random_bytes(rng, rng.randint(1, 7), alphabet)
    k = rng.randint(0, len(pattern) + 1)
    hits = warpmatch.ApproxMatcher(pattern, k=k).find(text)
    assert rows(hits) == approx_oracle(text, pattern, k, best=False)
    assert set(hits["pattern"].tolist()) <= {0}


@pytest.mark.parametrize("seed", range(15))
def test_best_mode_random(seed):
    rng = random.Random(1000 + seed)
    text = random_bytes(rng, rng.randint(1, 60), b"ACGT")
    pattern = random_bytes(rng, rng.randint(1, 7), b"ACGT")
    k = None if seed % 3 else rng.randint(0, 3)
    hits = warpmatch.ApproxMatcher(pattern, k=k, best=True).find(text)
    assert rows(hits) == approx_oracle(text, pattern, k, best=True)


@pytest.mark.parametrize("seed", range(15))
def test_best_mode_against_edlib(seed):
    edlib = pytest.importorskip("edlib")
    rng = random.Random(2000 + seed)
    text = random_bytes(rng, rng.randint(50, 3000), b"ACGT")
    pattern = random_bytes(rng, rng.randint(5, 40), b"ACGT")
    if seed % 2:
        s = rng.randint(0, len(text) - 1)
        pattern = text[s : s + len(pattern)]  # a near-exact occurrence
    r = edlib.align(pattern, text, mode="HW", task="locations")
    hits = warpmatch.ApproxMatcher(pattern, best=True).find(text)
    assert set(hits["distance"].tolist()) == {r["editDistance"]}
    assert hits["end"].tolist() == sorted({e + 1 for _, e in r["locations"]})


@pytest.mark.parametrize("seed", range(10))
def test_pattern_set_and_cigars(seed):
    rng = random.Random(3000 + seed)
    text = random_bytes(rng, rng.randint(0, 50), b"ACG")
    patterns = [random_bytes(rng, rng.randint(1, 6), b"ACG") for _ in range(3)]
    k = rng.randint(0, 2)
    hits = warpmatch.ApproxMatcher(patterns, k=k, cigar=True).find(text)
    assert isinstance(hits, warpmatch.Hits) and len(hits.cigars) == len(hits)
    want = []
    for i, p in enumerate(patterns):
        want += [(i,) + h for h in approx_oracle(text, p, k, best=False)]
    assert [(int(p),) + r for p, r in zip(hits["pattern"].tolist(), rows(hits))] == want
    for (p, s, e, d), cigar in zip(hits[["pattern", "start", "end", "distance"]].tolist(), hits.cigars):
        out, cost = apply_cigar(patterns[p], text[s:e], cigar)
        assert out == text[s:e] and cost == d


def test_no_cigars_unless_asked():
    hits = warpmatch.ApproxMatcher("abc", k=1).find("xabcx")
    assert not isinstance(hits, warpmatch.Hits)
    assert not hasattr(hits, "cigars")


def test_every_bytes_like_kind(tmp_path):
    data = b"xxGATACAxx\x00GATTACA"
    want = rows(warpmatch.ApproxMatcher("GATTACA", k=1).find(data))
    assert want == approx_oracle(data, b"GATTACA", 1, best=False)
    for name, text in bytes_like_kinds(data, tmp_path):
        assert rows(warpmatch.ApproxMatcher("GATTACA", k=1).find(text)) == want, name


def test_nul_and_edges():
    assert rows(warpmatch.ApproxMatcher(b"\x00\x01", k=0).find(b"\x01\x00\x01\x00")) == [(1, 3, 0)]
    assert len(warpmatch.ApproxMatcher("abc", k=1).find(b"")) == 0
    # k >= m: every end qualifies
    assert len(warpmatch.ApproxMatcher("ab", k=5).find("xyzw")) == 4
    # a pattern longer than the text
    assert rows(warpmatch.ApproxMatcher("AAAA", best=True).find("AA")) == [(0, 1, 3), (0, 2, 2)][1:]


def test_threads_share_a_matcher():
    rng = random.Random(11)
    texts = [random_bytes(rng, 5000, b"ACGT") for _ in range(6)]
    m = warpmatch.ApproxMatcher([b"ACGTAC", b"GGGTTT"], k=1, threads=1)
    want = [m.find(t).tolist() for t in texts]
    errors = []

    def work(i):
        try:
            for _ in range(3):
                assert m.find(texts[i]).tolist() == want[i]
        except Exception as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


def test_properties_and_pickle():
    import pickle

    m = warpmatch.ApproxMatcher(["abc", "de"], k=1, cigar=True)
    assert m.k == 1 and not m.best and m.cigar and m.pattern_count == 2 and m.overlap == 4
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.find("xabdex").tolist() == m.find("xabdex").tolist()
    assert m2.find("xabdex").cigars == m.find("xabdex").cigars


def test_bad_arguments():
    with pytest.raises(ValueError):
        warpmatch.ApproxMatcher("abc")  # k required in all-hits mode
    with pytest.raises(warpmatch.InvalidArgument, match="k = -1"):
        warpmatch.ApproxMatcher("abc", k=-1)
    with pytest.raises(ValueError):
        warpmatch.ApproxMatcher("", k=1)
    with pytest.raises(ValueError):
        warpmatch.ApproxMatcher([], k=1)
    with pytest.raises(ValueError):
        warpmatch.ApproxMatcher("a", k=1, backend="fast")
    with pytest.raises(TypeError):
        warpmatch.ApproxMatcher("a", k="two")
    with pytest.raises(TypeError):
        warpmatch.ApproxMatcher("a", k=1).find(1.5)
