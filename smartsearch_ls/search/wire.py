"""A result as JSON, once for both front ends: the server and the command line differ only in how a place
is written (LSP URIs and 0-based ranges, or 1-based lines), so they pass those two functions in and share
every other field, so the two outputs cannot drift apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from smartsearch_ls.search.openable import FileCandidate, UnresolvedImport
from smartsearch_ls.search.result import Copy, Match, SearchResult

Place = Callable[[Match], dict[str, Any]]
"""The match's location fields: `location` + `snippetRange`, or `start_line`..`snippet_end_line`."""
CopyPlace = Callable[[Copy], dict[str, Any]]
"""Where a copy of a match's code is: `uri` + `snippetRange`, or `snippet_start_line`..`snippet_end_line`."""
Uri = Callable[[Path], str]


def match_wire(m: Match, place: Place, copy_place: CopyPlace) -> dict[str, Any]:
    """One match of the contract's result (also what a streamed search's partial results carry)."""
    return {
        **place(m),
        "path": m.path,
        "symbol": m.symbol,
        "kind": m.kind,
        "relevance": m.relevance,
        "excerpt": m.excerpt,
        "unsaved": m.unsaved,
        "source": m.source,
        "why": m.why.wire() if m.why is not None else None,
        "copies": [{"path": c.path, **copy_place(c)} for c in m.copies],
    }


def result_wire(
    result: SearchResult,
    place: Place,
    copy_place: CopyPlace,
    uri: Uri,
    import_place: Callable[[UnresolvedImport], Any],
) -> dict[str, Any]:
    """The contract's result object, with the extensions documented in README."""
    coverage = result.coverage

    def candidate(found: FileCandidate) -> dict[str, Any]:
        fields: dict[str, Any] = {"path": found.path, "uri": uri(found.root / found.path)}
        if found.reason:
            fields["reason"] = found.reason
        return fields

    return {
        "matches": [match_wire(m, place, copy_place) for m in result.matches],
        "omittedMatches": result.omitted_matches,
        "coverage": {
            "files": coverage.files,
            "skippedFiles": coverage.skipped_files,
            "snippets": coverage.snippets,
            "shortlisted": coverage.shortlisted,
            "judged": coverage.judged,
            "remembered": coverage.remembered,
            "complete": coverage.complete,
            "skippedByReason": coverage.skipped_by_reason,
            "semantic": coverage.semantic,
            "documentation": coverage.documentation,
            "roots": [uri(Path(root)) for root in coverage.roots],
            "symbols": coverage.symbols,
            "searches": list(coverage.searches),
            "identifiers": list(coverage.identifiers),
            "referenceSnippets": coverage.reference_snippets,
            "unresolvedImports": [
                {
                    "path": u.path,
                    "location": import_place(u),
                    "specifier": u.specifier,
                    "name": u.name,
                    "reason": u.reason,
                }
                for u in coverage.unresolved_imports
            ],
        },
        "warnings": result.warnings,
        "mode": result.mode,
        "judge": result.judge,
        "intent": result.intent,
        "closest": match_wire(result.closest, place, copy_place) if result.closest is not None else None,
        "candidates": [candidate(c) for c in result.candidates],
        "related": [candidate(c) for c in result.related],
    }
