"""Preparing a folder ahead of command-line searches: its index built and every snippet embedded.

A one-shot query embeds only what its own search needs, so on a real project the first questions each pay for
their candidates' vectors and say that embedding is incomplete, for many questions on (the language server embeds
the whole root in the background instead). `smartsearch index` does that work once, up front, and persists it:
later queries start warm, with the whole root in their shortlist's semantic half. The readings only the embedded
judge reads (`DenseIndex.reads_readings`) are embedded only when that judge is the one configured.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from smartsearch_ls.folder_search import FolderIndex
from smartsearch_ls.judge.resolve import is_local
from smartsearch_ls.settings import Settings

EMBED_BATCH = 32
"""Snippets embedded per step between progress reports and saves: the vectors are persisted as it goes, so a run
stopped midway keeps what it embedded."""

SAVE_SECONDS = 30.0
"""How often a long run saves what it has embedded."""

Report = Callable[[int, int], None]
"""Called with (snippets with all their vectors, live snippets) as embedding goes."""


@dataclass(frozen=True)
class Prepared:
    """What `prepare` left: the folder's files and snippets, and how many snippets have all their vectors."""

    files: int
    skipped: int
    snippets: int
    embedded: int
    """Snippets with all their vectors (their own and, for the embedded judge, its readings')."""
    semantic: bool
    """Whether there is a model to embed with (without one, searches use BM25 alone)."""


def prepare(root: Path, settings: Settings, report: Report | None = None) -> Prepared:
    """Build or refresh `root`'s persisted index and embed every snippet it lacks a vector for (blocking)."""
    folder = FolderIndex.open(root, settings)
    index = folder.index
    files, skipped = len(index.files), sum(index.skipped().values())
    dense = folder.vectors()
    if not dense.available():
        return Prepared(files, skipped, index.snippet_count, 0, semantic=False)
    reads = is_local(settings.judge.model)
    dense.reads_readings = lambda: reads
    saved = time.monotonic()
    try:
        while dense.embed_pending(EMBED_BATCH):
            if report is not None:
                report(*dense.progress())
            if time.monotonic() - saved >= SAVE_SECONDS:
                dense.persist(only_if_changed=True)
                saved = time.monotonic()
    finally:
        dense.persist(only_if_changed=True)
    embedded, snippets = dense.progress()
    return Prepared(files, skipped, snippets, embedded, semantic=True)
