"""Snippet vectors kept between judgments, keyed by what was embedded, so a snippet is embedded once.

The key is the sha1 of the exact text embedded (`snippet_text(path, symbol, code)`), so an edit to a snippet,
or a move, makes a new key and a stale vector is never served. It is bounded (least recently used goes first)
and exposes its entries by key so the index can persist them and load them back in a later session.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping

import numpy as np

from smartsearch_ls.chunking.snippet import content_key


def commentary_key(key: str) -> str:
    """The key of a snippet's commentary vector (`embedding.commentary`), from the key of the snippet's own: the
    commentary is a function of the snippet's text, so no pass over the text is needed to find its vector."""
    return f"{key}:commentary"


def passage_key(key: str) -> str:
    """The key of a snippet's passage vector (`embedding.passages`), from the key of the snippet's own, as
    `commentary_key`."""
    return f"{key}:passages"


def reading_base(key: str) -> str:
    """The key of a snippet's own vector that a reading's key (`commentary_key`, `passage_key`) was made from: a
    content key is hexadecimal, so the first colon ends it."""
    return key.partition(":")[0]


NOTHING = np.zeros(0, dtype=np.float32)
NOTHING.setflags(write=False)
"""Stored under a reading's key (`commentary_key`, `passage_key`) when the snippet has nothing to read that way, so
a search that meets the snippet again does not read its text to find that out."""

CAPACITY = 4_096
"""Vectors kept: several searches' worth at the largest `candidates` (256; a candidate has up to three entries,
its own vector, its commentary's and its passages', or markers that it has none). The cache hands vectors between the
shortlist, the judge's preparation and its runs within a search; what lasts is the root's `DenseIndex`, which
the shortlist copies from (`DenseIndex.share`). A bound in the tens of thousands let a long-lived server on a
large root keep a second copy of most of its vectors."""


class EmbeddingCache:
    """A bounded, thread-safe map from `content_key(text)` to that text's unit vector."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._vectors)

    def get(self, text: str) -> np.ndarray | None:
        """The vector of `text`, if it was stored."""
        return self.get_key(content_key(text))

    def get_key(self, key: str) -> np.ndarray | None:
        """The vector stored under `content_key(text)`, for callers that keep keys rather than texts."""
        with self._lock:
            vector = self._vectors.get(key)
            if vector is not None:
                self._vectors.move_to_end(key)
            return vector

    def put(self, text: str, vector: np.ndarray) -> None:
        """Remember the vector of `text`."""
        self.update({content_key(text): vector})

    def update(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Add vectors by key, as `items()` gave them (e.g. loaded back from disk)."""
        with self._lock:
            for key, vector in vectors.items():
                stored = np.array(vector, dtype=np.float32)  # a private copy, frozen below
                stored.setflags(write=False)
                self._vectors[key] = stored
                self._vectors.move_to_end(key)
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)

    def items(self) -> Iterator[tuple[str, np.ndarray]]:
        """A snapshot of `(key, vector)` pairs, oldest first, for persisting."""
        with self._lock:
            return iter(list(self._vectors.items()))
