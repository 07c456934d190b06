"""Path look-up: files whose path matches a path-shaped query, answered from the index with no judge.

An exact path ranks first, then an exact file name, then a path suffix, then a substring; shorter paths first
on ties. The engine turns each file into a match on its first snippet (`excerpt.match_at`).
"""

from __future__ import annotations

from collections.abc import Sequence

from smartsearch_ls.index.shortlist import Scope


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
