"""warpmatch: string matching on CUDA GPUs and all CPU cores.

Exact search of one pattern or a set, approximate search within k edits, edit distances and
longest common substrings over any bytes-like input (bytes, bytearray, memoryview, mmap, NumPy
uint8 arrays; str as UTF-8), read in place with the GIL released. Results come back as NumPy
structured arrays.

>>> import warpmatch
>>> warpmatch.ExactMatcher("GATTACA").count("GATTACAGATTACA")
2
>>> warpmatch.edit_distance("kitten", "sitting").distance
3

``warpmatch.dask`` runs the same searches over many files, or one huge file, on a Dask cluster.
"""
from __future__ import annotations

from ._core import (
    ApproxMatcher,
    BackendUnavailable,
    DeviceError,
    EditDistance,
    Error,
    ExactMatcher,
    Input,
    InputError,
    InvalidArgument,
    LcsResult,
    MemResult,
    Record,
    build_info,
    devices,
    edit_distance,
    edit_distances,
    lcs,
    open,
)
from ._hits import Hits

__version__: str = build_info()["version"]

__all__ = [
    "ApproxMatcher",
    "BackendUnavailable",
    "DeviceError",
    "EditDistance",
    "Error",
    "ExactMatcher",
    "Hits",
    "Input",
    "InputError",
    "InvalidArgument",
    "LcsResult",
    "MemResult",
    "Record",
    "build_info",
    "devices",
    "edit_distance",
    "edit_distances",
    "lcs",
    "open",
]

for _name in ("ApproxMatcher", "ExactMatcher", "EditDistance", "Input", "LcsResult", "MemResult", "Record"):
    globals()[_name].__module__ = "warpmatch"
del _name
