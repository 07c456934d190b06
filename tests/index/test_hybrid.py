"""The hybrid shortlist finds code worded unlike the query, which BM25 alone cannot, and says what it covered."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from smartsearch_ls.chunking.snippet import snippet_text
from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.loading import Encoder, load_encoder
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope, fuse, shortlist, with_lexical_reserve
from smartsearch_ls.index.terms import meta_terms, query_weights, text_terms
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import JudgeConfig
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest
from tests.conftest import write_tree

QUERY = "if a remote request does not get through, wait progressively longer between repeated network calls"

TARGET = "deliver_with_patience"
WORKSPACE: dict[str, str | bytes] = {
    "net/deliver.py": """import time


def deliver_with_patience(send, payload, tries=5):
    pause = 0.5
    for _ in range(tries):
        try:
            return send(payload)
        except ConnectionError:
            time.sleep(pause)
            pause *= 2
    raise ConnectionError("gave up")
""",
    # Distractors: they share the query's words, not its meaning.
    "stats/network.py": '''def count_network_calls(log_lines):
    """How many network calls the log records."""
    return sum(1 for line in log_lines if "network call" in line)
''',
    "ui/prompt.py": '''def wait_for_keypress(message):
    """Wait until the user presses enter; a longer message is shown wrapped."""
    return input(message)
''',
    "text/pad.py": '''def pad_longer_lines(lines, width):
    """Repeated spaces make every line as long as the longest."""
    return [line.ljust(width) for line in lines]
''',
}


@pytest.fixture
def index(tmp_path: Path) -> RootIndex:
    index = RootIndex(write_tree(tmp_path, WORKSPACE))
    index.refresh()
    return index


def dense_of(index: RootIndex) -> tuple[DenseIndex, EmbeddingCache]:
    cache = EmbeddingCache()
    encoder = Encoder(load_encoder().embedder, cache)
    return DenseIndex(index, lambda: encoder), cache


def symbols(found: list) -> list[str | None]:
    return [c.snippet.symbol for c in found]


def test_the_target_shares_no_term_with_the_query(index: RootIndex) -> None:
    target = next(s for s in index.snippets if s is not None and s.symbol == TARGET)
    terms = set(text_terms(target.text)) | set(meta_terms(target.path, target.symbol))
    assert not terms & set(query_weights(QUERY))


def test_hybrid_finds_a_paraphrased_target_bm25_misses(index: RootIndex) -> None:
    lexical = shortlist([Scope(index)], QUERY, 3)
    assert TARGET not in symbols(lexical.candidates)
    assert not lexical.dense_used and lexical.dense_coverage == 0.0

    dense, _ = dense_of(index)
    assert dense.embed_pending(100) == index.snippet_count
    hybrid = shortlist([Scope(index)], QUERY, 2, [dense])
    assert symbols(hybrid.candidates)[0] == TARGET
    assert hybrid.dense_used and hybrid.dense_coverage == 1.0
    assert hybrid.matched == lexical.matched  # still counts lexical matches only


def test_a_search_embeds_its_lexical_candidates_and_hands_them_to_the_judge(index: RootIndex) -> None:
    lexical = symbols(shortlist([Scope(index)], QUERY, 2).candidates)
    dense, cache = dense_of(index)
    found = shortlist([Scope(index)], QUERY, 2, [dense])
    assert found.dense_used
    assert found.embedded == 2  # only the two best lexical candidates, nothing in the background yet
    assert found.dense_coverage == pytest.approx(2 / index.snippet_count)
    shared = {s.symbol for s in index.snippets if s and cache.get(snippet_text(s.path, s.symbol, s.text)) is not None}
    assert shared and shared == set(symbols(found.candidates)) & set(lexical)  # the shortlisted ones with vectors

    nothing, _ = dense_of(index)
    assert not shortlist([Scope(index)], QUERY, 2, [nothing], embed_missing=0).dense_used


def test_until_every_snippet_has_a_vector_only_the_lexical_pool_takes_part(index: RootIndex) -> None:
    """Vectors background embedding stored beyond the pool would bring other candidates and other z-scores, so the
    answer would change with how far it had got; once all are embedded, the whole root takes part."""
    alone, _ = dense_of(index)
    first = shortlist([Scope(index)], QUERY, 2, [alone])
    assert first.embedded == 2 and first.vectors == 2  # the pool's own vectors; the judge reads the rest
    background, _ = dense_of(index)
    background.embed_pending(index.snippet_count - 1)  # all but one, the target among them
    halfway = shortlist([Scope(index)], QUERY, 2, [background])
    assert halfway.vectors == index.snippet_count - 1 and halfway.embedded == 2
    assert [(c.snippet.symbol, c.score, c.cosine) for c in halfway.candidates] == [
        (c.snippet.symbol, c.score, c.cosine) for c in first.candidates
    ]
    assert TARGET not in symbols(halfway.candidates)
    background.embed_pending(index.snippet_count)
    assert symbols(shortlist([Scope(index)], QUERY, 2, [background]).candidates)[0] == TARGET


def test_a_search_that_may_not_embed_uses_no_cosine_while_its_pool_lacks_vectors(index: RootIndex) -> None:
    lexical = shortlist([Scope(index)], QUERY, 2)
    pool = set(symbols(lexical.candidates))
    dense, _ = dense_of(index)
    dense.embed(np.flatnonzero([s is not None and s.symbol not in pool for s in index.snippets])[:1])
    found = shortlist([Scope(index)], QUERY, 2, [dense], embed_missing=0)
    assert found.vectors == 1 and not found.dense_used
    assert [(c.snippet.symbol, c.score) for c in found.candidates] == [
        (c.snippet.symbol, c.score) for c in lexical.candidates
    ]


def test_with_no_vector_stored_and_none_to_embed_the_model_is_not_loaded(index: RootIndex) -> None:
    """A non-local judge's search embeds nothing itself: until background embedding has stored a vector, its
    shortlist must not wait for the model to load."""
    loads = []
    dense = DenseIndex(index, lambda: loads.append(1))  # type: ignore[arg-type,func-returns-value]
    found = shortlist([Scope(index)], QUERY, 3, [dense], embed_missing=0)
    assert not found.dense_used and loads == []
    assert symbols(found.candidates) == symbols(shortlist([Scope(index)], QUERY, 3).candidates)
    shortlist([Scope(index)], QUERY, 3, [dense])  # allowed to embed: now the model is asked for
    assert loads


def test_without_a_model_the_shortlist_is_bm25(index: RootIndex) -> None:
    absent = DenseIndex(index, lambda: None)
    plain = shortlist([Scope(index)], QUERY, 3)
    fallback = shortlist([Scope(index)], QUERY, 3, [absent])
    assert symbols(fallback.candidates) == symbols(plain.candidates)
    assert [c.score for c in fallback.candidates] == [c.score for c in plain.candidates]
    assert not fallback.dense_used and fallback.dense_coverage == 0.0


def test_fuse_weighs_z_scores_and_treats_a_missing_vector_as_average() -> None:
    lexical = np.array([3.0, 0.0, 0.0, 1.0], dtype=np.float32)
    cosines = np.array([0.1, 0.6, np.nan, 0.2], dtype=np.float32)
    only_lexical = fuse(lexical, cosines, 0.0)
    assert np.argmax(only_lexical) == 0
    only_dense = fuse(lexical, cosines, 1.0)
    assert np.argmax(only_dense) == 1 and only_dense[2] == 0.0
    assert np.isfinite(fuse(lexical, np.full(4, np.nan, dtype=np.float32))).all()


async def test_a_search_reports_semantic_coverage(index: RootIndex) -> None:
    def relevant(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"subject": 1.0, "action": 1.0})])

    judge = JudgeConfig(FunctionModel(relevant), "function")
    dense, _ = dense_of(index)
    request = SearchRequest(QUERY, [Scope(index)], candidates=2, mode="behavior", dense=[dense])
    partial = await search(request, judge, JudgmentCache())
    assert partial.coverage.semantic == round(2 / index.snippet_count, 3)
    expected = "Embedding has reached 40% of snippets: until it is complete, meaning only re-ranks the best word"
    assert any(expected in w for w in partial.warnings)

    dense.embed_pending(100)
    full = await search(request, judge, JudgmentCache())
    assert full.coverage.semantic == 1.0
    assert full.matches[0].symbol == TARGET
    assert not any("Embedding has reached" in w for w in full.warnings)
    assert any("ranked best by their words and meaning" in w for w in full.warnings)

    lexical = await search(SearchRequest(QUERY, [Scope(index)], candidates=2, mode="behavior"), judge, JudgmentCache())
    assert lexical.coverage.semantic is None
    assert TARGET not in [m.symbol for m in lexical.matches]


def test_the_last_places_of_a_hybrid_shortlist_go_to_the_best_word_matches_the_fusion_left_out() -> None:
    ranked = [(1.0 - i / 100, 0, i) for i in range(40)]  # the fused order: positions 0..39 of scope 0
    best_lexical = [(9.0, -1.0, 0, 77), (8.0, 0.99, 0, 0), (7.0, -2.0, 1, 5)]  # (BM25, fused, scope, position)
    chosen = with_lexical_reserve(ranked, best_lexical, 32)  # 32 places: the last 2 are the reserve
    assert chosen[:30] == ranked[:30]
    assert chosen[30:] == [(-1.0, 0, 77), (-2.0, 1, 5)]  # the best word matches not already in, by BM25
    assert with_lexical_reserve(ranked, best_lexical[1:2], 32) == ranked[:32]  # nothing left out: fused order
    assert with_lexical_reserve(ranked, best_lexical, 8) == ranked[:8]  # too short to spare a place
