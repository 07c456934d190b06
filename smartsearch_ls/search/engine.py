"""One function from a query to a result: route by the query's shape, run the look-ups and searches it needs.

Both front ends call `search`: the server with its warm indexes, the command line with an index it just
refreshed. Identifier-, path- and prose-shaped queries (see `routing`) and the `intent` (`definition`,
`references`, `tests`, `file`) are dispatched here: a name goes to the symbol look-up (`symbols/`), a path to
the path look-up (`paths`), prose to the judged search (`behavior`) after a look-up of any names it contains.
The `context` re-ranking is in `context`, `expandRelated` in `symbols.related`, and the merging into one answer
(candidates, coverage) in `merge`. The look-ups are CPU-bound and run in a worker thread, so a server's event
loop keeps answering while they do.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from smartsearch_ls.index.shortlist import Scope, unreadable_warning
from smartsearch_ls.index.terms import distinct_terms
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import JudgeConfig, Judged
from smartsearch_ls.search.behavior import NO_FILES, behavior_search
from smartsearch_ls.search.context import CONTEXT_WEIGHT, Context, declaration_context, match_terms
from smartsearch_ls.search.excerpt import match_at
from smartsearch_ls.search.merge import (
    build_coverage,
    build_result,
    dedupe,
    file_candidates,
    one_per_file,
    roots,
    same_place,
    scope_counts,
)
from smartsearch_ls.search.paths import find_paths
from smartsearch_ls.search.request import SearchRequest
from smartsearch_ls.search.result import Coverage, Match, PartialMatches, SearchResult, kind_of
from smartsearch_ls.search.routing import Plan, identifiers_in, plan
from smartsearch_ls.search.symbols.intents import (
    declaration_match,
    importer_matches,
    reference_matches,
    tests_for_name,
    tests_named_after,
)
from smartsearch_ls.search.symbols.ranking import find_symbols
from smartsearch_ls.search.symbols.related import expand_related


async def search(
    request: SearchRequest,
    judge: JudgeConfig | None,
    cache: JudgmentCache,
    on_judged: Judged | None = None,
    warnings: Sequence[str] = (),
    on_partial: PartialMatches | None = None,
) -> SearchResult:
    """Run one search: route by shape (or the forced `mode`), apply the intent, merge, re-rank by context, list
    candidates. `judge` may be None only for symbol and path searches; `warnings` are carried through;
    `on_partial` hears the best matches so far while a model judge works (the look-ups' hits first)."""
    shape = _plan(request)
    context = Context.of(request.context)
    unread = unreadable_warning(request.scopes)
    notes = [*warnings, unread] if unread is not None else list(warnings)
    if shape.mode == "path":
        result = await asyncio.to_thread(_path_search, request, shape, context, notes)
    elif shape.mode == "symbol":
        result = await asyncio.to_thread(_symbol_search, request, shape, context, notes)
    else:
        result = await _prose_search(request, shape, context, judge, cache, on_judged, notes, on_partial)
    if request.expand_related:
        result = await asyncio.to_thread(expand_related, request, shape, result)
    if unread is not None:  # files rg could not list: no answer over them is complete
        result = replace(result, coverage=replace(result.coverage, complete=False))
    return replace(result, intent=request.intent)


def _plan(request: SearchRequest) -> Plan:
    if request.mode is None:
        return plan(request.query)
    if request.mode == "symbol":
        return Plan("symbol", (request.query.strip(),))
    if request.mode == "behavior":
        return Plan("behavior", identifiers_in(request.query) if request.intent else ())
    return Plan(request.mode)


# -- symbol-shaped ----------------------------------------------------------------------------------------


def _symbol_search(request: SearchRequest, shape: Plan, context: Context | None, warnings: list[str]) -> SearchResult:
    name = shape.identifiers[0]
    files, snippets = scope_counts(request.scopes)
    if request.intent == "references":
        matches, scanned, complete = reference_matches(request, name, context, tests_only=False)
        coverage = build_coverage(request, files, snippets, ("references",), (name,), complete, scanned=scanned)
        if not matches:
            warnings.append(f"No use of {name!r} was found in {files} files (a lexical scan of {scanned} snippets).")
        return build_result(request, matches, coverage, warnings, "symbol")
    if request.intent == "tests":
        matches, scanned, complete, symbols = tests_for_name(request, name, context)
        coverage = build_coverage(request, files, snippets, ("symbol", "tests"), (name,), complete, symbols, scanned)
        if not matches:
            warnings.append(f"No test file uses or is named after {name!r} ({files} files searched).")
        return build_result(request, matches, coverage, warnings, "symbol")
    hits, _, symbols = find_symbols(
        request.scopes, name, 100 if request.intent == "file" else request.limit, context=declaration_context(context)
    )
    matches = [m for h in hits if (m := declaration_match(h)) is not None]
    searches: tuple[str, ...] = ("symbol",)
    if request.intent == "file":
        refs, scanned, _ = reference_matches(request, name, context, tests_only=False)
        matches = sorted(one_per_file([*matches, *refs]), key=lambda m: m.kind is not None)
        searches = ("symbol", "references")
    coverage = build_coverage(request, files, snippets, searches, (name,), True, symbols)
    if not matches:
        warnings.append(
            f"No declaration is named like {name!r} among {symbols} declarations in {files} files; "
            "try a behavior search in plain words."
        )
    return build_result(request, matches, coverage, warnings, "symbol")


# -- path-shaped --------------------------------------------------------------------------------------------


def _path_search(request: SearchRequest, shape: Plan, context: Context | None, warnings: list[str]) -> SearchResult:
    files, snippets = scope_counts(request.scopes)
    found = find_paths(request.scopes, request.query)
    scored: list[tuple[float, Match]] = []
    for scope, path, score in found:
        first = min(
            (s.start_line for _, e in scope.index.entries([path]) for d in e.docs if (s := scope.index.snippets[d])),
            default=1,
        )
        match = match_at(scope.index, path, first, first + 11, None, score)
        if match is not None:
            ctx = context.score(distinct_terms(path) | distinct_terms(match.excerpt)) if context else 0.0
            scored.append((score + CONTEXT_WEIGHT * ctx, replace(match, source="path")))
    scored.sort(key=lambda item: -item[0])
    matches = [m for _, m in scored]
    searches: tuple[str, ...] = ("path",)
    if request.intent in ("references", "tests") and matches:
        best = [m for m in matches if m.relevance == matches[0].relevance]
        importers = importer_matches(request.scopes, best, tests_only=request.intent == "tests")
        if request.intent == "tests":
            importers = dedupe([*importers, *tests_named_after(request, best)])
        matches = importers
        searches = ("path", request.intent)
    coverage = build_coverage(request, files, snippets, searches, (), True)
    if not matches:
        what = {"references": "imports", "tests": "tests of"}.get(request.intent or "", "")
        warnings.append(
            f"No indexed file {what + ' ' if what else ''}matches {request.query!r} ({files} files searched)."
            if what
            else f"No indexed file path matches {request.query!r} ({files} files searched)."
        )
    return build_result(request, matches, coverage, warnings, "path")


# -- prose-shaped ----------------------------------------------------------------------------------------------


async def _prose_search(
    request: SearchRequest,
    shape: Plan,
    context: Context | None,
    judge: JudgeConfig | None,
    cache: JudgmentCache,
    on_judged: Judged | None,
    warnings: list[str],
    on_partial: PartialMatches | None = None,
) -> SearchResult:
    """Symbol (or reference) hits of the names in the sentence first, then the judged search."""
    intent = request.intent
    if judge is None and not shape.identifiers:
        raise ValueError("a behavior search needs a judge")
    first: list[Match] = []
    searches: list[str] = []
    symbols = scanned = 0
    complete_lookup = True
    if shape.identifiers:
        for name in shape.identifiers:
            if intent == "references":
                found, n, ok = await asyncio.to_thread(reference_matches, request, name, context, tests_only=False)
                scanned += n
                complete_lookup &= ok
                first.extend(found)
            elif intent == "tests":
                found, n, ok, s = await asyncio.to_thread(tests_for_name, request, name, context)
                scanned, symbols = scanned + n, symbols + s
                complete_lookup &= ok
                first.extend(found)
            else:
                hits, _, s = await asyncio.to_thread(
                    find_symbols, request.scopes, name, request.limit, context=declaration_context(context), max_tier=2
                )
                symbols += s
                first.extend(m for h in hits if (m := declaration_match(h)) is not None)
        searches.append(intent if intent in ("references", "tests") else "symbol")
    first = dedupe(first)
    room = request.limit if intent in ("definition", "references", "tests") else math.ceil(request.limit / 2)
    shown_first = first[:room]
    scopes = request.scopes
    if intent == "tests":
        scopes = [_TestScope(s.index, s.prefix, s.globs, s.mount) for s in scopes]
    widened = min(100, max(request.limit * 3, 30)) if context is not None or intent else request.limit
    judged_request = replace(request, scopes=scopes, limit=widened, mode="behavior", intent=None, context=None)
    if judge is None:
        warnings.append("No judge is configured, so only the names in the query were looked up.")
        files, snippets = scope_counts(request.scopes)
        base = SearchResult([], 0, Coverage(files=files, snippets=snippets, complete=False), warnings, "behavior", None)
    else:

        def partial(judged: list[Match]) -> None:
            if on_partial is not None:
                fresh = [replace(m, source="judged") for m in judged if not any(same_place(m, f) for f in shown_first)]
                on_partial([*shown_first, *fresh][: request.limit])

        base = await behavior_search(
            judged_request,
            judge,
            cache,
            on_judged,
            warnings,
            partial if on_partial is not None else None,
            # Counted only when the search finds no test file: what was searched, once narrowed to tests.
            (lambda: _no_test_files(request.scopes)) if intent == "tests" else None,
        )
        searches.append("behavior")
    judged = [replace(m, source="judged") for m in base.matches]
    omitted = base.omitted_matches
    if context is not None:
        scored = [(m.relevance + CONTEXT_WEIGHT * context.score(match_terms(m)), m) for m in judged]
        judged = [m for _, m in sorted(scored, key=lambda item: -item[0])]
    if intent == "definition":
        judged = sorted(judged, key=lambda m: m.symbol is None)
    if intent == "file":
        judged = one_per_file([*shown_first, *judged])[len(one_per_file(shown_first)) :]
        shown_first = one_per_file(shown_first)
    judged = [m for m in judged if not any(same_place(m, f) for f in shown_first)]
    everything = [*shown_first, *judged]
    matches = everything[: request.limit]
    omitted += len(everything) - len(matches) + len(first) - len(shown_first)
    coverage = replace(
        base.coverage,
        roots=roots(request.scopes),
        symbols=symbols,
        searches=tuple(searches),
        identifiers=shape.identifiers,
        reference_snippets=scanned,
        complete=base.coverage.complete and complete_lookup,
    )
    candidates = file_candidates([*first, *judged], request.limit)
    closest = base.closest if not matches else None
    return SearchResult(matches, omitted, coverage, base.warnings, "behavior", base.judge, candidates, closest=closest)


def _no_test_files(scopes: Sequence[Scope]) -> str:
    """The warning of a search for tests where none is: what was searched, so that the answer is not read as a
    directory or glob that matched nothing."""
    files, _ = scope_counts(scopes)
    if not files:
        return NO_FILES
    return (
        f"No test files were found: none of the {files} {'file' if files == 1 else 'files'} searched is a test "
        "(tests are told by their paths: a tests/ or spec/ folder, test_*.py, *_test.go, *.test.ts, ...)."
    )


@dataclass(frozen=True, slots=True)
class _TestScope(Scope):
    """A scope narrowed to test files (the `tests` intent of a prose query)."""

    def contains(self, path: str) -> bool:
        return kind_of(path) is not None and Scope.contains(self, path)
