"""How the shipped judge tells the newcomer packages' answerable questions from their absent behaviors.

The newcomer files' own absent behaviors are written shorter than their answerable questions; the ones of
`bench/train/newcomer_matched.jsonl` are written as long. Replaying the shipped ranker on both sets' rows (nothing is
fitted on them) says what the length had been worth, and how the judge does on packages no shipped model was trained
on (the bi-encoder's validation packages). A question's verdict is its best candidate's relevance, as the engine's cut
reads it:

    .venv/bin/python -m bench.ranker.collect --set newcomer --set newcomer-matched
    .venv/bin/python -m bench.ranker.newcomer_check
"""

from __future__ import annotations

import argparse

import numpy as np

from bench.ranker.collect import Rows, rows_path
from bench.ranker.fit import THRESHOLD, Questions
from bench.ranker.reader_check import area
from bench.train.biencoder import SEED, training_queries
from smartsearch_ls.judge.local.ranker import Ranker, shipped_ranker

Verdicts = dict[tuple[str, str], float]
"""A question's best relevance under the shipped ranker, by (corpus, query)."""


def best_relevance(ranker: Ranker, name: str, corpora: set[str] | None = None) -> tuple[Verdicts, Verdicts]:
    """(answerable questions whose shortlist holds an answer, absent ones) of a collected set, of `corpora` if given:
    each question's best candidate's relevance, as the engine's cut reads it."""
    questions = Questions(Rows.load(rows_path(name)))
    answerable: Verdicts = {}
    absent: Verdicts = {}
    for q, case in enumerate(questions.rows.cases):
        group = questions.groups[q]
        if not len(group) or (corpora is not None and case.corpus not in corpora):
            continue
        if not case.negative and not questions.answered(q):
            continue
        best = float(ranker.relevance(ranker.as_read(questions.rows.features[group])).max())
        (absent if case.negative else answerable)[case.corpus, case.query] = best
    return answerable, absent


def verdicts() -> dict[str, Verdicts]:
    """The answerable newcomer questions whose shortlist holds an answer, their shorter absent behaviors, and the
    ones written as long."""
    ranker = shipped_ranker()
    answerable, shorter = best_relevance(ranker, "newcomer")
    _, as_long = best_relevance(ranker, "newcomer-matched")
    return {"answerable": answerable, "shorter": shorter, "as long": as_long}


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    kinds = verdicts()
    unseen = {f"train-source/{name}" for name in training_queries(SEED)[2]}
    answerable = list(kinds["answerable"].values())
    print("| shipped judge, newcomer packages | questions | answerable vs absent: area | answered empty |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| answerable | {len(answerable)} | | {np.mean([p < THRESHOLD for p in answerable]):.3f} |")
    for kind in ("shorter", "as long"):
        absent = list(kinds[kind].values())
        empty = np.mean([p < THRESHOLD for p in absent])
        print(f"| absent, written {kind} | {len(absent)} | {area(answerable, absent):.3f} | {empty:.3f} |")
    own = [p for (corpus, _), p in kinds["answerable"].items() if corpus in unseen]
    for kind in ("shorter", "as long"):
        absent = [p for (corpus, _), p in kinds[kind].items() if corpus in unseen]
        row = f"| the validation packages alone, absent written {kind} | {len(own)} / {len(absent)} "
        print(row + f"| {area(own, absent):.3f} | |")


if __name__ == "__main__":
    main()
