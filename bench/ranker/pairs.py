"""What a reader of the judge's best candidates would read: each question with the shipped ranker's best snippets.

The question model tells an absent behavior from a present one only as well as the evidence it is given, and every
cheap piece of evidence tried has left it where it is (bench/ranker/README.md). A model that reads the question
and a candidate together (`bench/train/reader.py`) is the next kind of evidence; it reads what the judge would hand
it, so its pairs come from the real search: the hybrid shortlist, the local judge's cosines and readings, and the
shipped ranker's order, the `TOP` best candidates of each question as `snippet_text` (what the encoder reads of a
snippet), labeled by the gold spans, plus up to two answers ranked below them (a reader learns what an answer
looks like from those too). One `pairs-<set>.jsonl` per set in `bench/out/ranker/`:

    .venv/bin/python -m bench.ranker.pairs --set development --set near-misses --set matched --set transplanted \
        --set newcomer --set newcomer-matched --set newcomer-transplanted --set crossed

`crossed` is a seeded sample of `CROSSED_SAMPLE` questions (every development question asked of every other
development project would be tens of thousands).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from bench.ours import open_corpus
from bench.quality import metrics
from bench.ranker.collect import CACHE, OUT, corpus_path, judged, set_cases
from smartsearch_ls.chunking.snippet import snippet_text
from smartsearch_ls.judge.local.model import local_judge
from smartsearch_ls.judge.local.ranker import shipped_ranker

TOP = 8
"""Candidates read per question: the shipped ranker's best."""
BELOW = 2
"""Answers ranked below `TOP` that are kept as well (for training; a reader scores the `TOP` alone)."""
CROSSED_SAMPLE = 1200
SETS = (
    "development",
    "near-misses",
    "matched",
    "transplanted",
    "newcomer",
    "newcomer-matched",
    "newcomer-transplanted",
    "crossed",
)


def pairs_path(name: str) -> Path:
    return OUT / f"pairs-{name}.jsonl"


def questions(name: str) -> Iterator[dict[str, Any]]:
    """One record per question of set `name`: its corpus, words, whether it has an answer at all, and its
    candidates (`text`, `label`, the ranker's `rank` and relevance `rel`, `span`)."""
    cases = set_cases(name)
    if name == "crossed":
        cases = random.Random(0).sample(cases, CROSSED_SAMPLE)
    judge = local_judge()
    ranker = shipped_ranker()
    opened: dict[str, Any] = {}
    for case in cases:
        if case.corpus not in opened:
            opened[case.corpus] = open_corpus(corpus_path(case.corpus), CACHE, embed_all=True, log=lambda _: None)
        evidence, rows = judged(case, *opened[case.corpus], judge)
        relevance = ranker.relevance(ranker.as_read(rows))
        order = [int(i) for i in np.argsort(-relevance, kind="stable")]
        rank = {i: r for r, i in enumerate(order)}
        spans = [(e.snippet.path, e.snippet.start_line, e.snippet.end_line) for e in evidence]
        hits = [metrics.is_hit(span, case.gold) for span in spans]
        below = [i for i in order[TOP:] if hits[i]][:BELOW]
        candidates = [
            {
                "text": snippet_text(evidence[i].snippet.path, evidence[i].snippet.symbol, evidence[i].snippet.text),
                "label": int(hits[i]),
                "rank": rank[i],
                "rel": float(relevance[i]),
                "span": list(spans[i]),
            }
            for i in order[:TOP] + below
        ]
        yield {
            "set": name,
            "corpus": case.corpus,
            "query": case.query,
            "has_gold": bool(case.gold),
            "answered": any(hits),
            "cands": candidates,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", choices=SETS, required=True, dest="sets")
    args = parser.parse_args()
    for name in args.sets:
        path = pairs_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        count = 0
        with path.open("w") as out:
            for record in questions(name):
                out.write(json.dumps(record) + "\n")
                count += 1
        print(f"{name}: {count} questions -> {path}")


if __name__ == "__main__":
    main()
