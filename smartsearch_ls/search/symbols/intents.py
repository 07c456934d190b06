"""The look-ups behind the intents, as matches: a name's declarations, uses and tests; a file's importers and tests.

The engine decides which of these a request runs; this module runs them on the symbol index, the reference
scan and the import graph (no judge, so they answer in milliseconds) and turns what they find into
`Match`es whose `source` says how each was found, so that the merged answer can tell its reader why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from smartsearch_ls.chunking.snippet import split_lines
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.index.terms import distinct_terms
from smartsearch_ls.search.context import Context, declaration_context
from smartsearch_ls.search.excerpt import EXCERPT_LINES, excerpt_at, match_at
from smartsearch_ls.search.merge import overlaps
from smartsearch_ls.search.result import Match, kind_of
from smartsearch_ls.search.symbols.index import name_tokens, symbol_index
from smartsearch_ls.search.symbols.ranking import SymbolHit, find_symbols
from smartsearch_ls.search.symbols.references import RELEVANCE, Reference, find_references

if TYPE_CHECKING:
    from smartsearch_ls.search.request import SearchRequest


def declaration_match(hit: SymbolHit) -> Match | None:
    """A symbol hit as a match on its declaration (None when no snippet holds its line)."""
    d = hit.declaration
    match = match_at(hit.index, d.path, d.start_line, d.end_line, d.qualified_name, hit.score)
    return replace(match, source="declaration") if match is not None else None


def reference_matches(
    request: SearchRequest, name: str, context: Context | None, *, tests_only: bool
) -> tuple[list[Match], int, bool]:
    """Uses of a name as matches, re-ranked by context per file; how many snippets were scanned, and whether all."""
    found = find_references(request.scopes, name, tests_only=tests_only)
    references = found.found
    if context is not None:
        per_file: dict[str, float] = {}
        for ref in references:
            key = f"{ref.index.root}/{ref.path}"
            terms = distinct_terms(ref.path) | distinct_terms(ref.snippet.text)
            per_file[key] = max(per_file.get(key, 0.0), context.score(terms))
        order = {key: i for i, key in enumerate(dict.fromkeys(f"{r.index.root}/{r.path}" for r in references))}
        references = sorted(
            references,
            key=lambda r: (
                kind_of(r.path, r.snippet.symbol) is not None and not tests_only,
                -per_file[f"{r.index.root}/{r.path}"],
                order[f"{r.index.root}/{r.path}"],
                r.line,
            ),
        )
    return [_reference_match(r) for r in references], found.scanned, found.complete


def _reference_match(ref: Reference) -> Match:
    return Match.of(
        ref.index.root,
        ref.path,
        (ref.line, ref.line, ref.text),
        (ref.snippet.start_line, ref.snippet.end_line),
        symbol=ref.snippet.symbol,
        relevance=RELEVANCE[ref.kind],
        unsaved=ref.unsaved,
        source="import" if ref.kind == "import" else "reference",
    )


def tests_for_name(request: SearchRequest, name: str, context: Context | None) -> tuple[list[Match], int, bool, int]:
    """Tests named after the symbol first, then test snippets that use it, one match per test snippet."""
    tokens = set(name_tokens(name.rpartition(".")[2]))
    hits, _, symbols = find_symbols(request.scopes, name, 100, tests_first=True, context=declaration_context(context))
    named = [
        m
        for h in hits
        if kind_of(h.declaration.path, h.declaration.qualified_name)
        and h.tier <= 4
        and tokens <= set(name_tokens(h.declaration.name))
        if (m := declaration_match(h)) is not None
    ]
    named = [replace(m, source="declaration") for m in named]
    found = find_references(request.scopes, name, tests_only=True)
    per_snippet: dict[tuple[str, str, int], list[Reference]] = {}
    for ref in found.found:
        per_snippet.setdefault((str(ref.index.root), ref.path, ref.snippet.start_line), []).append(ref)
    using: list[tuple[float, Match]] = []
    for refs in per_snippet.values():
        first, snippet = refs[0], refs[0].snippet
        start = snippet.start_line if first.line - snippet.start_line < EXCERPT_LINES else first.line - 2
        end = min(snippet.end_line, start + EXCERPT_LINES - 1)
        lines = split_lines(snippet.text)[start - snippet.start_line : end - snippet.start_line + 1]
        ctx = context.score(distinct_terms(snippet.text) | distinct_terms(first.path)) if context else 0.0
        match = Match.of(
            first.index.root,
            first.path,
            excerpt_at(start, lines),
            (snippet.start_line, snippet.end_line),
            symbol=snippet.symbol,
            relevance=min(0.6 + 0.1 * len(refs), 0.9),
            unsaved=first.unsaved,
            source="reference",
        )
        if not any(overlaps(match, m) for m in named):
            using.append((ctx, match))
    using.sort(key=lambda item: -item[0])
    return [*named, *(m for _, m in using)], found.scanned, found.complete, symbols


def importer_matches(scopes: Sequence[Scope], targets: Sequence[Match], *, tests_only: bool) -> list[Match]:
    """The import statements, anywhere in the target's root, that lead to one of the target files."""
    found: list[Match] = []
    for target in targets:
        index = next((s.index for s in scopes if s.index.root == target.root), None)
        if index is None:
            continue
        symbols = symbol_index(index)
        graph = symbols.graph()
        for path, edges in sorted(graph.edges.items()):
            if target.path not in edges or (tests_only and not kind_of(path)):
                continue
            for ref in symbols.imports_of(path):
                names = [n for n, _ in ref.names] if ref.language == "python" and ref.names else [None]
                if any(symbols.resolve(ref, n).target == target.path for n in names):
                    match = _line_match(index, path, ref.start_line, ref.end_line, "import", 0.9)
                    if match is not None:
                        found.append(match)
                    break
    found.sort(key=lambda m: (kind_of(m.path) is not None and not tests_only, m.path))
    return found


def tests_named_after(request: SearchRequest, targets: Sequence[Match]) -> list[Match]:
    """Test files named after one of the target files (`test_budget.py`, `budget_test.py` for `budget.py`)."""
    stems = {t.path.rsplit("/", 1)[-1].split(".", 1)[0].removeprefix("test_") for t in targets}
    found: list[Match] = []
    for scope, path, _ in ((s, p, 0.0) for s in request.scopes for p, _e in s.index.entries() if s.contains(p)):
        if not kind_of(path):
            continue
        base = path.rsplit("/", 1)[-1].split(".", 1)[0]
        if base.removeprefix("test_").removesuffix("_test") in stems:
            match = match_at(scope.index, path, 1, 12, None, 0.8)
            if match is not None:
                found.append(replace(match, source="path"))
    return found


def _line_match(index: RootIndex, path: str, start: int, end: int, source: str, score: float) -> Match | None:
    match = match_at(index, path, start, end, None, score)
    if match is None:
        return None
    symbols = symbol_index(index)
    holder = next((s for s in symbols.snippets_of(path) if s.start_line <= start <= s.end_line), None)
    return replace(
        match,
        source=source,
        symbol=holder.symbol if holder else None,
        snippet_start_line=holder.start_line if holder else match.snippet_start_line,
        snippet_end_line=holder.end_line if holder else match.snippet_end_line,
    )
