"""ExactMatcher against a double loop and pyahocorasick, on every kind of input."""
from __future__ import annotations

import random
import threading

import numpy as np
import pytest

import warpmatch
from conftest import bytes_like_kinds, exact_oracle, random_bytes


def as_tuples(hits: np.ndarray) -> list[tuple[int, int, int]]:
    return [(int(p), int(s), int(e)) for p, s, e in hits[["pattern", "start", "end"]].tolist()]


def test_dtype_is_the_contract():
    hits = warpmatch.ExactMatcher("ab").find("abab")
    assert hits.dtype.names == ("pattern", "strand", "start", "end")
    assert [hits.dtype[n] for n in hits.dtype.names] == [np.dtype("u4"), np.dtype("S1"), np.dtype("u8"), np.dtype("u8")]
    assert hits["strand"].tolist() == [b"+", b"+"]


@pytest.mark.parametrize("seed", range(20))
def test_single_pattern_random(seed):
    rng = random.Random(seed)
    text = random_bytes(rng, rng.randint(0, 3000), b"AC" if seed % 2 else b"ACGT")
    pattern = random_bytes(rng, rng.randint(1, 6), b"AC" if seed % 2 else b"ACGT")
    m = warpmatch.ExactMatcher(pattern)
    want = exact_oracle(text, [pattern])
    assert as_tuples(m.find(text)) == want
    assert m.count(text) == len(want)
    assert m.counts(text).tolist() == [len(want)]


@pytest.mark.parametrize("seed", range(12))
def test_pattern_set_against_aho_corasick(seed):
    ahocorasick = pytest.importorskip("ahocorasick")
    rng = random.Random(100 + seed)
    alphabet = bytes(range(256)) if seed % 3 == 0 else b"abc"
    text = random_bytes(rng, rng.randint(0, 4000), alphabet)
    patterns = [random_bytes(rng, rng.randint(1, 5), alphabet) for _ in range(rng.randint(1, 30))]
    patterns += [text[i : i + 3] for i in range(0, max(0, len(text) - 3), 997)]
    patterns = [p for p in patterns if p]
    # pyahocorasick on str: latin-1 maps each byte to one code point (NUL included).
    automaton = ahocorasick.Automaton()
    for i, p in enumerate(patterns):
        key = p.decode("latin-1")
        automaton.add_word(key, automaton.get(key, []) + [i])
    automaton.make_automaton()
    want = []
    for end_inclusive, ids in automaton.iter(text.decode("latin-1")):
        for i in ids:
            n = len(patterns[i])
            want.append((i, end_inclusive + 1 - n, end_inclusive + 1))
    want.sort(key=lambda h: (h[1], h[0]))
    m = warpmatch.ExactMatcher(patterns)
    assert as_tuples(m.find(text)) == want
    assert m.count(text) == len(want)
    counts = [0] * len(patterns)
    for i, _, _ in want:
        counts[i] += 1
    assert m.counts(text).tolist() == counts


def test_every_bytes_like_kind(tmp_path):
    data = b"xxGATTACAyyGATTACA\x00GATTACA"
    want = [(0, 2, 9), (0, 11, 18), (0, 19, 26)]
    m = warpmatch.ExactMatcher(b"GATTACA")
    for name, text in bytes_like_kinds(data, tmp_path):
        assert as_tuples(m.find(text)) == want, name
        assert m.count(text) == 3, name
    # patterns of every kind too
    for name, pattern in bytes_like_kinds(b"GATTACA", tmp_path):
        assert warpmatch.ExactMatcher(pattern).count(data) == 3, name
        assert warpmatch.ExactMatcher([pattern, "TAC"]).count(data) == 6, name


def test_str_is_utf8():
    m = warpmatch.ExactMatcher("é")
    text = "café é"
    hits = m.find(text)
    raw = text.encode()
    assert [raw[s:e] for s, e in hits[["start", "end"]].tolist()] == ["é".encode()] * 2
    assert hits["start"].tolist() == [3, 6]  # byte offsets, not code points


def test_nul_bytes():
    text = b"\x00\x00a\x00\x00\x00"
    assert warpmatch.ExactMatcher(b"\x00\x00").find(text)["start"].tolist() == [0, 3, 4]
    assert warpmatch.ExactMatcher([b"\x00", b"a\x00"]).counts(text).tolist() == [5, 1]


def test_empty_text_and_long_pattern():
    for m in (warpmatch.ExactMatcher("abc"), warpmatch.ExactMatcher(["abc", "b"])):
        assert m.count(b"") == 0
        assert len(m.find(b"")) == 0
        assert m.find(b"").dtype.names == ("pattern", "strand", "start", "end")
    assert warpmatch.ExactMatcher("abcdef").count("abc") == 0


def test_ignore_case():
    m = warpmatch.ExactMatcher("GaTtAcA", ignore_case=True)
    assert m.count("gattaca GATTACA GaTTaCa gattacx") == 3
    assert warpmatch.ExactMatcher(["ab", "CD"], ignore_case=True).counts("ABcdAb").tolist() == [2, 1]
    assert warpmatch.ExactMatcher("Ab").count("ab") == 0


def test_duplicates_and_max_matches():
    m = warpmatch.ExactMatcher(["a", "a"])
    assert as_tuples(m.find("aa")) == [(0, 0, 1), (1, 0, 1), (0, 1, 2), (1, 1, 2)]
    assert len(m.find("aaaa", max_matches=3)) == 3


def test_many_matches_come_whole_and_in_order(tmp_path):
    # 300,000 matches: several of the library's batches (64 Ki) and of find_file's row blocks.
    text = b"a" * 300_000
    for m in (warpmatch.ExactMatcher("a"), warpmatch.ExactMatcher(["a", "zz"])):
        hits = m.find(text)
        assert len(hits) == len(text)
        assert (hits["start"] == np.arange(len(text))).all() and (hits["end"] == hits["start"] + 1).all()
        assert (hits["pattern"] == 0).all()
        limited = m.find(text, max_matches=70_000)  # cut inside the second batch
        assert len(limited) == 70_000 and (limited["start"] == np.arange(70_000)).all()
    path = tmp_path / "flood.txt"
    path.write_bytes(text)
    rows = warpmatch.ExactMatcher("aa").find_file(str(path))
    assert len(rows) == len(text) - 1 and (rows["start"] == np.arange(len(text) - 1)).all()
    assert (rows["record"] == 0).all()


def test_properties_and_pickle():
    import pickle

    m = warpmatch.ExactMatcher(["he", "she"], ignore_case=True)
    assert m.patterns == [b"he", b"she"] and m.pattern_count == 2 and m.ignore_case
    assert m.backend in ("cpu", "cuda") and m.overlap == 2
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.patterns == m.patterns and m2.count("SHE he") == m.count("SHE he") == 3
    s = warpmatch.ExactMatcher("abc")
    assert s.patterns == b"abc" and pickle.loads(pickle.dumps(s)).count("abcabc") == 2
    assert "ExactMatcher" in repr(m)


def test_threads_share_a_matcher():
    rng = random.Random(7)
    texts = [random_bytes(rng, 20000, b"ACGT") for _ in range(8)]
    pattern_set = [b"ACG", b"TTA", b"GATTACA", b"CC"]
    m = warpmatch.ExactMatcher(pattern_set, threads=1)
    want = [m.find(t).tolist() for t in texts]
    results: dict[int, list] = {}
    errors = []

    def work(i):
        try:
            for _ in range(5):
                got = m.find(texts[i]).tolist()
                assert got == want[i]
            results[i] = got
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == len(texts)
    assert [(p, s, e) for p, _, s, e in want[0]] == [tuple(x) for x in exact_oracle(texts[0], pattern_set)]


def test_bad_arguments():
    with pytest.raises(warpmatch.InvalidArgument, match="empty pattern"):
        warpmatch.ExactMatcher("")
    with pytest.raises(ValueError):
        warpmatch.ExactMatcher(["a", ""])
    with pytest.raises(ValueError):
        warpmatch.ExactMatcher([])
    with pytest.raises(ValueError, match="tpu"):
        warpmatch.ExactMatcher("a", backend="tpu")
    with pytest.raises(TypeError, match="pattern"):
        warpmatch.ExactMatcher(12)
    with pytest.raises(TypeError, match=r"pattern\[1\]"):
        warpmatch.ExactMatcher(["a", 3])
    m = warpmatch.ExactMatcher("a")
    with pytest.raises(TypeError, match="text"):
        m.count(None)
    with pytest.raises(TypeError, match="single-byte"):
        m.count(np.zeros(4, dtype=np.int32))
    with pytest.raises(TypeError, match="contiguous"):
        m.count(np.zeros(8, dtype=np.uint8)[::2])
    with pytest.raises(TypeError, match="__cuda_array_interface__"):

        class FakeCuda:
            __cuda_array_interface__ = {}

        m.count(FakeCuda())  # GPU text is accepted (test_device_text.py); a malformed interface is not
    assert issubclass(warpmatch.InvalidArgument, warpmatch.Error)


@pytest.mark.skipif(bool(warpmatch.devices()), reason="a GPU is present")
def test_cuda_without_gpu_is_backend_unavailable():
    with pytest.raises(warpmatch.BackendUnavailable):
        warpmatch.ExactMatcher("a", backend="cuda")
    with pytest.raises(RuntimeError):
        warpmatch.ApproxMatcher("a", k=1, backend="cuda")


def test_gil_is_released_during_scan():
    """Another Python thread keeps running while a scan runs (the GIL is released): its
    progress during a scan is compared with its progress while the main thread sleeps."""
    import time

    rng = random.Random(3)
    text = random_bytes(rng, 1 << 20, b"ACGT") * 4
    m = warpmatch.ApproxMatcher(b"ACGTACGTAC", k=2, threads=1)
    ticks = 0
    done = threading.Event()

    def ticker():
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    t = threading.Thread(target=ticker)
    t.start()
    try:
        t0, n0 = time.perf_counter(), ticks
        time.sleep(0.2)
        rate = (ticks - n0) / (time.perf_counter() - t0)
        t0, n0 = time.perf_counter(), ticks
        m.find(text)
        during = (ticks - n0) / (time.perf_counter() - t0)
    finally:
        done.set()
        t.join()
    assert during > 0.2 * rate, (during, rate)
