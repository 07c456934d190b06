"""`search`: from a query to ranked, focused, honestly covered matches."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import JudgeConfig
from smartsearch_ls.judge.local.model import local_judge
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest
from smartsearch_ls.search.routing import route
from smartsearch_ls.search.wire import result_wire
from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.judges import coverage_judge


@pytest.fixture
def index(tmp_path: Path) -> RootIndex:
    built = RootIndex(write_tree(tmp_path / "project", SAMPLE_PROJECT))
    built.refresh()
    return built


async def test_matches_are_ranked_focused_and_labeled(index: RootIndex) -> None:
    result = await search(SearchRequest("reject expired sessions", [Scope(index)]), coverage_judge(), JudgmentCache())
    assert result.mode == "behavior" and result.judge == "function"
    paths = [m.path for m in result.matches]
    assert set(paths) == {"auth/sessions.py", "tests/test_sessions.py"}
    for match in result.matches:
        assert match.end_line - match.start_line < 12 and match.excerpt.count("\n") < 12
        assert match.snippet_start_line <= match.start_line <= match.end_line <= match.snippet_end_line
        assert match.relevance >= 0.5
    assert next(m for m in result.matches if m.path.startswith("tests/")).kind == "test"
    cov = result.coverage
    assert (cov.files, cov.skipped_files, cov.complete) == (8, 3, True)
    assert cov.judged == cov.shortlisted == cov.snippets
    assert any("3 files skipped" in w for w in result.warnings)


async def test_limit_threshold_and_omitted_matches(index: RootIndex) -> None:
    request = SearchRequest("reject expired sessions", [Scope(index)], limit=1)
    result = await search(request, coverage_judge(), JudgmentCache())
    assert len(result.matches) == 1 and result.omitted_matches == 1
    strict = SearchRequest("reject expired sessions wallet", [Scope(index)], threshold=0.99)
    result = await search(strict, coverage_judge(), JudgmentCache())
    assert not result.matches
    (nothing,) = [w for w in result.warnings if "does not prove absence" in w]
    # What the answer would show first with no threshold, named with its score: the implementation, before the test
    # that scores as high.
    assert "The closest was auth/sessions.py:6-25 (SessionStore) at 0.56." in nothing
    assert result.closest is not None and (result.closest.path, result.closest.symbol) == (
        "auth/sessions.py",
        "SessionStore",
    )
    assert result.closest.relevance == 0.562 and result.closest.why is not None
    passed = await search(request, coverage_judge(), JudgmentCache())
    assert passed.matches and passed.closest is None  # only an answer with no match has one


async def test_with_no_match_the_closest_is_what_the_answer_would_show_first_not_the_best_score(tmp_path: Path) -> None:
    # The test names every word of the question and outscores the function; with no threshold the answer shows the
    # function first (tests after the implementation), so that is the closest a reader is pointed at.
    tree = {
        "src/retry.py": "def retry_send(send, attempts):\n    for _ in range(attempts):\n        send()\n",
        "tests/test_retry.py": "def test_retry_send_gives_up_after_attempts():\n    retry_send(lambda: 1, 3)\n",
    }
    index = RootIndex(write_tree(tmp_path / "project", tree))
    index.refresh()
    request = SearchRequest("retry send gives up after attempts quickly", [Scope(index)], threshold=0.99)
    result = await search(request, coverage_judge(), JudgmentCache())
    assert not result.matches and result.closest is not None
    everything = await search(replace(request, threshold=0.0), coverage_judge(), JudgmentCache())
    assert everything.matches[-1].kind == "test" and everything.matches[-1].relevance > result.closest.relevance
    assert (result.closest.path, result.closest.symbol) == ("src/retry.py", "retry_send")


async def test_a_cut_shortlist_is_reported_incomplete(index: RootIndex) -> None:
    result = await search(
        SearchRequest("session token", [Scope(index)], candidates=2), coverage_judge(), JudgmentCache()
    )
    assert result.coverage.shortlisted == 2 and not result.coverage.complete
    assert any("Raise `candidates`" in w for w in result.warnings)


async def test_when_every_snippet_with_a_query_word_was_judged_the_advice_is_not_more_candidates(
    index: RootIndex,
) -> None:
    request = SearchRequest("wallet invoice", [Scope(index)], candidates=5)
    result = await search(request, coverage_judge(), JudgmentCache())
    assert not result.coverage.complete and result.coverage.judged < 5 < result.coverage.snippets
    (cut,) = [w for w in result.warnings if "lexical shortlist" in w]
    assert "share no word" in cut and "Raise `candidates`" not in cut and "at most 5 snippets" in cut


async def test_scopes_narrow_by_folder_and_glob(index: RootIndex) -> None:
    scopes = [Scope(index, "tests")]
    result = await search(SearchRequest("expired session rejected", scopes), coverage_judge(), JudgmentCache())
    assert {m.path for m in result.matches} == {"tests/test_sessions.py"} and result.coverage.files == 1
    scopes = [Scope(index, "", GlobSet.of(["*.md"]))]
    result = await search(SearchRequest("expired session rejected", scopes), coverage_judge(), JudgmentCache())
    assert not result.matches and result.coverage.files == 1


@pytest.mark.parametrize(
    ("query", "mode"),
    [
        ("GitIndexer", "symbol"),
        ("index_repo", "symbol"),
        ("Cache.get", "symbol"),
        ("core/ingestion/indexer.py", "path"),
        ("indexer.py", "path"),
        ("where do we reject expired sessions", "behavior"),
    ],
)
def test_queries_are_routed_by_shape(query: str, mode: str) -> None:
    assert route(query) == mode


async def test_symbol_and_path_modes_answer_without_a_judge(index: RootIndex) -> None:
    result = await search(SearchRequest("SessionStore.create", [Scope(index)]), None, JudgmentCache())
    assert result.mode == "symbol" and result.matches[0].symbol == "SessionStore.create"
    assert result.matches[0].start_line == 22 and result.matches[0].excerpt.startswith("    def create")
    result = await search(SearchRequest("invoice.py", [Scope(index)]), None, JudgmentCache())
    assert result.mode == "path" and result.matches[0].path == "billing/invoice.py"


async def test_a_judged_match_says_why_it_ranked(index: RootIndex) -> None:
    local = JudgeConfig(local_judge(), "local")
    result = await search(SearchRequest("reject expired sessions", [Scope(index)]), local, JudgmentCache())
    best = result.matches[0]
    assert best.path == "auth/sessions.py" and best.why is not None
    assert {"expired", "sessions"} <= set(best.why.body) and "sessions" in best.why.path
    assert best.why.semantic is None or 0 < best.why.semantic <= 1
    assert best.why.lines and all(best.start_line <= line <= best.end_line for line in best.why.lines)
    assert len(best.why.factors) == 3 and all(isinstance(effect, float) for _, effect in best.why.factors)
    wired = result_wire(result, lambda m: {}, lambda c: {}, lambda p: p.as_uri(), lambda u: None)["matches"][0]["why"]
    assert set(wired) == {"words", "semantic", "lines", "factors"} and wired["words"]["body"]
    request = SearchRequest("reject expired sessions", [Scope(index)])
    by_function = await search(request, coverage_judge(), JudgmentCache())
    assert by_function.matches[0].why is not None and by_function.matches[0].why.factors == ()  # a model says no more


async def test_a_module_header_that_describes_the_behavior_comes_after_the_code_that_does_it(tmp_path: Path) -> None:
    """A module docstring is worded like the question and scores above the function it describes; it stays in
    the answer, after the code (`search.answer_order`)."""
    tree = {
        "jobs/cancel.py": '"""Cancel the pending jobs of a batch when one job fails."""\n\nimport asyncio\n\n\n'
        "async def run_batch(jobs):\n    tasks = [asyncio.ensure_future(j) for j in jobs]\n    try:\n"
        "        return await asyncio.gather(*tasks)\n    except Exception:\n        for t in tasks:\n"
        "            t.cancel()\n        raise\n",
    }
    index = RootIndex(write_tree(tmp_path / "project", tree))
    index.refresh()

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        code = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
        p = 0.98 if "Cancel the pending jobs" in code else 0.85  # the header reads as the better answer
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"subject": p, "action": p})])

    request = SearchRequest("cancel the pending jobs when one job fails", [Scope(index)], mode="behavior")
    result = await search(request, JudgeConfig(FunctionModel(answer), "function"), JudgmentCache())
    assert [(m.symbol, m.snippet_start_line) for m in result.matches] == [("run_batch", 6), (None, 1)]
    assert result.matches[1].relevance > result.matches[0].relevance


async def test_a_declaration_file_comes_after_the_code_it_describes(tmp_path: Path) -> None:
    # The interface's doc comment names every word of the question; the function that does it names fewer.
    declarations = (
        "export interface CacheOptions {\n"
        "  /** Evict the oldest entry of the cache when it is full. */\n"
        "  evictOldest?: boolean;\n}\n"
    )
    code = (
        "export function dropFirst(cache) {\n  const first = cache.order.shift();\n  cache.entries.delete(first);\n}\n"
    )
    root = write_tree(tmp_path / "package", {"index.d.ts": declarations, "index.js": code})
    index = RootIndex(root)
    index.refresh()
    request = SearchRequest("evict the oldest entry of the cache", [Scope(index)], threshold=0.0)
    result = await search(request, coverage_judge(), JudgmentCache())
    paths = [m.path for m in result.matches]
    assert paths.index("index.js") < paths.index("index.d.ts")
    assert result.matches[paths.index("index.d.ts")].relevance > result.matches[0].relevance  # the rule's order


async def test_overlapping_matches_collapse_into_the_best_within_their_own_file(tmp_path: Path) -> None:
    # A file no outline covers is cut into overlapping line windows (1-60, 51-110, 101-120), and every window
    # passes at threshold 0: each file shows only windows that do not overlap, and lines of another file at the same
    # place are another match (the same lines there would be a copy: test_copies.py).
    rules = "".join(f"rule {i}: reject the expired session\n" for i in range(120))
    root = write_tree(
        tmp_path / "project", {"a/sessions.rules": rules, "b/sessions.rules": rules.replace("rule", "Rule")}
    )
    index = RootIndex(root)
    index.refresh()
    request = SearchRequest("reject expired session", [Scope(index)], threshold=0.0, limit=50)
    result = await search(request, coverage_judge(), JudgmentCache())
    spans: dict[str, list[tuple[int, int]]] = {}
    for match in result.matches:
        spans.setdefault(match.path, []).append((match.snippet_start_line, match.snippet_end_line))
    assert set(spans) == {"a/sessions.rules", "b/sessions.rules"}
    assert sorted(spans["a/sessions.rules"]) == sorted(spans["b/sessions.rules"]) == [(1, 60), (101, 120)]


async def test_a_rust_unit_test_in_its_implementation_s_file_is_labeled_and_comes_after_it(tmp_path: Path) -> None:
    # Rust keeps unit tests in the file they test; the test names every word of the question, the function fewer.
    source = (
        "/// Parse a version string such as 1.2.3 into its parts.\n"
        "pub fn parse_version(text: &str) -> Vec<u32> {\n"
        "    text.split('.').filter_map(|part| part.parse().ok()).collect()\n"
        "}\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n"
        "    fn parse_version_string_into_numbers() {\n"
        '        assert_eq!(parse_version("1.2.3"), vec![1, 2, 3]);\n    }\n}\n'
    )
    index = RootIndex(write_tree(tmp_path / "crate", {"src/version.rs": source}))
    index.refresh()
    request = SearchRequest("parse a version string into numbers", [Scope(index)])
    result = await search(request, coverage_judge(), JudgmentCache())
    assert [(m.symbol, m.kind) for m in result.matches] == [("parse_version", None), ("tests", "test")]
    assert result.matches[0].relevance < result.matches[1].relevance  # the order is the rule's, not the scores'
