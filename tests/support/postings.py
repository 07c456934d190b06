"""A postings table's contents, read the way a persist writes them, so tests compare tables without changing them."""

from __future__ import annotations

import numpy as np

from smartsearch_ls.index.bm25 import Postings


def postings_of(table: Postings) -> dict[str, list[int]]:
    """Every term's int32 values: those in the table's buffer, then those in its arrays."""
    packed = table.packed()
    found: dict[str, list[int]] = {}
    start = 0
    for term, end in zip(packed.terms, packed.ends, strict=True):
        if term:  # "" marks bytes no term uses any more
            found[term] = np.frombuffer(packed.flat[start:end], dtype=np.int32).tolist()
        start = end
    for term, values in packed.gains.items():  # what a term gained since the buffer was laid out comes after it
        found[term] = found.get(term, []) + values.tolist()
    return found
