"""Symbol look-ups on a corpus: latency (cold, warm, after a keystroke) and first-file accuracy against ripgrep.

`python -m bench.symbols --corpus large` (after `python -m bench prepare`). Queries are declarations sampled
from the index (seed 0): classes, functions and methods outside tests whose name (or, for a method,
`Class.method`) is declared exactly once in the corpus and is mentioned in at least two snippets, so the
gold answer (the declaring file) is unambiguous while a plain text search meets the name in other files too.

Latency is `symbols.find_symbols` (the look-up `smartSearch/query` and `workspace/symbol` run) and the whole
`search()` of an identifier query (excerpts, candidates, coverage); "after a keystroke" is a query right
after `update_text` of one file, which makes the symbol index re-read that file. Accuracy compares the first
file we return with ripgrep's first file under three ways of using it:

- `rg -w NAME` (files sorted by path, the first listed);
- `rg -w -c NAME` (the file with the most matches);
- `rg` with a definition pattern (`def|class|function|interface|type|const|let|var NAME`), sorted by path.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.__main__ import OUT_DIR, resolve_root
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import SearchRequest
from smartsearch_ls.search.result import kind_of
from smartsearch_ls.search.symbols.index import symbol_index
from smartsearch_ls.search.symbols.ranking import find_symbols

RG = str(Path(sys.executable).with_name("rg"))


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def sample_queries(index: RootIndex, count: int) -> list[tuple[str, str]]:
    """(query, gold path) pairs; see the module docstring."""
    symbols = symbol_index(index)
    by_name: dict[str, list] = {}
    by_qualified: dict[str, list] = {}
    for _, entry in index.entries():
        for d in entry.declarations:
            by_name.setdefault(d.name, []).append(d)
            by_qualified.setdefault(d.qualified_name, []).append(d)
    pool = []
    for found in by_name.values():
        for d in found:
            if len(d.name) < 4 or kind_of(d.path) or d.kind not in ("class", "function", "method", "interface"):
                continue
            if len(found) == 1:
                query = d.name
            elif d.kind == "method" and len(by_qualified[d.qualified_name]) == 1:
                query = d.qualified_name
            else:
                continue
            if symbols.mentions(d.name) >= 2:
                pool.append((query, d.path))
    pool.sort()
    return random.Random(0).sample(pool, min(count, len(pool)))


def rg_first(root: Path, query: str) -> dict[str, str | None]:
    name = query.rpartition(".")[2]
    first: dict[str, str | None] = {}
    listed = subprocess.run(
        [RG, "-l", "-w", "--sort", "path", "-F", name], cwd=root, capture_output=True, text=True
    ).stdout.split("\n")
    first["rg -w (path order)"] = listed[0] or None
    counts = subprocess.run([RG, "-c", "-w", "-F", name], cwd=root, capture_output=True, text=True).stdout
    best = max(
        (line.rsplit(":", 1) for line in counts.splitlines() if ":" in line),
        key=lambda item: (int(item[1]), [-ord(c) for c in item[0]]),
        default=None,
    )
    first["rg -w -c (most matches)"] = best[0] if best else None
    pattern = rf"(def|class|function|interface|type|const|let|var)\s+{re.escape(name)}\b"
    defs = subprocess.run(
        [RG, "-l", "--sort", "path", "-e", pattern], cwd=root, capture_output=True, text=True
    ).stdout.split("\n")
    first["rg definition pattern"] = defs[0] or None
    return first


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.symbols")
    parser.add_argument("--corpus", default="large")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cache-dir", type=Path, default=OUT_DIR / "symbols-cache")
    args = parser.parse_args()
    root = resolve_root(args.corpus)

    started = time.perf_counter()
    index = RootIndex(root, cache_dir=args.cache_dir)
    warm = index.load_persisted()
    index.refresh()
    index.persist()
    build = time.perf_counter() - started
    files = len(index.files)
    declarations = sum(len(e.declarations) for _, e in index.entries())

    started = time.perf_counter()
    symbols = symbol_index(index)
    sync = time.perf_counter() - started
    started = time.perf_counter()
    symbols.graph()
    graph = time.perf_counter() - started
    queries = sample_queries(index, args.queries)
    scopes = [Scope(index)]

    lookup: list[float] = []
    ours: list[str | None] = []
    for query, _ in queries:
        started = time.perf_counter()
        hits, _, _ = find_symbols(scopes, query, 10)
        lookup.append(time.perf_counter() - started)
        ours.append(hits[0].declaration.path if hits else None)

    async def whole() -> list[float]:
        times = []
        for query, _ in queries:
            started = time.perf_counter()
            await search(SearchRequest(query, scopes, limit=10), None, JudgmentCache())
            times.append(time.perf_counter() - started)
        return times

    end_to_end = asyncio.run(whole())

    edited = next(p for p, e in index.entries() if e.declarations and p.endswith(".py"))
    original = symbols.text_of(edited) or ""
    keystroke: list[float] = []
    for n, (query, _) in enumerate(queries[:50]):
        index.update_text(edited, original + f"\n# edit {n}\n")
        started = time.perf_counter()
        find_symbols(scopes, query, 10)
        keystroke.append(time.perf_counter() - started)
    index.revert(edited)

    baselines: dict[str, list[str | None]] = {}
    rg_times: list[float] = []
    for query, _ in queries:
        started = time.perf_counter()
        for name, path in rg_first(root, query).items():
            baselines.setdefault(name, []).append(path)
        rg_times.append((time.perf_counter() - started) / 3)

    gold = [g for _, g in queries]
    accuracy = {"smartsearch symbol index": sum(a == b for a, b in zip(ours, gold, strict=True)) / len(gold)}
    for name, firsts in baselines.items():
        accuracy[name] = sum(a == b for a, b in zip(firsts, gold, strict=True)) / len(gold)

    report = {
        "corpus": args.corpus,
        "files": files,
        "declarations": declarations,
        "queries": len(queries),
        "index_load_s": round(build, 2),
        "index_was_persisted": warm,
        "symbol_index_cold_sync_ms": ms(sync),
        "import_graph_cold_ms": ms(graph),
        "lookup_ms": {"p50": ms(statistics.median(lookup)), "p95": ms(percentile(lookup, 0.95))},
        "search_ms": {"p50": ms(statistics.median(end_to_end)), "p95": ms(percentile(end_to_end, 0.95))},
        "after_keystroke_ms": {"p50": ms(statistics.median(keystroke)), "p95": ms(percentile(keystroke, 0.95))},
        "rg_ms_per_call": {"p50": ms(statistics.median(rg_times))},
        "first_file_accuracy": {k: round(v, 3) for k, v in accuracy.items()},
    }
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / f"symbols.{args.corpus}.json").write_text(json.dumps(report, indent=2))
    print(f"{args.corpus}: {files} files, {declarations} declarations, {len(queries)} identifier queries")
    print(
        f"index load {report['index_load_s']} s (persisted: {warm}); symbol index cold sync {ms(sync)} ms; "
        f"import graph + PageRank cold {ms(graph)} ms"
    )
    print("| latency | p50 ms | p95 ms |\n|---|---:|---:|")
    for key in ("lookup_ms", "search_ms", "after_keystroke_ms"):
        print(f"| {key.removesuffix('_ms')} | {report[key]['p50']} | {report[key].get('p95', '')} |")
    print(f"| rg (one call) | {report['rg_ms_per_call']['p50']} | |")
    print("\n| first file | accuracy |\n|---|---:|")
    for name, value in accuracy.items():
        print(f"| {name} | {value:.1%} |")


if __name__ == "__main__":
    main()
