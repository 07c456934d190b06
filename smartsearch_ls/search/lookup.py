"""Symbol and path search: answered from the index in milliseconds, with no judge.

Symbol hits come from the symbol index (`symbol_index.py`), ranked by `symbols.py` (exact name, qualified
name, prefix, token coverage, subsequence; tests after the code they test; centrality breaks ties). Path hits
rank an exact path, then an exact file name, then a path suffix, then a substring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Declaration, Snippet, split_lines
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.search.excerpt import EXCERPT_LINES
from smartsearch_ls.search.result import Match, kind_of


@dataclass(frozen=True, slots=True)
class SymbolHit:
    index: RootIndex
    declaration: Declaration
    score: float


def find_symbols(scopes: Sequence[Scope], query: str, limit: int) -> tuple[list[SymbolHit], int]:
    """The best `limit` declarations for a name query, and how many matched at all (see `symbols.find_symbols`)."""
    from smartsearch_ls.search.symbols import find_symbols as ranked

    hits, total, _ = ranked(scopes, query, limit)
    return [SymbolHit(h.index, h.declaration, h.score) for h in hits], total


def _snippet_at(index: RootIndex, path: str, line: int) -> tuple[Snippet | None, bool]:
    """The narrowest snippet of a file containing a line, and whether the file is an unsaved buffer."""
    entries = index.entries([path])
    if not entries:
        return None, False
    entry = entries[0][1]
    best: Snippet | None = None
    for doc in entry.docs:
        snippet = index.snippets[doc]
        if snippet is None or not snippet.start_line <= line <= snippet.end_line:
            continue
        if best is None or snippet.end_line - snippet.start_line < best.end_line - best.start_line:
            best = snippet
    return best, entry.unsaved


def match_at(index: RootIndex, path: str, start: int, end: int, symbol: str | None, score: float) -> Match | None:
    """A match for the span `start..end` of a file, its excerpt the span's first lines."""
    snippet, unsaved = _snippet_at(index, path, start)
    if snippet is None:
        return None
    lines = split_lines(snippet.text)[start - snippet.start_line :][: min(EXCERPT_LINES, end - start + 1)]
    return Match(
        root=index.root,
        path=path,
        start_line=start,
        end_line=start + max(len(lines), 1) - 1,
        snippet_start_line=start,
        snippet_end_line=max(end, start),
        symbol=symbol,
        kind=kind_of(path),
        relevance=round(score, 3),
        excerpt="\n".join(lines),
        unsaved=unsaved,
    )


def path_score(query: str, path: str) -> float:
    """How well a file path matches a path query, in [0, 1]."""
    wanted = query.strip().lstrip("./").lower()
    lower = path.lower()
    if lower == wanted:
        return 1.0
    if lower.rsplit("/", 1)[-1] == wanted:
        return 0.9
    if lower.endswith("/" + wanted):
        return 0.85
    if wanted in lower:
        return 0.6
    return 0.0


def find_paths(scopes: Sequence[Scope], query: str) -> list[tuple[Scope, str, float]]:
    """Files whose path matches, best first; shortest paths first on ties."""
    found = [
        (scope, path, score)
        for scope in scopes
        for path, entry in scope.index.entries()
        if entry.docs and scope.contains(path) and (score := path_score(query, path)) > 0
    ]
    found.sort(key=lambda item: (-item[2], len(item[1]), item[1]))
    return found
