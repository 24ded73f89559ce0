"""Sequence search from Python (issue 14): strand="+"/"-"/"both", iupac=True and hamming=True on
ExactMatcher and ApproxMatcher, against plain-Python oracles (reverse complement, IUPAC sets,
direct mismatch counts, the semi-global DP); the strand field of every result array."""
from __future__ import annotations

import random

import numpy as np
import pytest

import warpmatch
from conftest import approx_oracle

COMPLEMENT = bytes.maketrans(b"ACGTRYSWKMBDHVNacgtryswkmbdhvn", b"TGCAYRSWMKVHDBNtgcayrswmkvhdbn")
IUPAC = {"A": "A", "C": "C", "G": "G", "T": "T", "R": "AG", "Y": "CT", "S": "CG", "W": "AT", "K": "GT",
         "M": "AC", "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG", "N": "ACGTN"}


def revcomp(s: bytes) -> bytes:
    return s.translate(COMPLEMENT)[::-1]


def base_matches(p: int, t: int, iupac: bool, ignore_case: bool) -> bool:
    if ignore_case:
        p, t = ord(chr(p).upper()), ord(chr(t).upper())
    if not iupac:
        return p == t
    pc, tc = chr(p).upper(), chr(t)
    if tc == "N":
        return pc == "N"
    return tc in IUPAC.get(pc, chr(p))


def exact_oracle(text, patterns, strand, iupac, ignore_case=False):
    """(start, pattern, strand) of every occurrence, in the matcher's (start, pattern) order."""
    out = []
    for s in range(len(text)):
        for i, p in enumerate(patterns):
            for sign, q in (("+", p), ("-", revcomp(p))):
                if strand not in (sign, "both") or s + len(q) > len(text):
                    continue
                if all(base_matches(q[j], text[s + j], iupac, ignore_case) for j in range(len(q))):
                    out.append((s, i, sign))
    return out


def random_dna(rng, n, alphabet=b"ACGT"):
    return bytes(rng.choice(alphabet) for _ in range(n))


@pytest.mark.parametrize("strand", ["+", "-", "both"])
@pytest.mark.parametrize("iupac", [False, True])
def test_exact_strands_and_iupac_equal_the_oracle(strand, iupac):
    rng = random.Random(hash((strand, iupac)) & 0xFFFF)
    for _ in range(5):
        text = random_dna(rng, 400, b"ACGTACGTN")
        patterns = [random_dna(rng, rng.randint(2, 5), b"ACGTRYN" if iupac else b"ACGT") for _ in range(3)]
        for pats in (patterns, patterns[:1]):
            m = warpmatch.ExactMatcher(pats if len(pats) > 1 else pats[0], strand=strand, iupac=iupac)
            hits = m.find(text)
            got = sorted((int(s), int(p), st.decode()) for p, st, s, e in hits.tolist())
            want = sorted(exact_oracle(text, pats, strand, iupac))
            assert got == want
            assert all(e - s == len(pats[p]) for p, _, s, e in hits.tolist())
            assert m.count(text) == len(want)
            assert m.strand == strand and m.iupac == iupac


def test_exact_soft_masked_bases_with_ignore_case():
    text = b"acgtNNACGTnacgt"
    m = warpmatch.ExactMatcher("ACNT", strand="both", iupac=True, ignore_case=True)
    got = sorted((int(s), st.decode()) for _, st, s, _ in m.find(text).tolist())
    assert got == sorted((s, st) for s, _, st in exact_oracle(text, [b"ACNT"], "both", True, True))


@pytest.mark.parametrize("strand", ["+", "-", "both"])
def test_approx_hamming_counts_mismatches_on_each_strand(strand):
    rng = random.Random(3)
    text = random_dna(rng, 600)
    pattern = random_dna(rng, 9)
    hits = warpmatch.ApproxMatcher(pattern, k=3, hamming=True, strand=strand).find(text)
    got = sorted((st.decode(), int(s), int(e), int(d)) for _, st, s, e, d in hits.tolist())
    want = []
    for sign, q in (("+", pattern), ("-", revcomp(pattern))):
        if strand not in (sign, "both"):
            continue
        for s in range(len(text) - len(q) + 1):
            d = sum(a != b for a, b in zip(q, text[s:s + len(q)]))
            if d <= 3:
                want.append((sign, s, s + len(q), d))
    assert got == sorted(want)


def test_approx_minus_strand_hits_equal_the_reverse_complement_searched_forward():
    rng = random.Random(5)
    text = random_dna(rng, 150)
    pattern = random_dna(rng, 7, b"ACGTN")
    both = warpmatch.ApproxMatcher(pattern, k=2, strand="both", iupac=True).find(text)
    minus = both[both["strand"] == b"-"]
    forward_rc = warpmatch.ApproxMatcher(revcomp(pattern), k=2, iupac=True).find(text)
    assert minus[["start", "end", "distance"]].tolist() == forward_rc[["start", "end", "distance"]].tolist()
    plus = both[both["strand"] == b"+"]
    want = approx_oracle(text, pattern.replace(b"N", b"A"), None, False) if b"N" not in pattern else None
    if want is not None:
        assert [(s, e, d) for s, e, d in plus[["start", "end", "distance"]].tolist()] == [h for h in want if h[2] <= 2]


def test_bad_strand_and_non_nucleotide_patterns_are_value_errors():
    with pytest.raises(ValueError, match="strand"):
        warpmatch.ApproxMatcher("ACGT", k=1, strand="up")
    with pytest.raises(ValueError):
        warpmatch.ExactMatcher("AC!T", strand="both")


def test_new_options_survive_pickling():
    import pickle

    m = warpmatch.ApproxMatcher(["ACGTT", "GGA"], k=1, strand="both", iupac=True, hamming=True)
    m2 = pickle.loads(pickle.dumps(m))
    assert (m2.strand, m2.iupac, m2.hamming) == ("both", True, True)
    assert m2.find("AACGTAGGA").tolist() == m.find("AACGTAGGA").tolist()
    e = warpmatch.ExactMatcher("GGNA", strand="-", iupac=True)
    assert pickle.loads(pickle.dumps(e)).find("TACCGGTA").tolist() == e.find("TACCGGTA").tolist() != []
    assert "strand='both'" in repr(m)
    assert np.dtype(m.find("ACGTT").dtype["strand"]) == np.dtype("S1")
