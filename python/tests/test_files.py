"""warpmatch.open() and find_file(): the library's input layer (plain, FASTA, FASTQ, gzip),
compared with per-record searches and plain-Python parsing."""
from __future__ import annotations

import gzip
import random

import numpy as np
import pytest

import warpmatch
from conftest import approx_oracle, exact_oracle, random_bytes


def fasta(records: list[tuple[str, bytes]], width: int = 7) -> bytes:
    out = bytearray()
    for name, seq in records:
        out += b">" + name.encode() + b" some description\n"
        for i in range(0, len(seq), width):
            out += seq[i : i + width] + b"\n"
    return bytes(out)


def fastq(records: list[tuple[str, bytes]]) -> bytes:
    return b"".join(b"@" + n.encode() + b"\n" + s + b"\n+\n" + b"I" * len(s) + b"\n" for n, s in records)


@pytest.fixture
def records():
    rng = random.Random(5)
    return [(f"r{i}", random_bytes(rng, rng.randint(0, 300), b"ACGT")) for i in range(12)]


def test_open_plain_is_one_record(tmp_path):
    data = b"hello\x00world\n" * 100
    p = tmp_path / "a.txt"
    p.write_bytes(data)
    with warpmatch.open(p) as inp:
        assert inp.format == "plain" and not inp.compressed and len(inp) == 1
        rec = inp[0]
        assert rec.name == "" and len(rec) == len(data) and bytes(rec) == data
        mv = memoryview(rec)
        assert mv.readonly and mv.nbytes == len(data)
        assert np.frombuffer(rec, np.uint8).size == len(data)
        assert warpmatch.ExactMatcher("world").count(rec) == 100
    assert warpmatch.open(str(p))[-1].index == 0


@pytest.mark.parametrize("kind", ["fasta", "fastq", "fasta.gz", "fastq.gz"])
def test_open_records(tmp_path, records, kind):
    data = fasta(records) if kind.startswith("fasta") else fastq(records)
    if kind.endswith(".gz"):
        data = gzip.compress(data)
    p = tmp_path / f"x.{kind}"
    p.write_bytes(data)
    inp = warpmatch.open(p)
    assert inp.format == kind.split(".")[0] and inp.compressed == kind.endswith(".gz")
    assert [(r.name, bytes(r)) for r in inp] == records
    assert [r.index for r in inp.records] == list(range(len(records)))
    del inp  # the records keep the input alive
    rec = warpmatch.open(p)[3]
    assert bytes(rec) == records[3][1]


def test_open_errors(tmp_path):
    with pytest.raises(warpmatch.InputError, match="missing.fa"):
        warpmatch.open(tmp_path / "missing.fa")
    with pytest.raises(FileNotFoundError.__mro__[1]):  # OSError
        warpmatch.open(tmp_path / "missing.fa")
    bad = tmp_path / "bad.fq"
    bad.write_bytes(b"@r1\nACGT\n+\nII\n")
    with pytest.raises(warpmatch.InputError, match="bad.fq"):
        warpmatch.open(bad)
    with pytest.raises(ValueError):
        warpmatch.open(bad, format="sam")
    with pytest.raises(IndexError):
        warpmatch.open(bad, format="plain")[1]


@pytest.mark.parametrize("window", [0, 16, 100])
@pytest.mark.parametrize("kind", ["plain", "fasta", "fastq.gz"])
def test_exact_find_file_equals_per_record_search(tmp_path, records, window, kind):
    if kind == "plain":
        data = b"".join(s for _, s in records)
        recs = [("", data)]
    else:
        data = fasta(records) if kind == "fasta" else gzip.compress(fastq(records))
        recs = records
    p = tmp_path / f"x.{kind}"
    p.write_bytes(data)
    patterns = [b"ACG", b"GATTA", b"T", b"CCCCCC"]
    m = warpmatch.ExactMatcher(patterns)
    want = []
    for i, (_, seq) in enumerate(recs):
        want += [(i,) + h for h in exact_oracle(seq, patterns)]
    for source in (p, str(p), data):
        h = m.find_file(source, window_bytes=window)
        assert h.dtype.names == ("record", "pattern", "strand", "start", "end")
        assert [tuple(x) for x in h[["record", "pattern", "start", "end"]].tolist()] == want
        assert h.records == [n for n, _ in recs]
    single = warpmatch.ExactMatcher(b"GATTA").find_file(p, window_bytes=window)
    assert [tuple(x) for x in single[["record", "pattern", "start", "end"]].tolist()] == [(r, 0, s, e) for r, p_, s, e in want if p_ == 1]


@pytest.mark.parametrize("window", [0, 9, 40])
@pytest.mark.parametrize("best", [False, True])
def test_approx_find_file_equals_per_record_search(tmp_path, window, best):
    rng = random.Random(8)
    recs = [(f"s{i}", random_bytes(rng, rng.randint(0, 70), b"ACG")) for i in range(5)]
    p = tmp_path / "x.fa"
    p.write_bytes(fasta(recs))
    pattern = b"ACGGA"
    m = warpmatch.ApproxMatcher(pattern, k=2, best=best)
    h = m.find_file(p, window_bytes=window)
    assert h.dtype.names == ("record", "pattern", "strand", "start", "end", "distance")
    want = []
    for i, (_, seq) in enumerate(recs):
        want += [(i, 0) + x for x in approx_oracle(seq, pattern, 2, best=best)]
    assert [tuple(x) for x in h[["record", "pattern", "start", "end", "distance"]].tolist()] == want
    assert h.records == [n for n, _ in recs]


def test_find_file_errors(tmp_path):
    m = warpmatch.ExactMatcher("a")
    with pytest.raises(warpmatch.InputError):
        m.find_file(tmp_path / "nope")
    with pytest.raises(warpmatch.InputError, match="not gzip|corrupt|gzip"):
        m.find_file(b"\x1f\x8b\x08\x00garbage-garbage-garbage")


def test_find_file_of_many_reads_equals_per_read_search(tmp_path):
    """Reads are scanned many at a time (laid end to end, k + 1 gap bytes between two for
    approx): the rows equal a search of each read alone, none across two reads (200 short
    reads: the approx oracle is cubic)."""
    rng = random.Random(21)
    reads = [("p0", b"TTTTTACGTA"), ("p1", b"CGTACTTTTT")]  # ACGTACGTAC across the pair
    reads += [(f"r{i}", random_bytes(rng, rng.randint(0, 40), b"ACGT")) for i in range(200)]
    p = tmp_path / "reads.fq"
    p.write_bytes(fastq(reads))
    exact_patterns = [b"ACGTACGTAC", b"GATTA", b"TTTTTACG", b"CG"]
    h = warpmatch.ExactMatcher(exact_patterns).find_file(p)
    want = []
    for i, (_, seq) in enumerate(reads):
        want += [(i,) + x for x in exact_oracle(seq, exact_patterns)]
    assert [tuple(x) for x in h[["record", "pattern", "start", "end"]].tolist()] == want
    approx_patterns = [b"ACGTACGTAC", b"GATTACAG"]
    h = warpmatch.ApproxMatcher(approx_patterns, k=2).find_file(p)
    want = []
    for i, (_, seq) in enumerate(reads):
        for j, pat in enumerate(approx_patterns):
            want += [(i, j) + x for x in approx_oracle(seq, pat, 2, best=False)]
    assert len(want) > 10
    assert [tuple(x) for x in h[["record", "pattern", "start", "end", "distance"]].tolist()] == want
