"""Merging hits into one answer: duplicates dropped, files listed once, candidates with reasons, coverage.

Every shape and intent ends here, so that two look-ups finding the same place show it once, the `file`
intent lists each file once, the openable `candidates` say why each file is worth opening, and the coverage
tells "searched everything, found nothing" from "did not look" the same way whichever way a request went.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.search.openable import FileCandidate
from smartsearch_ls.search.result import Coverage, Match, SearchResult

if TYPE_CHECKING:
    from smartsearch_ls.search.request import Mode, SearchRequest


def same_place(a: Match, b: Match) -> bool:
    """Whether two hits show the same lines of the same file."""
    return a.root == b.root and a.path == b.path and (a.start_line, a.end_line) == (b.start_line, b.end_line)


def overlaps(a: Match, b: Match) -> bool:
    """Whether two hits come from overlapping snippets of the same file (one would repeat the other)."""
    return (
        a.root == b.root
        and a.path == b.path
        and a.snippet_start_line <= b.snippet_end_line
        and b.snippet_start_line <= a.snippet_end_line
    )


def dedupe(matches: list[Match]) -> list[Match]:
    """The first hit at each start line, in order: two look-ups finding the same line show it once."""
    seen: set[tuple[object, str, int]] = set()
    kept = []
    for match in matches:
        key = (match.root, match.path, match.start_line)
        if key not in seen:
            seen.add(key)
            kept.append(match)
    return kept


def one_per_file(matches: list[Match]) -> list[Match]:
    """The first hit of each file, in order (the `file` intent)."""
    seen: set[tuple[object, str]] = set()
    kept = []
    for match in matches:
        if (match.root, match.path) not in seen:
            seen.add((match.root, match.path))
            kept.append(match)
    return kept


def scope_counts(scopes: Sequence[Scope]) -> tuple[int, int]:
    """How many files and snippets the scopes hold: what a look-up searched."""
    files = snippets = 0
    for scope in scopes:
        for path, entry in scope.index.entries():
            if scope.contains(path):
                files += 1
                snippets += len(entry.docs)
    return files, snippets


def roots(scopes: Sequence[Scope]) -> tuple[str, ...]:
    """The folders searched, as the coverage names them."""
    return tuple(str(s.index.root / s.prefix) if s.prefix else str(s.index.root) for s in scopes)


def build_coverage(
    request: SearchRequest,
    files: int,
    snippets: int,
    searches: tuple[str, ...],
    identifiers: tuple[str, ...],
    complete: bool,
    symbols: int = 0,
    scanned: int = 0,
) -> Coverage:
    """What was searched, with the files skipped and why: "found nothing" told apart from "did not look"."""
    skipped: dict[str, int] = {}
    for scope in request.scopes:
        for path, entry in scope.index.entries():
            if entry.skipped is not None and scope.contains(path):
                skipped[str(entry.skipped)] = skipped.get(str(entry.skipped), 0) + 1
    return Coverage(
        files=files,
        skipped_files=sum(skipped.values()),
        snippets=snippets,
        complete=complete,
        skipped_by_reason=dict(sorted(skipped.items())),
        roots=roots(request.scopes),
        symbols=symbols,
        searches=searches,
        identifiers=identifiers,
        reference_snippets=scanned,
    )


def build_result(
    request: SearchRequest, ordered: list[Match], coverage: Coverage, warnings: list[str], mode: Mode
) -> SearchResult:
    """The answer: `limit` hits (one per file for the `file` intent), how many more there were, candidates."""
    if request.intent == "file":
        ordered = one_per_file(ordered)
    matches = ordered[: request.limit]
    if any(m.unsaved for m in matches):
        warnings.append("Some matches come from unsaved editor buffers; their lines may differ from the files on disk.")
    return SearchResult(
        matches, len(ordered) - len(matches), coverage, warnings, mode, None, file_candidates(ordered, request.limit)
    )


def file_candidates(ordered: Sequence[Match], limit: int) -> list[FileCandidate]:
    """Distinct files in hit order, each with why it is worth opening."""
    reasons: dict[tuple[object, str], list[Match]] = {}
    for match in ordered:
        found = reasons.get((match.root, match.path))
        if found is None:
            if len(reasons) >= limit:
                continue
            found = reasons[(match.root, match.path)] = []
        found.append(match)
    return [FileCandidate(root, path, _reason(ms)) for (root, path), ms in reasons.items()]  # type: ignore[arg-type]


def _reason(matches: list[Match]) -> str:
    first = matches[0]
    if first.source == "declaration":
        return f"declares {first.symbol}"
    if first.source in ("reference", "import"):
        imports = sum(1 for m in matches if m.source == "import")
        uses = len(matches) - imports
        parts = [f"{imports} import{'s' if imports != 1 else ''}"] if imports else []
        parts += [f"{uses} use{'s' if uses != 1 else ''}"] if uses else []
        return " and ".join(parts)
    if first.source == "judged":
        return f"judged relevant {first.relevance:g}" + (f" ({first.symbol})" if first.symbol else "")
    if first.source == "path":
        return "path matches"
    return first.source or "match"
