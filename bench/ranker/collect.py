"""The ranker's training rows: every candidate the real shortlist hands the judge, with its features and label.

For each question the hybrid shortlist is computed as a search computes it (128 candidates, the corpus fully
embedded, as a server's is once background embedding is done), each candidate becomes an `Evidence` with its
BM25 score and cosine, completed as the local judge completes it (the cosine of its commentary), and
`features.features` gives its row: the very code the judge runs. A candidate is
labeled relevant when it overlaps a gold span. Rows are cached per set in `bench/out/ranker/` (an `.npz` of
features, labels, question numbers and spans), so fitting and the ablations replay them without the engine.

    .venv/bin/python -m bench.ranker.collect --set development [--set crossed] [--set held-out] [--set train]
        [--set near-misses] [--set matched] [--set transplanted] [--set transplanted-held-out] [--set summaries]
        [--set newcomer] [--set newcomer-matched] [--set newcomer-transplanted]

`--model FILE --tag NAME` collects the same rows with a candidate embedding model instead of the shipped one (a
file already in the product's fast form, as `bench.train.export` writes `fused-int8/model.onnx`), its vectors in
their own cache, its rows as `<set>-NAME.npz`, so `bench.ranker.fit --tag NAME` can say whether it would win.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bench.corpora import CORPORA_DIR
from bench.ours import open_corpus
from bench.quality import metrics
from bench.quality.sets import (
    TRANSPLANTED_HELD_OUT,
    behavior_cases,
    matched_absence_cases,
    near_miss_cases,
    transplanted_cases,
)
from bench.train.biencoder import SEED, training_queries
from smartsearch_ls.discovery.documentation import asks_for_documentation
from smartsearch_ls.embedding import weights
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope, shortlist
from smartsearch_ls.judge.contract import Evidence
from smartsearch_ls.judge.local.features import features, query_terms, root_idf
from smartsearch_ls.judge.local.model import LocalJudge, local_judge

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "bench" / "out" / "ranker"
CACHE = REPO / "bench" / "out" / "cache"
CANDIDATES = 128
TRAIN_QUERIES = CORPORA_DIR / "train" / "queries.jsonl"
"""Docstring summaries over stripped packages (`python -m bench.train corpus`)."""
NEWCOMER = REPO / "bench" / "train" / "newcomer"
"""Questions about the training packages worded as a newcomer asks, answers and absent behaviors, written and checked
by reading their stripped code (one `<package>.jsonl` each; bench/train/README.md). They are asked of the packages'
sources with their comments (`train-source/<package>`, the same lines), as a user's project holds its code: the
judge weighs what comments say, and a stripped tree says nothing."""
NEWCOMER_MATCHED = REPO / "bench" / "train" / "newcomer_matched.jsonl"
"""Twelve more absent behaviors per newcomer package (two batches of six), written to the length and form of its
answerable newcomer questions (within three words of their mean, the same share ending in "?"), as
`matched_absences.jsonl` is for the development projects; the newcomer files' own absent behaviors are shorter (about
14 words against 22)."""
NEWCOMER_TRANSPLANTED = REPO / "bench" / "train" / "newcomer_transplanted.jsonl"
"""The newcomer packages' answerable questions asked word for word of a package of the same kind, labeled by reading
its code (`bench.quality.sets.transplanted_cases`): absent behaviors whose wording was not written knowing it."""


@dataclass(frozen=True)
class Rows:
    """Every candidate of every question of one set."""

    features: npt.NDArray[np.float64]
    labels: npt.NDArray[np.int8]
    question: npt.NDArray[np.int32]
    """The row's question number in `cases`."""
    spans: list[metrics.Span]
    cases: list[metrics.QueryCase]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, features=self.features, labels=self.labels, question=self.question)
        meta = {"spans": self.spans, "cases": [[c.corpus, c.query, list(map(list, c.gold))] for c in self.cases]}
        path.with_suffix(".json").write_text(json.dumps(meta))

    @classmethod
    def load(cls, path: Path) -> Rows:
        arrays = np.load(path)
        meta = json.loads(path.with_suffix(".json").read_text())
        spans = [tuple(s) for s in meta["spans"]]
        cases = [metrics.QueryCase(c, q, tuple(tuple(g) for g in gold)) for c, q, gold in meta["cases"]]
        return cls(arrays["features"], arrays["labels"], arrays["question"], spans, cases)  # type: ignore[arg-type]


def set_cases(name: str) -> list[metrics.QueryCase]:
    if name == "train":
        return metrics.load_cases(TRAIN_QUERIES)
    if name == "summaries":
        return summaries()
    if name in NEWCOMER_SETS:
        return [
            replace(case, corpus=case.corpus.replace("train/", "train-source/", 1)) for case in NEWCOMER_SETS[name]()
        ]
    if name == "transplanted":
        return transplanted_cases()
    if name == "transplanted-held-out":
        return transplanted_cases(TRANSPLANTED_HELD_OUT)
    if name == "crossed":
        return crossed(behavior_cases("development"))
    if name == "near-misses":
        return near_miss_cases()
    if name == "matched":
        return matched_absence_cases()
    return behavior_cases(name)  # type: ignore[arg-type]


NEWCOMER_SETS: dict[str, Callable[[], list[metrics.QueryCase]]] = {
    "newcomer": lambda: metrics.load_cases(NEWCOMER),
    "newcomer-matched": lambda: metrics.load_cases(NEWCOMER_MATCHED),
    "newcomer-transplanted": lambda: transplanted_cases(NEWCOMER_TRANSPLANTED),
}
"""The sets about the training packages, asked of their sources with comments (`train-source/<package>`)."""


def summaries() -> list[metrics.QueryCase]:
    """The training corpus's questions of the bi-encoder's validation packages: doc-comment summaries, which share
    words with the names they describe as the quality set's questions by design do not, over packages that neither
    the shipped model's training nor any fit here has seen."""
    held_out = {f"train/{name}" for name in training_queries(SEED)[2]}
    return [case for case in metrics.load_cases(TRAIN_QUERIES) if case.corpus in held_out]


def crossed(cases: Sequence[metrics.QueryCase]) -> list[metrics.QueryCase]:
    """Each question asked of every other project, as a negative: what one project does, another mostly does not
    (a few behaviors are shared, e.g. help output; those few are labeled wrong and the fit takes them as noise).
    They teach the judge what an answer that is not there looks like, which 25 written negatives alone cannot."""
    projects = list(dict.fromkeys(c.corpus for c in cases))
    return [metrics.QueryCase(other, c.query, ()) for c in cases for other in projects if other != c.corpus]


def corpus_path(corpus: str) -> Path:
    return CORPORA_DIR / corpus


def use_candidate_model(path: Path) -> Path:
    """Make this process's engine embed with `path` instead of the pinned weights; the cache folder its vectors
    belong in."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    os.environ[weights.MODEL_ENV] = str(path)
    weights.MODEL_SHA256 = digest  # a bench's knowing choice of an unpinned file, never the product's
    return CACHE.with_name(f"cache-{digest[:12]}")


def judged(
    case: metrics.QueryCase, index: RootIndex, dense: DenseIndex, judge: LocalJudge
) -> tuple[list[Evidence], npt.NDArray[np.float64]]:
    """The question's shortlist as the local judge completes it (cosines and readings), and its rows of features:
    what the real search hands the ranker."""
    found = shortlist(
        [Scope(index)], case.query, CANDIDATES, (dense,), documentation=asks_for_documentation(case.query)
    )
    shortlisted = [Evidence(c.snippet, c.lexical, c.cosine) for c in found.candidates]
    evidence = asyncio.run(judge.with_cosines(case.query, shortlisted))
    idf = root_idf(index.bm25.frequency, index.bm25.live, query_terms(case.query))
    return evidence, features(case.query, evidence, idf)


def collect(cases: Sequence[metrics.QueryCase], log: Callable[[str], None] = print, cache: Path = CACHE) -> Rows:
    opened: dict[str, tuple[RootIndex, DenseIndex]] = {}
    judge = local_judge()
    blocks: list[npt.NDArray[np.float64]] = []
    labels: list[int] = []
    question: list[int] = []
    spans: list[metrics.Span] = []
    started = time.perf_counter()
    for number, case in enumerate(cases):
        if case.corpus not in opened:
            opened[case.corpus] = open_corpus(corpus_path(case.corpus), cache, embed_all=True, log=log)
        evidence, rows = judged(case, *opened[case.corpus], judge)
        blocks.append(rows)
        for e in evidence:
            span = (e.snippet.path, e.snippet.start_line, e.snippet.end_line)
            spans.append(span)
            labels.append(int(metrics.is_hit(span, case.gold)))
            question.append(number)
        if (number + 1) % 50 == 0:
            log(f"  {number + 1}/{len(cases)} questions, {time.perf_counter() - started:.0f}s")
    for _, dense in opened.values():
        dense.persist()
    width = blocks[0].shape[1] if blocks else 0
    return Rows(
        np.vstack(blocks) if blocks else np.zeros((0, width)),
        np.array(labels, dtype=np.int8),
        np.array(question, dtype=np.int32),
        spans,
        list(cases),
    )


def rows_path(name: str, tag: str | None = None) -> Path:
    return OUT / (f"{name}-{tag}.npz" if tag else f"{name}.npz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--set",
        action="append",
        required=True,
        choices=(
            "development",
            "held-out",
            "crossed",
            "near-misses",
            "matched",
            "train",
            "summaries",
            "transplanted",
            "transplanted-held-out",
            *NEWCOMER_SETS,
        ),
    )
    parser.add_argument("--model", type=Path, help="a candidate embedding model (fused int8 ONNX) to use instead")
    parser.add_argument("--tag", help="name of the rows collected with --model")
    args = parser.parse_args()
    if (args.model is None) != (args.tag is None):
        parser.error("--model and --tag go together")
    cache = use_candidate_model(args.model) if args.model is not None else CACHE
    for name in args.set:
        rows = collect(set_cases(name), cache=cache)
        rows.save(rows_path(name, args.tag))
        print(f"{name}: {len(rows.cases)} questions, {len(rows.labels)} rows, {int(rows.labels.sum())} relevant")


if __name__ == "__main__":
    main()
