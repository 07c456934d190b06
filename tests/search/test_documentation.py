"""Behavior searches judge code: prose documentation is left out unless the query or a glob asks for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from smartsearch_ls.discovery.documentation import asks_for_documentation, is_documentation, targets_documentation
from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest
from smartsearch_ls.search.result import Coverage, summary
from tests.conftest import write_tree
from tests.support.judges import coverage_judge

TREE: dict[str, str | bytes] = {
    "auth/sessions.py": """def reject_expired_session(session, now):
    if session.expires_at < now:
        raise PermissionError("expired session")
    return session
""",
    "README.md": "# Sessions\n\nWe reject an expired session with a PermissionError.\n",
    "docs/sessions.rst": "Sessions\n========\n\nAn expired session is rejected when it is read.\n",
    "docs/notes.txt": "expired session handling: reject expired sessions\n",
    "requirements.txt": "session-tools==1.0\n",
}


@pytest.fixture
def index(tmp_path: Path) -> RootIndex:
    built = RootIndex(write_tree(tmp_path / "project", TREE))
    built.refresh()
    return built


@pytest.mark.parametrize(
    ("path", "prose"),
    [
        ("README.md", True),
        ("docs/guide.rst", True),
        ("pkg/CHANGELOG", True),
        ("LICENSE.txt", True),
        ("docs/api.txt", True),
        ("requirements.txt", False),
        ("CMakeLists.txt", False),
        ("config/settings.toml", False),
        ("src/readme.py", False),
        ("fixtures/words.txt", False),
        ("docs/requirements.txt", False),
        ("HISTORY", True),
        ("src/history", False),
        ("PKG-INFO", True),
        ("tornado.egg-info/PKG-INFO", True),
    ],
)
def test_documentation_files_are_told_by_name(path: str, prose: bool) -> None:
    assert is_documentation(path) is prose


def test_queries_about_documentation_are_recognized() -> None:
    assert asks_for_documentation("where is session expiry documented")
    assert asks_for_documentation("which docs explain the retry policy")
    assert asks_for_documentation("what does the readme say about sessions")
    assert asks_for_documentation("the documentation for session expiry")
    assert not asks_for_documentation("reject expired sessions")
    assert not asks_for_documentation("parse an XML document")
    assert not asks_for_documentation("the function that renders the docs site")
    assert not asks_for_documentation("code that generates the changelog")
    assert not asks_for_documentation("where do we parse the README")


@pytest.mark.parametrize(
    ("glob", "about_documentation"),
    [("*.md", True), ("docs/**", True), ("README*", True), ("**", False), ("pkg/**", False), ("*.py", False)],
)
def test_only_globs_about_documentation_ask_for_it(glob: str, about_documentation: bool) -> None:
    assert targets_documentation(glob) is about_documentation


async def test_a_behavior_search_judges_code_and_counts_the_documentation_it_left_out(index: RootIndex) -> None:
    result = await search(SearchRequest("reject expired session", [Scope(index)]), coverage_judge(), JudgmentCache())
    assert {m.path for m in result.matches} == {"auth/sessions.py"}
    cov = result.coverage
    assert cov.documentation == 3 and cov.files == 5
    assert cov.snippets == cov.judged == 2 and cov.complete  # the code and requirements.txt, all judged
    assert not any("documentation" in w for w in result.warnings)  # it found the code: nothing to explain


async def test_asking_about_documentation_searches_it(index: RootIndex) -> None:
    query = "where is rejecting an expired session documented"
    result = await search(SearchRequest(query, [Scope(index)], threshold=0.2), coverage_judge(), JudgmentCache())
    assert {"README.md", "docs/sessions.rst"} <= {m.path for m in result.matches}
    assert result.coverage.documentation == 0


async def test_a_glob_that_names_documentation_searches_it(index: RootIndex) -> None:
    scopes = [Scope(index, "", GlobSet.of(["*.md"]))]
    result = await search(SearchRequest("reject expired session", scopes), coverage_judge(), JudgmentCache())
    assert [m.path for m in result.matches] == ["README.md"]
    assert result.coverage.documentation == 0 and result.coverage.files == 1


async def test_a_glob_relative_to_the_directory_asks_like_it_narrows(tmp_path: Path) -> None:
    tree = {"pkg/docs/guide.md": "We reject an expired session.\n", "pkg/auth.py": TREE["auth/sessions.py"]}
    index = RootIndex(write_tree(tmp_path / "project", tree))
    index.refresh()
    result = await search(
        SearchRequest("reject expired session", [Scope(index, "pkg", GlobSet.of(["docs/*.md"]))]),
        coverage_judge(),
        JudgmentCache(),
    )
    assert [m.path for m in result.matches] == ["pkg/docs/guide.md"] and result.coverage.documentation == 0


async def test_a_glob_that_only_narrows_leaves_documentation_out(index: RootIndex) -> None:
    scopes = [Scope(index, "", GlobSet.of(["**"]))]
    result = await search(SearchRequest("reject expired session", scopes), coverage_judge(), JudgmentCache())
    assert {m.path for m in result.matches} == {"auth/sessions.py"} and result.coverage.documentation == 3


async def test_skipped_documentation_still_counts_as_skipped(tmp_path: Path) -> None:
    tree = {"CHANGELOG.md": b"binary\0changelog", "auth.py": TREE["auth/sessions.py"]}
    index = RootIndex(write_tree(tmp_path / "project", tree))
    index.refresh()
    result = await search(SearchRequest("reject expired session", [Scope(index)]), coverage_judge(), JudgmentCache())
    assert (result.coverage.files, result.coverage.skipped_files) == (2, 1)
    assert result.coverage.skipped_by_reason == {"binary": 1}


async def test_finding_nothing_says_the_documentation_was_not_searched(index: RootIndex) -> None:
    scopes = [Scope(index, "docs")]
    result = await search(SearchRequest("reject expired session", scopes), coverage_judge(), JudgmentCache())
    assert not result.matches and result.coverage.documentation == 2
    assert any("2 snippets of documentation" in w and "'*.md'" in w for w in result.warnings)


def test_the_summary_counts_documentation_left_out_with_the_snippets_not_as_why_a_search_is_incomplete():
    line = summary(Coverage(files=3, snippets=40, shortlisted=20, judged=20, complete=False, documentation=6))
    assert line == (
        "3 files (0 skipped), 40 snippets (and 6 of documentation, left out), 20 shortlisted, 20 judged, not complete"
    )
