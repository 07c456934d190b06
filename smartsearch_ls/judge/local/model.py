"""The `local` judge as a Pydantic AI decision model, so it runs through the same `Agent` as every judge.

A decision model is asked each bounded float field of `Relevance` as a yes/no and answers with a probability.
This one reads the query back out of the agent's instructions and the snippet out of the framed user prompt
(`read_query`, `read_snippet`), embeds both with MiniLM, and answers from the calibrated cosine and word
coverage. Before a search's runs start, the runner hands it every prompt (`prepare_batch`), and the snippets
not embedded yet are embedded in calls of up to 128; a run that still misses a vector has it embedded in a micro-batch
shared with concurrent runs. Embedding runs in a worker thread; snippet vectors are kept in an `EmbeddingCache`
the index can fill and persist, and query vectors in a small cache of their own.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.models.decision import (
    DecisionModel,
    DecisionModelSettings,
    DecisionRequest,
    DecisionResponse,
    NoulAnswer,
    NoulQuestion,
)
from pydantic_ai.usage import RequestUsage

from smartsearch_ls.embedding.batcher import MicroBatcher
from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.encoder import Embedder, snippet_text
from smartsearch_ls.embedding.loading import load_encoder
from smartsearch_ls.judge.local.calibration import answers, coverage, relevance_probability
from smartsearch_ls.judge.local.inert import performs_nothing
from smartsearch_ls.judge.prompt import read_query, read_snippet

QUESTIONS = ("subject", "action")
"""The `Relevance` fields this model answers; anything else is a different task and is refused."""

QUERY_CACHE_SIZE = 64

INERT_CEILING = 0.1
"""The most the judge answers for a snippet that performs nothing (`inert`): below any useful threshold, and
ranked under every snippet that does something. On the behavior set's candidates, none of the 316 such snippets
was a match."""

PREPARE_CHUNK = 128
"""Snippets embedded per call when a search prepares: a default shortlist in one call, and at most ~1.3 s of CPU
(at 128 tokens) that goes on in the worker thread after a search is cancelled, since the thread cannot be
interrupted; the cancelled search itself returns at once."""


@dataclass(frozen=True, slots=True)
class Judgment:
    """What one decision read and computed, for tests and measurement."""

    query: str
    text: str
    cosine: float
    coverage: float
    probability: float


@dataclass(init=False)
class LocalJudgeModel(DecisionModel):
    """all-MiniLM-L6-v2 in-process, answering `Relevance` with calibrated probabilities."""

    embedder: Embedder = field(repr=False)
    cache: EmbeddingCache = field(repr=False)

    def __init__(self, embedder: Embedder, *, cache: EmbeddingCache | None = None, batch_window: float = 0.004):
        self.embedder = embedder
        self.cache = cache if cache is not None else EmbeddingCache()
        self._batcher = MicroBatcher(embedder.embed_snippets, window=batch_window)
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        super().__init__()

    @property
    def model_name(self) -> str:
        return "local"

    @property
    def system(self) -> str:
        return "smartsearch-local"

    @property
    def base_url(self) -> str | None:
        return None

    async def decide(self, request: DecisionRequest, model_settings: DecisionModelSettings) -> DecisionResponse:
        """Answer `subject` and `action` for the query and snippet in `request`."""
        if request.images:
            raise UserError("The local judge reads text only; it cannot be sent images.")
        if set(request.questions) != set(QUESTIONS) or not all(
            isinstance(question, NoulQuestion) for question in request.questions.values()
        ):
            raise UserError(
                "The local judge answers only smartsearch's `Relevance` output (the yes/no fields "
                f"{', '.join(QUESTIONS)}); it was asked {sorted(request.questions)}."
            )
        query, text, inert = _read(request)
        judgment = await self.judge(query, text, inert=inert)
        subject, action = answers(judgment.probability)
        return DecisionResponse(
            answers={"subject": NoulAnswer(noul=subject), "action": NoulAnswer(noul=action)},
            model_name=self.model_name,
            usage=RequestUsage(),
        )

    async def prepare_batch(self, instructions: str, prompts: Sequence[str]) -> None:
        """Embed the query and every snippet without a cached vector now, in as few calls as `PREPARE_CHUNK` allows.

        Left to the runs, which come `concurrency` at a time, snippets would be embedded a handful per ONNX
        call with the framework's work in between; a call sorts its snippets by length and fills its batches
        (128 snippets at 128 tokens: 96 snippets/s against 72 in batches of eight). It goes `PREPARE_CHUNK`
        snippets per worker-thread call, so a cancelled search stops embedding within one chunk.
        """
        texts = [text for prompt in prompts if (text := _embedded_text(prompt)) is not None]
        missing = [text for text in dict.fromkeys(texts) if self.cache.get(text) is None]
        query = read_query(instructions)
        if query is not None:
            await self._query_vector(query)
        for start in range(0, len(missing), PREPARE_CHUNK):
            chunk = missing[start : start + PREPARE_CHUNK]
            vectors = await asyncio.to_thread(self.embedder.embed_snippets, chunk)
            for text, vector in zip(chunk, vectors, strict=True):
                self.cache.put(text, vector)

    async def judge(self, query: str, text: str, *, inert: bool = False) -> Judgment:
        """Score one embedded snippet text (`snippet_text(...)`) against a query; `inert`: it performs nothing
        (`inert.performs_nothing`), so its probability is capped at `INERT_CEILING`."""
        query_vector, snippet_vector = await asyncio.gather(self._query_vector(query), self._snippet_vector(text))
        cosine = float(query_vector @ snippet_vector)
        covered = coverage(query, text)
        probability = relevance_probability(cosine, covered)
        return Judgment(query, text, cosine, covered, min(probability, INERT_CEILING) if inert else probability)

    async def _snippet_vector(self, text: str) -> np.ndarray:
        vector = self.cache.get(text)
        if vector is None:
            vector = await self._batcher.embed(text)
            self.cache.put(text, vector)
        return vector

    async def _query_vector(self, query: str) -> np.ndarray:
        vector = self._queries.get(query)
        if vector is None:
            vector = await self._batcher.embed(query)
            self._queries[query] = vector
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector


def _read(request: DecisionRequest) -> tuple[str, str, bool]:
    """`(query, snippet text as embedded, whether the snippet performs nothing)` back out of a judge run's
    instructions and prompt."""
    query = next(
        (
            found
            for message in reversed(request.messages)
            if isinstance(message, ModelRequest) and message.instructions
            if (found := read_query(message.instructions)) is not None
        ),
        None,
    )
    prompt = request.state if isinstance(request.state, str) else _last_prompt(request)
    snippet = read_snippet(prompt) if prompt is not None else None
    if query is None or snippet is None:
        raise UserError(
            "The local judge needs a run built with smartsearch's `instructions(query)` and "
            "`framed_snippet(snippet)`; it could not read the query or the snippet back."
        )
    attributes, code = snippet
    return query, _text_of(attributes, code), performs_nothing(attributes.get("path", ""), code)


def _embedded_text(prompt: str) -> str | None:
    """What is embedded for the snippet framed in `prompt` (`snippet_text`), or None if there is no frame."""
    snippet = read_snippet(prompt)
    return None if snippet is None else _text_of(*snippet)


def _text_of(attributes: dict[str, str], code: str) -> str:
    return snippet_text(attributes.get("path", ""), attributes.get("symbol"), code)


def _last_prompt(request: DecisionRequest) -> str | None:
    """The text of the latest user prompt, for a state that carries history beside it."""
    for message in reversed(request.messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return None


_loaded: list[LocalJudgeModel] = []
_loading = threading.Lock()


def local_model() -> LocalJudgeModel:
    """The `local` judge for this process: weights verified and loaded once, then shared.

    Thread-safe, unlike `functools.cache`: the server warms the model at start-up while a first search, or
    the background embedding, may ask for it from another thread, and on a machine's first start each
    unguarded caller would run its own ~2 GB re-quantization.
    """
    with _loading:
        if not _loaded:
            encoder = load_encoder()  # the embedder and vector cache the index's shortlist uses too
            _loaded.append(LocalJudgeModel(encoder.embedder, cache=encoder.cache))
        return _loaded[0]
