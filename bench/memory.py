"""Where a server's resident memory goes: each part the server holds for a root, loaded in turn in one process.

`python -m bench.memory [--corpus large]` (after `python -m bench prepare`; with the cache a search of the corpus
filled, e.g. `smartsearch query "..." --root bench/.corpora/large`, so the index loads warm) prints the process's
resident memory (`VmRSS`) after the server's imports, the warm root index, the local model, the dense index as
persisted, the symbol index with its import graph, and one search judged by the local judge (its 128 candidates
embedded on the spot), then the peak (`VmHWM`). A fully embedded root also holds one float32 vector per snippet,
printed as its size, and up to two float16 rows more per snippet for the judge's readings.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
from pathlib import Path

from bench.corpora import CORPORA_DIR

QUERY = "reflow a long paragraph so that no line is wider than a limit"


def status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="large")
    args = parser.parse_args()
    step = lambda what: print(f"{status_mb('VmRSS'):6.0f} MB  {what}")  # noqa: E731
    step("interpreter and this script")

    import smartsearch_ls.judge.local.model
    import smartsearch_ls.server.app  # noqa: F401

    step("+ the server's imports")
    from smartsearch_ls.cache_dir import default_cache_dir
    from smartsearch_ls.embedding.encoder import DIMENSIONS
    from smartsearch_ls.embedding.loading import load_encoder
    from smartsearch_ls.index.dense import DenseIndex
    from smartsearch_ls.index.root_index import RootIndex
    from smartsearch_ls.index.shortlist import Scope, shortlist
    from smartsearch_ls.judge.contract import Evidence
    from smartsearch_ls.judge.local.model import local_judge
    from smartsearch_ls.search.symbols.index import symbol_index

    index, _ = RootIndex.open_warm(CORPORA_DIR / args.corpus, cache_dir=default_cache_dir())
    gc.collect()
    step(f"+ the root index, warm ({index.snippet_count} snippets)")
    load_encoder()
    step("+ the local model")
    dense = DenseIndex.for_root(index)
    step("+ the dense index as persisted")
    symbols = symbol_index(index, synced=False)
    while symbols.prepare(10**6):
        pass
    step("+ the symbol index and import graph")
    found = shortlist([Scope(index)], QUERY, 128, (dense,))
    evidence = [Evidence(c.snippet, c.lexical, c.cosine) for c in found.candidates]
    asyncio.run(local_judge().score_shortlist(QUERY, evidence, None))
    step("+ one search judged by the local judge")
    print(f"{status_mb('VmHWM'):6.0f} MB  peak")
    print(
        f"a fully embedded root adds {index.snippet_count * DIMENSIONS * 4 / 2**20:.0f} MiB of float32 vectors of the"
        " snippets' own, and at most as much again in float16 rows of what the judge reads besides (its comments'"
        " and later lines' vectors: 35 MiB on `large`, bench/README.md)"
    )


if __name__ == "__main__":
    main()
