"""What persisting and loading a fully embedded root costs in memory at its peak, without embedding anything.

A server that has embedded a whole root holds its vectors once; saving them (`DenseIndex.persist`, at the end of
background embedding) and loading them (a restart) briefly hold more, and on `large` those moments, not the
embedding, set the server's peak. Embedding all of `large` takes a quarter of an hour, so here every snippet gets
a seeded random unit vector instead, and each reading one for `READ_SHARE` of the snippets (about what `large`'s
comments and long snippets give), handed over as the judge hands its vectors to the index (the model is loaded for
its cache, before anything is measured, but never run).

`python -m bench.persist_memory [--corpus large]` (after `python -m bench prepare`) prints, for the root index's
file and the vectors' file, how far resident memory rose above where it stood before each step (`VmHWM`, reset
between steps through `/proc/self/clear_refs`; Linux only) and how long the step took. Its cache lives in a
temporary folder, removed at the end.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.corpora import CORPORA_DIR
from bench.memory import status_mb
from smartsearch_ls.embedding.encoder import DIMENSIONS
from smartsearch_ls.embedding.loading import load_encoder
from smartsearch_ls.embedding.readings import READINGS
from smartsearch_ls.heap import release_free_memory
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.root_index import RootIndex

READ_SHARE = 0.5
"""Snippets given a vector for each reading."""
HANDED_AT_ONCE = 1000
"""Snippets whose vectors go through the judge's cache at a time (it keeps a bounded number)."""


def peak_above(what: str, step: Callable[[], object]) -> None:
    """Run `step` and print how far resident memory rose above its level before, and the time it took."""
    gc.collect()
    release_free_memory()
    before = status_mb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current resident size
    started = time.perf_counter()
    step()
    took = time.perf_counter() - started
    peak, after = status_mb("VmHWM") - before, status_mb("VmRSS") - before
    print(f"{what}: peak +{peak:.0f} MB, {took:.2f} s, then +{after:.0f} MB")


def embed_at_random(index: RootIndex, dense: DenseIndex, seed: int = 0) -> None:
    """Give every live snippet a vector, and each reading one for `READ_SHARE` of them, through the judge's cache."""
    cache = load_encoder().cache
    chooser = np.random.default_rng(seed)
    live = np.flatnonzero([s is not None for s in index.snippets])
    for start in range(0, len(live), HANDED_AT_ONCE):
        docs = live[start : start + HANDED_AT_ONCE]
        vectors = {}
        for doc in docs.tolist():
            key = index.snippets[doc].key
            vector = chooser.standard_normal(DIMENSIONS).astype(np.float32)
            vectors[key] = vector / np.linalg.norm(vector)
            for kind in READINGS:
                vectors[kind.key(key)] = vectors[key] if chooser.random() < READ_SHARE else np.zeros(0, np.float32)
        cache.update(vectors)
        if dense.embed(docs, compute=False) != len(docs):
            raise RuntimeError("the judge's cache dropped vectors before the index took them: hand fewer at once")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="large")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="persist-memory-") as folder:
        cache_dir = Path(folder)
        index, _ = RootIndex.open_warm(CORPORA_DIR / args.corpus, cache_dir=cache_dir)
        dense = DenseIndex(index)
        embed_at_random(index, dense)
        print(f"{args.corpus}: {index.snippet_count} snippets, every one embedded")
        peak_above("persist the vectors", dense.persist)
        peak_above("load the vectors", DenseIndex(index).load)
        peak_above("load the root index", RootIndex(CORPORA_DIR / args.corpus, cache_dir=cache_dir).load_persisted)


if __name__ == "__main__":
    main()
