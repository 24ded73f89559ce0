"""The devices= keyword (Execution::devices: one call split over several GPUs) of ExactMatcher,
ApproxMatcher and edit_distances. Its checks run everywhere; the splits run on a GPU (an
ordinal may repeat, so [0, 0] splits over two workers of one GPU) and skip visibly without one."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import warpmatch
from conftest import HAVE_GPU, requires_gpu


def dna(n: int, seed: int) -> bytes:
    codes = np.random.default_rng(seed).integers(0, 4, n, dtype=np.uint8)
    return np.frombuffer(b"ACGT", np.uint8)[codes].tobytes()


MAKERS = {
    "ExactMatcher": lambda **kw: warpmatch.ExactMatcher(b"ACGT", **kw),
    "ExactMatcher set": lambda **kw: warpmatch.ExactMatcher([b"ACGT", b"GG"], **kw),
    "ApproxMatcher": lambda **kw: warpmatch.ApproxMatcher(b"ACGTAC", k=1, **kw),
    "edit_distances": lambda **kw: warpmatch.edit_distances([b"ab"], [b"ac"], **kw),
    "edit_distances cross": lambda **kw: warpmatch.edit_distances([b"ab"], [b"ac", b"b"], cross=True, **kw),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_devices_with_the_cpu_backend_is_refused(make):
    # The CPU runs on threads=; a GPU list with it is a contradiction, not ignored.
    for devices in ([0], (0, 1), "all"):
        with pytest.raises(warpmatch.InvalidArgument, match="cpu"):
            make(backend="cpu", devices=devices)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_bad_devices_values(make):
    cases = [
        ("some", "expected None, 'all' or a sequence"),
        ([], "empty sequence"),
        ([-1], "ordinal -1 is out of range"),
        ([0, 1 << 40], "out of range"),
    ]
    for devices, message in cases:
        with pytest.raises(warpmatch.InvalidArgument, match=message):
            make(devices=devices)
        with pytest.raises(ValueError):  # InvalidArgument is a ValueError
            make(devices=devices)
    with pytest.raises(warpmatch.InvalidArgument, match="both given"):
        make(devices=[0], device=1)
    for devices in (3, [0.5], [True], b"\x00", {"a": 1}):
        with pytest.raises(TypeError, match="devices"):
            make(devices=devices)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_devices_the_runtime_does_not_list(make):
    n = len(warpmatch.devices())
    with pytest.raises(warpmatch.InvalidArgument, match=f"CUDA device {n} in the device list 0,{n} does not exist"):
        make(devices=[0, n])


@pytest.mark.skipif(HAVE_GPU, reason="checks the machine without a GPU (the GPU tests below cover the other)")
def test_all_without_a_gpu_runs_auto_on_the_cpu():
    text = dna(10_000, 1)
    m = warpmatch.ExactMatcher([b"ACGT", b"GG"], devices="all")
    assert m.backend == "cpu"
    assert m.find(text).tolist() == warpmatch.ExactMatcher([b"ACGT", b"GG"]).find(text).tolist()
    a = warpmatch.ApproxMatcher(b"ACGTAC", k=1, devices="all")
    assert a.find(text).tolist() == warpmatch.ApproxMatcher(b"ACGTAC", k=1).find(text).tolist()
    assert warpmatch.edit_distances([b"ab"], [b"ac"], devices="all").tolist() == [1]
    with pytest.raises(warpmatch.BackendUnavailable):
        warpmatch.ExactMatcher(b"ACGT", backend="cuda", devices="all")


def test_devices_survive_pickling_as_requested():
    # "all" stays "all" (resolved again where the matcher lands, as backend "auto" is).
    for m in (warpmatch.ExactMatcher([b"ACGT", b"GG"], devices="all"),
              warpmatch.ApproxMatcher(b"ACGTAC", k=1, devices="all")):
        again = pickle.loads(pickle.dumps(m))
        assert repr(again) == repr(m)
        assert again.__getstate__()[-1] == "all"
    assert warpmatch.ExactMatcher(b"ACGT").__getstate__()[-1] is None


# ---- on a GPU ------------------------------------------------------------------------------
@requires_gpu
def test_exact_split_over_devices_equals_one_gpu():
    text = dna(80 << 20, 2)  # 32 MiB shares: split over both workers
    for pats in (b"GATTACAG", [b"ACGTACGTA", b"GGATCC", b"TTTTTTTT"]):
        one = warpmatch.ExactMatcher(pats, backend="cuda")
        assert one.count(text) > 1000
        for devices in ([0, 0], "all"):
            split = warpmatch.ExactMatcher(pats, backend="cuda", devices=devices)
            assert "devices=[" in repr(split)
            assert split.counts(text).tolist() == one.counts(text).tolist()
            assert split.find(text).tolist() == one.find(text).tolist()


@requires_gpu
def test_approx_split_over_devices_equals_one_gpu():
    guides = [dna(20, 100 + i) for i in range(64)]  # 64 patterns: 1 MiB shares of text
    text = bytearray(dna(6 << 20, 3))
    for i, at in enumerate(range(1000, len(text) - 100, 20_000)):  # a guide every 20 kB, one base changed
        g = bytearray(guides[i % len(guides)])
        g[i % 20] = ord("A") if g[i % 20] != ord("A") else ord("C")
        text[at : at + 20] = g
    text = bytes(text)
    one = warpmatch.ApproxMatcher(guides, k=3, backend="cuda")
    want = one.find(text)
    assert len(want) >= 300
    for devices in ([0, 0], [0, 0, 0], "all"):
        split = warpmatch.ApproxMatcher(guides, k=3, backend="cuda", devices=devices)
        assert split.find(text).tolist() == want.tolist()
    # Best mode runs on the first listed GPU: same hits.
    best = warpmatch.ApproxMatcher(guides[:2], k=3, best=True, backend="cuda", devices=[0, 0])
    assert best.find(text).tolist() == warpmatch.ApproxMatcher(guides[:2], k=3, best=True, backend="cuda").find(text).tolist()


@requires_gpu
def test_edit_distances_split_over_devices_equals_one_gpu():
    rng = np.random.default_rng(5)
    a = [dna(int(rng.integers(800, 1200)), 10 + i) for i in range(1500)]  # ~1.5e9 cells: two shares
    b = [dna(int(rng.integers(800, 1200)), 5000 + i) for i in range(1500)]
    one = warpmatch.edit_distances(a, b, backend="cuda")
    assert warpmatch.edit_distances(a, b, backend="cuda", devices=[0, 0]).tolist() == one.tolist()
    assert warpmatch.edit_distances(a, b, k=600, backend="cuda", devices="all").tolist() == \
        warpmatch.edit_distances(a, b, k=600, backend="cuda").tolist()
    rows, cols = a[:40], b[:900]
    assert warpmatch.edit_distances(rows, cols, cross=True, backend="cuda", devices=[0, 0]).tolist() == \
        warpmatch.edit_distances(rows, cols, cross=True, backend="cuda").tolist()
