"""Cold builds on every core: files are dealt to worker processes, each indexes its share, shares are merged.

Chunking (`ast`, tree-sitter) and tokenizing are CPU-bound Python, so threads would not help. Workers are
started with `spawn`, never `fork`: a forked copy of a language server that has already used threads can
hang. A share comes back as a small index of its own (postings, entries, snippets) and is absorbed by
shifting its document ids, so merging costs one numpy operation per term, not one per posting.
Below `PARALLEL_MIN_FILES`, starting workers costs more than it saves and files are read in-process.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.index.bm25 import Bm25Index

if TYPE_CHECKING:
    from smartsearch_ls.index.root_index import FileEntry, RootIndex

log = logging.getLogger(__name__)

PARALLEL_MIN_FILES = 300
"""Measured: two spawned workers take ~1 s to start and import; below a few hundred files that does not pay."""

SHARES_PER_WORKER = 2
"""A few shares per worker keep both cores busy to the end and give progress reports; each costs a merge."""


@dataclass
class Share:
    """One worker's result: an index of its files with ids from 0."""

    bm25: Bm25Index
    entries: dict[str, FileEntry]
    snippets: list[Snippet | None]


def index_share(root: str, paths: Sequence[str]) -> Share:
    """Worker entry point: read, chunk and index `paths` into a fresh index."""
    import gc

    from smartsearch_ls.index.root_index import RootIndex

    gc.disable()  # millions of small objects, none of them garbage
    partial = RootIndex(Path(root))
    for path in paths:
        partial.read_into_index(path)
    return Share(partial.bm25, partial.files, partial.snippets)


def worker_count() -> int:
    return min(os.cpu_count() or 1, 8)


def build_in_parallel(index: RootIndex, stale: Sequence[str], progress: Callable[[int, int], None] | None) -> bool:
    """Index `stale` files with worker processes; False (nothing done) when workers cannot be used."""
    workers = worker_count()
    if workers < 2 or len(stale) < PARALLEL_MIN_FILES:
        return False
    sizes = {path: _size(index.root / path) for path in stale}
    ordered = sorted(stale, key=lambda p: -sizes[p])
    count = workers * SHARES_PER_WORKER
    shares = [ordered[i::count] for i in range(count)]  # dealt largest first, so shares weigh about the same
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(index_share, str(index.root), share) for share in shares if share]
            done = 0
            for future in as_completed(futures):
                share = future.result()
                index.absorb(share)
                done += len(share.entries)
                if progress is not None:
                    progress(done, len(stale))
    except (OSError, RuntimeError) as error:  # no processes allowed here: fall back to one core
        log.warning("parallel indexing unavailable (%s); indexing in-process", error)
        return False
    return True


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
