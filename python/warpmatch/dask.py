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
- an uncompressed FASTA or FASTQ file: ranges cut at record starts (each record whole in one
  task; a FASTQ record starts at an '@' line whose next line but one starts with '+'), record
  indices made global afterwards;
- a BGZF file (bgzip): ranges of whole BGZF blocks, each task decompressing its own blocks (and
  the overlap's: the blocks after its range for exact search, before it for approximate search;
  FASTA/FASTQ records starting in its range, read on through later blocks to their ends), so
  one compressed file spreads over the cluster; offsets made global afterwards;
- a zstd file of several frames (pzstd, ``zstd -T0 --format`` with a block size, concatenated
  .zst files): ranges of whole frames, split as BGZF blocks are. The frames are found from
  their headers alone (the library's io layer: ZSTD_findFrameCompressedSize), so planning reads
  no data; every frame must state its decompressed size (ZSTD_getFrameContentSize), which is
  what places a frame in the text;
- one task per file, streamed by the input layer: a zstd file of one frame (a frame's blocks
  refer back to its earlier data: it cannot be entered in the middle), or of frames without
  their sizes (a ``zstd`` fed through a pipe writes none: a frame's place in the text would
  take decompressing all before it); and gzip that is not BGZF, also of several members
  (``cat a.gz b.gz``): a gzip member does not record its compressed length, so its end is
  found only by inflating it, and planning would decompress the whole file serially, as much
  work as the one task does.

The matcher is sent to workers as its (small) definition and compiled once per worker process,
not per task. Results are identical to `search_local` (one process): rows in input order, each
record's rows ordered by (start, pattern) for exact search and (end, pattern) for approximate.
Set the matcher's ``threads`` to the threads each worker should use (e.g. 1 with
``threads_per_worker=1``); the default (0) uses every core per task.

`edit_distances` partitions batches of pairs the same way (pairs per partition, distances
computed by each worker with all its threads).
"""
from __future__ import annotations

import gzip
import mmap
import os
import pickle
import struct
import threading
from typing import NamedTuple
from collections.abc import Iterable, Sequence
from typing import Any, Union

import numpy as np

import warpmatch

__all__ = ["search", "search_local", "edit_distances", "plan", "auto_blocksize", "pin_workers"]

Matcher = Union[warpmatch.ExactMatcher, warpmatch.ApproxMatcher]

# blocksize=None: the input's bytes over twice the cluster's threads (default client's, else
# this machine's cores), within these bounds. Two tasks a thread let Dask move the second task
# of a worker that runs slow (on the 16-core GPU host some of 8 equal tasks run 1.5-1.9x longer)
# while costing each task only its few ms besides the scan. 8 workers over 8 GiB, H200 host,
# speed-up over one worker by blocksize (fourteenth session, two hosts): 128 MiB 3.60x,
# 256 MiB 4.67x / 5.09x, 512 MiB 5.43x, 1 GiB (one task a thread) 4.45x / 3.97x.
TASKS_PER_THREAD = 2
MIN_AUTO_BLOCKSIZE = 64 << 20
MAX_AUTO_BLOCKSIZE = 1 << 30
DEFAULT_BLOCKSIZE = 256 << 20  # the size without a cluster to fit (plan() of no paths, callers' own)


def _cluster_threads() -> int:
    """Threads of the default distributed client's workers; this machine's cores without one."""
    try:
        from distributed import default_client

        workers = default_client().scheduler_info().get("workers", {})
        threads = sum(int(w.get("nthreads", 1)) for w in workers.values())
        if threads > 0:
            return threads
    except Exception:  # no distributed, no client, or a client without workers yet
        pass
    return os.cpu_count() or 1


def auto_blocksize(paths, threads: int | None = None) -> int:
    """The block size search(..., blocksize=None) uses: the inputs' total bytes (compressed
    bytes for BGZF and zstd) over TASKS_PER_THREAD x `threads` (default: the cluster's), so each
    thread gets about two tasks, within [MIN_AUTO_BLOCKSIZE, MAX_AUTO_BLOCKSIZE]."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    total = 0
    for p in paths:
        try:
            total += os.path.getsize(os.fspath(p))
        except OSError:  # reported by the planning that follows, naming the path
            pass
    tasks = TASKS_PER_THREAD * max(1, threads or _cluster_threads())
    return max(MIN_AUTO_BLOCKSIZE, min(MAX_AUTO_BLOCKSIZE, -(-total // tasks)))

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
    compressed = head[:2] == b"\x1f\x8b" or _zstd_magic(head)
    if format != "auto":
        return format, compressed
    if compressed:
        return "auto", True
    if head[:1] == b">":
        return "fasta", False
    if head[:1] == b"@":
        return "fastq", False
    return "plain", False


def _zstd_magic(head: bytes) -> bool:
    """A zstd frame, or a skippable frame (pzstd's files start with one), at the start (the
    input layer's detect_compression)."""
    return len(head) >= 4 and (head[:4] == b"\x28\xb5\x2f\xfd" or
                               (struct.unpack_from("<I", head)[0] & 0xFFFFFFF0) == 0x184D2A50)


def _record_start(buf, i: int, fmt: str) -> bool | None:
    """Whether a record starts at line start i of buf: FASTA '>'; FASTQ '@' with a '+' line two
    lines on (a quality line may start with '@', its next line but one never with '+'). None:
    buf ends too early to tell."""
    if fmt == "fasta":
        return buf[i : i + 1] == b">"
    if buf[i : i + 1] != b"@":
        return False
    j = i
    for _ in range(2):
        j = buf.find(b"\n", j)
        if j < 0:
            return None
        j += 1
    if j >= len(buf):
        return None
    return buf[j : j + 1] == b"+"


def _next_record(buf, pos: int, fmt: str) -> int | None:
    """The first record start at or after pos (pos is a line start or just after a newline
    search begins); len(buf) when none; None when buf ends too early to tell."""
    i = pos
    while i < len(buf):
        if i == 0 or buf[i - 1 : i] == b"\n":
            ok = _record_start(buf, i, fmt)
            if ok is None:
                return None
            if ok:
                return i
        i = buf.find(b"\n", i)
        if i < 0:
            break
        i += 1
    return len(buf)


def _record_cuts(path: str, size: int, blocksize: int, fmt: str) -> list[int]:
    """Range boundaries at record starts near each multiple of blocksize."""
    cuts = [0]
    if size == 0:
        return [0, 0]
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        pos = blocksize
        while pos < size:
            i = mm.find(b"\n", max(pos - 1, cuts[-1]))
            cut = _next_record(mm, i + 1, fmt) if i >= 0 else size
            if cut is None or cut >= size:
                break
            if cut > cuts[-1]:
                cuts.append(cut)
            pos = max(cut, pos) + blocksize
    cuts.append(size)
    return cuts


# BGZF (SAM spec 4.1): gzip members with a 'BC' extra subfield giving the block's size.
def _bgzf_block_size(mm, at: int) -> int | None:
    """The compressed size of the BGZF block at `at`, None if none starts there."""
    head = mm[at : at + 18]
    if len(head) < 18 or head[:4] != b"\x1f\x8b\x08\x04":
        return None
    xlen = struct.unpack_from("<H", head, 10)[0]
    extra = mm[at + 12 : at + 12 + xlen]
    k = 0
    while k + 4 <= len(extra):
        slen = struct.unpack_from("<H", extra, k + 2)[0]
        if extra[k : k + 2] == b"BC" and slen == 2:
            return struct.unpack_from("<H", extra, k + 4)[0] + 1
        k += 4 + slen
    return None


def _is_bgzf(path: str) -> bool:
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        return _bgzf_block_size(mm, 0) is not None


def _is_zstd(path: str) -> bool:
    with open(path, "rb") as f:
        return _zstd_magic(f.read(4))


def _zstd_frame_size(mm, at: int) -> int | None:
    """The compressed size of the zstd frame at `at`, None if none starts there."""
    if at >= len(mm):
        return None
    with memoryview(mm) as whole, whole[at:] as rest:
        try:
            return warpmatch._core._zstd_frames(rest, 1)[0][1]
        except warpmatch.InputError:
            return None


def _zstd_blocks(path: str) -> list[tuple[int, int]] | None:
    """(compressed start, uncompressed start) of every frame, and (file size, total) last, as
    _bgzf_blocks gives blocks; None when a frame does not state its decompressed size or when
    there are fewer than two frames of data (one task then)."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm, memoryview(mm) as view:
        frames = warpmatch._core._zstd_frames(view)
        size = len(mm)
    out, u = [], 0
    for offset, _, content, _ in frames:
        if content is None:
            return None
        out.append((offset, u))
        u += content
    out.append((size, u))
    if sum(1 for _, _, content, skippable in frames if not skippable and content) < 2:
        return None
    return out


def _block_size(kind: str, mm, at: int) -> int | None:
    """The compressed size of the BGZF block or zstd frame at `at` (None: none there)."""
    return _bgzf_block_size(mm, at) if kind == "bgzf" else _zstd_frame_size(mm, at)


def _decompress(kind: str, data) -> bytes:
    """Whole BGZF blocks (gzip members) or zstd frames decompressed."""
    return gzip.decompress(data) if kind == "bgzf" else warpmatch._core._decompress(data)


def _bgzf_blocks(path: str) -> list[tuple[int, int]]:
    """(compressed start, uncompressed start) of every block, and (file size, total) last."""
    out, at, u = [], 0, 0
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        size = len(mm)
        while at < size:
            n = _bgzf_block_size(mm, at)
            if n is None or at + n > size:
                raise warpmatch.InputError(f"{path}: not a valid BGZF block at byte {at}")
            out.append((at, u))
            u += struct.unpack_from("<I", mm, at + n - 4)[0]  # ISIZE
            at += n
    out.append((at, u))
    return out


class _Piece(NamedTuple):
    path: str
    kind: str  # 'range', 'records', 'bgzf', 'zstd' or 'file'
    lo: int
    hi: int
    # bgzf and zstd only (blocks: BGZF blocks or zstd frames): compressed offsets of the blocks
    # holding the overlap (back before lo, ahead after hi), the uncompressed offsets of back,
    # lo and hi, and the content's format.
    back: int = 0
    ahead: int = 0
    u_back: int = 0
    u_lo: int = 0
    u_hi: int = 0
    fmt: str = "plain"


def _pieces(paths, blocksize: int, format: str, overlap: int = 0) -> list[_Piece]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if blocksize <= 0:
        raise warpmatch.InvalidArgument(f"blocksize = {blocksize}: must be > 0")
    pieces: list[_Piece] = []
    for p in paths:
        path = os.fspath(p)
        fmt, compressed = _detect(path, format)
        size = os.path.getsize(path)
        if size == 0:
            pieces.append(_Piece(path, "file", 0, size))
        elif compressed and _is_bgzf(path):
            pieces += _block_pieces(path, "bgzf", _bgzf_blocks(path), blocksize, format, overlap)
        elif compressed and _is_zstd(path) and (frames := _zstd_blocks(path)) is not None:
            pieces += _block_pieces(path, "zstd", frames, blocksize, format, overlap)
        elif compressed:
            pieces.append(_Piece(path, "file", 0, size))
        elif fmt in ("fasta", "fastq"):
            cuts = _record_cuts(path, size, blocksize, fmt)
            pieces += [_Piece(path, "records", lo, hi) for lo, hi in zip(cuts, cuts[1:])]
        else:
            pieces += [_Piece(path, "range", lo, min(lo + blocksize, size)) for lo in range(0, size, blocksize)]
    return pieces


def _block_pieces(path: str, kind: str, blocks: list[tuple[int, int]], blocksize: int, format: str,
                  overlap: int) -> list[_Piece]:
    """Pieces of whole blocks (kind 'bgzf': BGZF blocks, 'zstd': zstd frames) given as
    (compressed start, uncompressed start) pairs, the file's end last."""
    fmt = format
    if fmt == "auto":
        first = b""
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for (c, u), (c_next, u_next) in zip(blocks, blocks[1:]):
                if u_next > u:  # the first block with data
                    first = _decompress(kind, mm[c:c_next])[:1]
                    break
        fmt = {b">": "fasta", b"@": "fastq"}.get(first, "plain")
    # Cuts at block starts near each multiple of blocksize (compressed bytes).
    cut_index = [0]
    for i, (c, _) in enumerate(blocks[:-1]):
        if c >= blocks[cut_index[-1]][0] + blocksize:
            cut_index.append(i)
    cut_index.append(len(blocks) - 1)
    # Overlap: records need one byte before (is the range's first byte a line start?).
    need = max(overlap, 1)
    pieces = []
    for a, b in zip(cut_index, cut_index[1:]):
        back = a
        while back > 0 and blocks[a][1] - blocks[back][1] < need:
            back -= 1
        ahead = b
        while ahead < len(blocks) - 1 and blocks[ahead][1] - blocks[b][1] < overlap:
            ahead += 1
        pieces.append(_Piece(path, kind, blocks[a][0], blocks[b][0], blocks[back][0], blocks[ahead][0],
                             blocks[back][1], blocks[a][1], blocks[b][1], fmt))
    return pieces


def plan(paths: str | os.PathLike | Iterable[str | os.PathLike], blocksize: int | None = None,
         format: str = "auto") -> list[tuple[str, str, int, int]]:
    """The tasks `search` makes (blocksize None: auto_blocksize(paths)): (path, kind, lo, hi)
    with kind 'range' (plain byte range),
    'records' (FASTA/FASTQ byte range of whole records), 'bgzf' (a range of whole BGZF blocks,
    compressed offsets), 'zstd' (a range of whole zstd frames, compressed offsets) or 'file'
    (the whole file, streamed)."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if blocksize is None:
        blocksize = auto_blocksize(paths)
    return [(p.path, p.kind, p.lo, p.hi) for p in _pieces(paths, blocksize, format)]


# ---- tasks -----------------------------------------------------------------------------------
def _text_dtype():
    """The dtype of the text columns (path, record, strand): pandas' pyarrow strings, which a
    Dask DataFrame turns object columns into anyway (dask's dataframe.convert-string, on by
    default), so each task's frame is built so and needs no conversion (that conversion doubled
    a small task's cost); object where that option is off or pyarrow is missing."""
    try:
        import dask
        import pyarrow  # noqa: F401  (the pyarrow strings need it)
    except ImportError:
        return object
    if not dask.config.get("dataframe.convert-string", True):
        return object
    import pandas as pd

    return pd.StringDtype("pyarrow")


def _columns(approx: bool, text: Any = object) -> dict[str, Any]:
    cols = {"path": text, "record": text, "record_index": "uint64", "pattern": "uint32",
            "strand": text, "start": "uint64", "end": "uint64"}
    if approx:
        cols["distance"] = "uint32"
    return cols


def _frame(path: str, records: Sequence[str], hits: np.ndarray, approx: bool, record_offset: int = 0,
           text_dtype: Any = object):
    import pandas as pd

    n = len(hits)
    rec = np.asarray(hits["record"], np.uint64) if "record" in (hits.dtype.names or ()) else np.zeros(n, np.uint64)
    names = np.asarray(list(records) or [""], dtype=object)

    def text(values):  # as _columns(text_dtype) has them (object: without pandas inferring `str`)
        if text_dtype is object:
            return pd.Series(values, dtype=object, copy=False)
        return pd.Series(pd.array(values, dtype=text_dtype))

    # Every column built in its final dtype: an astype() of the frame cost more than the rest
    # of a small task's frame (0.8 against 0.16 ms), once per task.
    data: dict[str, Any] = {
        "path": text(np.full(n, path, dtype=object)),
        "record": text(names[rec.astype(np.int64)] if n else np.empty(0, dtype=object)),
        "record_index": rec + np.uint64(record_offset),
        "pattern": np.asarray(hits["pattern"], np.uint32),
        "strand": text(np.asarray(hits["strand"]).astype("U1").astype(object) if n else np.empty(0, dtype=object)),
        "start": np.asarray(hits["start"], np.uint64),
        "end": np.asarray(hits["end"], np.uint64),
    }
    if approx:
        data["distance"] = np.asarray(hits["distance"], np.uint32)
    return pd.DataFrame(data, copy=False)


def _sort(df, approx: bool):
    if len(df) < 2:
        return df
    key = ["record_index", "end", "pattern"] if approx else ["record_index", "start", "pattern"]
    return df.sort_values(key, kind="stable").reset_index(drop=True)


def _owned_range_hits(m, approx: bool, text, owned_lo: int, owned_hi: int, base: int):
    """Hits of a plain-text range scanned with its overlap (text starts at offset `base`): exact
    search keeps the starts in [owned_lo, owned_hi), approximate search the ends in (owned_lo,
    owned_hi]; offsets made those of the whole text."""
    hits = m.find(text)
    if approx:
        hits = hits[hits["end"] > owned_lo - base]
    else:
        hits = hits[hits["start"] < owned_hi - base]
    hits = np.array(hits, copy=True)
    hits["start"] += np.uint64(base)
    hits["end"] += np.uint64(base)
    return hits


def _resume_at(data, pos: int) -> int:
    """Where a record-start search over data that will grow resumes: the line start with three
    complete lines after it (everything before was decided; FASTQ looks two lines ahead)."""
    k = len(data)
    for _ in range(4):
        k = data.rfind(b"\n", pos, k)
        if k < 0:
            return pos
    return k + 1


def _block_records(mm, piece: _Piece) -> bytes:
    """The records of a BGZF or zstd FASTA/FASTQ file starting in the piece's uncompressed
    range, whole: its blocks decompressed (from `back`, for the byte before the range), then
    later blocks until the record after the last owned one starts (or the file ends)."""
    data = bytearray(_decompress(piece.kind, mm[piece.back : piece.hi]))
    at, size = piece.hi, len(mm)

    def more() -> bool:
        nonlocal at
        n = _block_size(piece.kind, mm, at) if at < size else None
        if n is None:
            at = size
            return False
        data.extend(_decompress(piece.kind, mm[at : at + n]))
        at += n
        return True

    def next_start(pos: int) -> int:
        while True:
            r = _next_record(data, pos, piece.fmt)
            if r is not None and (r < len(data) or at >= size):
                return r
            if r is None and at >= size:
                return len(data)
            pos = _resume_at(data, pos)
            more()

    pre, own_end = piece.u_lo - piece.u_back, piece.u_hi - piece.u_back
    first = 0 if piece.u_lo == 0 else next_start(pre)
    if first >= own_end:
        return b""
    return bytes(data[first : next_start(own_end)])


def _scan_piece(blob: bytes, piece: _Piece, format: str, text_dtype: Any = object):
    """One task: (DataFrame with piece-local record indices, records in the piece)."""
    m = _matcher(blob)
    approx = isinstance(m, warpmatch.ApproxMatcher)
    path, kind, lo, hi = piece.path, piece.kind, piece.lo, piece.hi
    if kind == "file":
        hits = m.find_file(path, format=format)
        return _sort(_frame(path, hits.records, hits, approx, text_dtype=text_dtype), approx), len(hits.records)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        if kind in ("bgzf", "zstd"):
            if piece.fmt == "plain":
                if approx:
                    text, base = _decompress(kind, mm[piece.back : hi]), piece.u_back
                else:
                    text, base = _decompress(kind, mm[lo : piece.ahead]), piece.u_lo
                hits = _owned_range_hits(m, approx, text, piece.u_lo, piece.u_hi, base)
                return _sort(_frame(path, [""], hits, approx, text_dtype=text_dtype), approx), 1
            records = _block_records(mm, piece)
            hits = m.find_file(records, format=piece.fmt) if records else None
            if hits is None:
                return _sort(_frame(path, [], _empty_hits(approx), approx, text_dtype=text_dtype), approx), 0
            return _sort(_frame(path, hits.records, hits, approx, text_dtype=text_dtype), approx), len(hits.records)
        view = memoryview(mm)
        try:
            if kind == "records":
                fmt = "fasta" if view[lo : lo + 1] == b">" else "fastq"
                hits = m.find_file(view[lo:hi], format=fmt)
                n = len(hits.records)
                return _sort(_frame(path, hits.records, hits, approx, text_dtype=text_dtype), approx), n
            # a byte range of a plain file, with the matcher's overlap
            if approx:
                vlo = max(0, lo - m.overlap)
                hits = _owned_range_hits(m, approx, view[vlo:hi], lo, hi, vlo)
            else:
                hits = _owned_range_hits(m, approx, view[lo : min(len(mm), hi + m.overlap)], lo, hi, lo)
            return _sort(_frame(path, [""], hits, approx, text_dtype=text_dtype), approx), 1
        finally:
            view.release()


def _scan_frame(piece: _Piece, blob: bytes, format: str, text: Any = object):
    """One task for a piece that needs nothing from the others: its DataFrame (the piece
    first, as dd.from_map passes it)."""
    return _scan_piece(blob, piece, format, text)[0]


def _empty_hits(approx: bool) -> np.ndarray:
    fields = [("record", "<u8"), ("pattern", "<u4"), ("strand", "S1"), ("start", "<u8"), ("end", "<u8")]
    return np.zeros(0, dtype=fields + ([("distance", "<u4")] if approx else []))


def _record_count(piece) -> int:
    return piece[1]


def _offsets(counts: list[int]) -> list[int]:
    return [int(x) for x in np.concatenate([[0], np.cumsum(counts[:-1], dtype=np.int64)])] if counts else []


def _is_text_range(piece: _Piece) -> bool:
    """A range of one plain text split over tasks (best mode compares their distances)."""
    return piece.kind == "range" or (piece.kind in ("bgzf", "zstd") and piece.fmt == "plain")


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
           blocksize: int | None = None, format: str = "auto"):
    """Every hit of `matcher` (an ExactMatcher or ApproxMatcher) in `paths` as a lazy Dask
    DataFrame with columns path, record, record_index, pattern, strand, start, end (and distance for
    approximate search); offsets are within the record (plain files: one record named '').
    Compute it on any Dask scheduler or cluster; the result equals search_local(). blocksize:
    bytes per task, None for auto_blocksize(paths) (about two tasks per thread of the default
    client's cluster, 64 MiB to 1 GiB)."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    if not isinstance(matcher, (warpmatch.ExactMatcher, warpmatch.ApproxMatcher)):
        raise TypeError(f"matcher: expected warpmatch.ExactMatcher or ApproxMatcher, got {type(matcher).__name__}")
    approx = isinstance(matcher, warpmatch.ApproxMatcher)
    best_mode = approx and matcher.best
    blob = pickle.dumps(matcher)
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if blocksize is None:
        blocksize = auto_blocksize(paths)
    pieces = _pieces(paths, blocksize, format, matcher.overlap)
    # Global record indices for FASTA/FASTQ files split at record starts (plain, BGZF or zstd).
    offsets: list[Any] = [0] * len(pieces)
    by_path: dict[str, list[int]] = {}
    for i, piece in enumerate(pieces):
        if piece.kind == "records" or (piece.kind in ("bgzf", "zstd") and piece.fmt != "plain"):
            by_path.setdefault(piece.path, []).append(i)
    # A piece whose hits need nothing from the others (no record offset, no best-mode minimum)
    # is one task, scan and frame together: a second task per piece doubled the scheduler's
    # work, whose per-task cost (about a millisecond) is the whole scan of a fast job's piece.
    joined = {i for idx in by_path.values() if len(idx) > 1 for i in idx}
    if best_mode:
        joined |= {i for i, p in enumerate(pieces) if _is_text_range(p)}
    text = _text_dtype()  # decided here, on the client, for every task
    meta = pd.DataFrame({c: pd.Series(dtype=t) for c, t in _columns(approx, text).items()})
    if not pieces:
        return dd.from_pandas(meta, npartitions=1)
    if not joined:
        # Every piece is one independent partition: from_map makes one task of each piece and
        # what the collection adds to it (dask-expr fuses them), where from_delayed kept up to
        # four tasks a partition (about 10 ms each on the scheduler: 32 tasks of 16 MiB took
        # 0.46 s against 0.20 s this way, on one worker).
        return dd.from_map(_scan_frame, pieces, args=[blob, format, text], meta=meta, enforce_metadata=False,
                           label="warpmatch-search")
    scan = dask.delayed(_scan_piece, pure=True)
    raw: list[Any] = [scan(blob, piece, format, text) if i in joined else None for i, piece in enumerate(pieces)]
    for idx in by_path.values():
        if len(idx) > 1:
            offs = dask.delayed(_offsets)([dask.delayed(_record_count)(raw[i]) for i in idx])
            for j, i in enumerate(idx):
                offsets[i] = offs[j]
    best = None
    if best_mode:
        ranges = [raw[i] for i, p in enumerate(pieces) if _is_text_range(p)]
        best = dask.delayed(_best_by_path)(ranges) if ranges else None
    scan_frame = dask.delayed(_scan_frame, pure=True)
    parts = [dask.delayed(_finish)(raw[i], offsets[i], best if _is_text_range(pieces[i]) else None)
             if raw[i] is not None else scan_frame(pieces[i], blob, format, text)
             for i in range(len(pieces))]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def search_local(matcher: Matcher, paths: str | os.PathLike | Iterable[str | os.PathLike], format: str = "auto"):
    """The same search in this process (find_file over each path): a pandas DataFrame with the
    columns and row order of search(...).compute()."""
    import pandas as pd

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    approx = isinstance(matcher, warpmatch.ApproxMatcher)
    text = _text_dtype()
    frames = []
    for p in paths:
        path = os.fspath(p)
        hits = matcher.find_file(path, format=format)
        frames.append(_sort(_frame(path, hits.records, hits, approx, text_dtype=text), approx))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _columns(approx, text).items()})
    return pd.concat(frames, ignore_index=True)


def _host_cpus() -> list[int]:
    """The CPUs this worker's host lets it use: its parent's (the nanny's, never pinned by
    pin_workers) affinity, else its own."""
    try:
        return sorted(os.sched_getaffinity(os.getppid()))
    except OSError:
        return sorted(os.sched_getaffinity(0))


def _set_process_affinity(cpus: list[int]) -> list[int]:
    """Every thread of this process on `cpus` (threads made later inherit it from theirs)."""
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:  # a thread that ended meanwhile
            pass
    return sorted(os.sched_getaffinity(0))


def pin_workers(client=None, pin: bool = True) -> dict[str, list[int]]:
    """Pins each worker process of `client`'s cluster (default: the default client) to its own
    share of its host's CPUs, all its threads, as dask-cuda pins a GPU worker near its GPU;
    pin=False gives every worker its host's CPUs back. Returns {worker address: its CPUs}.

    Why: on a host whose N workers float over all cores some of N equal tasks ran 1.5-1.9x
    longer than the rest (fourteenth session, 16-core GPU host: each worker on its own CPU, a
    round of 8 tasks took 154-170 ms against 170-223 unpinned). In the whole Dask run it made
    no difference there (twenty-ninth session, free and pinned rounds interleaved, 8 workers:
    exact 0.189 / 0.187 s, approx 0.611 / 0.612 s): it is for hosts where workers share cores
    with other work, and off by default. The workers of a host, in address order, take
    consecutive equal shares of its CPUs (8 workers on 16 CPUs: 2 each); more workers than
    CPUs share them round robin. Linux only: elsewhere it pins nothing and returns {}."""
    if not hasattr(os, "sched_setaffinity"):
        return {}
    if client is None:
        from distributed import default_client

        client = default_client()
    workers = client.scheduler_info().get("workers", {})
    by_host: dict[str, list[str]] = {}
    for addr, w in workers.items():
        by_host.setdefault(w.get("host", addr), []).append(addr)
    pinned: dict[str, list[int]] = {}
    for addrs in by_host.values():
        addrs.sort()
        cpus = client.run(_host_cpus, workers=[addrs[0]])[addrs[0]]
        n, c = len(addrs), len(cpus)
        for i, addr in enumerate(addrs):
            share = cpus if not pin else (cpus[i * c // n:(i + 1) * c // n] if n <= c else [cpus[i % c]])
            pinned[addr] = client.run(_set_process_affinity, share, workers=[addr])[addr]
    return pinned


def _distances_part(df, k, backend: str, threads: int, devices):
    import pandas as pd

    d = warpmatch.edit_distances(list(df["a"]), list(df["b"]), k=k, backend=backend, threads=threads, devices=devices)
    return pd.Series(d, index=df.index, name="distance", dtype="int64")


def edit_distances(seqs_a, seqs_b=None, k: int | None = None, npartitions: int | None = None,
                   backend: str = "auto", threads: int = 0, devices=None):
    """Edit distances of many pairs on a Dask cluster, as a lazy Dask Series (int64; -1 where a
    distance exceeds k), in pair order. Either two equal-length sequences of texts (split into
    `npartitions` batches; default 1 per 1000 pairs), or one Dask/pandas DataFrame with columns
    'a' and 'b' (its partitions are the batches). backend, threads and devices are
    warpmatch.edit_distances' on each worker (devices, e.g. "all", is resolved there, where the
    GPUs are: a bad value raises when the batches are computed)."""
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
    return frame.map_partitions(_distances_part, k, backend, threads, devices,
                                meta=pd.Series(dtype="int64", name="distance"))
