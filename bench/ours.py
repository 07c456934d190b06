"""Our engine over the quality sets, written in the metrics format with the shortlist it judged.

Four rankings per query, all from the real code paths:

- `ours-bm25+local`: `search()` with the BM25 shortlist and the embedded `local` judge (threshold 0.5, limit 10);
- `ours-hybrid+local`: the same with the root's `DenseIndex`, so the shortlist fuses BM25 with MiniLM cosines;
- `shortlist-bm25`, `shortlist-hybrid`: the shortlist's own order, no judge (what the judge starts from).

The shortlist is computed with `shortlist()` before each search, with the arguments `search()` passes it, so
shortlist recall@K is measured on exactly what the judge saw (a second call inside `search()` finds the
vectors already there). Hits are reported at the snippet's span (`snippet_start_line..snippet_end_line`), as
the baselines and the peer are, so every row is scored the same way; a match that lists copies of its code in other
files (`search.copies`) is a hit when one of them is.

Vectors: with `embed_all` the corpus is embedded first (a server after its background embedding); otherwise
only what the shortlist embeds at search time (the best lexical candidates), which is a server's first minutes.
Indexes and vectors are cached under `cache_dir`, so a second run skips both.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.quality import metrics
from smartsearch_ls.discovery.documentation import asks_for_documentation
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Candidate, Scope, shortlist
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import JudgeConfig
from smartsearch_ls.judge.resolve import judge_name, resolve_judge
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest
from smartsearch_ls.search.result import Match

CONFIGS = (
    "ours-bm25+local",
    "ours-hybrid+local",
    "ours-bm25+local@0",
    "ours-hybrid+local@0",
    "shortlist-bm25",
    "shortlist-hybrid",
)
"""`@0`: the same search with threshold 0, i.e. the judge's ranking without its cut (negatives never empty)."""
THRESHOLD = 0.5
LIMIT = 10


@dataclass
class SetRun:
    """The results of every configuration over one query set, plus what it cost."""

    name: str
    cases: list[metrics.QueryCase]
    results: dict[str, list[metrics.QueryResult]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    dense_coverage: dict[str, float] = field(default_factory=dict)
    """Corpus -> share of its snippets with a vector when the queries ran (after any pre-embedding)."""
    snippets: dict[str, int] = field(default_factory=dict)


def candidate_spans(found: Sequence[Candidate]) -> tuple[metrics.Span, ...]:
    """Shortlisted snippets as the metrics score them: (path, first line, last line)."""
    return tuple((c.snippet.path, c.snippet.start_line, c.snippet.end_line) for c in found)


def shown_span(match: Match, gold: Sequence[metrics.Span]) -> metrics.Span:
    """The match's span, or the span of one of its copies (`Match.copies`) that is a gold answer: the answer lists
    the copies with the match, so the copy a question's gold names is found there."""
    spans = [(match.path, match.snippet_start_line, match.snippet_end_line)]
    spans += [(c.path, c.snippet_start_line, c.snippet_end_line) for c in match.copies]
    return next((span for span in spans if metrics.is_hit(span, gold)), spans[0])


def open_corpus(
    root: Path, cache_dir: Path, *, embed_all: bool, log: Callable[[str], None]
) -> tuple[RootIndex, DenseIndex]:
    started = time.perf_counter()
    index, _ = RootIndex.open_warm(root, cache_dir=cache_dir)
    dense = DenseIndex.for_root(index)
    log(f"  {root.name}: {index.snippet_count} snippets indexed in {time.perf_counter() - started:.1f}s")
    if embed_all and dense.available():
        started = time.perf_counter()
        embedded = 0
        while count := dense.embed_pending(32):
            embedded += count
        if embedded:
            dense.persist()
            log(f"  {root.name}: embedded {embedded} snippets in {time.perf_counter() - started:.1f}s")
    return index, dense


def run_set(
    name: str,
    cases: list[metrics.QueryCase],
    resolve_root: Callable[[str], Path],
    cache_dir: Path,
    *,
    candidates: int = 128,
    embed_all: bool = True,
    log: Callable[[str], None] = print,
) -> SetRun:
    """Every configuration over `cases` (which may span corpora); the local judge is loaded once."""
    model = resolve_judge("local")
    judge = JudgeConfig(model, judge_name("local"), timeout=120.0, concurrency=8)
    run = SetRun(name, cases, {c: [] for c in CONFIGS}, dict.fromkeys(CONFIGS, 0.0))
    opened: dict[str, tuple[RootIndex, DenseIndex]] = {}
    for case in cases:
        if case.corpus not in opened:
            opened[case.corpus] = open_corpus(resolve_root(case.corpus), cache_dir, embed_all=embed_all, log=log)
            done, total = opened[case.corpus][1].progress()
            run.dense_coverage[case.corpus] = round(done / total, 3) if total else 0.0
            run.snippets[case.corpus] = total

    async def go() -> None:
        for number, case in enumerate(cases, start=1):
            index, dense = opened[case.corpus]
            scopes = [Scope(index)]
            for config, vectors in (("shortlist-bm25", ()), ("shortlist-hybrid", (dense,))):
                started = time.perf_counter()
                documentation = asks_for_documentation(case.query)
                found = shortlist(scopes, case.query, candidates, vectors, documentation=documentation)
                run.seconds[config] += time.perf_counter() - started
                spans = candidate_spans(found.candidates)
                run.results[config].append(metrics.QueryResult(spans[:LIMIT], spans))
            # One judgment cache per query: a snippet both shortlists offer is judged once (same judge, same
            # query, same text), and the threshold-0 runs re-use every judgment of the runs before them.
            judgments = JudgmentCache()
            for config, vectors, threshold, listed in (
                ("ours-bm25+local", (), THRESHOLD, run.results["shortlist-bm25"][-1].shortlist),
                ("ours-hybrid+local", (dense,), THRESHOLD, run.results["shortlist-hybrid"][-1].shortlist),
                ("ours-bm25+local@0", (), 0.0, run.results["shortlist-bm25"][-1].shortlist),
                ("ours-hybrid+local@0", (dense,), 0.0, run.results["shortlist-hybrid"][-1].shortlist),
            ):
                request = SearchRequest(
                    case.query, scopes, limit=LIMIT, candidates=candidates, threshold=threshold, dense=vectors
                )
                started = time.perf_counter()
                result = await search(request, judge, judgments)
                run.seconds[config] += time.perf_counter() - started
                hits = tuple(shown_span(m, case.gold) for m in result.matches)
                run.results[config].append(metrics.QueryResult(hits, listed))
            if number % 10 == 0 or number == len(cases):
                log(f"  {name}: {number}/{len(cases)} queries")

    asyncio.run(go())
    for _, dense in opened.values():
        dense.persist()
    return run
