"""The `local` judge: MiniLM vectors and the ranker, scoring a whole shortlist in one call, in-process.

Every other judge is asked about each snippet on its own, as remote APIs need. This one runs in the process and its
ranker weighs each candidate against its rivals (`ranker`), so it takes the shortlist at once: the query is
embedded and the candidates the shortlist brought without a cosine; the ranker's first look picks the leaders
(`Ranker.leaders`), and their commentary (`embedding.commentary`) and passages (`embedding.passages`) are read;
whatever vector the root's index has not handed over yet is embedded in calls of up to `PREPARE_CHUNK` texts (kept
in the cache the index's shortlist shares, so none is embedded twice), then one matrix of features goes through the
ranker. No Pydantic AI run, no agent graph: a search with cached vectors pays the features and a few small matrix
products.

A snippet that performs nothing (only imports, docstrings, comments, bodiless signatures: `inert`) is capped at
`INERT_CEILING`: it cannot perform the asked action, whatever it names.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache, partial

import numpy as np
import numpy.typing as npt

from smartsearch_ls.chunking.snippet import Snippet, snippet_text
from smartsearch_ls.embedding.cache import NOTHING, EmbeddingCache
from smartsearch_ls.embedding.encoder import Embedder
from smartsearch_ls.embedding.loading import load_encoder
from smartsearch_ls.embedding.readings import COMMENTARY, PASSAGES, READINGS
from smartsearch_ls.judge.contract import Evidence
from smartsearch_ls.judge.local.features import features, label, query_terms, with_readings
from smartsearch_ls.judge.local.inert import performs_nothing
from smartsearch_ls.judge.local.ranker import Ranker, shipped_ranker

INERT_CEILING = 0.1
"""The most the judge answers for a snippet that performs nothing: below any useful threshold, and ranked under
every snippet that does something."""

INERT_MEMORY = 4_096
"""Snippets whose inertness each judge remembers: parsing a candidate's text to find out took about half
of a judgment with cached vectors, and an editor's searches of one root meet the same candidates again."""

PREPARE_CHUNK = 128
"""Texts embedded per worker-thread call (a snippet's code, its commentary, or one of its passages' windows): a
default shortlist's code in one call, and a bound on the CPU that goes on in the thread after a search is
cancelled, since the thread cannot be interrupted; the cancelled search itself returns at once."""


class LocalJudge:
    """all-MiniLM-L6-v2 and the shipped ranker, answering calibrated relevance for a shortlist."""

    name = "local"

    def __init__(self, embedder: Embedder, *, cache: EmbeddingCache | None = None, ranker: Ranker | None = None):
        self.embedder = embedder
        self.cache = cache if cache is not None else EmbeddingCache()
        self._ranker = ranker
        self._performs_nothing: Callable[[Snippet], bool] = lru_cache(maxsize=INERT_MEMORY)(_performs_nothing)
        """`performs_nothing` of the last `INERT_MEMORY` snippets checked."""

    @property
    def ranker(self) -> Ranker:
        """The ranker given, else the shipped one, read on first use: completing cosines (`with_cosines`, which
        the ranker's fit collects rows with) needs no ranker."""
        return self._ranker if self._ranker is not None else shipped_ranker()

    async def score_shortlist(
        self, query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float] | None
    ) -> list[float]:
        """Relevance of every candidate, in order (`ShortlistJudge`); without `idf` every word counts as present
        and equally rare."""
        if not shortlist:
            return []
        scores = self.ranker.relevance(await self._rows(query, shortlist, idf))
        # Only a score above the ceiling can be capped: the rest need not be checked.
        return [
            INERT_CEILING if score > INERT_CEILING and self._performs_nothing(e.snippet) else float(score)
            for score, e in zip(scores, shortlist, strict=True)
        ]

    async def factors(
        self, query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float] | None
    ) -> list[tuple[tuple[str, float], ...]]:
        """For each candidate, what weighed most in its score (`ExplainsShortlists`), as readable labels."""
        if not shortlist:
            return []
        rows = await self._rows(query, shortlist, idf)
        return [tuple((label(name, value), effect) for name, value, effect in row) for row in self.ranker.factors(rows)]

    async def _rows(
        self, query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float] | None
    ) -> npt.NDArray[np.float64]:
        """The shortlist's rows of `features`, with the readings of its leaders (`Ranker.leaders`) alone."""
        seen = await self.with_cosines(query, shortlist, read=[False] * len(shortlist))
        unread = features(query, seen, idf if idf is not None else _even(query))
        leaders = self.ranker.leaders(unread)
        return with_readings(unread, await self.with_cosines(query, seen, read=list(leaders)))

    async def with_cosines(
        self, query: str, shortlist: Sequence[Evidence], read: Sequence[bool] | None = None
    ) -> list[Evidence]:
        """The shortlist with its cosines known: the snippet's own (the shortlist's where it had one), and for the
        candidates to `read` (all by default) its commentary's (`embedding.commentary`) and its passages'
        (`embedding.passages`), from the vectors the cache holds or, for the rest, embedded now."""
        query_vector = await self._query_vector(query)
        keys = [e.snippet.key for e in shortlist]
        reading = [True] * len(shortlist) if read is None else read
        wanted: dict[str, Callable[[], list[str]]] = {}
        for e, key, wanted_read in zip(shortlist, keys, reading, strict=True):
            if e.cosine is None:
                wanted[key] = partial(_code, e)
            for kind in READINGS if wanted_read else ():
                wanted[kind.key(key)] = partial(kind.texts, e.snippet, self.embedder.token_counts)
        vectors = {key: vector for key in wanted if (vector := self.cache.get_key(key)) is not None}
        # Cutting passages tokenizes every line of a candidate: off the event loop.
        missing = await asyncio.to_thread(lambda: {key: make() for key, make in wanted.items() if key not in vectors})
        nothing = {key: NOTHING for key, texts in missing.items() if not texts}
        self.cache.update(nothing)
        vectors.update(nothing)
        for chunk in _chunks({key: texts for key, texts in missing.items() if texts}):
            embedded = await asyncio.to_thread(self.embedder.embed_groups, list(chunk.values()))
            fresh = dict(zip(chunk, embedded, strict=True))
            self.cache.update(fresh)
            vectors.update(fresh)  # kept here too: a concurrent search may evict them from the cache
        complete = []
        for e, key, wanted_read in zip(shortlist, keys, reading, strict=True):
            cosine = e.cosine if e.cosine is not None else float(query_vector @ vectors[key])
            said = vectors[COMMENTARY.key(key)] if wanted_read else NOTHING  # NOTHING: it says nothing in prose
            passages = vectors[PASSAGES.key(key)] if wanted_read else NOTHING  # NOTHING: its head is all of it
            complete.append(
                replace(
                    e,
                    cosine=cosine,
                    commentary_cosine=float(query_vector @ said) if len(said) else None,
                    passage_cosine=float(query_vector @ passages) if len(passages) else None,
                )
            )
        return complete

    async def _query_vector(self, query: str) -> np.ndarray:
        """The query's vector; the embedder keeps recent ones, so the shortlist's is not computed again here."""
        return await asyncio.to_thread(self.embedder.embed_query, query)


def _chunks(groups: dict[str, list[str]]) -> Iterator[dict[str, list[str]]]:
    """The groups in order, cut into calls of about `PREPARE_CHUNK` texts (a group is never split)."""
    chunk: dict[str, list[str]] = {}
    size = 0
    for key, texts in groups.items():
        if chunk and size + len(texts) > PREPARE_CHUNK:
            yield chunk
            chunk, size = {}, 0
        chunk[key] = texts
        size += len(texts)
    if chunk:
        yield chunk


def _even(query: str) -> dict[str, float]:
    """Rarities for a shortlist of no known root: every word of the question present, and all equally rare."""
    return dict.fromkeys(query_terms(query), 1.0)


def _code(evidence: Evidence) -> list[str]:
    s = evidence.snippet
    return [snippet_text(s.path, s.symbol, s.text)]


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


def _performs_nothing(snippet: Snippet) -> bool:
    return performs_nothing(snippet.path, snippet.text)
