"""Engine timings on one corpus: cold index, warm start, shortlist, one-file update, search, peak RSS.

`python -m bench.engine --corpus large` (after `python -m bench prepare`). Each phase that the user waits for is
timed the way they meet it: the cold build with no persisted index, the warm start as a new process would do it
(load the persisted index, re-stat every file), the shortlist (and again right after each of ten keystrokes, which
makes it list its scope anew), a keystroke as `update_text` of one buffer, a save as `apply_changes` of one file,
and a search end to end with a judge that answers instantly (then the same searches again with their judgments
cached, the engine's own work per search), so the figures are the engine's own cost. Medians of repeated runs;
results also go to `bench/out/engine.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.__main__ import BEHAVIOR_SET, resolve_root, save_figures
from bench.oneshot import instant_judge
from bench.quality.metrics import load_cases
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope, shortlist
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest

FALLBACK_QUERIES = [
    "retry a request after the server says too many requests",
    "close the connection pool when the client shuts down",
    "parse a date from a string",
    "validate that an email address is well formed",
    "render a table in the terminal",
]


REPEATS = 5
"""Rounds of the repeated searches; their median is reported."""


def queries() -> list[str]:
    if BEHAVIOR_SET.is_dir():
        return [case.query for case in load_cases(BEHAVIOR_SET)]
    return FALLBACK_QUERIES


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def rss_mb() -> float:
    """Resident memory now (Linux), to tell what the index keeps from what a phase used in passing."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def median_file(index: RootIndex) -> str:
    files = sorted((e.lines, p) for p, e in index.entries() if e.docs and p.endswith(".py"))
    return files[len(files) // 2][1]


def largest_file(index: RootIndex) -> str:
    return max((e.lines, p) for p, e in index.entries() if e.docs and p.endswith(".py"))[1]


def measure(root: Path, searches: int) -> dict[str, Any]:
    cache = Path(tempfile.mkdtemp(prefix="smartsearch-bench-"))
    figures: dict[str, Any] = {"corpus": str(root)}

    started = time.perf_counter()
    index = RootIndex(root, cache_dir=cache)
    stats = index.refresh()
    figures["cold_index_s"] = round(time.perf_counter() - started, 2)
    figures["files"], figures["snippets"] = stats.files, index.snippet_count
    figures["lines"] = sum(e.lines for _, e in index.entries())
    figures["rss_after_cold_index_mb"] = rss_mb()
    started = time.perf_counter()
    index.persist()
    figures["persist_s"] = round(time.perf_counter() - started, 2)
    del index
    gc.collect()

    started = time.perf_counter()
    warm = RootIndex(root, cache_dir=cache)
    warm.load_persisted()
    warm_stats = warm.refresh()
    figures["warm_start_s"] = round(time.perf_counter() - started, 2)
    gc.freeze()  # as the server does once a folder is indexed (`server.folders`)
    figures["warm_start_reread"] = warm_stats.read
    figures["rss_after_warm_start_mb"] = rss_mb()

    texts = queries()
    timings = []
    for query in texts:
        started = time.perf_counter()
        shortlist([Scope(warm)], query, 128)
        timings.append(time.perf_counter() - started)
    figures["shortlist_p50_ms"] = ms(statistics.median(timings))
    figures["shortlist_p95_ms"] = ms(sorted(timings)[int(len(timings) * 0.95) - 1])
    # The first shortlist after a keystroke lists the scope's snippets again (the index changed); later ones reuse it.
    edited = median_file(warm)
    original = (root / edited).read_text()
    after_edit = []
    for i, query in enumerate(texts[:searches]):
        warm.update_text(edited, original + f"\n# typed {i}\n")
        started = time.perf_counter()
        shortlist([Scope(warm)], query, 128)
        after_edit.append(time.perf_counter() - started)
    warm.revert(edited)
    figures["shortlist_after_edit_p50_ms"] = ms(statistics.median(after_edit))

    for label, path in (("median", median_file(warm)), ("largest", largest_file(warm))):
        original = (root / path).read_text()
        keystrokes, saves = [], []
        for i in range(5):
            started = time.perf_counter()
            warm.update_text(path, original + f"\n# typed {i}\n")
            keystrokes.append(time.perf_counter() - started)
        warm.revert(path)
        for i in range(5):
            (root / path).write_text(original + f"\n# saved {i}\n")
            started = time.perf_counter()
            warm.apply_changes([path])
            saves.append(time.perf_counter() - started)
        (root / path).write_text(original)
        warm.apply_changes([path])
        figures[f"update_{label}_file"] = f"{path} ({warm.files[path].lines} lines)"
        figures[f"keystroke_update_{label}_ms"] = ms(statistics.median(keystrokes))
        figures[f"save_update_{label}_ms"] = ms(statistics.median(saves))

    judge, cache_j = instant_judge(), JudgmentCache()

    async def run_searches() -> list[float]:
        taken = []
        for query in texts[:searches]:
            started = time.perf_counter()
            await search(SearchRequest(query, [Scope(warm)], candidates=128), judge, cache_j)
            taken.append(time.perf_counter() - started)
        return taken

    taken = asyncio.run(run_searches())
    figures["search_p50_ms"] = ms(statistics.median(taken))
    figures["judge_cpu_ms_per_snippet"] = round(1000 * statistics.median(taken) / 128, 2)
    # The same queries again, their judgments cached: what is left is the engine's own work per search (shortlist,
    # ranking, excerpts and their evidence), which the first pass hides under the judge's per-snippet requests.
    again = [statistics.median(asyncio.run(run_searches())) for _ in range(REPEATS)]
    figures["search_repeated_p50_ms"] = ms(statistics.median(again))
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="large")
    parser.add_argument("--searches", type=int, default=10)
    args = parser.parse_args()
    save_figures(f"engine-{args.corpus}", measure(resolve_root(args.corpus), args.searches))


if __name__ == "__main__":
    main()
