"""warpmatch.Hits: a NumPy structured array of hits that may carry per-row extras."""
from __future__ import annotations

import numpy as np


class Hits(np.ndarray):
    """A structured ndarray of hits (fields as the returning method documents) with two extras.

    records: for find_file(), the record names; row ``r`` lies in ``records[r["record"]]``.
    cigars: for ApproxMatcher(cigar=True).find(), the alignment of each row, in row order.

    Both are None where not produced; slices and other derived arrays do not carry them
    (they would no longer line up with the rows).
    """

    records: list[str] | None
    cigars: list[str] | None

    def __array_finalize__(self, obj: object) -> None:
        self.records = None
        self.cigars = None
