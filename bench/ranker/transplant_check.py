"""Whether a verdict tells a behavior a project lacks from one it has when nobody wrote the question knowing which.

Every absent behavior of the other sets was written by someone who knew it was absent, and a model that reads only
the question's words tells most of them from the answerable questions (`wording_check`). The transplanted sets
(`bench.quality.sets.transplanted_cases`) ask one project's answerable questions word for word of another of its
kind and label them by reading the target's code, so the absent and the present ones were written the same way, by
someone describing code they had read. On them a verdict that wins by wording falls to chance, and one that reads the
code keeps its lead.

Each set is scored by the shipped judge (`newcomer_check.best_relevance`: a question's verdict is its best candidate's
relevance, as the engine's cut reads it; an answerable question counts only if its shortlist holds an answer) and by the
wording control, taught on questions of the other family (the development part's for the training packages' set,
the training packages' for the development part's, both but the moved ones for the held-out part's, whose questions
come from both), so it never saw a scored question. The held-out part's set is read only with `--held-out`, once per
shipped judge, never to choose (bench/ranker/README.md records each read):

    .venv/bin/python -m bench.ranker.collect --set development --set matched --set near-misses --set transplanted \\
        --set newcomer --set newcomer-matched --set newcomer-transplanted --set held-out --set transplanted-held-out
    .venv/bin/python -m bench.ranker.transplant_check [--held-out]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bench.quality import metrics
from bench.quality.sets import (
    TRANSPLANTED_HELD_OUT,
    behavior_cases,
    matched_absence_cases,
    near_miss_cases,
)
from bench.ranker.collect import NEWCOMER, NEWCOMER_MATCHED, Rows, rows_path
from bench.ranker.fit import THRESHOLD
from bench.ranker.newcomer_check import best_relevance
from bench.ranker.reader_check import area
from bench.ranker.wording_check import WordingModel, queries
from smartsearch_ls.judge.local.ranker import shipped_ranker


@dataclass(frozen=True)
class Family:
    """One transplanted set, the set of its targets' own questions, and what the wording control is taught."""

    name: str
    own: str
    transplanted: str
    taught_answerable: list[str]
    taught_absent: list[str]


def families() -> list[Family]:
    development = behavior_cases("development")
    development_absent = [*queries(development, negative=True)]
    development_absent += queries(near_miss_cases(), negative=True) + queries(matched_absence_cases(), negative=True)
    newcomer = queries(metrics.load_cases(NEWCOMER), negative=False)
    newcomer_absent = queries(metrics.load_cases(NEWCOMER_MATCHED), negative=True)
    moved = {json.loads(line)["query"] for line in TRANSPLANTED_HELD_OUT.read_text().splitlines()}  # partial too
    return [
        Family(
            "training packages",
            "newcomer",
            "newcomer-transplanted",
            queries(development, negative=False),
            development_absent,
        ),
        Family("development part", "development", "transplanted", newcomer, newcomer_absent),
        Family(
            "held-out part",
            "held-out",
            "transplanted-held-out",
            [q for q in (*queries(development, negative=False), *newcomer) if q not in moved],
            [*development_absent, *newcomer_absent],
        ),
    ]


def row(verdict: str, own: Sequence[float], present: Sequence[float], absent: Sequence[float], *, cut: bool) -> str:
    """Areas for any verdict; with `cut` (the judge's, whose threshold answers with nothing) the shares it leaves
    empty, of the absent questions and of the answerable ones."""
    cells = [f"{area(own, absent):.3f}", f"{area(present, absent):.3f}"]
    cells += [f"{np.mean([p < THRESHOLD for p in kind]):.3f}" for kind in (absent, own)] if cut else ["-", "-"]
    return f"| {verdict} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true", help="also read the frozen held-out part's set")
    args = parser.parse_args()
    ranker = shipped_ranker()
    print("| verdict | area: own answerable vs absent | area: present vs absent | absent empty | own empty |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for family in families():
        if family.own == "held-out" and not args.held_out:
            continue
        present, absent = best_relevance(ranker, family.transplanted)
        targets = {case.corpus for case in Rows.load(rows_path(family.transplanted)).cases}
        own, _ = best_relevance(ranker, family.own, targets)
        scored = {query for _, query in (*own, *present, *absent)}
        assert not scored & {*family.taught_answerable, *family.taught_absent}, "a scored question was taught"
        control = WordingModel(family.taught_answerable, family.taught_absent)
        print(
            f"| **{family.name}**: {len(targets)} targets, {len(own)} own answerable, {len(present)} transplanted "
            f"present, {len(absent)} absent | | | | |"
        )
        print(row("shipped judge", list(own.values()), list(present.values()), list(absent.values()), cut=True))
        wording = [control.scores([query for _, query in kind]).tolist() for kind in (own, present, absent)]
        print(row("wording control", *wording, cut=False))


if __name__ == "__main__":
    main()
