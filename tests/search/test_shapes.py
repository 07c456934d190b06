"""Query shapes, intents, context, candidates, related files and coverage, on Python and TypeScript projects."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest
from smartsearch_ls.search.result import SearchResult
from smartsearch_ls.search.routing import plan
from smartsearch_ls.search.symbols.imports import parse_imports, parse_jsonc
from smartsearch_ls.search.symbols.index import SymbolIndex, name_tokens, symbol_index
from smartsearch_ls.search.symbols.ranking import find_symbols
from tests.conftest import write_tree
from tests.search.fixtures.projects import PY_PROJECT, TS_PROJECT
from tests.support.judges import coverage_judge


@pytest.fixture
def py(tmp_path: Path) -> RootIndex:
    index = RootIndex(write_tree(tmp_path / "py", PY_PROJECT))
    index.refresh()
    return index


@pytest.fixture
def ts(tmp_path: Path) -> RootIndex:
    index = RootIndex(write_tree(tmp_path / "ts", TS_PROJECT))
    index.refresh()
    return index


async def run(index: RootIndex, query: str, judged: bool = False, **options: object) -> SearchResult:
    request = SearchRequest(query, [Scope(index)], **options)  # type: ignore[arg-type]
    return await search(request, coverage_judge() if judged else None, JudgmentCache())


def files(result: SearchResult) -> list[str]:
    return [c.path for c in result.candidates]


# -- routing ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "mode", "identifiers"),
    [
        ("GitIndexer", "symbol", ("GitIndexer",)),
        ("index_repo", "symbol", ("index_repo",)),
        ("Cache.get", "symbol", ("Cache.get",)),
        ("core/ingestion/indexer.py", "path", ()),
        ("indexer.py", "path", ()),
        ("where does GitIndexer skip binary files", "behavior", ("GitIndexer",)),
        ("why is index_repo slow on big repos", "behavior", ("index_repo",)),
        ("how does Cache.get expire entries", "behavior", ("Cache.get",)),
        ("when is `parse` called and what does getUser() return", "behavior", ("parse", "getUser")),
        ("reject expired sessions", "behavior", ()),
        ("where are URLs and APIs parsed, e.g. in the client", "behavior", ()),
    ],
)
def test_auto_routes_by_shape(query: str, mode: str, identifiers: tuple[str, ...]) -> None:
    shape = plan(query)
    assert (shape.mode, shape.identifiers) == (mode, identifiers)


# -- symbol shape ---------------------------------------------------------------------------------------------


async def test_an_identifier_is_answered_from_the_symbol_index_without_a_judge(py: RootIndex) -> None:
    result = await run(py, "GitIndexer")
    assert result.mode == "symbol" and result.judge is None
    top = result.matches[0]
    assert (top.path, top.symbol, top.source, top.relevance) == (
        "core/ingestion/indexer.py",
        "GitIndexer",
        "declaration",
        1,
    )
    assert top.excerpt.startswith("class GitIndexer")
    cov = result.coverage
    assert cov.searches == ("symbol",) and cov.identifiers == ("GitIndexer",) and cov.complete
    assert cov.symbols == sum(len(e.declarations) for _, e in py.entries()) and cov.files == 11
    assert cov.roots == (str(py.root),)


def test_building_the_symbol_index_leaves_the_look_ups_name_cache_alone(py: RootIndex) -> None:
    """The build splits each name once; a cache it filled would push out what look-ups met, query after query."""
    name_tokens.cache_clear()
    index = symbol_index(py)
    index.sync()
    assert index.by_name and name_tokens.cache_info().currsize == 0
    find_symbols([Scope(py)], "Cache.get", 2)
    assert name_tokens.cache_info().currsize > 0


async def test_centrality_breaks_ties_between_same_named_declarations(py: RootIndex) -> None:
    # lib/cache.py has the shorter path, but core/cache.py is the one three files import
    assert [m.path for m in (await run(py, "Cache")).matches[:2]] == ["core/cache.py", "lib/cache.py"]
    hits, _, _ = find_symbols([Scope(py)], "Cache", 2)
    assert hits[0].centrality > hits[1].centrality
    graph = symbol_index(py).graph()
    assert graph.importers["core/cache.py"] == 3 and "lib/cache.py" not in graph.importers
    assert graph.rank["core/cache.py"] > graph.rank.get("lib/cache.py", 0)


def _words(symbols: SymbolIndex) -> dict[str, list[str]]:
    """Each word's names, whatever order the index keeps them in."""
    return {word: sorted(names) for word, names in symbols.by_token.items()}


def _same_as_built_at_once(sliced: SymbolIndex, root: Path) -> None:
    index = RootIndex(root)  # held here: a symbol index only has a weak reference to its root index
    index.refresh()
    whole = symbol_index(index)
    assert sliced.sorted_names == whole.sorted_names and _words(sliced) == _words(whole)
    assert sliced.by_name.keys() == whole.by_name.keys()
    assert sliced.graph() == whole.graph()


async def test_the_symbol_index_built_in_slices_equals_one_built_at_once(py: RootIndex, tmp_path: Path) -> None:
    """The server builds a root's symbols a slice at a time between searches; the slices must add up."""
    symbols = symbol_index(py, synced=False)
    slices = 1
    while not symbols.prepare(1):
        slices += 1
    assert slices >= 3 * len(py.files), "one file's names, imports or import edges per slice"
    assert symbols.generation == py.generation
    _same_as_built_at_once(symbols, write_tree(tmp_path / "again", PY_PROJECT))


async def test_edits_between_slices_end_as_a_build_of_the_edited_tree(py: RootIndex, tmp_path: Path) -> None:
    symbols = symbol_index(py, synced=False)
    while symbols.generation != py.generation:  # every name learned, imports and edges still to come
        assert not symbols.prepare(1)
    assert "reports.py" in symbols.files
    (py.root / "reports.py").unlink()
    (py.root / "lib" / "cache.py").write_text("class Cache:\n    def evict(self): ...\n\ndef warm_up(): ...\n")
    (py.root / "late.py").write_text("from core.cache import Cache\n\ndef late_arrival(): return Cache()\n")
    py.apply_changes(["reports.py", "lib/cache.py", "late.py"])
    assert not symbols.sync(1), "two changed files, one a slice"
    assert "reports.py" not in symbols.files, "a removed file outlived a slice"
    while not symbols.prepare(1):
        pass
    assert "reports.py" not in symbols.files and "warm_up" in symbols.by_name and "late_arrival" in symbols.by_name
    edited = dict(PY_PROJECT)
    del edited["reports.py"]
    edited["lib/cache.py"] = (py.root / "lib" / "cache.py").read_text()
    edited["late.py"] = (py.root / "late.py").read_text()
    _same_as_built_at_once(symbols, write_tree(tmp_path / "edited", edited))


async def test_ranking_exact_then_qualified_then_tokens_with_tests_last(py: RootIndex) -> None:
    result = await run(py, "index_repo")
    assert [(m.path, m.symbol) for m in result.matches] == [
        ("core/ingestion/indexer.py", "index_repo"),  # exact, most central file
        ("core/ingestion/indexer.py", "GitIndexer.index_repo"),
        ("tests/helpers.py", "index_repo"),  # exact too, but a test file
        ("tests/test_indexer.py", "test_index_repo_lists_text_files"),  # token coverage
    ]
    qualified = await run(py, "Cache.get")
    assert (qualified.matches[0].path, qualified.matches[0].symbol) == ("core/cache.py", "Cache.get")
    assert {m.symbol for m in qualified.matches[:2]} == {"Cache.get"}


async def test_typescript_declarations_are_symbols(ts: RootIndex) -> None:
    result = await run(ts, "Formatter")
    assert (result.matches[0].path, result.matches[0].symbol) == ("src/lib/format.ts", "Formatter")
    assert (await run(ts, "cartTotal")).matches[0].path == "src/cart.ts"


async def test_the_symbol_index_follows_edits_incrementally(py: RootIndex) -> None:
    symbols = symbol_index(py)
    before = dict(symbols.files)
    py.update_text("billing/budget.py", "class LedgerBook:\n    pass\n")
    assert (await run(py, "LedgerBook")).matches[0].path == "billing/budget.py"
    unchanged = [p for p in before if p != "billing/budget.py" and symbols.files[p] is before[p]]
    assert len(unchanged) == len(before) - 1  # only the edited file was re-read
    assert not (await run(py, "remaining_value")).matches[0].path.startswith("billing")
    py.revert("billing/budget.py")
    assert not (await run(py, "LedgerBook")).matches


async def test_many_names_come_and_go_at_once_and_the_name_list_stays_exact(py: RootIndex) -> None:
    """A 30,000-constant file dropped from the index took 28 s (each name shifted the sorted list)."""
    symbols = symbol_index(py)
    symbols.sync()
    names_before, words_before = list(symbols.sorted_names), _words(symbols)
    many = "".join(f"ERR_{i} = {i}\n" for i in range(30_000)) + "def keep_me():\n    pass\n"
    started = time.perf_counter()
    py.update_text("billing/budget.py", many)
    symbols.sync()
    assert (await run(py, "ERR_29999")).matches[0].path == "billing/budget.py"
    py.update_text("billing/budget.py", "def keep_me():\n    pass\n")
    symbols.sync()
    assert time.perf_counter() - started < 10  # ~0.1 s now
    assert symbols.sorted_names == sorted(symbols.by_name) and "err_17" not in symbols.by_name
    py.revert("billing/budget.py")
    symbols.sync()
    assert symbols.sorted_names == names_before == sorted(symbols.by_name)
    assert _words(symbols) == words_before, "a word kept a name no file declares, or lost one"


# -- path shape -------------------------------------------------------------------------------------------------


async def test_a_path_goes_to_file_hits(py: RootIndex) -> None:
    result = await run(py, "indexer.py")
    assert result.mode == "path" and result.matches[0].path == "core/ingestion/indexer.py"
    assert result.matches[0].source == "path" and files(result) == [
        "core/ingestion/indexer.py",
        "tests/test_indexer.py",
    ]


# -- prose naming an identifier ------------------------------------------------------------------------------


async def test_prose_naming_an_identifier_runs_both_symbol_hits_first(py: RootIndex) -> None:
    result = await run(py, "where does GitIndexer skip binary files", judged=True)
    assert result.mode == "behavior" and result.judge == "function"
    assert result.coverage.searches == ("symbol", "behavior") and result.coverage.identifiers == ("GitIndexer",)
    assert result.matches[0].source == "declaration" and result.matches[0].symbol == "GitIndexer"
    judged = [m for m in result.matches if m.source == "judged"]
    assert judged and all(m.relevance >= 0.5 for m in judged)
    assert any("skip_binary" in m.excerpt for m in judged)
    assert files(result)[0] == "core/ingestion/indexer.py"


async def test_prose_without_a_judge_still_looks_the_names_up(py: RootIndex) -> None:
    result = await run(py, "where does GitIndexer skip binary files")
    assert result.matches[0].symbol == "GitIndexer" and result.coverage.searches == ("symbol",)
    assert any("No judge" in w for w in result.warnings) and not result.coverage.complete
    with pytest.raises(ValueError, match="needs a judge"):
        await run(py, "skip binary files")


async def test_forced_modes_win_over_the_shape(py: RootIndex) -> None:
    assert (await run(py, "indexer.py", mode="symbol")).mode == "symbol"
    result = await run(py, "where does GitIndexer skip binary files", judged=True, mode="behavior")
    assert result.coverage.searches == ("behavior",) and all(m.source == "judged" for m in result.matches)


# -- intents -------------------------------------------------------------------------------------------------------


async def test_intent_definition_gives_declarations(py: RootIndex) -> None:
    result = await run(py, "GitIndexer", intent="definition")
    assert result.intent == "definition" and {m.source for m in result.matches} == {"declaration"}
    prose = await run(py, "what does GitIndexer do with `Cache`", judged=True, intent="definition", limit=4)
    assert [m.source for m in prose.matches[:2]] == ["declaration", "declaration"]
    assert [m.symbol for m in prose.matches[:2]] == ["GitIndexer", "Cache"]


async def test_intent_references_finds_imports_and_call_sites_across_files(py: RootIndex) -> None:
    result = await run(py, "GitIndexer", intent="references", limit=20)
    places = {(m.path, m.start_line, m.source) for m in result.matches}
    assert ("app.py", 2, "import") in places and ("app.py", 8, "reference") in places
    assert ("core/__init__.py", 3, "import") in places and ("tests/test_indexer.py", 1, "import") in places
    assert ("core/ingestion/indexer.py", 37, "reference") in places  # `return GitIndexer().index_repo(root)`
    assert not any(m.path == "core/ingestion/indexer.py" and m.start_line == 13 for m in result.matches)  # definition
    assert not any(m.path.startswith("generated/") for m in result.matches)  # ignored files are never searched
    assert result.matches[-1].path == "tests/test_indexer.py"  # tests last
    assert result.coverage.searches == ("references",) and result.coverage.reference_snippets > 0
    assert result.coverage.complete


async def test_intent_references_in_typescript(ts: RootIndex) -> None:
    result = await run(ts, "formatPrice", intent="references", limit=20)
    places = {(m.path, m.start_line, m.source) for m in result.matches}
    assert {("src/app.ts", 1, "import"), ("src/cart.ts", 1, "import"), ("src/cart.ts", 4, "reference")} <= places
    assert not any(m.path.startswith("dist/") for m in result.matches)
    assert not any(m.path == "src/lib/format.ts" and m.start_line == 1 for m in result.matches)


async def test_intent_tests_gives_test_files_that_exercise_it(py: RootIndex, ts: RootIndex) -> None:
    result = await run(py, "GitIndexer", intent="tests")
    assert result.matches and all(m.kind == "test" for m in result.matches)
    assert result.matches[0].symbol == "test_git_indexer_skips_binary_files"
    assert files(result) == ["tests/test_indexer.py"]
    ts_result = await run(ts, "formatPrice", intent="tests")
    assert files(ts_result) == ["src/__tests__/format.test.ts"]
    by_path = await run(py, "indexer.py", intent="tests")
    assert files(by_path) == ["tests/test_indexer.py"]
    prose = await run(py, "skips binary files", judged=True, intent="tests")
    assert prose.matches and all(m.kind == "test" for m in prose.matches)


async def test_intent_tests_finds_rust_unit_tests_in_the_implementation_s_own_file(tmp_path: Path) -> None:
    source = (
        "pub fn parse_version(text: &str) -> Vec<u32> {\n"
        "    text.split('.').filter_map(|part| part.parse().ok()).collect()\n}\n\n"
        "pub fn latest(versions: &[Vec<u32>]) -> Option<&Vec<u32>> {\n    versions.iter().max()\n}\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        "    #[test]\n    fn parse_version_splits_on_dots() {\n"
        '        assert_eq!(parse_version("1.2"), vec![1, 2]);\n    }\n}\n'
    )
    index = RootIndex(write_tree(tmp_path / "crate", {"src/version.rs": source}))
    index.refresh()
    result = await run(index, "parse_version", intent="tests")
    assert [(m.symbol, m.kind) for m in result.matches] == [("tests.parse_version_splits_on_dots", "test")]


async def test_intent_file_gives_one_match_per_file(py: RootIndex) -> None:
    result = await run(py, "GitIndexer", intent="file")
    paths = [m.path for m in result.matches]
    assert len(paths) == len(set(paths)) and paths[0] == "core/ingestion/indexer.py"
    assert {"app.py", "core/__init__.py", "tests/test_indexer.py"} <= set(paths)
    assert paths[-1] == "tests/test_indexer.py"
    by_path = await run(py, "core/cache.py", intent="references")
    assert [m.path for m in by_path.matches] == ["app.py", "core/ingestion/indexer.py", "reports.py"]
    assert {m.source for m in by_path.matches} == {"import"}


# -- context ---------------------------------------------------------------------------------------------------------


async def test_context_re_ranks_but_never_widens(py: RootIndex) -> None:
    plain = await run(py, "remaining_value")
    assert [m.path for m in plain.matches] == ["billing/budget.py", "goals/progress.py"]  # billing is imported twice
    ranked = await run(py, "remaining_value", context="goal progress")
    assert [m.path for m in ranked.matches] == ["goals/progress.py", "billing/budget.py"]
    assert files(ranked) == ["goals/progress.py", "billing/budget.py"]
    unrelated = await run(py, "remaining_value", context="kubernetes")
    assert [m.path for m in unrelated.matches] == [m.path for m in plain.matches]
    plain_judged = await run(py, "remaining value", judged=True)
    judged = await run(py, "remaining value", judged=True, context="goal")
    assert sorted(m.path for m in judged.matches) == sorted(m.path for m in plain_judged.matches)
    order = [m.path for m in plain_judged.matches]
    assert order.index("billing/budget.py") < order.index("goals/progress.py")  # a tie, by path
    assert judged.matches[0].path == "goals/progress.py"


# -- candidates ------------------------------------------------------------------------------------------------------


async def test_candidates_are_distinct_files_best_first(py: RootIndex) -> None:
    result = await run(py, "GitIndexer", intent="references", limit=3)
    assert len(result.matches) == 3 and result.omitted_matches > 0
    paths = files(result)
    assert len(paths) == len(set(paths)) == 3
    assert paths[0] == result.matches[0].path
    assert all(c.reason for c in result.candidates)
    assert result.candidates[0].reason == "1 import and 1 use"
    symbol = await run(py, "index_repo", limit=10)
    assert len(symbol.matches) == 4 and files(symbol) == [
        "core/ingestion/indexer.py",
        "tests/helpers.py",
        "tests/test_indexer.py",
    ]
    assert symbol.candidates[0].reason == "declares index_repo"


# -- related files and unresolved imports ---------------------------------------------------------------------------


async def test_related_follows_python_imports_through_reexports(py: RootIndex) -> None:
    result = await run(py, "GitIndexer", expand_related=True)
    related = {c.path: c.reason for c in result.related}
    assert related["core/ingestion/indexer.py"].startswith(
        "defines GitIndexer, imported by app.py"
    )  # via core/__init__
    assert "core/cache.py" in related  # imported by the best file
    assert result.coverage.searches == ("symbol", "related")
    unresolved = {(u.path, u.line, u.specifier, u.reason) for u in result.coverage.unresolved_imports}
    assert ("core/ingestion/indexer.py", 7, "core.ghost", "missing") in unresolved
    assert not any(u.specifier == "requests" for u in result.coverage.unresolved_imports)  # external, not listed
    missing = await run(py, "Phantom", expand_related=True)
    assert not missing.matches
    assert [(u.path, u.specifier, u.name, u.reason) for u in missing.coverage.unresolved_imports] == [
        ("core/ingestion/indexer.py", "core.ghost", "Phantom", "missing")
    ]
    external = await run(py, "requests", expand_related=True)
    assert [(u.specifier, u.reason) for u in external.coverage.unresolved_imports] == [("requests", "external")]


async def test_related_follows_typescript_paths_barrels_and_esm_specifiers(ts: RootIndex) -> None:
    result = await run(ts, "parseDate", expand_related=True)
    related = {c.path: c.reason for c in result.related}
    # app.ts imports it from "./lib" (index.ts), which re-exports it from "./dates.js" (dates.ts)
    assert related["src/lib/dates.ts"] == "defines parseDate, imported by src/app.ts, src/lib/index.ts"
    price = await run(ts, "formatPrice", expand_related=True)
    reasons = {c.path: c.reason for c in price.related}
    assert reasons["src/lib/format.ts"].startswith("defines formatPrice, imported by src/__tests__/format.test.ts")
    assert "src/cart.ts" in reasons["src/lib/format.ts"]  # "./lib/format.js" is format.ts
    app = await run(ts, "app.ts", expand_related=True)
    assert {c.path for c in app.related} == {"src/lib/format.ts", "src/lib/index.ts"}
    assert {(u.specifier, u.reason) for u in app.coverage.unresolved_imports} == {
        ("./ghost", "missing"),
        ("@missing/helper", "missing"),  # a tsconfig alias with no file behind it
    }
    react = await run(ts, "React", expand_related=True)
    assert [(u.path, u.line, u.specifier, u.reason) for u in react.coverage.unresolved_imports] == [
        ("src/app.ts", 5, "react", "external")
    ]


def test_import_parsing_and_tsconfig_comments() -> None:
    refs = parse_imports(
        "a/b.py", [(1, "from . import x\nfrom ..c import (\n    D,\n    E as F,\n)\nimport g.h as i\n")]
    )
    assert [(r.start_line, r.end_line, r.specifier, r.names) for r in refs] == [
        (1, 1, ".", (("x", "x"),)),
        (2, 5, "..c", (("D", "D"), ("E", "F"))),
        (6, 6, "g.h", (("g.h", "i"),)),
    ]
    js = parse_imports("x.ts", [(1, 'import D, { a as b, type C } from "./m";\nexport * from "./n";\nrequire("o");\n')])
    assert [(r.specifier, r.names, r.reexport) for r in js] == [
        ("./m", (("default", "D"), ("a", "b"), ("C", "C")), False),
        ("./n", (("*", "*"),), True),
        ("o", (), False),
    ]
    assert parse_jsonc('{// c\n "a": {"b": "x//y", /* z */ "c": [1,],},}') == {"a": {"b": "x//y", "c": [1]}}


# -- absence -----------------------------------------------------------------------------------------------------------


async def test_absence_says_exactly_what_was_searched(py: RootIndex, ts: RootIndex) -> None:
    result = await run(py, "NoSuchThing")
    assert not result.matches and not result.candidates
    cov = result.coverage
    assert cov.complete and cov.files == 11 and cov.symbols == sum(len(e.declarations) for _, e in py.entries())
    assert cov.snippets == py.snippet_count and cov.roots == (str(py.root),)
    assert any("among" in w and "declarations in 11 files" in w for w in result.warnings)
    refs = await run(ts, "noSuchName", intent="references")
    assert not refs.matches and refs.coverage.complete and refs.coverage.searches == ("references",)
    narrowed = await search(SearchRequest("GitIndexer", [Scope(py, "billing")]), None, JudgmentCache())
    assert not narrowed.matches and narrowed.coverage.roots == (str(py.root / "billing"),)
    assert narrowed.coverage.files == 1


def test_a_name_spelled_two_ways_leaves_its_words_as_it_came(tmp_path: Path) -> None:
    """`FooBar` is filed under `foo` and `bar`; when the last file declaring the name spells it `foobar`, the name
    must still leave `foo` and `bar`, and declared again it must be filed once."""
    root = write_tree(tmp_path / "p", {"a.py": "def FooBar(): ...\n"})
    index = RootIndex(root)
    index.refresh()
    symbols = symbol_index(index)
    filed = {"foo": ["foobar"], "bar": ["foobar"]}
    assert _words(symbols) == filed

    def edit(path: str, text: str) -> None:
        (root / path).write_text(text)
        index.apply_changes([path])
        symbols.sync()

    edit("b.py", "def foobar(): ...\n")
    assert _words(symbols) == filed
    edit("a.py", "pass\n")
    assert _words(symbols) == filed, "b.py still declares it"
    edit("b.py", "pass\n")
    assert _words(symbols) == {}, "a name no file declares stayed under a word"
    edit("a.py", "def FooBar(): ...\n")
    assert _words(symbols) == filed
