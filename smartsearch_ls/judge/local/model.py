"""The `local` judge: MiniLM vectors and the ranker, scoring a whole shortlist in one call, in-process.

Every other judge is asked about each snippet on its own, as remote APIs need. This one runs in the process and
its ranker weighs each candidate against its rivals (`ranker`), so it takes the shortlist at once: the query is
embedded, the candidates the shortlist brought without a cosine are embedded in calls of up to `PREPARE_CHUNK`
(their vectors kept in the cache the index's shortlist shares, so none is embedded twice), then one matrix of
features goes through the ranker. No Pydantic AI run, no agent graph: a search with cached vectors pays the
features and two small matrix products.

A snippet that performs nothing (only imports, docstrings, comments, bodiless signatures: `inert`) is capped at
`INERT_CEILING`: it cannot perform the asked action, whatever it names.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.encoder import Embedder, snippet_text
from smartsearch_ls.embedding.loading import load_encoder
from smartsearch_ls.judge.contract import Evidence
from smartsearch_ls.judge.local.features import features, label, query_terms
from smartsearch_ls.judge.local.inert import performs_nothing
from smartsearch_ls.judge.local.ranker import Ranker, shipped_ranker

QUERY_CACHE_SIZE = 64

INERT_CEILING = 0.1
"""The most the judge answers for a snippet that performs nothing: below any useful threshold, and ranked under
every snippet that does something."""

PREPARE_CHUNK = 128
"""Snippets embedded per worker-thread call: a default shortlist in one call, and at most ~1.3 s of CPU (at 128
tokens) that goes on in the thread after a search is cancelled, since the thread cannot be interrupted; the
cancelled search itself returns at once."""


class LocalJudge:
    """all-MiniLM-L6-v2 and the shipped ranker, answering calibrated relevance for a shortlist."""

    name = "local"

    def __init__(self, embedder: Embedder, *, cache: EmbeddingCache | None = None, ranker: Ranker | None = None):
        self.embedder = embedder
        self.cache = cache if cache is not None else EmbeddingCache()
        self.ranker = ranker if ranker is not None else shipped_ranker()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queries_lock = threading.Lock()

    async def score_shortlist(
        self, query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float] | None
    ) -> list[float]:
        """Relevance of every candidate, in order (`ShortlistJudge`); without `idf` every word counts as present
        and equally rare."""
        if not shortlist:
            return []
        complete = await self._with_cosines(query, shortlist)
        scores = self.ranker.relevance(features(query, complete, idf if idf is not None else _even(query)))
        return [
            min(float(score), INERT_CEILING) if performs_nothing(e.snippet.path, e.snippet.text) else float(score)
            for score, e in zip(scores, shortlist, strict=True)
        ]

    async def factors(
        self, query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float] | None
    ) -> list[tuple[tuple[str, float], ...]]:
        """For each candidate, what weighed most in its score (`ExplainsShortlists`), as readable labels."""
        if not shortlist:
            return []
        complete = await self._with_cosines(query, shortlist)
        rows = features(query, complete, idf if idf is not None else _even(query))
        return [tuple((label(name, value), effect) for name, value, effect in row) for row in self.ranker.factors(rows)]

    async def _with_cosines(self, query: str, shortlist: Sequence[Evidence]) -> list[Evidence]:
        """The shortlist with every cosine known: the shortlist's own where it had one, else from the vector of
        the snippet's embedded text (cached, or embedded now)."""
        texts = {i: _embedded_text(e) for i, e in enumerate(shortlist) if e.cosine is None}
        if not texts:
            return list(shortlist)
        query_vector = await self._query_vector(query)
        missing = [text for text in dict.fromkeys(texts.values()) if self.cache.get(text) is None]
        for start in range(0, len(missing), PREPARE_CHUNK):
            chunk = missing[start : start + PREPARE_CHUNK]
            vectors = await asyncio.to_thread(self.embedder.embed_snippets, chunk)
            for text, vector in zip(chunk, vectors, strict=True):
                self.cache.put(text, vector)
        complete = list(shortlist)
        for i, text in texts.items():
            vector = self.cache.get(text)
            if vector is None:  # evicted by a concurrent search between the two steps: embed it again
                vector = (await asyncio.to_thread(self.embedder.embed_snippets, [text]))[0]
            complete[i] = replace(shortlist[i], cosine=float(query_vector @ vector))
        return complete

    async def _query_vector(self, query: str) -> np.ndarray:
        with self._queries_lock:
            vector = self._queries.get(query)
        if vector is None:
            vector = await asyncio.to_thread(self.embedder.embed_query, query)
            with self._queries_lock:
                self._queries[query] = vector
                while len(self._queries) > QUERY_CACHE_SIZE:
                    self._queries.popitem(last=False)
        return vector


def _even(query: str) -> dict[str, float]:
    """Rarities for a shortlist of no known root: every word of the question present, and all equally rare."""
    return dict.fromkeys(query_terms(query), 1.0)


def _embedded_text(evidence: Evidence) -> str:
    s = evidence.snippet
    return snippet_text(s.path, s.symbol, s.text)


_loaded: list[LocalJudge] = []
_loading = threading.Lock()


def local_judge() -> LocalJudge:
    """The `local` judge for this process, on the embedder and vector cache the index's shortlist uses too.

    Loaded once under a lock: the server warms the model at start-up while a first search, or the background
    embedding, may ask for it from another thread. Raises `LocalModelUnavailable` without the weights and
    `ImportError` without ONNX Runtime.
    """
    with _loading:
        if not _loaded:
            encoder = load_encoder()
            _loaded.append(LocalJudge(encoder.embedder, cache=encoder.cache))
        return _loaded[0]
