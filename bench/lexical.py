"""Sweep the lexical shortlist's two hand-set weights and choose them on held-out sets.

Why: BM25 is the first stage of every search (the only one when no vectors exist yet, and half of the hybrid
fusion), and its two weights of our own, `bm25.META_BOOST` (the bonus for a query word that names the file or
the symbol) and `terms.SYNONYM_WEIGHT` (programming synonyms added to the query), were set by hand. This runs
the real `shortlist()` over the three quality sets with BM25 alone, for each pair of values, and prints MRR@10
of the shortlist's order and shortlist recall@32/@128 (what the judge gets to see). A value is chosen on two
sets and reported on the third, each way round, then on all three; the shipped values are marked.

    .venv/bin/python -m bench.lexical [--boosts 0.5,0.75,1,1.5,2] [--synonyms 0,0.3]

Needs `python -m bench prepare` and `python -m bench docstrings --corpus click` / `--corpus large`. Indexes are
cached in `bench/out/cache/` (the quality run's); each setting then takes ~3 s (24 settings: ~70 s).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence

from bench.__main__ import BEHAVIOR_SET, OUT_DIR, resolve_root
from bench.corpora import CORPORA_DIR
from bench.ours import candidate_spans
from bench.quality import metrics
from smartsearch_ls.discovery.documentation import asks_for_documentation
from smartsearch_ls.index import bm25, terms
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope, shortlist

CACHE = OUT_DIR / "cache"
CANDIDATES = 128
SETS = {
    "behavior": BEHAVIOR_SET,
    "click-nodoc": CORPORA_DIR / "click-nodoc.jsonl",
    "large-nodoc": CORPORA_DIR / "large-nodoc.jsonl",
}
"""Hand-written behavior questions (click, zod), and docstring first sentences with the docstrings stripped
(every click function, 300 sampled from `large`): three sets built two different ways."""

Setting = tuple[float, float]
Scores = tuple[float, float, float]


def run_set(cases: Sequence[metrics.QueryCase], indexes: dict[str, RootIndex]) -> Scores:
    """(MRR@10, shortlist recall@32, @128) of BM25's shortlist order over the set's positive cases."""
    results: dict[tuple[str, str], metrics.QueryResult] = {}
    for case in cases:
        if case.corpus not in indexes:
            indexes[case.corpus], _ = RootIndex.open_warm(resolve_root(case.corpus), cache_dir=CACHE)
        scope = Scope(indexes[case.corpus])
        found = shortlist([scope], case.query, CANDIDATES, (), documentation=asks_for_documentation(case.query))
        spans = candidate_spans(found.candidates)
        results[case.key] = metrics.QueryResult(spans[:10], spans)
    report = metrics.evaluate(cases, results, shortlist_ks=(32, CANDIDATES))
    return report.mrr, report.shortlist_recall[32], report.shortlist_recall[CANDIDATES]


def sweep(settings: Sequence[Setting]) -> dict[Setting, dict[str, Scores]]:
    """Every setting over every set, with the module weights restored afterwards."""
    shipped = (bm25.META_BOOST, terms.SYNONYM_WEIGHT)
    cases = {name: metrics.load_cases(path) for name, path in SETS.items()}
    indexes: dict[str, RootIndex] = {}
    table: dict[Setting, dict[str, Scores]] = {}
    try:
        for setting in settings:
            # Both are read at query time, so setting the module attributes is the whole change.
            bm25.META_BOOST, terms.SYNONYM_WEIGHT = setting
            table[setting] = {name: run_set(own, indexes) for name, own in cases.items()}
            print(_row(setting, table[setting], shipped), flush=True)
    finally:
        bm25.META_BOOST, terms.SYNONYM_WEIGHT = shipped
    return table


def _row(setting: Setting, scores: dict[str, Scores], shipped: Setting) -> str:
    cells = " | ".join(f"{mrr:.3f} / {r32:.2f} / {r128:.2f}" for mrr, r32, r128 in scores.values())
    mark = " (shipped)" if setting == shipped else ""
    return f"| {setting[0]:g} | {setting[1]:g}{mark} | {cells} |"


def held_out(table: dict[Setting, dict[str, Scores]]) -> None:
    """For each set, the setting with the best mean MRR@10 over the other two, and what it scores there."""
    print("\n| held out | chosen on the others (boost, synonyms) | MRR@10 there | best possible there |")
    print("| --- | --- | ---: | ---: |")
    for left_out in SETS:
        others = [name for name in SETS if name != left_out]
        chosen = max(table, key=lambda s: sum(table[s][name][0] for name in others))
        best = max(table[s][left_out][0] for s in table)
        print(f"| {left_out} | {chosen} | {table[chosen][left_out][0]:.3f} | {best:.3f} |")
    overall = max(table, key=lambda s: sum(table[s][name][0] for name in SETS))
    print(f"\nbest mean MRR@10 over all three sets: {overall}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.lexical", description=__doc__.splitlines()[0])
    parser.add_argument("--boosts", default="0.5,0.75,1,1.25,1.5,2", help="META_BOOST values")
    parser.add_argument("--synonyms", default="0,0.3", help="SYNONYM_WEIGHT values")
    args = parser.parse_args(argv)
    boosts = [float(v) for v in args.boosts.split(",")]
    synonyms = [float(v) for v in args.synonyms.split(",")]
    print("cells: MRR@10 / shortlist recall@32 / @128 of BM25's shortlist order\n")
    print(f"| META_BOOST | SYNONYM_WEIGHT | {' | '.join(SETS)} |")
    print("| ---: | ---: |" + " ---: |" * len(SETS))
    held_out(sweep(list(itertools.product(boosts, synonyms))))


if __name__ == "__main__":
    main()
