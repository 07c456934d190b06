"""The shipped ranker on the held-out part, and what each of its pieces is worth there (an ablation).

Each row refits the ranker with one piece switched off (its features held constant, or a rule skipped) on the
development part with the shipped settings, and replays the engine's cut on the held-out questions' cached
shortlists (`collect.py`). Nothing is chosen here: the settings come from `ranker.json`, which `fit.py` chose on
the development part. The end-to-end figures of the real search are `python -m bench quality`'s; these replayed
ones say what a piece adds.

    .venv/bin/python -m bench.ranker.evaluate [--json OUT]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from bench.ranker.collect import Rows, rows_path
from bench.ranker.fit import THRESHOLD, Questions, fit_ranker, scored
from bench.ranker.replay import replay
from smartsearch_ls.judge.local.features import NAMES
from smartsearch_ls.judge.local.ranker import WEIGHTS

PIECES: dict[str, tuple[str, ...]] = {
    "lexical evidence (BM25 score and rank)": ("lexical", "lexical_rank"),
    "where the words are (name, path, body, idf)": ("name_coverage", "path_coverage", "body_coverage", "coverage"),
    "file kinds (test, docs, data, examples)": (
        "test_unasked", "documentation", "data_file", "example_path",
    ),
    "snippet shape (declaration, header, size, data, comments)": (
        "declaration", "module_header", "lines", "data_heavy", "comment_heavy",
    ),
    "words the root holds at all": ("root_coverage",),
    "what its comments say (commentary cosine, gap, any)": ("commentary_cosine", "commentary_gap", "commented"),
    "what its lines past the head say (whole-snippet cosine, gap)": ("whole_cosine", "whole_gap"),
}  # fmt: skip
"""Feature groups switched off together: each is one idea."""


AS_IF_UNREAD = {"whole_cosine": "cosine", "whole_gap": "cosine_gap"}
"""What a switched-off column holds instead of 0: a snippet's whole is its head when its passages are not read.
Zeroed, the judge's own rule (`features.unread`: the candidates it does not read are their head) would tell the
leaders from the rest by it."""


def without(rows: Rows, names: tuple[str, ...]) -> Rows:
    features = rows.features.copy()
    for name in names:
        source = AS_IF_UNREAD.get(name)
        features[:, NAMES.index(name)] = features[:, NAMES.index(source)] if source else 0.0
    return replace(rows, features=features)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = parser.parse_args()
    recipe = json.loads(WEIGHTS.read_text())
    setting = (*recipe["penalties"], recipe["positive_share"], recipe["sharpness"])
    loaded = {name: Rows.load(rows_path(name)) for name in ("development", "crossed", "held-out")}
    projects = list(dict.fromkeys(c.corpus for c in loaded["development"].cases))

    def figures(
        dropped: tuple[str, ...] = (),
        *,
        tests_last: bool = True,
        headers_after_code: bool = True,
        question: bool = True,
    ) -> dict[str, float]:
        development, crossed, held_out = (Questions(without(loaded[n], dropped)) for n in loaded)
        ranker = fit_ranker(development, crossed, projects, setting)
        items = scored(held_out, ranker, list(range(len(held_out.rows.cases))))
        if not question:  # the candidate model alone, P(answer | the answer is here), thresholded as it is
            items = [replace(i, probabilities=ranker.candidate.probabilities(i.features)) for i in items]
        return replay(items, THRESHOLD, tests_last=tests_last, headers_after_code=headers_after_code)

    table = {"shipped ranker": figures()}
    for piece, names in PIECES.items():
        table[f"without {piece}"] = figures(names)
    table["without tests after the implementation"] = figures(tests_last=False)
    table["without module headers after the code"] = figures(headers_after_code=False)
    table["without the question model (candidate P >= 0.5)"] = figures(question=False)
    keys = ("top1_span", "mrr", "recall", "shortlist128", "negatives_empty", "positives_empty")
    print("| held-out, replayed | " + " | ".join(keys) + " |")
    print("| --- |" + " ---: |" * len(keys))
    for row, values in table.items():
        print(f"| {row} | " + " | ".join(f"{values[k]:.3f}" for k in keys) + " |")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
