# Type stubs of the warpmatch package (the extension module warpmatch._core re-exported).
import mmap
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

from ._hits import Hits as Hits

__version__: str

# str is taken as its UTF-8 bytes; everything else must export single-byte items through the
# buffer protocol, C-contiguous (bytes, bytearray, memoryview, mmap, NumPy uint8/int8 arrays,
# warpmatch.Record).
Text = Union[str, bytes, bytearray, memoryview, mmap.mmap, npt.NDArray[np.uint8], npt.NDArray[np.int8], "Record"]
BackendName = Literal["auto", "cpu", "cuda", "gpu"]
FormatName = Literal["auto", "plain", "fasta", "fastq"]
StrandName = Literal["+", "-", "both"]
# Several GPUs for one call (Execution::devices): None = `device` alone, "all" = every GPU
# devices() lists, or GPU ordinals (one may repeat). Not with backend="cpu" (InvalidArgument).
Devices = Union[None, Literal["all"], Sequence[int]]
PathLike = Union[str, os.PathLike[str]]
# GPU-resident text for ExactMatcher.count/counts/find and ApproxMatcher.find (matchers on the cuda
# backend): any object
# exposing __cuda_array_interface__ (CuPy, Numba, PyTorch CUDA tensors) or DLPack on a CUDA device,
# C-contiguous with single-byte items; scanned on the GPU without a copy through the host.
DeviceText = Any

class Error(Exception): ...
class InvalidArgument(Error, ValueError): ...
class BackendUnavailable(Error, RuntimeError): ...
class DeviceError(Error, RuntimeError): ...
class InputError(Error, OSError): ...

class BuildInfo(TypedDict):
    version: str
    cuda_compiled: bool
    cuda_architectures: str
    cuda_runtime_version: str
    hardware_threads: int
    gpu_visible: bool

class DeviceInfo(TypedDict):
    ordinal: int
    name: str
    compute_capability: tuple[int, int]
    multiprocessors: int
    global_memory_bytes: int
    l2_bytes: int
    clock_mhz: int

def build_info() -> BuildInfo: ...
def devices() -> list[DeviceInfo]: ...

class ExactMatcher:
    """Exact search of one pattern or a set of patterns, compiled once (see help())."""
    def __init__(
        self,
        pattern_or_patterns: Text | Sequence[Text],
        ignore_case: bool = False,
        backend: BackendName = "auto",
        threads: int = 0,
        device: int = 0,
        strand: StrandName = "+",
        iupac: bool = False,
        devices: Devices = None,
    ) -> None: ...
    def count(self, text: Text | DeviceText) -> int: ...
    def counts(self, text: Text | DeviceText) -> npt.NDArray[np.uint64]: ...
    def find(self, text: Text | DeviceText, max_matches: int = 0) -> np.ndarray:
        """Structured array: pattern (u4), strand (S1: b'+' / b'-'), start (u8), end (u8)."""
    def find_file(self, source: PathLike | Text, format: FormatName = "auto", window_bytes: int = 0) -> Hits:
        """Hits with fields record (u8), pattern (u4), strand (S1), start (u8), end (u8); .records names them.
        A str is a path here; pass bytes for a file's content."""
    def find_many(self, texts: Iterable[Text]) -> np.ndarray:
        """find() over each text in one call: fields text (u8, the text's index), pattern, strand, start, end."""
    def count_many(self, texts: Iterable[Text]) -> npt.NDArray[np.uint64]:
        """count() of each text in one call."""
    @property
    def patterns(self) -> bytes | list[bytes]: ...
    @property
    def pattern_count(self) -> int: ...
    @property
    def ignore_case(self) -> bool: ...
    @property
    def strand(self) -> StrandName: ...
    @property
    def iupac(self) -> bool: ...
    @property
    def backend(self) -> Literal["cpu", "cuda"]:
        """The resolved backend; under backend="auto" the last call's choice ('cpu' before any)."""
    @property
    def algorithm(self) -> str: ...
    @property
    def overlap(self) -> int: ...

class ApproxMatcher:
    """Approximate (semi-global Levenshtein) search within k edits, or the best hits."""
    def __init__(
        self,
        pattern_or_patterns: Text | Sequence[Text],
        k: int | None = None,
        best: bool = False,
        cigar: bool = False,
        ignore_case: bool = False,
        backend: BackendName = "auto",
        threads: int = 0,
        device: int = 0,
        strand: StrandName = "+",
        iupac: bool = False,
        hamming: bool = False,
        devices: Devices = None,
    ) -> None: ...
    def find(self, text: Text | DeviceText) -> np.ndarray:
        """Structured array: pattern (u4), strand (S1), start (u8), end (u8), distance (u4); with cigar=True a
        Hits whose .cigars lists the alignments."""
    def find_file(self, source: PathLike | Text, format: FormatName = "auto", window_bytes: int = 0) -> Hits: ...
    def find_many(self, texts: Iterable[Text]) -> np.ndarray:
        """find() over each text in one call: fields text (u8), pattern, strand, start, end, distance
        (a Hits with .cigars when cigar=True)."""
    @property
    def patterns(self) -> bytes | list[bytes]: ...
    @property
    def pattern_count(self) -> int: ...
    @property
    def k(self) -> int | None: ...
    @property
    def best(self) -> bool: ...
    @property
    def cigar(self) -> bool: ...
    @property
    def strand(self) -> StrandName: ...
    @property
    def iupac(self) -> bool: ...
    @property
    def hamming(self) -> bool: ...
    @property
    def backend(self) -> Literal["cpu", "cuda"]:
        """The resolved backend; under backend="auto" the last call's choice ('cpu' before any)."""
    @property
    def algorithm(self) -> str: ...
    @property
    def overlap(self) -> int: ...

class EditDistance:
    @property
    def distance(self) -> int | None: ...
    @property
    def cigar(self) -> str | None: ...

def edit_distance(
    a: Text, b: Text, k: int | None = None, align: bool = False, backend: BackendName = "auto",
    threads: int = 0, device: int = 0,
) -> EditDistance: ...
def edit_distances(
    seqs_a: Sequence[Text], seqs_b: Sequence[Text], k: int | None = None, cross: bool = False,
    backend: BackendName = "auto", threads: int = 0, device: int = 0, devices: Devices = None,
) -> npt.NDArray[np.int64]:
    """1-D for pairs, (len(seqs_a), len(seqs_b)) with cross=True; -1 where over k."""

class LcsResult:
    @property
    def length(self) -> int: ...
    @property
    def count(self) -> int: ...
    @property
    def total_pairs(self) -> int: ...
    @property
    def positions(self) -> np.ndarray:
        """Structured array: a (u8), b (u8)."""
    @property
    def backend(self) -> str: ...

class MemResult:
    @property
    def total(self) -> int: ...
    @property
    def mems(self) -> np.ndarray:
        """Structured array: a (u8), b (u8), length (u8)."""
    @property
    def backend(self) -> str: ...

@overload
def lcs(a: Text, b: Text, min_length: None = None, max_matches: int = 1000, backend: BackendName = "auto",
        threads: int = 0, device: int = 0) -> LcsResult: ...
@overload
def lcs(a: Text, b: Text, min_length: int, max_matches: int = 1000, backend: BackendName = "auto",
        threads: int = 0, device: int = 0) -> MemResult: ...

class Record:
    """One record; exports its bytes read-only through the buffer protocol."""
    @property
    def name(self) -> str: ...
    @property
    def index(self) -> int: ...
    def __len__(self) -> int: ...
    def __buffer__(self, flags: int, /) -> memoryview: ...

class Input:
    @property
    def name(self) -> str: ...
    @property
    def format(self) -> Literal["plain", "fasta", "fastq"]: ...
    @property
    def compressed(self) -> bool: ...
    @property
    def records(self) -> list[Record]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> Record: ...
    def __iter__(self) -> Iterator[Record]: ...
    def __enter__(self) -> Input: ...
    def __exit__(self, *args: Any) -> bool: ...

def open(path: PathLike, format: FormatName = "auto") -> Input: ...

__all__: list[str]
