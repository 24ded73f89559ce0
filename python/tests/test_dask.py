"""warpmatch.dask on a distributed.LocalCluster (2 worker processes): the same rows as one
process, for plain files split into byte ranges, FASTA split at records, BGZF at blocks, zstd at
frames, gzip and single-frame zstd whole."""
from __future__ import annotations

import gzip
import random
import shutil

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import warpmatch  # noqa: E402
import warpmatch.dask as wd  # noqa: E402
from conftest import approx_oracle, random_bytes  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, worker_dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = random.Random(42)
    d = tmp_path_factory.mktemp("dask")
    plain = random_bytes(rng, 200_000, b"ACGT")
    (d / "plain.txt").write_bytes(plain)
    recs = [(f"chr{i}", random_bytes(rng, rng.randint(0, 9000), b"ACGT")) for i in range(30)]
    fa = b"".join(b">" + n.encode() + b"\n" + b"\n".join(s[i : i + 60] for i in range(0, len(s), 60)) + b"\n"
                  for n, s in recs)
    (d / "genome.fa").write_bytes(fa)
    fq = b"".join(b"@" + n.encode() + b"\n" + s[:300] + b"\n+\n" + b"#" * len(s[:300]) + b"\n" for n, s in recs)
    (d / "reads.fq.gz").write_bytes(gzip.compress(fq))
    (d / "empty.txt").write_bytes(b"")
    return d, plain, recs


def frames_equal(a, b):
    import pandas as pd

    a = a.reset_index(drop=True)
    b = b.reset_index(drop=True)
    for col in ("path", "record", "strand"):  # object or string dtype, same values
        a[col] = a[col].astype(object)
        b[col] = b[col].astype(object)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    assert list(a.dtypes[2:]) == list(b.dtypes[2:])


def find_all(text: bytes, p: bytes) -> list[int]:
    out, i = [], text.find(p)
    while i >= 0:
        out.append(i)
        i = text.find(p, i + 1)
    return out


def test_plan_splits(files):
    d, plain, _ = files
    pieces = wd.plan([d / "plain.txt", d / "genome.fa", d / "reads.fq.gz", d / "empty.txt"], blocksize=30_000)
    kinds = {}
    for path, kind, lo, hi in pieces:
        kinds.setdefault((path.rsplit("/", 1)[1], kind), []).append((lo, hi))
    assert len(kinds[("plain.txt", "range")]) == 7
    assert len(kinds[("genome.fa", "records")]) > 3
    fa = (d / "genome.fa").read_bytes()
    for lo, hi in kinds[("genome.fa", "records")]:
        assert fa[lo : lo + 1] == b">"  # every range starts at a record
    assert kinds[("reads.fq.gz", "file")] == [(0, (d / "reads.fq.gz").stat().st_size)]  # gzip, not BGZF
    assert ("empty.txt", "file") in kinds


def test_auto_blocksize_is_the_input_over_twice_the_clusters_threads(client, files, tmp_path):
    d, _, _ = files
    paths = [d / "plain.txt", d / "genome.fa"]
    total = sum(p.stat().st_size for p in paths)
    # Small inputs: the floor; the bounds and the division themselves with threads given.
    assert wd.auto_blocksize(paths) == wd.MIN_AUTO_BLOCKSIZE
    assert wd.auto_blocksize(paths, threads=1) == wd.MIN_AUTO_BLOCKSIZE
    big = tmp_path / "sparse.bin"
    with open(big, "wb") as f:  # a sparse 10 GiB file: sizes only, no data read
        f.truncate(10 << 30)
    assert wd.TASKS_PER_THREAD == 2
    assert wd.auto_blocksize(big, threads=4) == wd.MAX_AUTO_BLOCKSIZE  # 1.25 GiB capped
    assert wd.auto_blocksize(big, threads=8) == -(-(10 << 30) // 16)  # 640 MiB: 2 tasks a thread
    assert wd.auto_blocksize(big, threads=32) == -(-(10 << 30) // 64)  # 160 MiB
    assert wd.auto_blocksize([big, d / "missing.txt"], threads=32) == -(-(10 << 30) // 64)
    assert wd.auto_blocksize(big, threads=1024) == wd.MIN_AUTO_BLOCKSIZE  # 5 MiB raised
    # The default client's threads (the fixture's cluster): two tasks per thread of 10 GiB.
    threads = sum(w["nthreads"] for w in client.scheduler_info()["workers"].values())
    assert wd.auto_blocksize(big) == max(wd.MIN_AUTO_BLOCKSIZE, min(wd.MAX_AUTO_BLOCKSIZE, -(-(10 << 30) // (2 * threads))))
    # search / plan without a blocksize use it: plain.txt in one range.
    assert [k for _, k, _, _ in wd.plan(d / "plain.txt")] == ["range"]
    assert total < wd.MIN_AUTO_BLOCKSIZE


def test_exact_plain_byte_ranges(client, files):
    d, plain, _ = files
    patterns = [b"ACGTA", b"GATTACA", b"TTTTTT"]
    m = warpmatch.ExactMatcher(patterns, threads=1)
    ddf = wd.search(m, d / "plain.txt", blocksize=7_777)
    assert ddf.npartitions == 26
    got = ddf.compute()
    frames_equal(got, wd.search_local(m, d / "plain.txt"))
    want = sorted((s, i) for i, p in enumerate(patterns) for s in find_all(plain, p))
    assert list(zip(got["start"].tolist(), got["pattern"].tolist())) == want
    assert set(got["record"]) <= {""} and set(got["path"]) == {str(d / "plain.txt")}


def test_text_columns_come_as_the_dask_frame_would_convert_them(client, files):
    # Tasks build path/record/strand in the dtype the Dask DataFrame would convert them to
    # (pyarrow strings under dask's default dataframe.convert-string), so meta, every partition
    # and search_local agree; with the option off they stay object.
    import dask
    import pandas as pd

    d, _, _ = files
    m = warpmatch.ExactMatcher([b"ACGTA", b"GATTACA"], threads=1)
    pyarrow = pytest.importorskip("pyarrow")
    assert pyarrow
    for convert, want in ((True, pd.StringDtype("pyarrow")), (False, np.dtype(object))):
        with dask.config.set({"dataframe.convert-string": convert}):
            ddf = wd.search(m, d / "plain.txt", blocksize=50_000)
            assert ddf.npartitions == 4
            got = ddf.compute()
            local = wd.search_local(m, d / "plain.txt")
        assert len(got) > 0
        for frame in (ddf._meta, got, local):
            for col in ("path", "record", "strand"):
                assert frame[col].dtype == want, (convert, col, frame[col].dtype)
        pd.testing.assert_frame_equal(got.reset_index(drop=True), local)


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="CPU affinity is Linux only")
def test_pin_workers_gives_each_worker_its_own_cpus_and_back(client, files):
    import os

    d, plain, _ = files
    addrs = sorted(client.scheduler_info()["workers"])
    host = sorted(client.run(lambda: sorted(os.sched_getaffinity(os.getppid())), workers=[addrs[0]])[addrs[0]])
    try:
        pinned = wd.pin_workers(client)
        assert sorted(pinned) == addrs
        seen = client.run(lambda: sorted(os.sched_getaffinity(0)))  # what each process now has
        assert seen == pinned
        shares = [set(pinned[a]) for a in addrs]
        assert all(shares) and all(s <= set(host) for s in shares)
        if len(host) >= len(addrs):  # disjoint shares, every CPU used
            assert sum(len(s) for s in shares) == len(set().union(*shares)) == len(host)
        # Threads made after pinning inherit it; results are unchanged.
        late = client.run(lambda: __import__("concurrent.futures").futures.ThreadPoolExecutor(1)
                          .submit(lambda: sorted(os.sched_getaffinity(0))).result())
        assert late == pinned
        m = warpmatch.ExactMatcher([b"ACGTA"], threads=1)
        got = wd.search(m, d / "plain.txt", blocksize=7_777).compute()
        assert list(got["start"]) == find_all(plain, b"ACGTA")
    finally:
        back = wd.pin_workers(client, pin=False)
    assert all(back[a] == host for a in addrs)


@pytest.mark.parametrize("best", [False, True])
def test_approx_plain_byte_ranges(client, files, best):
    d, plain, _ = files
    m = warpmatch.ApproxMatcher([b"GATTACAGAT", b"CCGGTTAA"], k=2, best=best, threads=1)
    got = wd.search(m, d / "plain.txt", blocksize=9_999).compute()
    local = wd.search_local(m, d / "plain.txt")
    frames_equal(got, local)
    whole = m.find(plain)  # one scan of the whole text, reordered by (end, pattern)
    order = np.lexsort((whole["pattern"], whole["end"]))
    assert got[["pattern", "start", "end", "distance"]].to_records(index=False).tolist() == \
        [tuple(x) for x in whole[order][["pattern", "start", "end", "distance"]].tolist()]


def test_approx_small_oracle(client, tmp_path):
    rng = random.Random(3)
    text = random_bytes(rng, 400, b"ACG")
    (tmp_path / "t.txt").write_bytes(text)
    m = warpmatch.ApproxMatcher(b"ACGGA", k=1, threads=1)
    got = wd.search(m, tmp_path / "t.txt", blocksize=37).compute()
    assert list(zip(got["start"], got["end"], got["distance"])) == approx_oracle(text, b"ACGGA", 1, best=False)


def test_fasta_records_and_compressed_and_many_files(client, files):
    d, _, recs = files
    paths = [d / "genome.fa", d / "reads.fq.gz", d / "plain.txt", d / "empty.txt"]
    m = warpmatch.ExactMatcher([b"ACGTAC", b"GGGG"], threads=1)
    got = wd.search(m, paths, blocksize=20_000).compute()
    frames_equal(got, wd.search_local(m, paths))
    fa = got[got["path"] == str(d / "genome.fa")]
    assert fa["record_index"].max() == max(i for i, (_, s) in enumerate(recs) if b"GGGG" in s or b"ACGTAC" in s)
    for _, row in fa.head(200).iterrows():
        name, seq = recs[row["record_index"]]
        assert row["record"] == name
        assert seq[row["start"] : row["end"]] in (b"ACGTAC", b"GGGG")
    a = warpmatch.ApproxMatcher(b"ACGTACGT", k=1, threads=1)
    frames_equal(wd.search(a, paths, blocksize=20_000).compute(), wd.search_local(a, paths))


def test_matcher_compiled_once_per_worker(client, files):
    d, _, _ = files
    m = warpmatch.ExactMatcher([b"CATCAT", b"TAGTAG", b"ACGTTT"], threads=1)  # new to the workers
    before = client.run(wd.compiled_matchers)
    ddf = wd.search(m, d / "plain.txt", blocksize=5_000)
    assert ddf.npartitions == 40
    ddf.compute()
    after = client.run(wd.compiled_matchers)
    grew = [after[w] - before[w] for w in after]
    assert all(g <= 1 for g in grew) and sum(grew) >= 1, grew


def bgzf(data: bytes, rng: random.Random) -> bytes:
    """BGZF (SAM spec 4.1) of data in blocks of random sizes, a few smaller than any overlap,
    then the EOF block: what bgzip writes, without bgzip."""
    import struct
    import zlib

    def block(chunk: bytes) -> bytes:
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        cdata = c.compress(chunk) + c.flush()
        head = b"\x1f\x8b\x08\x04" + b"\0" * 4 + b"\0\xff" + struct.pack("<H", 6) + b"BC" + struct.pack("<HH", 2, 25 + len(cdata))
        return head + cdata + struct.pack("<II", zlib.crc32(chunk), len(chunk))

    out, i = [], 0
    while i < len(data):
        n = rng.choice([1, 2, 5, rng.randint(50, 3000), rng.randint(50, 3000)])
        out.append(block(data[i : i + n]))
        i += n
    return b"".join(out) + block(b"")


@pytest.fixture(scope="module")
def bgzf_files(files):
    d, plain, recs = files
    rng = random.Random(7)
    fa = (d / "genome.fa").read_bytes()
    fq = b"".join(b"@" + n.encode() + b"\n" + s[:300] + b"\n+\n" + b"@" * len(s[:300]) + b"\n" for n, s in recs)
    (d / "plain.txt.bgz").write_bytes(bgzf(plain, rng))
    (d / "genome.fa.bgz").write_bytes(bgzf(fa, rng))
    (d / "reads.fq").write_bytes(fq)  # quality lines of '@': record starts need the '+' line
    (d / "reads.fq.bgz").write_bytes(bgzf(fq, rng))
    return d, plain, fq


def test_bgzf_split_at_blocks_and_fastq_at_records(client, bgzf_files):
    d, plain, fq = bgzf_files
    pieces = wd.plan([d / "plain.txt.bgz", d / "genome.fa.bgz", d / "reads.fq", d / "reads.fq.bgz"], blocksize=1_000)
    kinds = {}
    for path, kind, lo, hi in pieces:
        kinds.setdefault((path.rsplit("/", 1)[1], kind), []).append((lo, hi))
    assert len(kinds[("plain.txt.bgz", "bgzf")]) > 10 and len(kinds[("genome.fa.bgz", "bgzf")]) > 10
    assert len(kinds[("reads.fq.bgz", "bgzf")]) > 3 and len(kinds[("reads.fq", "records")]) > 3
    for lo, _ in kinds[("reads.fq", "records")]:
        assert fq[lo : lo + 1] == b"@" and (lo == 0 or fq[lo - 1 : lo] == b"\n")
        assert fq[lo:].split(b"\n")[2][:1] == b"+"  # a header, not a quality line of '@'
    raw = (d / "plain.txt.bgz").read_bytes()
    for lo, hi in kinds[("plain.txt.bgz", "bgzf")]:
        assert raw[lo : lo + 4] == b"\x1f\x8b\x08\x04"  # block starts


def assert_split_equals_one_process(path, min_tasks: int, plain: bytes | None):
    """search over 1000-byte blocks (at least min_tasks tasks; 1: exactly one) equals search_local
    for an exact, an approximate and a best-mode matcher; plain: the file's text, whose exact
    hits are also checked against str.find."""
    patterns = [b"ACGTA", b"GATTACA", b"TTTTTT"]
    matchers = [warpmatch.ExactMatcher(patterns, threads=1),
                warpmatch.ApproxMatcher([b"GATTACAGAT", b"CCGGTTAA"], k=2, threads=1),
                warpmatch.ApproxMatcher(b"GATTACAGATTACA", best=True, threads=1)]
    for m in matchers:
        ddf = wd.search(m, path, blocksize=1_000)
        assert ddf.npartitions >= min_tasks and (min_tasks > 1 or ddf.npartitions == 1)
        got = ddf.compute()
        frames_equal(got, wd.search_local(m, path))
        assert len(got) > 0
    if plain is not None:
        got = wd.search(matchers[0], path, blocksize=2_500).compute()
        want = sorted((s, i) for i, p in enumerate(patterns) for s in find_all(plain, p))
        assert list(zip(got["start"].tolist(), got["pattern"].tolist())) == want


@pytest.mark.parametrize("name", ["plain.txt.bgz", "genome.fa.bgz", "reads.fq", "reads.fq.bgz"])
def test_bgzf_and_fastq_ranges_equal_one_process(client, bgzf_files, name):
    d, plain, _ = bgzf_files
    assert_split_equals_one_process(d / name, 4, plain if name == "plain.txt.bgz" else None)


def zstd_of(data: bytes, rng: random.Random, tmp, content_size: bool = True) -> bytes:
    """data as concatenated zstd frames of random sizes (a few smaller than any overlap), made by
    the zstd command line over one file per frame (a file's frame states its size; with
    content_size=False, --no-content-size leaves it out, as zstd fed through a pipe does)."""
    import subprocess

    tmp.mkdir(exist_ok=True)
    names, i = [], 0
    while i < len(data):
        n = rng.choice([1, 5, rng.randint(300, 6000), rng.randint(300, 6000)])
        name = tmp / f"frame{len(names):05d}"
        name.write_bytes(data[i : i + n])
        names.append(name)
        i += n
    flags = [] if content_size else ["--no-content-size"]
    subprocess.run(["zstd", "-q", "-f", "-3", *flags, *map(str, names)], check=True)
    return b"".join((tmp / (n.name + ".zst")).read_bytes() for n in names)


requires_zstd_cli = pytest.mark.skipif(shutil.which("zstd") is None or shutil.which("pzstd") is None,
                                       reason="no zstd/pzstd command line to make multi-frame test files: skipped")


@pytest.fixture(scope="module")
def zstd_files(files, bgzf_files):
    import subprocess

    d, plain, recs = files
    _, _, fq = bgzf_files
    rng = random.Random(11)
    fa = (d / "genome.fa").read_bytes()
    (d / "plain.txt.zst").write_bytes(zstd_of(plain, rng, d / "z1"))
    (d / "genome.fa.zst").write_bytes(zstd_of(fa, rng, d / "z2"))
    (d / "reads.fq.zst").write_bytes(zstd_of(fq, rng, d / "z3"))
    (d / "nosize.txt.zst").write_bytes(zstd_of(plain, rng, d / "z4", content_size=False))
    (d / "one.txt.zst").write_bytes(subprocess.run(["zstd", "-q", "-c", str(d / "plain.txt")], check=True,
                                                   capture_output=True).stdout)
    # pzstd starts every file with a skippable frame (input this small: one data frame).
    (d / "pzstd.fa.zst").write_bytes(subprocess.run(["pzstd", "-q", "-p", "2", "-c", str(d / "genome.fa")],
                                                    check=True, capture_output=True).stdout)
    return d, plain, fq


@requires_zstd_cli
def test_zstd_frames_and_decompress_through_the_library(zstd_files):
    d, plain, _ = zstd_files
    raw = (d / "plain.txt.zst").read_bytes()
    frames = warpmatch._core._zstd_frames(raw)
    assert len(frames) > 20 and frames[0][0] == 0
    assert all(a[0] + a[1] == b[0] for a, b in zip(frames, frames[1:]))  # back to back
    assert frames[-1][0] + frames[-1][1] == len(raw)
    assert sum(f[2] for f in frames) == len(plain) and not any(f[3] for f in frames)
    assert warpmatch._core._decompress(raw) == plain
    assert warpmatch._core._decompress(raw[frames[3][0] : frames[7][0]]) == \
        plain[sum(f[2] for f in frames[:3]) : sum(f[2] for f in frames[:7])]
    assert warpmatch._core._zstd_frames(raw, 2) == frames[:2]
    assert all(f[2] is None for f in warpmatch._core._zstd_frames((d / "nosize.txt.zst").read_bytes()))
    skippable = warpmatch._core._zstd_frames((d / "pzstd.fa.zst").read_bytes())
    assert skippable[0][3] and skippable[0][2] == 0
    assert warpmatch._core._decompress(gzip.compress(b"ab") + gzip.compress(b"cd")) == b"abcd"
    with pytest.raises(warpmatch.InputError, match="no whole zstd frame at byte"):
        warpmatch._core._zstd_frames(raw[: frames[2][0] + 3])
    with pytest.raises(warpmatch.InvalidArgument, match="neither gzip nor zstd"):
        warpmatch._core._decompress(b"plain text")


@requires_zstd_cli
def test_zstd_split_at_frames_only_when_they_can_be(zstd_files):
    d, _, _ = zstd_files
    names = ["plain.txt.zst", "genome.fa.zst", "reads.fq.zst", "nosize.txt.zst", "one.txt.zst", "pzstd.fa.zst"]
    kinds = {}
    for path, kind, lo, hi in wd.plan([d / n for n in names], blocksize=1_000):
        kinds.setdefault(path.rsplit("/", 1)[1], []).append((kind, lo, hi))
    for n in ("plain.txt.zst", "genome.fa.zst", "reads.fq.zst"):
        assert len(kinds[n]) > 2 and {k for k, _, _ in kinds[n]} == {"zstd"}, n
        frame_starts = {f[0] for f in warpmatch._core._zstd_frames((d / n).read_bytes())}
        assert all(lo in frame_starts for _, lo, _ in kinds[n])
    # Frames without sizes, one frame, pzstd's skippable frame and one frame: one task each.
    size = {n: (d / n).stat().st_size for n in names}
    for n in ("nosize.txt.zst", "one.txt.zst", "pzstd.fa.zst"):
        assert kinds[n] == [("file", 0, size[n])], n


@requires_zstd_cli
@pytest.mark.parametrize("name", ["plain.txt.zst", "genome.fa.zst", "reads.fq.zst", "nosize.txt.zst",
                                  "one.txt.zst", "pzstd.fa.zst"])
def test_zstd_split_results_equal_whole_file(client, zstd_files, name):
    d, plain, _ = zstd_files
    split = name in ("plain.txt.zst", "genome.fa.zst", "reads.fq.zst")
    assert_split_equals_one_process(d / name, 3 if split else 1, plain if name.endswith(".txt.zst") else None)


def test_edit_distances_partitioned(client):
    import pandas as pd

    rng = random.Random(5)
    a = [random_bytes(rng, rng.randint(0, 200)) for _ in range(300)]
    b = [random_bytes(rng, rng.randint(0, 200)) for _ in range(300)]
    want = warpmatch.edit_distances(a, b, k=100)
    s = wd.edit_distances(a, b, k=100, npartitions=7, threads=1)
    assert s.npartitions == 7
    assert s.compute().tolist() == want.tolist()
    df = pd.DataFrame({"a": a, "b": b})
    assert wd.edit_distances(df, npartitions=3).compute().tolist() == warpmatch.edit_distances(a, b).tolist()
    # devices reaches the workers' edit_distances (a GPU list with the cpu backend is refused there).
    with pytest.raises(warpmatch.InvalidArgument, match="cpu backend"):
        wd.edit_distances(a, b, npartitions=2, backend="cpu", devices=[0]).compute()


def test_bad_arguments(files):
    d, _, _ = files
    with pytest.raises(ValueError):
        wd.search(warpmatch.ExactMatcher("A"), d / "plain.txt", blocksize=0)
    with pytest.raises(TypeError):
        wd.search("ACGT", d / "plain.txt")
    with pytest.raises(ValueError):
        wd.edit_distances(["a"], ["a", "b"])
    with pytest.raises(FileNotFoundError):
        wd.search(warpmatch.ExactMatcher("A"), d / "missing.txt")
