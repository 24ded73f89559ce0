"""GPU-resident text (__cuda_array_interface__, DLPack) given to ExactMatcher.count/counts/find
and ApproxMatcher.find: scanned on the device without a host round trip, with the results of
the same bytes on the host. Device arrays are made without CuPy: cudaMalloc/cudaMemcpy through ctypes over
libcudart, wrapped in a class exposing __cuda_array_interface__. The argument checks run
everywhere (a fake interface over host memory); the scans skip, visibly, without a GPU."""
from __future__ import annotations

import ctypes
import ctypes.util
import glob

import numpy as np
import pytest

import warpmatch
from conftest import HAVE_GPU, requires_gpu


def load_cudart():
    names = [ctypes.util.find_library("cudart")]
    for pattern in ("/usr/local/cuda/lib64/libcudart.so*", "/usr/local/cuda-*/lib64/libcudart.so*",
                    "/usr/lib/x86_64-linux-gnu/libcudart.so*"):
        names += sorted(glob.glob(pattern))
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


CUDART = load_cudart() if HAVE_GPU else None
requires_cudart = pytest.mark.skipif(
    CUDART is None,
    reason="no CUDA GPU visible to warpmatch or no libcudart.so to allocate device memory: device-text test skipped",
)


class CudaBytes:
    """`data` copied into a cudaMalloc allocation; exposes __cuda_array_interface__ (v3) for
    the bytes [offset, offset + len(data)) of it, so tests can hand unaligned pointers."""

    def __init__(self, data: bytes, offset: int = 0, stream=None):
        self.size, self.offset, self.stream = len(data), offset, stream
        self.ptr = ctypes.c_void_p()
        assert CUDART.cudaMalloc(ctypes.byref(self.ptr), ctypes.c_size_t(max(1, len(data) + offset))) == 0
        if data:
            host = ctypes.create_string_buffer(data, len(data))
            dst = ctypes.c_void_p(self.ptr.value + offset)
            assert CUDART.cudaMemcpy(dst, host, ctypes.c_size_t(len(data)), 1) == 0  # host to device

    @property
    def __cuda_array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.ptr.value + self.offset, True),
                "strides": None, "version": 3, "stream": self.stream}

    def __del__(self):
        if CUDART is not None and self.ptr.value:
            CUDART.cudaFree(self.ptr)


class FakeDeviceArray:
    """A __cuda_array_interface__ with whatever fields a test wants (never dereferenced by the
    checks these tests exercise)."""

    def __init__(self, **fields):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": "|u1", "data": (0, True), "version": 3,
                                         **fields}


class DLPackOnly:
    """Another producer's array seen through DLPack only."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def dna(n: int, seed: int) -> bytes:
    codes = np.random.default_rng(seed).integers(0, 4, n, dtype=np.uint8)
    return np.frombuffer(b"ACGT", np.uint8)[codes].tobytes()


@requires_cudart
@pytest.mark.parametrize("patterns", [b"ACGTAC", [b"ACG", b"TTTT", b"GATTACA", b"ACG"]])
def test_device_text_equals_host(patterns):
    text = dna(3_000_000, 1)
    gpu = warpmatch.ExactMatcher(patterns, backend="cuda")
    cpu = warpmatch.ExactMatcher(patterns, backend="cpu")
    for offset in (0, 3):  # an unaligned pointer into the allocation
        d = CudaBytes(text, offset=offset)
        assert gpu.count(d) == cpu.count(text)
        assert gpu.counts(d).tolist() == cpu.counts(text).tolist()
        assert gpu.find(d).tolist() == cpu.find(text).tolist()
        assert gpu.find(d, max_matches=5).tolist() == cpu.find(text, max_matches=5).tolist()


@requires_cudart
def test_device_text_several_chunks_and_sequence_search():
    """Text longer than the pipelines' chunks (matches across chunk borders), and a
    both-strand IUPAC set (MultiMatcher) on the same device text."""
    text = dna(150 << 20, 2)
    d = CudaBytes(text, stream=1)
    for kw in ({"patterns": b"GATTACAG"}, {"patterns": [b"ACGTACGTA", b"GGNACGTT"], "strand": "both", "iupac": True}):
        pats = kw.pop("patterns")
        gpu = warpmatch.ExactMatcher(pats, backend="cuda", **kw)
        cpu = warpmatch.ExactMatcher(pats, backend="cpu", **kw)
        assert gpu.counts(d).tolist() == cpu.counts(text).tolist()
        assert gpu.find(d).tolist() == cpu.find(text).tolist()


@requires_cudart
def test_device_text_empty_and_shorter_than_pattern():
    m = warpmatch.ExactMatcher([b"ACGT", b"A"], backend="cuda")
    assert m.count(CudaBytes(b"")) == 0 and m.find(CudaBytes(b"")).size == 0
    assert warpmatch.ExactMatcher(b"ACGTACGT", backend="cuda").count(CudaBytes(b"ACG")) == 0
    assert m.counts(CudaBytes(b"ACGTA")).tolist() == [1, 2]


@requires_cudart
def test_host_memory_behind_a_cuda_array_interface_is_refused():
    host = np.frombuffer(b"ACGTACGT", np.uint8)
    fake = FakeDeviceArray(shape=(8,), data=(host.ctypes.data, True))
    with pytest.raises(ValueError, match="not in CUDA device memory"):
        warpmatch.ExactMatcher(b"ACG", backend="cuda").count(fake)


def test_device_text_on_a_cpu_matcher_is_refused():
    fake = FakeDeviceArray(data=(0x7F0000000000, True))
    for pats in (b"ACG", [b"ACG", b"GT"]):
        m = warpmatch.ExactMatcher(pats, backend="cpu")
        for op in (m.count, m.counts, m.find):
            with pytest.raises(warpmatch.InvalidArgument, match="cuda backend"):
                op(fake)
    with pytest.raises(warpmatch.InvalidArgument, match="approximate search: text in GPU memory needs a matcher on the cuda"):
        warpmatch.ApproxMatcher(b"ACGT", k=1, backend="cpu").find(fake)


def test_bad_cuda_array_interfaces():
    m = warpmatch.ExactMatcher(b"ACG", backend="cpu")
    with pytest.raises(TypeError, match="single-byte items"):
        m.count(FakeDeviceArray(typestr="<u4"))
    with pytest.raises(TypeError, match="C-contiguous"):
        m.count(FakeDeviceArray(shape=(4,), strides=(2,)))
    no_data = FakeDeviceArray()
    del no_data.__cuda_array_interface__["data"]
    with pytest.raises(TypeError, match="missing"):
        m.count(no_data)
    with pytest.raises(TypeError, match="single-byte items"):
        warpmatch.ApproxMatcher(b"ACGT", k=1, backend="cpu").find(FakeDeviceArray(typestr="<u4"))
    # Operations that need host text say so.
    with pytest.raises(TypeError, match="GPU-resident"):
        warpmatch.edit_distance(FakeDeviceArray(), b"ACGT")
    with pytest.raises(TypeError, match="GPU-resident"):
        warpmatch.ApproxMatcher(b"ACGT", k=1, backend="cpu").find_file(FakeDeviceArray())


def test_device_text_from_cupy_or_torch():
    """Real producers, where one is installed with a GPU (CuPy, PyTorch)."""
    if not HAVE_GPU:
        pytest.skip("no CUDA GPU visible to warpmatch: CuPy/PyTorch test skipped")
    text = dna(1_000_000, 3)
    want = warpmatch.ExactMatcher([b"ACGTA", b"TTG"], backend="cpu").counts(text).tolist()
    arrays = []
    try:
        import cupy

        arrays.append(cupy.asarray(np.frombuffer(text, np.uint8)))
    except ImportError:
        pass
    try:
        import torch

        arrays.append(torch.frombuffer(bytearray(text), dtype=torch.uint8).cuda())
    except ImportError:
        pass
    if not arrays:
        pytest.skip("neither CuPy nor PyTorch installed: CuPy/PyTorch test skipped")
    # The DLPack path alone (CuPy and PyTorch also expose __cuda_array_interface__, taken first).
    arrays += [DLPackOnly(a) for a in arrays]
    m = warpmatch.ExactMatcher([b"ACGTA", b"TTG"], backend="cuda")
    for a in arrays:
        assert m.counts(a).tolist() == want, type(a)
        assert m.find(a).tolist() == warpmatch.ExactMatcher([b"ACGTA", b"TTG"], backend="cpu").find(text).tolist()


def planted(n: int, seed: int, pieces: list[bytes], every: int) -> bytes:
    """Random DNA with `pieces` written every `every` bytes (each with one substitution), so
    approximate searches find hits across the whole text."""
    text = bytearray(dna(n, seed))
    rng = np.random.default_rng(seed + 1)
    for i, at in enumerate(range(every // 2, n - 200, every)):
        piece = bytearray(pieces[i % len(pieces)])
        piece[int(rng.integers(len(piece)))] = ord("ACGT"[int(rng.integers(4))])
        text[at : at + len(piece)] = piece
    return bytes(text)


GUIDE = b"GATTACAGATTACCATGCAT"
LONG = dna(150, 7)  # longer than the short-pattern set's 64: one Myers launch per pattern


@requires_cudart
@pytest.mark.parametrize("kw", [
    {"patterns": GUIDE, "k": 2, "cigar": True},                              # short-pattern set kernel
    {"patterns": [GUIDE, b"ACGTTGCA"], "k": 1, "strand": "both"},            # a set on both strands
    {"patterns": LONG, "k": 6, "cigar": True},                               # per-pattern Myers kernel
    {"patterns": LONG, "best": True},                                        # best mode: the bound's head copied
    {"patterns": [GUIDE, b"ACGTTGCAAC"], "k": 2, "hamming": True, "cigar": True},  # Hamming kernel
])
def test_approx_device_text_equals_host(kw):
    """ApproxMatcher.find of device text equals find of the same bytes on the host, on a text
    of several 2^23-end segments, from an unaligned pointer too: starts and CIGARs come from the
    hits' windows copied back."""
    kw = dict(kw)
    pats = kw.pop("patterns")
    text = planted(20 << 20, 4, [GUIDE, LONG], 40_000)
    gpu = warpmatch.ApproxMatcher(pats, backend="cuda", **kw)
    want = gpu.find(text)
    assert len(want) > 0
    for offset in (0, 5):
        got = gpu.find(CudaBytes(text, offset=offset, stream=2))
        assert got.tolist() == want.tolist(), (kw, offset)
        if kw.get("cigar"):
            assert got.cigars == want.cigars
    # The host text's hits are the CPU backend's (a small slice: the CPU is the oracle here).
    piece = text[: 2 << 20]
    cpu_hits = warpmatch.ApproxMatcher(pats, backend="cpu", **kw).find(piece)
    assert gpu.find(CudaBytes(piece)).tolist() == cpu_hits.tolist()


@requires_cudart
def test_approx_device_text_empty_and_refused_host_memory():
    m = warpmatch.ApproxMatcher(GUIDE, k=2, backend="cuda")
    assert m.find(CudaBytes(b"")).size == 0
    assert m.find(CudaBytes(b"GATTACA")).tolist() == m.find(b"GATTACA").tolist()  # shorter than the pattern
    host = np.frombuffer(GUIDE, np.uint8)
    with pytest.raises(ValueError, match="not in CUDA device memory"):
        m.find(FakeDeviceArray(shape=(len(GUIDE),), data=(host.ctypes.data, True)))


@requires_cudart
def test_auto_sends_device_text_to_the_gpu():
    # Under backend "auto" a matcher is compiled for the CPU first; device text compiles and
    # uses its GPU form (a matcher on backend "cpu" refuses it instead).
    for m in (warpmatch.ExactMatcher("ACGT"), warpmatch.ExactMatcher(["ACGT", "TTT"])):
        assert m.count(b"xxACGTACGTxx") == 2 and m.backend == "cpu"
        assert m.count(CudaBytes(b"xxACGTACGTxx")) == 2 and m.backend == "cuda"
    a = warpmatch.ApproxMatcher("GATTACA", k=1)
    host = a.find(b"xxGATACAxxGATTACA").tolist()
    assert a.find(CudaBytes(b"xxGATACAxxGATTACA")).tolist() == host and a.backend == "cuda"
