"""warpmatch on a Dask cluster: search many files, or one huge file, on every worker.

    import warpmatch, warpmatch.dask
    from distributed import Client, LocalCluster

    client = Client(LocalCluster(n_workers=8, threads_per_worker=1))   # or Client("tcp://host:8786")
    m = warpmatch.ExactMatcher(["GATTACA", "TATA"], threads=1)
    hits = warpmatch.dask.search(m, ["genome.fa", "reads.fq.gz"])      # a lazy dask DataFrame
    hits.compute()         # path, record, record_index, pattern, strand, start, end (+ distance)

How inputs are split into tasks:
- an uncompressed plain file: byte ranges of `blocksize`, each read in place (mmap) with the
  matcher's overlap: exact search reads ``overlap`` (m - 1) bytes past its range and keeps the
  starts inside it; approximate search reads ``overlap`` (m + k) bytes before its range and
  keeps the ends inside it (the input layer's rule for windows). Best mode keeps, per file and
  pattern, the hits at the smallest distance over all ranges.
- an uncompressed FASTA file: ranges cut at record starts (each record whole in one task),
  record indices made global afterwards;
- FASTQ, gzip, BGZF and zstd files: one task per file, streamed by the input layer.

The matcher is sent to workers as its (small) definition and compiled once per worker process,
not per task. Results are identical to `search_local` (one process): rows in input order, each
record's rows ordered by (start, pattern) for exact search and (end, pattern) for approximate.
Set the matcher's ``threads`` to the threads each worker should use (e.g. 1 with
``threads_per_worker=1``); the default (0) uses every core per task.

`edit_distances` partitions batches of pairs the same way (pairs per partition, distances
computed by each worker with all its threads).
"""
from __future__ import annotations

import mmap
import os
import pickle
import threading
from collections.abc import Iterable, Sequence
from typing import Any, Union

import numpy as np

import warpmatch

__all__ = ["search", "search_local", "edit_distances", "plan"]

Matcher = Union[warpmatch.ExactMatcher, warpmatch.ApproxMatcher]

DEFAULT_BLOCKSIZE = 256 << 20

# ---- per-worker matcher cache ------------------------------------------------------------
_cache: dict[bytes, Matcher] = {}
_cache_lock = threading.Lock()
_compiles = 0


def _matcher(blob: bytes) -> Matcher:
    """The matcher pickled in `blob`, compiled on first use in this process."""
    global _compiles
    m = _cache.get(blob)
    if m is None:
        with _cache_lock:
            m = _cache.get(blob)
            if m is None:
                m = pickle.loads(blob)
                _cache[blob] = m
                _compiles += 1
    return m


def compiled_matchers() -> int:
    """How many matchers this process has compiled for tasks (tests: once per worker)."""
    return _compiles


# ---- planning ------------------------------------------------------------------------------
def _detect(path: str, format: str) -> tuple[str, bool]:
    """(format, compressed) from the file's first bytes, as the input layer detects them."""
    with open(path, "rb") as f:
        head = f.read(4)
    compressed = head[:2] == b"\x1f\x8b" or head == b"\x28\xb5\x2f\xfd"
    if format != "auto":
        return format, compressed
    if compressed:
        return "auto", True
    if head[:1] == b">":
        return "fasta", False
    if head[:1] == b"@":
        return "fastq", False
    return "plain", False


def _fasta_cuts(path: str, size: int, blocksize: int) -> list[int]:
    """Range boundaries at record starts ('>' after a newline) near each multiple of blocksize."""
    cuts = [0]
    if size == 0:
        return [0, 0]
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        pos = blocksize
        while pos < size:
            i = mm.find(b"\n>", max(pos - 1, cuts[-1]))
            if i < 0:
                break
            cut = i + 1
            if cut > cuts[-1]:
                cuts.append(cut)
            pos = max(cut, pos) + blocksize
    cuts.append(size)
    return cuts


def plan(paths: str | os.PathLike | Iterable[str | os.PathLike], blocksize: int = DEFAULT_BLOCKSIZE,
         format: str = "auto") -> list[tuple[str, str, int, int]]:
    """The tasks `search` makes: (path, kind, lo, hi) with kind 'range' (plain byte range),
    'records' (FASTA byte range of whole records) or 'file' (the whole file, streamed)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if blocksize <= 0:
        raise warpmatch.InvalidArgument(f"blocksize = {blocksize}: must be > 0")
    pieces = []
    for p in paths:
        path = os.fspath(p)
        fmt, compressed = _detect(path, format)
        size = os.path.getsize(path)
        if compressed or fmt == "fastq" or size == 0:
            pieces.append((path, "file", 0, size))
        elif fmt == "fasta":
            cuts = _fasta_cuts(path, size, blocksize)
            pieces += [(path, "records", lo, hi) for lo, hi in zip(cuts, cuts[1:])]
        else:
            pieces += [(path, "range", lo, min(lo + blocksize, size)) for lo in range(0, size, blocksize)]
    return pieces


# ---- tasks -----------------------------------------------------------------------------------
def _columns(approx: bool) -> dict[str, str]:
    cols = {"path": "object", "record": "object", "record_index": "uint64", "pattern": "uint32",
            "strand": "object", "start": "uint64", "end": "uint64"}
    if approx:
        cols["distance"] = "uint32"
    return cols


def _frame(path: str, records: Sequence[str], hits: np.ndarray, approx: bool, record_offset: int = 0):
    import pandas as pd

    rec = hits["record"].astype(np.uint64) if "record" in (hits.dtype.names or ()) else np.zeros(len(hits), np.uint64)
    names = np.asarray(list(records) or [""], dtype=object)
    data: dict[str, Any] = {
        "path": np.full(len(hits), path, dtype=object),
        "record": names[rec.astype(np.int64)] if len(hits) else np.empty(0, dtype=object),
        "record_index": rec + np.uint64(record_offset),
        "pattern": hits["pattern"].astype(np.uint32),
        "strand": hits["strand"].astype("U1").astype(object) if len(hits) else np.empty(0, dtype=object),
        "start": hits["start"].astype(np.uint64),
        "end": hits["end"].astype(np.uint64),
    }
    if approx:
        data["distance"] = hits["distance"].astype(np.uint32)
    df = pd.DataFrame(data)
    return df.astype(_columns(approx))


def _sort(df, approx: bool):
    key = ["record_index", "end", "pattern"] if approx else ["record_index", "start", "pattern"]
    return df.sort_values(key, kind="stable").reset_index(drop=True)


def _scan_piece(blob: bytes, path: str, kind: str, lo: int, hi: int, format: str):
    """One task: (DataFrame with piece-local record indices, records in the piece, local best)."""
    m = _matcher(blob)
    approx = isinstance(m, warpmatch.ApproxMatcher)
    if kind == "file":
        hits = m.find_file(path, format=format)
        return _sort(_frame(path, hits.records, hits, approx), approx), len(hits.records)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        view = memoryview(mm)
        try:
            if kind == "records":
                hits = m.find_file(view[lo:hi], format="fasta")
                n = len(hits.records)
                return _sort(_frame(path, hits.records, hits, approx), approx), n
            # a byte range of a plain file, with the matcher's overlap
            size = len(mm)
            if approx:
                vlo = max(0, lo - m.overlap)
                hits = m.find(view[vlo:hi])
                hits = hits[hits["end"] > lo - vlo]
                base = vlo
            else:
                vhi = min(size, hi + m.overlap)
                hits = m.find(view[lo:vhi])
                hits = hits[hits["start"] < hi - lo]
                base = lo
            hits = np.array(hits, copy=True)
            hits["start"] += np.uint64(base)
            hits["end"] += np.uint64(base)
            return _sort(_frame(path, [""], hits, approx), approx), 1
        finally:
            view.release()


def _record_count(piece) -> int:
    return piece[1]


def _offsets(counts: list[int]) -> list[int]:
    return [int(x) for x in np.concatenate([[0], np.cumsum(counts[:-1], dtype=np.int64)])] if counts else []


def _best_by_path(pieces) -> dict[tuple[str, int], int]:
    """Smallest distance per (path, pattern) over the byte ranges of plain files (best mode)."""
    best: dict[tuple[str, int], int] = {}
    for df, _ in pieces:
        if len(df):
            path = df["path"].iloc[0]
            for pattern, d in df.groupby("pattern")["distance"].min().items():
                key = (path, int(pattern))
                best[key] = min(best.get(key, int(d)), int(d))
    return best


def _finish(piece, offset: int, best: dict[tuple[str, int], int] | None):
    df, _ = piece
    if offset:
        df = df.assign(record_index=df["record_index"] + np.uint64(offset))
    if best is not None and len(df):
        path = df["path"].iloc[0]
        keep = df["distance"].to_numpy() == np.array([best[(path, int(p))] for p in df["pattern"]], dtype=np.uint32)
        df = df[keep].reset_index(drop=True)
    return df


# ---- public entry points -------------------------------------------------------------------
def search(matcher: Matcher, paths: str | os.PathLike | Iterable[str | os.PathLike],
           blocksize: int = DEFAULT_BLOCKSIZE, format: str = "auto"):
    """Every hit of `matcher` (an ExactMatcher or ApproxMatcher) in `paths` as a lazy Dask
    DataFrame with columns path, record, record_index, pattern, strand, start, end (and distance for
    approximate search); offsets are within the record (plain files: one record named '').
    Compute it on any Dask scheduler or cluster; the result equals search_local()."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    if not isinstance(matcher, (warpmatch.ExactMatcher, warpmatch.ApproxMatcher)):
        raise TypeError(f"matcher: expected warpmatch.ExactMatcher or ApproxMatcher, got {type(matcher).__name__}")
    approx = isinstance(matcher, warpmatch.ApproxMatcher)
    best_mode = approx and matcher.best
    blob = pickle.dumps(matcher)
    pieces = plan(paths, blocksize, format)
    scan = dask.delayed(_scan_piece, pure=True)
    raw = [scan(blob, path, kind, lo, hi, format) for path, kind, lo, hi in pieces]
    # Global record indices for FASTA files split at record starts.
    offsets: list[Any] = [0] * len(pieces)
    by_path: dict[str, list[int]] = {}
    for i, (path, kind, _, _) in enumerate(pieces):
        if kind == "records":
            by_path.setdefault(path, []).append(i)
    for idx in by_path.values():
        if len(idx) > 1:
            offs = dask.delayed(_offsets)([dask.delayed(_record_count)(raw[i]) for i in idx])
            for j, i in enumerate(idx):
                offsets[i] = offs[j]
    best = None
    if best_mode:
        ranges = [raw[i] for i, p in enumerate(pieces) if p[1] == "range"]
        best = dask.delayed(_best_by_path)(ranges) if ranges else None
    parts = [dask.delayed(_finish)(raw[i], offsets[i], best if pieces[i][1] == "range" else None)
             for i in range(len(pieces))]
    meta = pd.DataFrame({c: pd.Series(dtype=t) for c, t in _columns(approx).items()})
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def search_local(matcher: Matcher, paths: str | os.PathLike | Iterable[str | os.PathLike], format: str = "auto"):
    """The same search in this process (find_file over each path): a pandas DataFrame with the
    columns and row order of search(...).compute()."""
    import pandas as pd

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    approx = isinstance(matcher, warpmatch.ApproxMatcher)
    frames = []
    for p in paths:
        path = os.fspath(p)
        hits = matcher.find_file(path, format=format)
        frames.append(_sort(_frame(path, hits.records, hits, approx), approx))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _columns(approx).items()})
    return pd.concat(frames, ignore_index=True)


def _distances_part(df, k, backend: str, threads: int):
    import pandas as pd

    d = warpmatch.edit_distances(list(df["a"]), list(df["b"]), k=k, backend=backend, threads=threads)
    return pd.Series(d, index=df.index, name="distance", dtype="int64")


def edit_distances(seqs_a, seqs_b=None, k: int | None = None, npartitions: int | None = None,
                   backend: str = "auto", threads: int = 0):
    """Edit distances of many pairs on a Dask cluster, as a lazy Dask Series (int64; -1 where a
    distance exceeds k), in pair order. Either two equal-length sequences of texts (split into
    `npartitions` batches; default 1 per 1000 pairs), or one Dask/pandas DataFrame with columns
    'a' and 'b' (its partitions are the batches)."""
    import dask.dataframe as dd
    import pandas as pd

    if seqs_b is None:
        frame = seqs_a
        if isinstance(frame, pd.DataFrame):
            frame = dd.from_pandas(frame, npartitions=npartitions or max(1, len(frame) // 1000))
    else:
        a, b = list(seqs_a), list(seqs_b)
        if len(a) != len(b):
            raise warpmatch.InvalidArgument(
                f"edit_distances: {len(a)} sequences in seqs_a but {len(b)} in seqs_b (pairs need equal lengths)")
        pdf = pd.DataFrame({"a": pd.Series(a, dtype=object), "b": pd.Series(b, dtype=object)})
        frame = dd.from_pandas(pdf, npartitions=npartitions or max(1, len(a) // 1000), sort=False)
    if k is not None and k < 0:
        raise warpmatch.InvalidArgument(f"k = {k}: must be >= 0 (None for no bound)")
    return frame.map_partitions(_distances_part, k, backend, threads,
                                meta=pd.Series(dtype="int64", name="distance"))
