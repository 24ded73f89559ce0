"""find_many / count_many: many texts in one call (short ones searched together, as a file
of reads is) must give exactly what a loop of find / count calls gives, text by text, and the
exact rows must equal a naive search's."""
from __future__ import annotations

import random

import numpy as np
import pytest

import warpmatch
from conftest import approx_oracle, exact_oracle, random_bytes


def reads(seed: int, n: int, longest: int = 300, alphabet: bytes = b"ACGT") -> list[bytes]:
    rng = random.Random(seed)
    out = [random_bytes(rng, rng.randint(0, longest), alphabet) for _ in range(n)]
    out[n // 3] = b""  # empty texts among the others
    return out


def loop_rows(matcher, texts, fields):
    """find(text) for each text, as (text index, *fields) tuples, in find's order."""
    rows = []
    for i, t in enumerate(texts):
        rows += [(i, *r) for r in matcher.find(t)[fields].tolist()]
    return rows


@pytest.mark.parametrize("patterns", [b"ACGTA", [b"ACG", b"CGTT", b"GGG", b"A"], [b"T" * 20]])
def test_exact_find_many_equals_a_loop_and_the_oracle(patterns):
    texts = reads(1, 3000)  # ~450 KB: several texts a run, and runs of ~1 MiB... and one
    texts += reads(2, 3, longest=3_000_000)  # texts too long for a run: searched alone
    m = warpmatch.ExactMatcher(patterns)
    got = m.find_many(texts)
    assert got.dtype.names == ("text", "pattern", "strand", "start", "end")
    rows = got[["text", "pattern", "start", "end"]].tolist()
    assert rows == loop_rows(m, texts, ["pattern", "start", "end"])
    pats = patterns if isinstance(patterns, list) else [patterns]
    oracle = [(i, *r) for i, t in enumerate(texts[:500]) for r in exact_oracle(t, pats)]
    assert [r for r in rows if r[0] < 500] == oracle
    counts = m.count_many(texts)
    assert counts.dtype == np.uint64 and counts.tolist() == [m.count(t) for t in texts]
    assert counts.tolist() == np.bincount(got["text"].astype(np.int64), minlength=len(texts)).tolist()


def test_exact_many_hits_across_two_texts_are_not_reported():
    # Texts laid end to end: "AC" + "GT" holds ACGT across the seam, which is no text's hit.
    m = warpmatch.ExactMatcher(b"ACGT")
    texts = [b"AC", b"GT", b"xACGT", b"ACG", b"T"] * 50
    assert m.count_many(texts).tolist() == [0, 0, 1, 0, 0] * 50
    assert m.find_many(texts)[["text", "start"]].tolist() == [(i * 5 + 2, 1) for i in range(50)]


def test_many_takes_every_kind_of_text_and_refuses_a_single_one():
    m = warpmatch.ExactMatcher("ab")
    texts = ["xab", b"ab\x00ab", bytearray(b"abab"), memoryview(b"zab"), np.frombuffer(b"ab", np.uint8)]
    assert m.count_many(texts).tolist() == [1, 2, 2, 1, 1]
    assert m.count_many(t for t in [b"ab", b"abab"]).tolist() == [1, 2]  # any iterable
    assert m.count_many([]).tolist() == [] and len(m.find_many([])) == 0
    for single in (b"abab", "abab", bytearray(b"ab")):
        with pytest.raises(TypeError, match="sequence of texts"):
            m.find_many(single)
        with pytest.raises(TypeError, match="sequence of texts"):
            m.count_many(single)
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        m.count_many([b"ab", 3])
    with pytest.raises(TypeError):
        warpmatch.ApproxMatcher("ab", k=1).find_many(b"abab")


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(k=2),
        dict(k=0),
        dict(k=3, strand="both"),
        dict(k=2, cigar=True),
        dict(k=1, hamming=True),
        dict(best=True),
        dict(k=4, best=True, cigar=True),
    ],
)
def test_approx_find_many_equals_a_loop(kwargs):
    patterns = [b"ACGTACGTAC", b"TTGCA"]
    texts = reads(3, 2000) + reads(4, 2, longest=1_500_000)
    m = warpmatch.ApproxMatcher(patterns, **kwargs)
    got = m.find_many(texts)
    fields = ["pattern", "strand", "start", "end", "distance"]
    assert got.dtype.names == ("text", *fields)
    assert got[["text", *fields]].tolist() == loop_rows(m, texts, fields)
    if kwargs.get("cigar"):
        assert got.cigars == [c for t in texts for c in m.find(t).cigars]


def test_approx_find_many_against_the_oracle():
    texts = reads(5, 50, longest=40)  # the oracle is cubic
    pattern = b"ACGTTGCA"
    for k in (0, 2):
        got = warpmatch.ApproxMatcher(pattern, k=k).find_many(texts)
        want = {(i, *r) for i, t in enumerate(texts) for r in approx_oracle(t, pattern, k, False)}
        assert {(t, s, e, d) for t, s, e, d in got[["text", "start", "end", "distance"]].tolist()} == want


def test_many_over_the_records_of_a_file(tmp_path):
    # warpmatch.Record (a buffer into the input, no copy) as the texts, twice: the second call
    # takes the type's remembered host check.
    rng = random.Random(6)
    seqs = [random_bytes(rng, rng.randint(0, 200), b"ACGT") for _ in range(500)]
    p = tmp_path / "r.fq"
    p.write_bytes(b"".join(b"@r%d\n%s\n+\n%s\n" % (i, s, b"I" * len(s)) for i, s in enumerate(seqs)))
    m = warpmatch.ExactMatcher(b"ACG")
    records = list(warpmatch.open(p))
    want = [m.count(s) for s in seqs]
    assert m.count_many(records).tolist() == want and m.count_many(records).tolist() == want
    got = m.find_many(records)
    file_hits = m.find_file(p)
    assert got[["text", "start", "end"]].tolist() == file_hits[["record", "start", "end"]].tolist()


def test_many_over_more_texts_than_one_slice():
    # 70,000 texts: more than one slice of the binding's windows (65,536), runs cut at the seam.
    rng = random.Random(8)
    texts = [random_bytes(rng, rng.randint(0, 40), b"ACGT") for _ in range(70_000)]
    m = warpmatch.ExactMatcher([b"ACG", b"TTA"])
    assert m.count_many(texts).tolist() == [m.count(t) for t in texts]
    got = m.find_many(texts)[["text", "pattern", "start"]].tolist()
    assert got == [(i, p, s) for i, t in enumerate(texts) for p, s in m.find(t)[["pattern", "start"]].tolist()]
    a = warpmatch.ApproxMatcher(b"ACGTTA", k=1)
    fields = ["pattern", "start", "end", "distance"]
    assert a.find_many(texts)[["text", *fields]].tolist() == loop_rows(a, texts, fields)
