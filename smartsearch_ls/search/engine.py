"""One function from a query to a result: shortlist, judge, rank, focus, and say what was seen.

Both front ends call `search`: the server with its warm indexes, the command line with an index it just
refreshed. The CPU-bound steps (shortlist, name and path look-ups) run in a worker thread, so a server's
event loop keeps answering while they do. Everything a user needs to trust the answer travels with it:
coverage counts, whether every snippet in scope was judged, and a warning for each reason the answer may
be incomplete.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.documentation import asks_for_documentation
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.shortlist import Candidate, Scope, Shortlist, shortlist, unreadable_warning
from smartsearch_ls.judge.judgments import JudgeConfig, Judged, JudgmentCache
from smartsearch_ls.judge.loading import HEAVY_IMPORTS
from smartsearch_ls.search import shapes
from smartsearch_ls.search.excerpt import evidence, focus
from smartsearch_ls.search.result import Coverage, Match, Mode, SearchResult, kind_of
from smartsearch_ls.search.routing import Intent

if TYPE_CHECKING:
    from smartsearch_ls.search.params import QueryParams
    from smartsearch_ls.settings import Settings


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated search over resolved scopes."""

    query: str
    scopes: Sequence[Scope]
    limit: int = 10
    candidates: int = 128
    threshold: float = 0.5
    mode: Mode | None = None
    """None routes by the query's shape (`auto`)."""
    dense: Sequence[DenseIndex] = ()
    """The embedding indexes of the scopes' roots, for the semantic side of the shortlist."""
    embed_missing: int | None = None
    """Candidates without a vector the search may embed itself (None: the shortlist's default, 0: none, so the
    semantic side uses only what background embedding has done; right when the judge will not embed them)."""
    intent: Intent | None = None
    """`definition`, `references`, `tests` or `file` (README, "Query shapes"); None: the shape's default."""
    context: str | None = None
    """Words that re-rank the hits (never widen them), e.g. `goal progress` for `remaining_value`."""
    expand_related: bool = False
    """Follow imports of the named symbol to its declaration, and list the files the best hits import."""

    @classmethod
    def of(
        cls,
        params: QueryParams,
        settings: Settings,
        scopes: Sequence[Scope],
        mode: Mode | None,
        *,
        dense: Sequence[DenseIndex] = (),
        limit: int | None = None,
        embed_missing: int | None = None,
    ) -> SearchRequest:
        """The request for validated params, the settings filling in what they leave out; `limit` overrides both."""
        return cls(
            query=params.query,
            scopes=scopes,
            limit=limit or params.limit or settings.limit,
            candidates=params.candidates or settings.candidates,
            threshold=settings.threshold,
            mode=mode,
            dense=dense,
            embed_missing=embed_missing,
            intent=params.intent,
            context=params.context,
            expand_related=params.expand_related,
        )


async def search(
    request: SearchRequest,
    judge: JudgeConfig | None,
    cache: JudgmentCache,
    on_judged: Judged | None = None,
    warnings: Sequence[str] = (),
) -> SearchResult:
    """Run one search. `judge` may be None only for symbol and path searches; `warnings` are carried through."""
    unread = unreadable_warning(request.scopes)
    warnings = [*warnings, unread] if unread is not None else list(warnings)
    result = await shapes.run(request, judge, cache, on_judged, warnings, _behavior_search)
    if unread is None:
        return result
    return replace(result, coverage=replace(result.coverage, complete=False))  # files rg could not list


async def _behavior_search(
    request: SearchRequest, judge: JudgeConfig, cache: JudgmentCache, on_judged: Judged | None, warnings: list[str]
) -> SearchResult:
    found = await asyncio.to_thread(
        lambda: shortlist(
            request.scopes,
            request.query,
            request.candidates,
            request.dense,
            embed_missing=request.embed_missing,
            documentation=asks_for_documentation(request.query),
        )
    )
    snippets = [c.snippet for c in found.candidates]
    with HEAVY_IMPORTS:  # Pydantic AI, imported by the first search that judges (usually already, by its judge)
        from smartsearch_ls.judge.runner import judge_snippets

    scores = await judge_snippets(judge, request.query, snippets, cache, on_judged) if snippets else []
    passing = sorted(
        ((c, s) for c, s in zip(found.candidates, scores, strict=True) if s >= request.threshold),
        key=lambda item: (-item[1], item[0].snippet.path, item[0].snippet.start_line),
    )
    kept = _collapse_overlaps(passing)
    judged_pairs = [(c.snippet, s) for c, s in passing]
    matches = [_to_match(c, s, judged_pairs, request.query) for c, s in kept[: request.limit]]
    coverage = _coverage(found, judged=len(snippets))
    warnings.extend(_behavior_warnings(found, coverage, request, bool(scores), bool(kept)))
    if any(m.unsaved for m in matches):
        warnings.append("Some matches come from unsaved editor buffers; their lines may differ from the files on disk.")
    judged_by = judge.name if snippets else None  # the contract: null when no judging happened
    return SearchResult(matches, max(len(kept) - request.limit, 0), coverage, warnings, "behavior", judged_by)


def _collapse_overlaps(passing: list[tuple[Candidate, float]]) -> list[tuple[Candidate, float]]:
    """The best snippet wins; lower-ranked snippets overlapping it collapse into it."""
    kept: list[tuple[Candidate, float]] = []
    for candidate, score in passing:
        s = candidate.snippet
        if not any(
            k.snippet.path == s.path
            and k.index is candidate.index
            and k.snippet.start_line <= s.end_line
            and s.start_line <= k.snippet.end_line
            for k, _ in kept
        ):
            kept.append((candidate, score))
    return kept


def _to_match(candidate: Candidate, score: float, passing: list[tuple[Snippet, float]], query: str) -> Match:
    snippet = candidate.snippet
    start, end, text = focus(snippet, query, evidence(snippet, passing))
    return Match(
        root=candidate.index.root,
        path=snippet.path,
        start_line=start,
        end_line=end,
        snippet_start_line=snippet.start_line,
        snippet_end_line=snippet.end_line,
        symbol=snippet.symbol,
        kind=kind_of(snippet.path),
        relevance=round(score, 3),
        excerpt=text,
        unsaved=candidate.unsaved,
    )


def _coverage(found: Shortlist, judged: int) -> Coverage:
    return Coverage(
        files=found.files,
        skipped_files=sum(found.skipped.values()),
        snippets=found.snippets,
        shortlisted=len(found.candidates),
        judged=judged,
        complete=judged == found.snippets,
        skipped_by_reason={str(reason): n for reason, n in sorted(found.skipped.items())},
        semantic=round(found.dense_coverage, 3) if found.dense_used else None,
        documentation=found.documentation,
    )


def _behavior_warnings(
    found: Shortlist, coverage: Coverage, request: SearchRequest, judged_any: bool, matched: bool
) -> list[str]:
    warnings: list[str] = []
    if found.files == 0:
        warnings.append("No files were searched: the directory or glob matched no indexed file.")
    if judged_any and not matched:
        warnings.append(
            f"No snippet reached the threshold {request.threshold:g}; this does not prove absence. "
            "Try rephrasing, a narrower directory, or a plain text search."
        )
    if found.documentation and not matched:
        warnings.append(
            f"{found.documentation} snippets of documentation (Markdown, reStructuredText, READMEs) were not searched: "
            "behavior searches judge code. Ask about the documentation, or pass a glob such as '*.md', to search it."
        )
    if not coverage.complete and found.snippets and found.dense_used:
        warnings.append(
            f"Judged {coverage.judged} of {coverage.snippets} snippets picked by a lexical and semantic shortlist; "
            "the rest ranked lower on both. Raise `candidates` or narrow the directory/glob."
        )
    elif not coverage.complete and found.snippets:
        if found.matched > len(found.candidates):
            cut = f"{found.matched - len(found.candidates)} more snippets matched some query words but were not judged"
            advice = "Raise `candidates` or narrow the directory/glob."
        else:  # more candidates would add nothing: every snippet with a query word was judged
            cut = "the rest share no word with the query"
            advice = (
                "Rephrase with the words the code uses, or narrow the directory/glob to at most "
                f"{request.candidates} snippets, which are judged whole."
            )
        warnings.append(
            f"Judged {coverage.judged} of {coverage.snippets} snippets picked by a lexical shortlist ({cut}); "
            f"code with unrelated wording may be missed. {advice}"
        )
    if found.dense_used and found.dense_coverage < 1 and not coverage.complete:
        warnings.append(
            f"The semantic shortlist covered {int(found.dense_coverage * 100)}% of snippets (the others are not "
            "embedded yet); the rest could be found by their words only."
        )
    if coverage.skipped_files:
        reasons = ", ".join(f"{n} {reason}" for reason, n in coverage.skipped_by_reason.items())
        files = "file" if coverage.skipped_files == 1 else "files"
        warnings.append(f"{coverage.skipped_files} {files} skipped ({reasons}).")
    return warnings
