"""The symbol index is built in the background after indexing, and waits while searches run.

In-process on `Folders` (no LSP needed): whether the build waited is internal state a client cannot see, and
the figure it protects (the first search after a restart) is measured in `bench.server`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from smartsearch_ls.search.symbol_index import symbol_index
from smartsearch_ls.server.folders import Folders
from tests.conftest import SAMPLE_PROJECT, write_tree


async def until(condition: object, seconds: float = 10.0) -> bool:
    for _ in range(int(seconds / 0.02)):
        if condition():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.02)
    return False


async def test_the_symbol_index_waits_for_running_searches_then_catches_up(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    folders = Folders(cache_dir=None, semantic=False)
    folder = folders.add(root)
    folders.search_started()
    await folders.build(folder)
    symbols = symbol_index(folder.index, synced=False)
    await asyncio.sleep(0.5)
    assert symbols.generation == -1, "the symbol index was built while a search ran"
    folders.search_finished()
    assert await until(lambda: symbols.generation == folder.index.generation), "not built once searches ended"
    assert symbols.sorted_names, "no declarations learned"
    folders.remove(root)
