"""The engine's cut, replayed on scored candidates: what a search would answer, without running the search.

It has to be the engine's own rule for the figures to mean anything: matches at or above the threshold, best first
(ties by path and line), a lower snippet overlapping a better one collapsed into it, the first `limit` kept, module
headers and declaration files after the code (`search.answer_order.descriptions_last`) and test files after the
implementation unless the question asks for tests (`discovery.file_kinds.implementation_first`): the engine's own
functions. Copies of a snippet in other files (`search.copies`) are not folded here, since a row holds no text; the
quality set's corpora hold one build of each package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bench.quality import metrics
from smartsearch_ls.discovery.file_kinds import implementation_first, is_test
from smartsearch_ls.judge.local.features import NAMES
from smartsearch_ls.search.answer_order import descriptions_last, is_declaration_file

LIMIT = 10
MODULE_HEADER = NAMES.index("module_header")
TEST_UNASKED = NAMES.index("test_unasked")


@dataclass(frozen=True)
class Scored:
    """One question's shortlist with the ranker's probabilities."""

    case: metrics.QueryCase
    spans: list[metrics.Span]
    probabilities: npt.NDArray[np.float64]
    features: npt.NDArray[np.float64]


def answer(
    item: Scored,
    threshold: float,
    *,
    tests_last: bool = True,
    headers_after_code: bool = True,
    favored: frozenset[str] = frozenset(),
    bonus: float = 0.0,
) -> tuple[metrics.Span, ...]:
    """The engine's answer; snippets of the `favored` files (a working set) rank as if `bonus` more relevant."""

    def rank(i: int) -> tuple[float, str, int]:
        lift = bonus if item.spans[i][0] in favored else 0.0
        return -(item.probabilities[i] + lift), item.spans[i][0], item.spans[i][1]

    order = sorted((i for i, p in enumerate(item.probabilities) if p >= threshold), key=rank)
    kept: list[metrics.Span] = []
    for i in order:
        span = item.spans[i]
        if not any(metrics.overlaps(span, k) for k in kept):
            kept.append(span)
    top = kept[:LIMIT]
    if headers_after_code:
        header = {item.spans[i] for i in order if item.features[i][MODULE_HEADER]}
        top = descriptions_last(top, lambda span: span in header or is_declaration_file(span[0]))
    if not tests_last:
        return tuple(top)
    # A row knows its snippet's path, not its symbol: where the question did not ask for tests (the only case the
    # rule reorders), its `test_unasked` column is the engine's own verdict, Rust's unit tests included.
    tests = {item.spans[i] for i in order if item.features[i][TEST_UNASKED]}
    return tuple(implementation_first(top, lambda span: is_test(span[0]) or span in tests, item.case.query))


def replay(
    items: Sequence[Scored],
    threshold: float,
    *,
    tests_last: bool = True,
    headers_after_code: bool = True,
    working_sets: Sequence[frozenset[str]] | None = None,
    bonus: float = 0.0,
) -> dict[str, float]:
    """The quality figures of the answers, plus the share of positive questions answered with nothing;
    `working_sets` (one per item) are the files favored by `bonus`, as the editor's working set is."""
    cases = [item.case for item in items]
    favored = working_sets if working_sets is not None else [frozenset()] * len(items)
    results = {
        item.case.key: metrics.QueryResult(
            answer(
                item,
                threshold,
                tests_last=tests_last,
                headers_after_code=headers_after_code,
                favored=files,
                bonus=bonus,
            ),
            tuple(item.spans),
        )
        for item, files in zip(items, favored, strict=True)
    }
    report = metrics.evaluate(cases, results)
    positives = [item for item in items if not item.case.negative]
    positives_empty = sum(1 for item in positives if not results[item.case.key].hits) / max(len(positives), 1)
    figures = {
        "top1_span": report.top1_span,
        "mrr": report.mrr,
        "recall": report.recall,
        "shortlist128": report.shortlist_recall.get(128, 0.0),
        "negatives_empty": report.negatives_empty or 0.0,
        "positives_empty": positives_empty,
    }
    return figures
