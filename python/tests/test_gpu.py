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
def test_many_texts_cuda_equal_cpu():
    rng = random.Random(4)
    reads = [random_bytes(rng, rng.randint(0, 300), b"ACGT") for _ in range(20_000)] + [random_bytes(rng, 2_000_000)]
    for pats in (b"ACGTAC", [b"ACG", b"TTTT"]):
        cpu = warpmatch.ExactMatcher(pats, backend="cpu")
        gpu = warpmatch.ExactMatcher(pats, backend="cuda")
        assert gpu.find_many(reads).tolist() == cpu.find_many(reads).tolist()
        assert gpu.count_many(reads).tolist() == cpu.count_many(reads).tolist()
    for kw in (dict(k=2), dict(k=3, strand="both", cigar=True), dict(best=True)):
        some = reads[:1000] + reads[-1:] if kw.get("best") else reads  # best mode: one scan a read
        cpu = warpmatch.ApproxMatcher([b"ACGTACGTAA", b"GGCCA"], backend="cpu", **kw).find_many(some)
        gpu = warpmatch.ApproxMatcher([b"ACGTACGTAA", b"GGCCA"], backend="cuda", **kw).find_many(some)
        assert gpu.tolist() == cpu.tolist()
        if kw.get("cigar"):
            assert gpu.cigars == cpu.cigars


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


@requires_gpu
def test_sequence_search_cuda_equals_cpu():
    """Both strands, IUPAC codes, Hamming distance and ignore_case through the CUDA backend."""
    rng = random.Random(4)
    genome = random_bytes(rng, 2_000_000, b"ACGT")
    for kw in (dict(strand="both"), dict(strand="both", iupac=True), dict(ignore_case=True)):
        pats = [b"GGNACGT", b"ACGTAC"] if kw.get("iupac") else [b"GGTACGT", b"acgtac"]
        cpu = warpmatch.ExactMatcher(pats, backend="cpu", **kw)
        gpu = warpmatch.ExactMatcher(pats, backend="cuda", **kw)
        assert gpu.find(genome).tolist() == cpu.find(genome).tolist(), kw
        assert gpu.counts(genome).tolist() == cpu.counts(genome).tolist(), kw
    guides = [random_bytes(rng, 20, b"ACGT") for _ in range(8)] + [genome[1000:1020]]
    for kw in (dict(k=3, strand="both"), dict(k=2, hamming=True, strand="both"), dict(k=1, iupac=True)):
        pats = [b"ACGTNNACGTRYACGT"] if kw.get("iupac") else guides
        cpu = warpmatch.ApproxMatcher(pats, backend="cpu", **kw).find(genome)
        gpu = warpmatch.ApproxMatcher(pats, backend="cuda", **kw).find(genome)
        assert gpu.tolist() == cpu.tolist(), kw


@requires_gpu
def test_find_file_cuda_equals_cpu(tmp_path):
    rng = random.Random(5)
    path = tmp_path / "g.fa"
    with open(path, "wb") as f:
        for i in range(6):
            seq = random_bytes(rng, rng.randint(100_000, 400_000), b"ACGT")
            f.write(b">chr%d\n" % i + b"\n".join(seq[j : j + 60] for j in range(0, len(seq), 60)) + b"\n")
    for pats in (b"GATTACA", [b"ACGTAC", b"TTTTT"]):
        cpu = warpmatch.ExactMatcher(pats, backend="cpu").find_file(str(path))
        gpu = warpmatch.ExactMatcher(pats, backend="cuda").find_file(str(path))
        assert gpu.tolist() == cpu.tolist() and gpu.records == cpu.records
    cpu = warpmatch.ApproxMatcher(b"GATTACAGATT", k=2, backend="cpu").find_file(str(path))
    gpu = warpmatch.ApproxMatcher(b"GATTACAGATT", k=2, backend="cuda").find_file(str(path))
    assert gpu.tolist() == cpu.tolist()


@requires_gpu
def test_edit_distance_align_and_mems_cuda_equal_cpu():
    rng = random.Random(6)
    a = random_bytes(rng, 50_000)
    b = bytearray(a)
    for _ in range(500):
        b[rng.randrange(len(b))] = rng.choice(b"ACGT")
    b = bytes(b)
    for kw in (dict(align=True), dict(k=300), dict(k=1000, align=True)):
        assert warpmatch.edit_distance(a, b, backend="cuda", **kw) == warpmatch.edit_distance(a, b, backend="cpu", **kw)
    g = warpmatch.lcs(a, b, min_length=30, backend="cuda")
    c = warpmatch.lcs(a, b, min_length=30, backend="cpu")
    assert (g.total, g.mems.tolist()) == (c.total, c.mems.tolist())


def test_gpu_presence_is_reported():
    """Always runs: says in the log which GPU tests ran."""
    print("GPU tests", "run on " + warpmatch.devices()[0]["name"] if HAVE_GPU else "skipped: no GPU")


def _fresh_python(code: str, **env) -> str:
    """Runs `code` in a new interpreter (CUDA not started yet; env added) and returns its stdout."""
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, **env})
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@requires_gpu
def test_auto_keeps_calls_on_single_reads_on_the_cpu_without_starting_cuda():
    # A read, a primer and a pair at a time: the CPU answers in microseconds where CUDA's start
    # alone takes ~0.3 s; the library's own "auto" (the GPU when present) would start it.
    got = _fresh_python(
        "import warpmatch\n"
        "def calls(backend):\n"
        "    m = warpmatch.ExactMatcher('GATTACA', backend=backend)\n"
        "    s = warpmatch.ExactMatcher(['GATTACA', 'ACGT'], backend=backend)\n"
        "    a = warpmatch.ApproxMatcher('GATTACA', k=1, backend=backend)\n"
        "    r = [m.count('xxGATTACAxx'), s.counts('GATTACGTxGATTACA').tolist(), a.find('xxGATACAxx')['end'].tolist(),\n"
        "         warpmatch.edit_distance('kitten', 'sitting', backend=backend).distance,\n"
        "         int(warpmatch.edit_distances(['abc'] * 100, ['abd'] * 100, backend=backend).sum())]\n"
        "    return r, [m.backend, s.backend, a.backend]\n"
        "auto, backends = calls('auto')\n"
        "started = warpmatch._core._cuda_started()\n"
        "print(auto == calls('cpu')[0], backends, started, auto)")
    assert got == "True ['cpu', 'cpu', 'cpu'] False [1, [1, 1], [8], 3, 100]", got


@requires_gpu
def test_auto_moves_to_the_gpu_once_it_would_have_paid_for_cuda():
    # With CUDA's start-up priced at nothing, the first call the GPU runs faster goes there;
    # at its real price, the calls' savings pay for it first (ski rental). Same results.
    code = (
        "import random, warpmatch\n"
        "rng = random.Random(5)\n"
        "text = bytes(rng.choice(b'ACGT') for _ in range(1 << 22)) * 8\n"
        "pats = [bytes(rng.choice(b'ACGT') for _ in range(12)) for _ in range(1000)]\n"
        "m = warpmatch.ExactMatcher(pats, threads=1)\n"
        "small = m.count(text[:1000]); b0 = m.backend\n"
        "calls = 0\n"
        "while m.backend != 'cuda' and calls < 200:\n"
        "    n = m.count(text); calls += 1\n"
        "cpu = warpmatch.ExactMatcher(pats, backend='cpu')\n"
        "print(b0, m.backend, calls, n == cpu.count(text), small == cpu.count(text[:1000]),\n"
        "      m.find(text[:100000]).tolist() == cpu.find(text[:100000]).tolist(), warpmatch._core._cuda_started())")
    free = _fresh_python(code, WARPMATCH_COST_CUDA_START_SECONDS="0").split()
    assert free[:2] == ["cpu", "cuda"] and free[2] == "1" and free[3:] == ["True", "True", "True", "True"]
    priced = _fresh_python(code).split()
    assert priced[:2] == ["cpu", "cuda"] and int(priced[2]) > 1 and priced[3:] == ["True", "True", "True", "True"]

