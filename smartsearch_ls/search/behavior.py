"""The judged search, the product: shortlist the scope's snippets, judge them, keep those that pass, say what was seen.

The shortlist (`index.shortlist`: BM25 fused with embeddings) picks the `candidates` snippets worth judging; the
judge (`judge.runner`) scores them, with the shortlist's evidence for a judge that weighs it; those at or above the
threshold are ranked, overlapping snippets collapse into the best one, copies of one snippet in other files fold
into the best (`copies`), among the first `limit` module headers and declaration files (`.d.ts`) come after the code
(`answer_order`) and tests after the implementation unless the question asks for tests
(`file_kinds.implementation_first`), and each is focused on the lines a reader needs (`excerpt`). The shortlist runs
in a worker thread, so a server's event loop keeps answering. Everything a user needs to trust the answer travels
with it: coverage counts, whether every snippet in scope was judged, and a warning for each reason the answer may be
incomplete. The engine (`engine`) calls it for prose queries, after any look-up of the names they contain.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.documentation import asks_for_documentation
from smartsearch_ls.discovery.file_kinds import implementation_first, is_test
from smartsearch_ls.index.shortlist import Candidate, Scope, Shortlist, shortlist
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import Evidence, ExplainsShortlists, JudgeConfig, Judged, JudgingTally
from smartsearch_ls.judge.local.features import query_terms, root_idf
from smartsearch_ls.judge.runner import judge_snippets
from smartsearch_ls.search.answer_order import describes_code, descriptions_last
from smartsearch_ls.search.copies import CopyKey, copy_key, fold_copies
from smartsearch_ls.search.excerpt import evidence, focus
from smartsearch_ls.search.result import Copy, Coverage, Match, PartialMatches, SearchResult
from smartsearch_ls.search.why import why

if TYPE_CHECKING:
    from smartsearch_ls.search.request import SearchRequest


WORKING_SET_BONUS = 0.02
"""How much more relevant a snippet of a file the user has edited ranks, against the others: enough to
order near-ties by what the user works on, too little to lift a clearly worse match (`bench.ranker.working_set`
measures what it costs and gains on the quality set's development part)."""


NO_FILES = "No files were searched: the directory or glob matched no indexed file."


async def behavior_search(
    request: SearchRequest,
    judge: JudgeConfig,
    cache: JudgmentCache,
    on_judged: Judged | None,
    warnings: list[str],
    on_partial: PartialMatches | None = None,
    empty_scope: Callable[[], str] | None = None,
) -> SearchResult:
    """The judged search over the request's scopes; `warnings` gathers what the answer must say about itself, and
    `on_partial` hears the best matches so far each time a model judgment changes them. `empty_scope` words the
    warning for scopes holding no file, when they were narrowed further than `directory` and `glob` (to tests)."""
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
    roots = {id(c.index): c.index for c in found.candidates}  # once a root: finding its memory resolves a path
    memories = {key: cache.memory(index.cache_dir, index.root) for key, index in roots.items()}
    shortlisted = [Evidence(c.snippet, c.lexical, c.cosine, memories[id(c.index)]) for c in found.candidates]
    idf = _idf(request.scopes, request.query)
    tally = JudgingTally()
    so_far = _BestSoFar(found.candidates, request, on_partial) if on_partial is not None else None
    scores = (
        await judge_snippets(
            judge, request.query, shortlisted, cache, on_judged, idf, tally, so_far.add if so_far else None
        )
        if shortlisted
        else []
    )
    scored = list(zip(found.candidates, scores, strict=True))
    passing, kept, shown = _ranked(scored, request)
    # With none passing, the match the answer would show first with no threshold: what to look at before rephrasing.
    closest = _ranked(scored, replace(request, threshold=0.0))[2][:1] if scored and not kept else []
    factors = await _factors(judge, request.query, shortlisted, idf) if shown or closest else {}
    judged_pairs = [(c.snippet, s) for c, s in passing]
    matches = [
        _to_match(c, s, judged_pairs, request.query, factors.get(id(c.snippet), ()), copies) for c, s, copies in shown
    ]
    nearest = [
        _to_match(c, s, [(c.snippet, s)], request.query, factors.get(id(c.snippet), ()), k) for c, s, k in closest
    ]
    coverage = _coverage(found, judged=len(shortlisted), remembered=tally.remembered)
    if found.files == 0:
        warnings.append(empty_scope() if empty_scope is not None else NO_FILES)
    warnings.extend(_behavior_warnings(found, coverage, request, nearest[0] if nearest else None, bool(kept)))
    if any(m.unsaved for m in matches):
        warnings.append("Some matches come from unsaved editor buffers; their lines may differ from the files on disk.")
    judged_by = judge.name if shortlisted else None  # the contract: null when no judging happened
    return SearchResult(
        matches,
        max(len(kept) - request.limit, 0),
        coverage,
        warnings,
        "behavior",
        judged_by,
        closest=nearest[0] if nearest else None,
    )


Ranked = list[tuple[Candidate, float]]
Shown = list[tuple[Candidate, float, Sequence[Candidate]]]
"""A match to show, with the copies of its snippet in other files (`copies.fold_copies`)."""


def _ranked(
    scored: Ranked, request: SearchRequest, copy_key_of: Callable[[Snippet], CopyKey] = copy_key
) -> tuple[Ranked, Ranked, Shown]:
    """Those at or above the threshold best first, the same with overlaps collapsed and copies folded, and the
    first `limit` of those as shown (implementation before tests unless the question asks for tests), each with its
    copies. A file of the editor's working set ranks as if `WORKING_SET_BONUS` more relevant; what passes the
    threshold is not changed by it. `copy_key_of` is how copies are told (`copies.copy_key`, or a memo of it)."""
    favored = request.working_set

    def rank(item: tuple[Candidate, float]) -> tuple[float, str, int]:
        candidate, score = item
        bonus = WORKING_SET_BONUS if (candidate.index.root, candidate.snippet.path) in favored else 0.0
        return -(score + bonus), candidate.snippet.path, candidate.snippet.start_line

    passing = sorted(((c, s) for c, s in scored if s >= request.threshold), key=rank)
    folded = fold_copies(_collapse_overlaps(passing), lambda item: item[0].snippet, copy_key_of)
    kept = [item for item, _ in folded]
    with_copies = [(c, s, [copy for copy, _ in copies]) for (c, s), copies in folded[: request.limit]]
    code_first = descriptions_last(with_copies, lambda item: describes_code(item[0].snippet))
    shown = implementation_first(
        code_first, lambda item: is_test(item[0].snippet.path, item[0].snippet.symbol), request.query
    )
    return passing, kept, shown


class _BestSoFar:
    """The matches a search would show from the judgments in so far, sent each time they change.

    Ranked exactly as the final answer ranks (`_ranked`), so a batch differs from the answer only by what was not
    judged yet. Only a judgment at or above the threshold can change what is shown, so the others cost nothing; a
    snippet's copy key is computed once, not at every batch that ranks it again.
    """

    def __init__(self, candidates: Sequence[Candidate], request: SearchRequest, send: PartialMatches) -> None:
        self._candidates = candidates
        self._request = request
        self._send = send
        self._scores: dict[int, float] = {}
        self._shown: tuple[tuple[int, float], ...] = ()
        self._copy_keys: dict[int, CopyKey] = {}

    def add(self, scored: Sequence[tuple[int, float]]) -> None:
        passed = [(i, s) for i, s in scored if s >= self._request.threshold]
        if not passed:
            return
        self._scores.update(passed)
        ranked = [(self._candidates[i], s) for i, s in self._scores.items()]
        passing, _, shown = _ranked(ranked, self._request, self._copy_key)
        identity = tuple((id(c), s) for c, s, _ in shown)
        if identity == self._shown:
            return
        self._shown = identity
        judged_pairs = [(c.snippet, s) for c, s in passing]
        self._send([_to_match(c, s, judged_pairs, self._request.query, (), copies) for c, s, copies in shown])

    def _copy_key(self, snippet: Snippet) -> CopyKey:
        key = self._copy_keys.get(id(snippet))
        if key is None:
            key = self._copy_keys[id(snippet)] = copy_key(snippet)
        return key


def _idf(scopes: Sequence[Scope], query: str) -> dict[str, float]:
    """The rarity of the query's terms across the searched roots (each root counted once)."""
    roots = list({id(scope.index): scope.index for scope in scopes}.values())
    return root_idf(
        lambda term: sum(index.bm25.frequency(term) for index in roots),
        sum(index.bm25.live for index in roots),
        query_terms(query),
    )


def _collapse_overlaps(passing: list[tuple[Candidate, float]]) -> list[tuple[Candidate, float]]:
    """The best snippet wins; lower-ranked snippets overlapping it collapse into it. Each is compared with the kept
    spans of its own file only: with every candidate passing, comparing it with all kept ones cost a search
    thousands of comparisons."""
    kept: list[tuple[Candidate, float]] = []
    spans: dict[tuple[int, str], list[tuple[int, int]]] = {}
    for candidate, score in passing:
        s = candidate.snippet
        in_file = spans.setdefault((id(candidate.index), s.path), [])
        if not any(start <= s.end_line and s.start_line <= end for start, end in in_file):
            kept.append((candidate, score))
            in_file.append((s.start_line, s.end_line))
    return kept


async def _factors(
    judge: JudgeConfig, query: str, shortlisted: list[Evidence], idf: dict[str, float]
) -> dict[int, tuple[tuple[str, float], ...]]:
    """What weighed most in each candidate's score, by snippet identity, for a judge that can say it."""
    if not isinstance(judge.model, ExplainsShortlists):
        return {}
    found = await judge.model.factors(query, shortlisted, idf)
    return {id(e.snippet): reasons for e, reasons in zip(shortlisted, found, strict=True)}


def _to_match(
    candidate: Candidate,
    score: float,
    passing: list[tuple[Snippet, float]],
    query: str,
    factors: tuple[tuple[str, float], ...],
    copies: Sequence[Candidate],
) -> Match:
    snippet = candidate.snippet
    excerpt = focus(snippet, query, evidence(snippet, passing))
    return Match.of(
        candidate.index.root,
        snippet.path,
        excerpt,
        (snippet.start_line, snippet.end_line),
        symbol=snippet.symbol,
        relevance=score,
        unsaved=candidate.unsaved,
        why=why(query, snippet, excerpt, candidate.cosine, factors),
        copies=tuple(Copy(c.index.root, c.snippet.path, c.snippet.start_line, c.snippet.end_line) for c in copies),
    )


def _coverage(found: Shortlist, judged: int, remembered: int) -> Coverage:
    return Coverage(
        files=found.files,
        skipped_files=sum(found.skipped.values()),
        snippets=found.snippets,
        shortlisted=len(found.candidates),
        judged=judged,
        remembered=remembered,
        complete=judged == found.snippets,
        skipped_by_reason={str(reason): n for reason, n in sorted(found.skipped.items())},
        semantic=round(found.dense_coverage, 3) if found.dense_used else None,
        documentation=found.documentation,
    )


def _behavior_warnings(
    found: Shortlist,
    coverage: Coverage,
    request: SearchRequest,
    closest: Match | None,
    matched: bool,
) -> list[str]:
    """What the answer must say about itself; `closest` is the match the answer would show first with no threshold,
    when none passed."""
    warnings: list[str] = []
    if closest is not None:
        # The cut says "nothing" for some answerable questions too, often with the answer as the best below it:
        # naming that one lets a reader look before rephrasing.
        name = f" ({closest.symbol})" if closest.symbol else ""
        place = f"{closest.path}:{closest.snippet_start_line}-{closest.snippet_end_line}"
        warnings.append(
            f"No snippet reached the threshold {request.threshold:g}; this does not prove absence. The closest was "
            f"{place}{name} at {closest.relevance:.2f}. "
            "Try rephrasing, a narrower directory, or a plain text search."
        )
    if found.documentation and not matched:
        warnings.append(
            f"{found.documentation} snippets of documentation (Markdown, reStructuredText, READMEs) were not searched: "
            "behavior searches judge code. Ask about the documentation, or pass a glob such as '*.md', to search it."
        )
    # Until every snippet has a vector, meaning only re-orders the best word matches: the shortlist is lexical.
    if not coverage.complete and found.snippets and found.dense_used and found.vectors >= found.snippets:
        warnings.append(
            f"Judged the {coverage.judged} of {coverage.snippets} snippets that ranked best by their words and "
            "meaning; the others ranked lower on both and were not judged."
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
    if (found.dense_used or found.vectors) and found.vectors < found.snippets and not coverage.complete:
        warnings.append(
            f"Embedding has reached {int(found.vectors / found.snippets * 100)}% of snippets: until it is complete, "
            "meaning only re-ranks the best word matches, so code worded unlike the query may be missed."
        )
    if coverage.skipped_files:
        reasons = ", ".join(f"{n} {reason}" for reason, n in coverage.skipped_by_reason.items())
        files = "file" if coverage.skipped_files == 1 else "files"
        warnings.append(f"{coverage.skipped_files} {files} skipped ({reasons}).")
    return warnings
