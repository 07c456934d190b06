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
