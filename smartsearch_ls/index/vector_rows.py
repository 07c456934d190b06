"""Unit vectors kept by content key in one growable matrix, freed rows reused: the storage under `DenseIndex`.

The dense index keeps two of them. Snippets' own vectors are multiplied in full by every query, so they are float32:
numpy's product over float16 rows is several times slower (bench/README.md, "the dense rows as float16"). What the
judge reads besides a snippet's code (its commentary's and its passages' vectors) is only ever looked up by key, row
by row, so it is float16, half the memory; kept apart, it no longer lengthens the query's product either. Both
hold values rounded to float16, as persisted, so a vector is the same loaded or computed.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass

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
        """Keep `key`'s vector; a key already held keeps the one it has (the key is its text's hash, so the vector
        is the same, and a row once written is never rewritten while a persist may be reading it: `HeldRows`)."""
        if key in self.row_of:
            return
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

    def rows_of(self, keys: Sequence[str]) -> HeldRows:
        """The rows of `keys` (all held) as they stand, to read later without the caller's lock (see `HeldRows`)."""
        return HeldRows(self.matrix, np.fromiter((self.row_of[key] for key in keys), np.intp, len(keys)))

    def _new_row(self) -> int:
        if self.used == len(self.matrix):
            grown = np.zeros((max(1024, 2 * len(self.matrix)), DIMENSIONS), dtype=self.matrix.dtype)
            grown[: self.used] = self.matrix[: self.used]
            self.matrix = grown
        self.used += 1
        return self.used - 1


@dataclass(frozen=True, slots=True)
class HeldRows:
    """Some keys' rows: the matrix they were in and their numbers in it. They keep their values while no row is freed
    and handed to another key: a store only writes a new key's vector into a free row or a grown matrix, and a key's
    vector never changes (the key is its text's hash), so reading them needs no lock as long as nothing calls
    `release` meanwhile, which `DenseIndex.persist` alone does, one persist at a time."""

    matrix: npt.NDArray[np.floating]
    rows: npt.NDArray[np.intp]

    def chunks(self, size: int) -> Iterator[npt.NDArray[np.float16]]:
        """The rows in order as float16, as persisted, `size` at a time."""
        for start in range(0, len(self.rows), size):
            yield self.matrix[self.rows[start : start + size]].astype(np.float16, copy=False)
