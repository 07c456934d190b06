"""The process's one embedder and snippet-vector cache, loaded on first use and shared by the index and the judge.

Loading verifies the weights (hashing 23 MB) and opens an ONNX session, so it is done once per process, under a
lock: the server warms the model at start-up while a first search, or the background embedding, may ask for it from
another thread, and each unguarded caller would load its own copy. The shortlist's `DenseIndex` and the `local`
judge get the same `Encoder`, so a snippet embedded by one is not embedded again by the other.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.encoder import Embedder


class Encoder(NamedTuple):
    """An embedder and the vector cache it shares."""

    embedder: Embedder
    cache: EmbeddingCache


_loaded: list[Encoder] = []
_loading = threading.Lock()


def load_encoder() -> Encoder:
    """The shared embedder and cache of this process, loaded on the first call.

    Raises `LocalModelUnavailable` without the weights and `ImportError` without ONNX Runtime; each caller turns
    those into its own message. Blocks while the model loads: async callers run it in a worker thread.
    """
    with _loading:
        if not _loaded:
            _loaded.append(Encoder(Embedder.load(), EmbeddingCache()))
        return _loaded[0]
