"""Unit vectors kept by content key in one growable matrix, freed rows reused: the storage under `DenseIndex`.

The dense index keeps two of them. Snippets' own vectors are multiplied in full by every query, so they are float32:
numpy's product over float16 rows is several times slower (bench/README.md, "the dense rows as float16"). What the
judge reads besides a snippet's code (its commentary's and its passages' vectors) is only ever looked up by key, row
by row, so it is float16, half the memory; kept apart, it no longer lengthens the query's product either. Both
hold values rounded to float16, as persisted, so a vector is the same loaded or computed.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

import numpy as np
import numpy.typing as npt

from smartsearch_ls.embedding.encoder import DIMENSIONS


class VectorRows:
    """Rows of one dtype, addressed by key. Not thread-safe: `DenseIndex` holds its lock around every call."""

    def __init__(self, dtype: type[np.floating]) -> None:
        self.matrix: npt.NDArray[np.floating] = np.zeros((0, DIMENSIONS), dtype=dtype)
        self.used = 0
        """Rows below this have been handed out (some may be free again)."""
        self.row_of: dict[str, int] = {}
        self._free: list[int] = []

    def holds_any(self) -> bool:
        return self.used > len(self._free)

    def store(self, key: str, vector: npt.NDArray[np.float32]) -> None:
        row = self.row_of.get(key)
        if row is None:
            row = self._free.pop() if self._free else self._new_row()
            self.row_of[key] = row
        self.matrix[row] = vector.astype(np.float16)  # as persisted

    def vector(self, key: str) -> npt.NDArray[np.float32] | None:
        """A float32 copy of the key's vector, or None."""
        row = self.row_of.get(key)
        return None if row is None else self.matrix[row].astype(np.float32)

    def release(self, live: Container[str]) -> None:
        """Free the rows of keys not in `live`."""
        for key in [key for key in self.row_of if key not in live]:
            self._free.append(self.row_of.pop(key))

    def adopt(self, keys: Sequence[str], source: npt.NDArray[np.floating], rows: npt.NDArray[np.intp]) -> None:
        """Hold exactly these vectors: `keys[i]`'s is row `rows[i]` of `source`."""
        if len(keys) != len(rows):
            raise ValueError(f"{len(keys)} keys for {len(rows)} rows")
        _copy_rows(source, rows, self.fill(keys))

    def fill(self, keys: Sequence[str]) -> npt.NDArray[np.floating]:
        """Hold exactly these keys, `keys[i]`'s vector in row `i` of the matrix returned, which the caller fills."""
        self.matrix = np.empty((len(keys), DIMENSIONS), dtype=self.matrix.dtype)
        self.used = len(keys)
        self.row_of = {key: row for row, key in enumerate(keys)}
        self._free = []
        return self.matrix

    def held(self) -> list[str]:
        """Every held key."""
        return list(self.row_of)

    def persist_into(self, keys: Sequence[str], out: npt.NDArray[np.float16]) -> None:
        """Write the rows of `keys` (all held), in order, into `out` as float16, as they are persisted."""
        _copy_rows(self.matrix, np.fromiter((self.row_of[key] for key in keys), np.intp, len(keys)), out)

    def _new_row(self) -> int:
        if self.used == len(self.matrix):
            grown = np.zeros((max(1024, 2 * len(self.matrix)), DIMENSIONS), dtype=self.matrix.dtype)
            grown[: self.used] = self.matrix[: self.used]
            self.matrix = grown
        self.used += 1
        return self.used - 1


COPY_CHUNK = 1024
"""Rows gathered at a time between matrices: gathering all of them at once makes a whole copy in the source's dtype
before the cast, as large as the rows themselves, at the moment a persist or a load holds both matrices already."""


def _copy_rows(source: npt.NDArray[np.floating], rows: npt.NDArray[np.intp], out: npt.NDArray[np.floating]) -> None:
    """`out[i] = source[rows[i]]`, cast to `out`'s dtype, a chunk of rows at a time."""
    for start in range(0, len(rows), COPY_CHUNK):
        out[start : start + COPY_CHUNK] = source[rows[start : start + COPY_CHUNK]]
