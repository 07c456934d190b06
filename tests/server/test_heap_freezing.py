"""The server's heap freezing: an indexed folder leaves the cyclic collector's reach, a dropped one comes back.

In-process on `Folders` (no LSP needed): what matters is the collector's state, which a client cannot see.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path

from smartsearch_ls.server.folders import Folders
from tests.conftest import SAMPLE_PROJECT, write_tree


async def test_an_indexed_folder_is_frozen_and_a_dropped_one_can_be_collected_even_in_a_cycle(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    folders = Folders(cache_dir=None, semantic=False)
    gc.unfreeze()
    try:
        folder = folders.add(root)
        await folders.build(folder)
        await asyncio.sleep(0.5)  # the symbol index is prepared in the background after the build
        assert folder.error is None and gc.get_freeze_count() > 0
        folder.index.owner = folder  # type: ignore[attr-defined]  # a reference cycle through the index
        dropped = weakref.ref(folder.index)
        del folder
        folders.remove(root)
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert dropped() is None, "a dropped index in a cycle stayed in memory"
    finally:
        gc.unfreeze()


async def test_a_folder_dropped_while_its_background_work_waits_to_start_can_be_collected(tmp_path: Path) -> None:
    """The symbol index and the embedding wait for the first search after a build (`QUIET_START_SECONDS`); a folder
    removed meanwhile is collected at once, before the loop has run its cancelled tasks."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    folders = Folders(cache_dir=None, semantic=True)
    gc.unfreeze()
    try:
        folder = folders.add(root)
        await folders.build(folder)
        await asyncio.sleep(0.2)  # the loop runs what the build left it (a finished thread's result, say)
        assert folder.error is None and folder.symbols is not None and folder.embedding is not None
        assert not folder.symbols.done() and not folder.embedding.done()
        folder.index.owner = folder  # type: ignore[attr-defined]  # a reference cycle through the index
        dropped = weakref.ref(folder.index)
        del folder
        folders.remove(root)
        gc.collect()
        assert dropped() is None, "a dropped index stayed in memory while its background work waited to start"
    finally:
        gc.unfreeze()
