"""The same code in two builds of one package is one answer that lists its copies."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.search import behavior
from smartsearch_ls.search.copies import CopyKey, copy_key, fold_copies
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest
from smartsearch_ls.server.lsp_json import result_dict
from tests.conftest import write_tree
from tests.support.judges import coverage_judge

ESM = """export function evictOldest(cache) {
  const oldest = cache.order.shift();
  cache.entries.delete(oldest);
  return oldest;
}

export function touchEntry(cache, key) {
  cache.order.push(key);
}
"""

# The CommonJS build of the same source: the function bare, re-indented, exported at the end.
CJS = """"use strict";
function evictOldest(cache) {
    const oldest = cache.order.shift();

    cache.entries.delete(oldest);
    return oldest;
}
function touchEntry(cache, key) {
    cache.order.push(key);
}
exports.evictOldest = evictOldest;
exports.touchEntry = touchEntry;
"""


def test_a_build_s_copy_has_the_key_of_its_source_and_a_changed_line_does_not() -> None:
    esm = Snippet("dist/esm/cache.js", 1, 5, ESM.split("\n\n")[0], "evictOldest")
    cjs = Snippet("dist/cjs/cache.js", 2, 7, CJS.split("function touchEntry")[0].split("\n", 1)[1], "evictOldest")
    assert copy_key(esm) == copy_key(cjs)
    changed = Snippet("src/cache.js", 1, 5, ESM.split("\n\n")[0].replace("shift", "pop"), "evictOldest")
    renamed = Snippet("dist/cjs/cache.js", 2, 7, cjs.text, "evictNewest")
    assert copy_key(changed) != copy_key(esm) and copy_key(renamed) != copy_key(esm)


def test_a_commonjs_build_s_qualified_calls_are_the_es_module_build_s_imported_names() -> None:
    # Rollup's CommonJS output calls `identity.isScalar` where the ES module build imported `isScalar`.
    cjs = Snippet("dist/nodes/YAMLMap.js", 9, 12, "const k = identity.isScalar(key) ? key.value : key;", "findPair")
    esm = Snippet("browser/dist/nodes/YAMLMap.js", 7, 10, "const k = isScalar(key) ? key.value : key;", "findPair")
    assert copy_key(cjs) == copy_key(esm)
    # Without qualifiers two different functions could read the same, so another file's name keeps them apart.
    elsewhere = Snippet("dist/nodes/YAMLSeq.js", 9, 12, esm.text, "findPair")
    assert copy_key(elsewhere) != copy_key(esm)


def test_copies_fold_into_the_best_ranked_and_equal_code_in_one_file_does_not() -> None:
    body = "return this.name;"
    first = Snippet("esm/a.js", 1, 1, body, "toString")
    same_file = Snippet("esm/a.js", 9, 9, body, "toString")
    other_build = Snippet("cjs/a.js", 1, 1, body, "toString")
    different = Snippet("cjs/a.js", 5, 5, "return this.id;", "toString")
    folded = fold_copies([first, same_file, different, other_build], lambda s: s)
    assert folded == [(first, [other_build]), (same_file, []), (different, [])]


async def test_a_search_shows_one_build_of_a_function_and_says_where_the_other_is(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "package", {"dist/esm/cache.js": ESM, "dist/cjs/cache.js": CJS})
    index = RootIndex(root)
    index.refresh()
    request = SearchRequest("evict the oldest cache entry", [Scope(index)], threshold=0.0, limit=10)
    result = await search(request, coverage_judge(), JudgmentCache())
    evicting = [m for m in result.matches if m.symbol == "evictOldest"]
    assert len(evicting) == 1
    (copy,) = evicting[0].copies
    assert {evicting[0].path, copy.path} == {"dist/esm/cache.js", "dist/cjs/cache.js"}
    assert (copy.snippet_start_line, copy.snippet_end_line) == (
        (2, 7) if copy.path.endswith("cjs/cache.js") else (1, 5)
    )
    assert [m.symbol for m in result.matches].count("touchEntry") == 1  # its copy folded too, not shown twice
    wire = get_converter().unstructure(result_dict(result, types.PositionEncodingKind.Utf16))["matches"][
        result.matches.index(evicting[0])
    ]["copies"]
    assert wire == [
        {
            "path": copy.path,
            "uri": (root / copy.path).as_uri(),
            "snippetRange": {
                "start": {"line": copy.snippet_start_line - 1, "character": 0},
                "end": {"line": copy.snippet_end_line, "character": 0},
            },
        }
    ]


async def test_partial_answers_compute_each_snippet_s_copy_key_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The best matches so far are ranked again at every judgment that passes; each ranking folded copies by
    unpacking and hashing every passing snippet's text again."""
    root = write_tree(tmp_path / "package", {"dist/esm/cache.js": ESM, "dist/cjs/cache.js": CJS})
    index = RootIndex(root)
    index.refresh()
    keyed: list[int] = []

    def counted(snippet: Snippet) -> CopyKey:
        keyed.append(id(snippet))
        return copy_key(snippet)

    monkeypatch.setattr(behavior, "copy_key", counted)
    partials: list[object] = []
    request = SearchRequest("evict the oldest cache entry", [Scope(index)], threshold=0.0, limit=10)
    result = await search(request, coverage_judge(), JudgmentCache(), on_partial=partials.append)
    assert len(partials) >= 2  # several rankings of the same snippets
    assert sorted(keyed) == sorted(set(keyed)) and len(keyed) == result.coverage.judged
