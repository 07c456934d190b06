"""The real `local` judge, loaded from the installed weights, run through ordinary `Agent` runs."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.embedding import loading
from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.encoder import Embedder, snippet_text
from smartsearch_ls.judge.judgments import JudgeConfig, JudgmentCache
from smartsearch_ls.judge.local import model as model_module
from smartsearch_ls.judge.local.model import INERT_CEILING, LocalJudgeModel, local_model
from smartsearch_ls.judge.prompt import Relevance, framed_snippet, instructions
from smartsearch_ls.judge.runner import judge_snippets

PARSE_DATE = Snippet(
    "util/dates.py",
    10,
    14,
    'def parse_iso_date(text):\n    year, month, day = text.split("-")\n'
    "    return date(int(year), int(month), int(day))",
    "parse_iso_date",
)
UNRELATED = [
    Snippet(
        "net/http.py", 1, 3, "def send(sock, payload):\n    sock.sendall(payload)\n    return len(payload)", "send"
    ),
    Snippet(
        "ui/colors.py",
        1,
        2,
        "def blend(a, b, t):\n    return tuple(x * (1 - t) + y * t for x, y in zip(a, b))",
        "blend",
    ),
    Snippet("db/pool.py", 1, 3, "class Pool:\n    def acquire(self):\n        return self._free.pop()", "Pool"),
]


def many_snippets(count: int, tag: str) -> list[Snippet]:
    """Distinct, realistic-length snippets, so nothing is served from a cache."""
    body = "\n".join(f"    total_{k} = compute_{k}(values, scale={k})" for k in range(20))
    return [
        Snippet(f"pkg/{tag}_{i}.py", 1, 22, f"def handler_{tag}_{i}(values):\n{body}", f"handler_{i}")
        for i in range(count)
    ]


@pytest.fixture
def model() -> LocalJudgeModel:
    """A judge with its own empty caches, sharing the process's loaded embedder."""
    return LocalJudgeModel(local_model().embedder)


async def judge(model: LocalJudgeModel, query: str, snippet: Snippet) -> Relevance:
    agent = Agent(model, output_type=Relevance, instructions=instructions(query), retries=0)
    return (await agent.run(framed_snippet(snippet))).output


def test_local_model_is_one_per_process():
    assert local_model() is local_model()
    assert local_model().model_name == "local"


def test_callers_in_several_threads_load_the_model_once(monkeypatch: pytest.MonkeyPatch):
    """The server warms the model while a search or the embedding may ask for it: one load, not one each."""
    embedder = local_model().embedder
    loads: list[int] = []

    def slow_load() -> Embedder:
        loads.append(1)
        time.sleep(0.2)  # as long as the callers below need to all arrive while it loads
        return embedder

    monkeypatch.setattr(model_module, "_loaded", [])
    monkeypatch.setattr(loading, "_loaded", [])
    monkeypatch.setattr(Embedder, "load", staticmethod(slow_load))
    with ThreadPoolExecutor(4) as pool:
        models = list(pool.map(lambda _: local_model(), range(4)))
    assert len(loads) == 1 and all(m is models[0] for m in models)


async def test_ranks_the_relevant_snippet_first_and_above_threshold(model):
    query = "parse a date string"
    scores = {s.symbol: (await judge(model, query, s)).score for s in [PARSE_DATE, *UNRELATED]}
    assert scores["parse_iso_date"] >= 0.5
    assert all(scores[s.symbol] < 0.5 for s in UNRELATED), scores
    assert max(scores, key=scores.__getitem__) == "parse_iso_date"


async def test_a_snippet_that_only_imports_is_held_below_the_threshold_whatever_its_path(model):
    """`import time` in `sessions.py` passed 0.5 for "reject expired sessions" on its path alone."""
    query = "reject expired sessions"
    header = Snippet("auth/sessions.py", 1, 1, "import time", None)
    rejecting = Snippet(
        "auth/sessions.py",
        3,
        6,
        "def check(store, token):\n    session = store.get(token)\n    if session.expires_at < time.time():\n"
        "        raise PermissionError('session expired')",
        "check",
    )
    unjudged = await model.judge(query, snippet_text(header.path, header.symbol, header.text))
    assert unjudged.probability >= 0.5  # what the embedding alone says: the cap is what keeps it out
    assert (await judge(model, query, header)).score <= INERT_CEILING
    assert (await judge(model, query, rejecting)).score >= 0.5


async def test_answers_are_probabilities_whose_product_is_the_calibrated_p(model):
    output = await judge(model, "parse a date string", PARSE_DATE)
    judgment = await model.judge(
        "parse a date string", snippet_text(PARSE_DATE.path, PARSE_DATE.symbol, PARSE_DATE.text)
    )
    assert 0 <= output.subject <= 1 and 0 <= output.action <= 1
    assert output.score == pytest.approx(judgment.probability)


async def test_concurrent_runs_agree_with_sequential_ones_and_share_batches(model):
    snippets = [PARSE_DATE, *UNRELATED, *many_snippets(12, "c")]
    sequential = [await judge(LocalJudgeModel(model.embedder), "parse a date string", s) for s in snippets]
    calls: list[int] = []
    embed = model.embedder.embed_snippets

    def counting(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return embed(texts)

    batched = LocalJudgeModel(model.embedder)
    batched._batcher._embed = counting  # observe the batches without changing what they compute
    concurrent = await asyncio.gather(*(judge(batched, "parse a date string", s) for s in snippets))
    for one, other in zip(sequential, concurrent, strict=True):
        # int8 activation scales are computed per batch, so batch company moves a score by ~1e-3, no more
        assert one.score == pytest.approx(other.score, abs=0.01)
    assert sum(calls) == len(snippets) + 1  # each snippet and the query embedded once
    assert len(calls) < 4, calls  # 16 runs shared a handful of ONNX runs


class CountingEmbedder:
    """The process's embedder, with a record of every `embed_snippets` call."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls: list[list[str]] = []

    def embed_snippets(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.embed_snippets(texts)

    def embed_query(self, query: str) -> np.ndarray:
        return self.inner.embed_query(query)


async def test_a_search_embeds_its_snippets_in_one_call_not_a_concurrency_at_a_time(model):
    snippets = [PARSE_DATE, *many_snippets(20, "p")]
    counting = CountingEmbedder(model.embedder)
    config = JudgeConfig(LocalJudgeModel(counting), "local", concurrency=8)  # type: ignore[arg-type]
    scores = await judge_snippets(config, "parse a date string", snippets, JudgmentCache())
    texts = [snippet_text(s.path, s.symbol, s.text) for s in snippets]
    assert sorted(counting.calls, key=len) == [["parse a date string"], texts]  # nothing embedded twice
    one_by_one = [(await judge(LocalJudgeModel(model.embedder), "parse a date string", s)).score for s in snippets]
    assert scores == pytest.approx(one_by_one, abs=0.01)
    assert scores.index(max(scores)) == 0


async def test_a_cancelled_search_stops_embedding_after_the_chunk_in_hand(model, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(model_module, "PREPARE_CHUNK", 4)
    counting = CountingEmbedder(model.embedder)
    first_chunk = threading.Event()
    embed = counting.embed_snippets

    def slow(texts: list[str]) -> np.ndarray:
        if texts != ["sum the values"]:
            first_chunk.set()
            time.sleep(0.3)
        return embed(texts)

    counting.embed_snippets = slow  # type: ignore[method-assign]
    config = JudgeConfig(LocalJudgeModel(counting), "local")  # type: ignore[arg-type]
    search = asyncio.create_task(judge_snippets(config, "sum the values", many_snippets(20, "x"), JudgmentCache()))
    assert await asyncio.to_thread(first_chunk.wait, 30)
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await search
    await asyncio.sleep(1.0)  # time for three more chunks, had the preparation gone on
    chunks = [texts for texts in counting.calls if texts != ["sum the values"]]
    assert [len(texts) for texts in chunks] == [4]  # the chunk in hand finished; the other four never started


async def test_event_loop_keeps_ticking_during_inference(model):
    # `judge` is `decide` without the agent framework, whose own per-run work on the loop would blur the test.
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    gaps.clear()
    texts = [snippet_text(s.path, s.symbol, s.text) for s in many_snippets(48, "t")]
    start = time.perf_counter()
    await asyncio.gather(*(model.judge("sum the scaled values", text) for text in texts))
    elapsed = time.perf_counter() - start
    done.set()
    await ticking
    assert elapsed > 0.5  # one batch of 49 texts: blocking would freeze the loop for all of it
    assert len(gaps) >= 10
    assert max(gaps) < 0.25, max(gaps)


async def test_cached_embeddings_are_used_instead_of_recomputed(model):
    text = snippet_text(PARSE_DATE.path, PARSE_DATE.symbol, PARSE_DATE.text)
    cache = EmbeddingCache()
    cache.put(text, model.embedder.embed_snippets([text])[0])
    cached = LocalJudgeModel(model.embedder, cache=cache)
    seen: list[str] = []
    embed = model.embedder.embed_snippets
    cached._batcher._embed = lambda texts: (seen.extend(texts), embed(texts))[1]
    output = await judge(cached, "parse a date string", PARSE_DATE)
    assert seen == ["parse a date string"]  # only the query was embedded
    fresh = await judge(model, "parse a date string", PARSE_DATE)
    assert output.score == pytest.approx(fresh.score, abs=0.01)  # computed in other company: see the batching test


async def test_refuses_an_output_it_was_not_built_for(model):
    class Other(BaseModel):
        """Something else."""

        urgent: bool

    with pytest.raises(UserError, match="only smartsearch's `Relevance`"):
        await Agent(model, output_type=Other, instructions=instructions("x"), retries=0).run(framed_snippet(PARSE_DATE))


async def test_refuses_a_prompt_without_the_framed_snippet(model):
    with pytest.raises(UserError, match="could not read the query or the snippet"):
        await Agent(model, output_type=Relevance, instructions=instructions("x"), retries=0).run("def f(): pass")


def test_embeddings_are_unit_vectors_that_match_meaning():
    embedder = local_model().embedder
    vectors = embedder.embed_snippets(
        ["How do I read a file in Python?", "What is the way to open and read a file using Python?", "bake a cake"]
    )
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(1, abs=1e-5)
    assert vectors[0] @ vectors[1] > 0.85
    assert vectors[0] @ vectors[2] < 0.3
    assert embedder.embed_query("bake a cake") @ vectors[2] > 0.98  # int8 activations scale per batch
