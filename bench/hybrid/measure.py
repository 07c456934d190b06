"""Measure the hybrid shortlist against BM25 alone: quality on the behavior set, and speed.

Why this shape: the shortlist's job is to put the right snippet among the `candidates` the judge sees, so the
headline is shortlist recall@K (K = 16..128) and MRR@10 of the shortlist order, computed by `metrics.evaluate`
from what the real `shortlist()` returns. The fusion weight is a free parameter, so it is chosen on one corpus
and reported on the other (click: 40 Python queries, zod: 24 TypeScript queries), both ways, before the shipped
`DENSE_WEIGHT` (chosen on both) is checked on a third set built differently (click-nodoc docstring queries).
The sweep runs offline over per-query arrays (BM25 scores and cosines of every snippet) with the shipped
`fuse`, so the numbers are the shortlist's own; other fusions are swept alongside to show why this one.

    PYTHONPATH=. .venv/bin/python bench/hybrid/measure.py [--large | --reserve]

Needs `python -m bench prepare` (the background embedding speed is taken on `large`) and `python -m bench
docstrings --corpus click`. Indexes and vectors are cached in `bench/out/hybrid-cache/` (the first run embeds
~3,500 snippets: ~2-3 minutes on 2 cores). `--large` also times the shortlist on the `large` corpus with
stand-in random vectors (only speed, not quality).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bench.__main__ import BEHAVIOR_SET, OUT_DIR, resolve_root
from bench.ours import candidate_spans
from bench.quality import metrics, sets
from smartsearch_ls.discovery.documentation import asks_for_documentation
from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.encoder import DIMENSIONS
from smartsearch_ls.embedding.loading import Encoder
from smartsearch_ls.index import shortlist as shortlist_module
from smartsearch_ls.index.dense import DenseIndex, shared_encoder
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import DENSE_WEIGHT, Scope, fuse, shortlist
from smartsearch_ls.index.terms import query_weights

CACHE = OUT_DIR / "hybrid-cache"
KS = (16, 32, 64, 128)
WEIGHTS = tuple(round(w, 2) for w in np.arange(0.0, 1.0001, 0.05))
Floats = npt.NDArray[np.float32]


@dataclass
class Query:
    """One positive case as arrays over every live snippet of its corpus."""

    case: metrics.QueryCase
    lexical: Floats
    cosines: Floats
    gold: npt.NDArray[np.bool_]


def warm(name: str) -> tuple[RootIndex, DenseIndex]:
    """The corpus's index and dense index, loaded from the cache or built and embedded (then cached)."""
    index, _ = RootIndex.open_warm(resolve_root(name), cache_dir=CACHE)
    dense = DenseIndex.for_root(index)
    done, total = dense.progress()
    if done < total:
        started = time.perf_counter()
        embedded = sum(_until_zero(lambda: dense.embed_pending(32)))
        seconds = time.perf_counter() - started
        print(f"  {name}: embedded {embedded} snippets in {seconds:.1f}s ({embedded / seconds:.1f}/s)")
        dense.persist()
    return index, dense


def _until_zero(step: Callable[[], int]) -> Iterable[int]:
    while count := step():
        yield count


def arrays(name: str, cases: list[metrics.QueryCase]) -> list[Query]:
    index, dense = warm(name)
    docs = np.flatnonzero([s is not None for s in index.snippets]).astype(np.int64)
    snippets = [index.snippets[d] for d in docs]
    out = []
    for case in cases:
        if case.negative:
            continue
        lexical = index.bm25.scores(query_weights(case.query))[docs]
        query_vector = dense.query_vector(case.query)
        assert query_vector is not None, "the local model's weights are needed"
        cosines = dense.cosines(query_vector, docs)
        gold = np.array([metrics.is_hit((s.path, s.start_line, s.end_line), case.gold) for s in snippets])
        out.append(Query(case, lexical, cosines, gold))
    return out


# -- offline fusion sweep -------------------------------------------------------------------------------------


def first_gold(order: npt.NDArray[np.int64], gold: npt.NDArray[np.bool_]) -> int:
    """1-based rank of the first gold snippet in `order`, or a large number."""
    hits = np.flatnonzero(gold[order])
    return int(hits[0]) + 1 if len(hits) else 10**9


def ranking(query: Query, fusion: str, weight: float, cosines: Floats | None = None) -> npt.NDArray[np.int64]:
    """The shortlist order (top 128) of a fusion; eligible = lexical match or a vector, as in `shortlist`."""
    lexical = query.lexical
    cosines = query.cosines if cosines is None else cosines
    has = ~np.isnan(cosines)
    if fusion == "z (shipped)":
        score = fuse(lexical, cosines, weight)
    elif fusion == "max-norm":
        c = np.where(has, cosines, np.nanmean(cosines))
        semantic = (c - c.min()) / max(c.max() - c.min(), 1e-9)
        score = weight * semantic + (1 - weight) * lexical / max(lexical.max(), 1e-9)
    elif fusion == "weighted rrf":
        semantic, matched = _rrf(np.where(has, cosines, -np.inf)), _rrf(np.where(lexical > 0, lexical, -np.inf))
        score = weight * semantic + (1 - weight) * matched
    else:
        raise ValueError(fusion)
    eligible = np.flatnonzero((lexical > 0) | has)
    return eligible[np.argsort(-score[eligible], kind="stable")[:128]]


def _rrf(values: Floats, k: int = 60) -> Floats:
    ranks = np.empty(len(values), dtype=np.float32)
    ranks[np.argsort(-values, kind="stable")] = np.arange(1, len(values) + 1)
    return np.where(np.isfinite(values), 1.0 / (k + ranks), 0.0).astype(np.float32)


def quality(ranks: list[int]) -> dict[str, float]:
    row = {f"R@{k}": sum(r <= k for r in ranks) / len(ranks) for k in KS}
    row["MRR@10"] = sum(1 / r for r in ranks if r <= 10) / len(ranks)
    return row


def objective(row: dict[str, float]) -> tuple[float, float]:
    """Mean shortlist recall over K = 16..128, then MRR@10 (fixed before looking at any result)."""
    return sum(row[f"R@{k}"] for k in KS) / len(KS), row["MRR@10"]


def sweep(queries: list[Query], fusion: str) -> dict[float, dict[str, float]]:
    return {w: quality([first_gold(ranking(q, fusion, w), q.gold) for q in queries]) for w in WEIGHTS}


def show(label: str, row: dict[str, float]) -> None:
    print(f"  {label:44} " + "  ".join(f"{k}={v:.3f}" for k, v in row.items()))


def cross_validate(by_corpus: dict[str, list[Query]]) -> None:
    print("\n== fusion chosen on one corpus, reported on the other (weight = cosine share) ==")
    for fusion in ("z (shipped)", "max-norm", "weighted rrf"):
        for train, test in (("click", "zod"), ("zod", "click")):
            tuned = sweep(by_corpus[train], fusion)
            weight = max(tuned, key=lambda w: objective(tuned[w]))
            show(f"{fusion:12} w={weight:.2f} (from {train}) on {test}", sweep(by_corpus[test], fusion)[weight])
    for name, queries in by_corpus.items():
        show(f"BM25 alone on {name}", quality([first_gold(ranking(q, "z (shipped)", 0.0), q.gold) for q in queries]))
    everything = [q for qs in by_corpus.values() for q in qs]
    tuned = sweep(everything, "z (shipped)")
    best = max(tuned, key=lambda w: objective(tuned[w]))
    print(f"\n== z fusion on both corpora by weight (best {best:.2f}; shipped DENSE_WEIGHT = {DENSE_WEIGHT}) ==")
    for weight in WEIGHTS[::2]:
        show(f"w={weight:.2f}", tuned[weight])


def partial_coverage(queries: list[Query]) -> None:
    """Background embedding part-way: a random share of snippets has vectors, plus the best 128 lexical ones."""
    print(f"\n== z fusion at w={DENSE_WEIGHT} while background embedding is part-way (both corpora) ==")
    random = np.random.default_rng(0)
    for share in (0.0, 0.25, 0.5, 0.75, 1.0):
        ranks = []
        for q in queries:
            has = random.random(len(q.cosines)) < share
            top = np.argsort(-q.lexical, kind="stable")[:128]
            has[top[q.lexical[top] > 0]] = True  # the shortlist embeds its best lexical candidates itself
            ranks.append(first_gold(ranking(q, "z (shipped)", DENSE_WEIGHT, np.where(has, q.cosines, np.nan)), q.gold))
        show(f"{share:.0%} embedded in the background", quality(ranks))


# -- the real shortlist ---------------------------------------------------------------------------------------


def real(cases: list[metrics.QueryCase], label: str) -> None:
    """`shortlist()` itself, BM25 alone and hybrid, scored by `metrics.evaluate`, with its latency."""
    print(f"\n== shortlist(): {label} ({sum(not c.negative for c in cases)} queries, candidates=128) ==")
    rows: dict[str, dict[tuple[str, str], metrics.QueryResult]] = {"bm25": {}, "hybrid": {}}
    times: dict[str, list[float]] = {"bm25": [], "hybrid": []}
    warmed = {name: warm(name) for name in sorted({c.corpus for c in cases})}
    for case in cases:
        index, dense = warmed[case.corpus]
        for mode, given in (("bm25", ()), ("hybrid", (dense,))):
            started = time.perf_counter()
            documentation = asks_for_documentation(case.query)  # as search() passes it
            found = shortlist([Scope(index)], case.query, 128, given, documentation=documentation)
            times[mode].append(time.perf_counter() - started)
            spans = candidate_spans(found.candidates)
            rows[mode][case.key] = metrics.QueryResult(spans[:10], spans)
    for mode, results in rows.items():
        report = metrics.evaluate(cases, results)
        summary = {f"R@{k}": report.shortlist_recall[k] for k in KS} | {"MRR@10": report.mrr}
        show(f"{mode} (median {statistics.median(times[mode]) * 1000:.0f} ms)", summary)


def reserve_sweep() -> None:
    """How many of the 128 places to keep for the best word matches the fused order left out
    (`shortlist.LEXICAL_RESERVE`): the real `shortlist()` on the quality set's development part, where it is
    chosen (the smallest reserve with the best R@128), never on the held-out part."""
    cases = sets.behavior_cases("development")
    print(f"\n== lexical reserve: development part ({sum(not c.negative for c in cases)} queries) ==")
    warmed = {name: warm(name) for name in sorted({c.corpus for c in cases})}
    shipped = shortlist_module.LEXICAL_RESERVE
    try:
        for places in (0, 4, 8, 16, 32):
            shortlist_module.LEXICAL_RESERVE = 128 // places if places else 10**9
            results = {}
            for case in cases:
                index, dense = warmed[case.corpus]
                documentation = asks_for_documentation(case.query)
                spans = candidate_spans(
                    shortlist([Scope(index)], case.query, 128, [dense], documentation=documentation).candidates
                )
                results[case.key] = metrics.QueryResult(spans[:10], spans)
            report = metrics.evaluate(cases, results)
            show(f"{places} of 128", {f"R@{k}": report.shortlist_recall[k] for k in KS} | {"MRR@10": report.mrr})
    finally:
        shortlist_module.LEXICAL_RESERVE = shipped


# -- speed ----------------------------------------------------------------------------------------------------


def embedding_speed() -> None:
    """Background embedding from scratch, fresh caches: `embed_pending(batch)` until 1,024 snippets of `large`
    have a vector (the server's step is 8), then the query embedding a search waits for."""
    encoder = shared_encoder()
    assert encoder is not None
    index = large_index()
    print("\n== background embedding (1,024 snippets of large, none cached) ==")
    for batch in (8, 32):
        fresh = Encoder(encoder.embedder, EmbeddingCache())
        dense = DenseIndex(index, lambda fresh=fresh: fresh)
        steps = []
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(1024 // batch):
            started = time.perf_counter()
            dense.embed_pending(batch)
            steps.append(time.perf_counter() - started)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"  embed_pending({batch}): {1024 / wall:.1f} snippets/s, {cpu / 1024 * 1000:.0f} cpu-ms a snippet, "
            f"{statistics.median(steps) * 1000:.0f} ms a call (a query embedding may wait that long)"
        )
    started = time.perf_counter()
    for case in metrics.load_cases(BEHAVIOR_SET)[:20]:
        encoder.embedder.embed_query(case.query)
    print(f"  query embedding: {(time.perf_counter() - started) / 20 * 1000:.1f} ms")


def large_index() -> RootIndex:
    """The `large` corpus's index, built and cached on first use."""
    index = RootIndex(resolve_root("large"), cache_dir=CACHE)
    if not index.load_persisted():
        index.refresh()
        index.persist()
    return index


class StandIn:
    """Random unit vectors for snippets (speed only), the real model for queries."""

    def __init__(self, real: Encoder) -> None:
        self._real = real.embedder
        self._random = np.random.default_rng(0)

    def embed_snippets(self, texts: list[str]) -> Floats:
        vectors = self._random.standard_normal((len(texts), DIMENSIONS)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def embed_query(self, query: str) -> Floats:
        return self._real.embed_query(query)


def large_latency() -> None:
    encoder = shared_encoder()
    assert encoder is not None
    index = large_index()
    stand_in = Encoder(StandIn(encoder), EmbeddingCache(capacity=0))  # type: ignore[arg-type]
    dense = DenseIndex(index, lambda: stand_in)
    while dense.embed_pending(10_000):
        pass
    cases = [c for c in metrics.load_cases(BEHAVIOR_SET) if not c.negative]
    times: dict[str, list[float]] = {"bm25": [], "hybrid": []}
    for case in cases:
        for mode, given in (("bm25", ()), ("hybrid", (dense,))):
            started = time.perf_counter()
            shortlist([Scope(index)], case.query, 128, given)
            times[mode].append(time.perf_counter() - started)
    print(f"\n== shortlist latency on `large` ({index.snippet_count} snippets, stand-in vectors) ==")
    for mode, spent in times.items():
        median, p90 = statistics.median(spent) * 1000, np.percentile(spent, 90) * 1000
        print(f"  {mode}: median {median:.0f} ms, p90 {p90:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--large", action="store_true", help="also time the shortlist on the large corpus")
    parser.add_argument("--reserve", action="store_true", help="only the lexical reserve, on the development part")
    args = parser.parse_args()
    if args.reserve:
        reserve_sweep()
        return
    behavior = metrics.load_cases(BEHAVIOR_SET)
    print("== preparing (indexes and vectors cached in bench/out/hybrid-cache) ==")
    by_corpus = {name: arrays(name, [c for c in behavior if c.corpus == name]) for name in ("click", "zod")}
    cross_validate(by_corpus)
    partial_coverage([q for qs in by_corpus.values() for q in qs])
    real(behavior, "behavior set")
    docstrings = resolve_root("click-nodoc").parent / "click-nodoc.jsonl"
    real(metrics.load_cases(docstrings), "click-nodoc docstring set (held out)")
    embedding_speed()
    if args.large:
        large_latency()


if __name__ == "__main__":
    main()
