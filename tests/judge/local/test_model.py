"""The real `local` judge, loaded from the installed weights, scoring whole shortlists through the runner."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from smartsearch_ls.chunking.snippet import Snippet, snippet_text
from smartsearch_ls.embedding import loading
from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.encoder import Embedder
from smartsearch_ls.embedding.passages import passage_texts
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import Evidence, JudgeConfig, ShortlistJudge
from smartsearch_ls.judge.local import model as model_module
from smartsearch_ls.judge.local.features import features, query_terms
from smartsearch_ls.judge.local.inert import performs_nothing
from smartsearch_ls.judge.local.model import INERT_CEILING, LocalJudge, local_judge
from smartsearch_ls.judge.local.ranker import LEADERS, shipped_ranker
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


class CountingEmbedder(Embedder):
    """The process's embedder (its session and tokenizer), with a record of every `embed_snippets` call."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner._session, inner._tokenizer)
        self.calls: list[list[str]] = []
        self.counted: list[list[str]] = []
        """Lines whose tokens were counted (to cut passages)."""

    def embed_snippets(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed_snippets(texts)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        self.counted.append(list(texts))
        return super().token_counts(texts)


@pytest.fixture
def judge() -> LocalJudge:
    """A judge with its own empty caches, sharing the process's loaded embedder."""
    return LocalJudge(local_judge().embedder)


def config(judge: object) -> JudgeConfig:
    return JudgeConfig(judge, "local")  # type: ignore[arg-type]


def test_local_judge_is_one_per_process_and_scores_shortlists():
    assert local_judge() is local_judge()
    assert isinstance(local_judge(), ShortlistJudge) and local_judge().name == "local"


def test_callers_in_several_threads_load_the_model_once(monkeypatch: pytest.MonkeyPatch):
    """The server warms the model while a search or the embedding may ask for it: one load, not one each."""
    embedder = local_judge().embedder
    loads: list[int] = []

    def slow_load() -> Embedder:
        loads.append(1)
        time.sleep(0.2)  # as long as the callers below need to all arrive while it loads
        return embedder

    monkeypatch.setattr(model_module, "_loaded", [])
    monkeypatch.setattr(loading, "_loaded", [])
    monkeypatch.setattr(Embedder, "load", staticmethod(slow_load))
    with ThreadPoolExecutor(4) as pool:
        judges = list(pool.map(lambda _: local_judge(), range(4)))
    assert len(loads) == 1 and all(j is judges[0] for j in judges)


async def test_ranks_the_relevant_snippet_first_and_above_threshold(judge):
    scores = await judge_snippets(config(judge), "parse a date string", [PARSE_DATE, *UNRELATED], JudgmentCache())
    assert scores[0] >= 0.5
    assert scores.index(max(scores)) == 0
    assert all(0.0 <= s <= 1.0 for s in scores)


async def test_a_snippet_that_only_imports_is_held_below_the_threshold_whatever_its_path(judge):
    """`import time` in `sessions.py` passed 0.5 for "reject expired sessions" on its path alone."""
    header = Snippet("auth/sessions.py", 1, 1, "import time", None)
    rejecting = Snippet(
        "auth/sessions.py",
        3,
        6,
        "def check(store, token):\n    session = store.get(token)\n    if session.expires_at < time.time():\n"
        "        raise PermissionError('session expired')",
        "check",
    )
    header_score, rejecting_score = await judge_snippets(
        config(judge), "reject expired sessions", [header, rejecting], JudgmentCache()
    )
    assert header_score <= INERT_CEILING < rejecting_score


async def test_a_candidate_is_checked_for_performing_nothing_once_and_only_when_the_cap_can_matter(
    judge, monkeypatch: pytest.MonkeyPatch
):
    """Parsing every candidate to find the inert ones was half of a judgment with cached vectors."""
    header = Snippet("util/dates.py", 1, 1, "from datetime import date", None)
    shortlist = [Evidence(s) for s in [PARSE_DATE, header, *UNRELATED]]
    checked: list[str] = []

    def counting(path: str, code: str) -> bool:
        checked.append(code)
        return performs_nothing(path, code)

    monkeypatch.setattr(model_module, "performs_nothing", lambda path, code: False)
    uncapped = await LocalJudge(judge.embedder).score_shortlist("parse a date string", shortlist, None)
    monkeypatch.setattr(model_module, "performs_nothing", counting)
    first = await judge.score_shortlist("parse a date string", shortlist, None)
    assert checked == [e.snippet.text for e, score in zip(shortlist, uncapped, strict=True) if score > INERT_CEILING]
    assert first == [
        min(score, INERT_CEILING) if performs_nothing(e.snippet.path, e.snippet.text) else score
        for e, score in zip(shortlist, uncapped, strict=True)
    ]
    assert first[1] == INERT_CEILING < uncapped[1]  # the import line was capped
    checked.clear()
    assert await judge.score_shortlist("parse a date string", shortlist, None) == first and checked == []
    unseen = Evidence(many_snippets(1, "unseen")[0])
    absent = await judge.score_shortlist("stream video frames to a remote display", [unseen], None)
    assert absent[0] <= INERT_CEILING and checked == []


async def test_a_shortlist_s_code_is_embedded_in_one_call_its_leaders_readings_in_one_more(judge):
    counting = CountingEmbedder(judge.embedder)
    snippets = [PARSE_DATE, *many_snippets(20, "p")]  # fewer than LEADERS: every candidate is read
    known = Evidence(UNRELATED[0], cosine=0.1)  # the shortlist had its vector (and no word of the query)
    scores = await judge_snippets(
        config(LocalJudge(counting)),
        "parse a date string",
        [*snippets, known],
        JudgmentCache(),  # type: ignore[arg-type]
    )
    code = [snippet_text(s.path, s.symbol, s.text) for s in snippets]  # not the known one's
    passages = [text for s in snippets for text in passage_texts(s.path, s.symbol, s.text, counting.token_counts)]
    assert counting.calls == [code, passages]  # the lines past long heads, read once the leaders are known
    assert len(scores) == 22 and scores.index(max(scores)) == 0


async def test_cached_vectors_are_used_instead_of_recomputed(judge):
    text = snippet_text(PARSE_DATE.path, PARSE_DATE.symbol, PARSE_DATE.text)
    cache = EmbeddingCache()
    cache.put(text, judge.embedder.embed_snippets([text])[0])
    counting = CountingEmbedder(judge.embedder)
    cached = LocalJudge(counting, cache=cache)  # type: ignore[arg-type]
    shortlist = [PARSE_DATE, *UNRELATED]
    for snippet in UNRELATED:
        cache.put(snippet_text(snippet.path, snippet.symbol, snippet.text), judge.embedder.embed_snippets([text])[0])
    await judge_snippets(config(cached), "parse a date string", shortlist, JudgmentCache())
    assert counting.calls == []  # only the query was embedded (`embed_query`)


async def test_a_repeated_search_is_served_from_the_judgment_cache_for_the_same_shortlist_only(judge):
    counting = CountingEmbedder(judge.embedder)
    local = LocalJudge(counting)  # type: ignore[arg-type]
    calls: list[int] = []
    score = local.score_shortlist

    async def counted(*args, **kwargs):
        calls.append(1)
        return await score(*args, **kwargs)

    local.score_shortlist = counted  # type: ignore[method-assign]
    cache = JudgmentCache()
    first = await judge_snippets(config(local), "parse a date string", [PARSE_DATE, *UNRELATED], cache)
    again = await judge_snippets(config(local), "parse a date string", [PARSE_DATE, *UNRELATED], cache)
    assert first == again and len(calls) == 1
    await judge_snippets(config(local), "parse a date string", [PARSE_DATE, *UNRELATED[:2]], cache)
    assert len(calls) == 2  # other rivals, another verdict


async def test_a_cancelled_search_stops_embedding_after_the_chunk_in_hand(judge, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(model_module, "PREPARE_CHUNK", 4)
    counting = CountingEmbedder(judge.embedder)
    first_chunk = threading.Event()
    embed = counting.embed_snippets

    def slow(texts: list[str]) -> np.ndarray:
        first_chunk.set()
        time.sleep(0.3)
        return embed(texts)

    counting.embed_snippets = slow  # type: ignore[method-assign]
    local = LocalJudge(counting)  # type: ignore[arg-type]
    search = asyncio.create_task(
        judge_snippets(config(local), "sum the values", many_snippets(20, "x"), JudgmentCache())
    )
    assert await asyncio.to_thread(first_chunk.wait, 30)
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await search
    await asyncio.sleep(1.0)  # time for three more chunks, had the embedding gone on
    assert len(counting.calls) == 1  # the chunk in hand (4 vectors) finished; the others never started


async def test_event_loop_keeps_ticking_during_inference(judge):
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
    start = time.perf_counter()
    await judge_snippets(config(judge), "sum the scaled values", many_snippets(96, "t"), JudgmentCache())
    elapsed = time.perf_counter() - start
    done.set()
    await ticking
    # 96 texts embedded take long enough to tell: a blocked loop would show one gap as long as all of it.
    assert elapsed > 0.3 and len(gaps) >= 10
    assert max(gaps) < min(0.25, elapsed / 2), (max(gaps), elapsed)


def test_embeddings_are_unit_vectors_that_match_meaning():
    embedder = local_judge().embedder
    vectors = embedder.embed_snippets(
        ["How do I read a file in Python?", "What is the way to open and read a file using Python?", "bake a cake"]
    )
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(1, abs=1e-5)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])


async def test_commentary_and_passages_are_embedded_in_the_same_call_as_the_code_and_cached(judge):
    said = "Read a calendar date written as year, month and day."
    documented = Snippet(
        "util/dates.py", 10, 15, PARSE_DATE.text.replace("\n", f'\n    """{said}"""\n', 1), "parse_iso_date"
    )
    (long,) = many_snippets(1, "long")
    windows = passage_texts(long.path, long.symbol, long.text, judge.embedder.token_counts)
    counting = CountingEmbedder(judge.embedder)
    local = LocalJudge(counting)  # type: ignore[arg-type]
    shortlist = [Evidence(documented), Evidence(UNRELATED[0]), Evidence(long)]
    completed = await local.with_cosines("parse a date string", shortlist)
    code = [snippet_text(s.path, s.symbol, s.text) for s in (documented, UNRELATED[0], long)]
    assert windows and counting.calls == [[code[0], said, code[1], code[2], *windows]]
    assert completed[0].commentary_cosine is not None and completed[0].commentary_cosine > 0.3
    assert completed[1].commentary_cosine is None  # says nothing in prose
    assert completed[0].passage_cosine is None and completed[1].passage_cosine is None  # their heads hold them
    query = judge.embedder.embed_query("parse a date string")
    assert completed[2].passage_cosine == pytest.approx(float(query @ judge.embedder.embed_groups([windows])[0]))
    counting.counted.clear()
    await local.with_cosines("parse a date string", shortlist)
    assert len(counting.calls) == 1  # every vector cached
    assert counting.counted == []  # and what has no passages or commentary is known as such: no text is read


def test_a_query_is_embedded_once_for_the_shortlist_and_the_judge(monkeypatch: pytest.MonkeyPatch):
    embedder = local_judge().embedder
    runs: list[int] = []
    run = embedder._run

    def counted(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        runs.append(len(ids))
        return run(ids, mask)

    monkeypatch.setattr(embedder, "_run", counted)
    query = "a question only this test asks"
    first = embedder.embed_query(query)  # the shortlist's
    completed = asyncio.run(LocalJudge(embedder).with_cosines(query, [Evidence(PARSE_DATE, cosine=0.2)]))
    assert runs == [1] and completed[0].cosine == 0.2  # the judge reused the query's vector: no second run
    assert embedder.embed_query(query) is first and not first.flags.writeable


async def test_a_cold_judge_reads_the_leaders_alone_and_answers_as_one_that_had_every_reading(judge):
    query = "add up the scaled totals of the values"
    snippets = many_snippets(LEADERS + 8, "lead")  # each longer than its head: each has passages to read
    shortlist = [Evidence(s) for s in snippets]
    counting = CountingEmbedder(judge.embedder)
    cold = await LocalJudge(counting).score_shortlist(query, shortlist, None)  # type: ignore[arg-type]
    code = {snippet_text(s.path, s.symbol, s.text) for s in snippets}
    read = [text for call in counting.calls for text in call if text not in code]
    windows = [passage_texts(s.path, s.symbol, s.text, judge.embedder.token_counts) for s in snippets]
    assert len(read) == LEADERS * len(windows[0]) < sum(map(len, windows))  # the leaders' passages, no others

    everything = LocalJudge(judge.embedder)
    complete = await everything.with_cosines(query, shortlist)  # every candidate's readings now cached
    assert await everything.score_shortlist(query, shortlist, None) == cold  # whatever was cached, one answer
    ranker = shipped_ranker()
    rows = features(query, complete, dict.fromkeys(query_terms(query), 1.0))
    assert list(ranker.relevance(ranker.as_read(rows))) == pytest.approx(cold)  # what the ranker's fit replays
