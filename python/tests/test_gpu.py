"""The CUDA backend through Python: the same results as the CPU backend. Skipped, with the
reason printed (pytest -rs), on machines without a GPU or builds without CUDA."""
from __future__ import annotations

import random

import pytest

import warpmatch
from conftest import HAVE_GPU, random_bytes, requires_gpu


def test_devices_and_build_info_agree():
    info = warpmatch.build_info()
    assert set(info) >= {"version", "cuda_compiled", "cuda_architectures", "hardware_threads", "gpu_visible"}
    if not info["cuda_compiled"]:
        assert warpmatch.devices() == []
    for d in warpmatch.devices():
        assert d["global_memory_bytes"] > 0 and len(d["compute_capability"]) == 2


@requires_gpu
def test_exact_cuda_equals_cpu():
    rng = random.Random(1)
    text = random_bytes(rng, 3_000_000, b"ACGT")
    for pats in (b"ACGTACG", [b"ACG", b"TTTT", b"GATTACA"]):
        cpu = warpmatch.ExactMatcher(pats, backend="cpu")
        gpu = warpmatch.ExactMatcher(pats, backend="cuda")
        assert gpu.backend == "cuda"
        assert gpu.find(text).tolist() == cpu.find(text).tolist()
        assert gpu.counts(text).tolist() == cpu.counts(text).tolist()


@requires_gpu
def test_approx_cuda_equals_cpu():
    rng = random.Random(2)
    text = random_bytes(rng, 1_000_000, b"ACGT")
    for best in (False, True):
        kw = dict(k=2, best=best, cigar=True)
        cpu = warpmatch.ApproxMatcher([b"ACGTACGTAA", b"GGCCA"], backend="cpu", **kw).find(text)
        gpu = warpmatch.ApproxMatcher([b"ACGTACGTAA", b"GGCCA"], backend="cuda", **kw).find(text)
        assert gpu.tolist() == cpu.tolist() and gpu.cigars == cpu.cigars


@requires_gpu
def test_distance_and_lcs_cuda_equal_cpu():
    rng = random.Random(3)
    a = [random_bytes(rng, rng.randint(0, 3000)) for _ in range(50)]
    b = [random_bytes(rng, rng.randint(0, 3000)) for _ in range(50)]
    assert (warpmatch.edit_distances(a, b, backend="cuda") == warpmatch.edit_distances(a, b, backend="cpu")).all()
    for k in (None, 40):
        cross_gpu = warpmatch.edit_distances(a[:20], b, k=k, cross=True, backend="cuda")
        cross_cpu = warpmatch.edit_distances(a[:20], b, k=k, cross=True, backend="cpu")
        assert cross_gpu.shape == (20, 50) and (cross_gpu == cross_cpu).all()
    x, y = random_bytes(rng, 200_000), random_bytes(rng, 200_000)
    assert warpmatch.edit_distance(x, y, backend="cuda") == warpmatch.edit_distance(x, y, backend="cpu")
    g, c = warpmatch.lcs(x, y, backend="cuda"), warpmatch.lcs(x, y, backend="cpu")
    assert (g.length, g.count, g.positions.tolist()) == (c.length, c.count, c.positions.tolist())


def test_gpu_presence_is_reported():
    """Always runs: says in the log which GPU tests ran."""
    print("GPU tests", "run on " + warpmatch.devices()[0]["name"] if HAVE_GPU else "skipped: no GPU")
