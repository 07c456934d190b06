"""What a search waits for before it reads the indexes, in-process on `Folders`: the edits made before it, including
those a background flush is applying right then, and nothing else that holds a folder's job (a background save).
(A folder being re-listed: `test_nested_relisting.py`.)"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from smartsearch_ls.server.features.query import wait_and_flush
from smartsearch_ls.server.folders import Folder, Folders
from tests.conftest import write_tree


async def built_folder(tmp_path: Path) -> tuple[Folders, Folder]:
    root = write_tree(tmp_path / "ws", {"main.py": "def start_server(port):\n    return listen(port)\n"})
    folders = Folders(cache_dir=tmp_path / "cache", semantic=False)
    folder = folders.add(root)
    await folders.build(folder)
    return folders, folder


async def search_prepared(folders: Folders, folder: Folder) -> float:
    """Seconds `wait_and_flush` took for a search of the folder."""
    server: Any = SimpleNamespace(folders=folders, settings=SimpleNamespace(index_wait=0.3))
    started = time.monotonic()
    await asyncio.wait_for(wait_and_flush(server, [SimpleNamespace(index=folder.index)]), 10)
    return time.monotonic() - started


async def test_a_search_during_a_background_flush_answers_with_its_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flush had taken the edit from the pending ones: the search saw nothing pending and read the index
    before the edit was in it."""
    folders, folder = await built_folder(tmp_path)
    apply = Folders._apply

    def slow_apply(*args: Any) -> None:
        time.sleep(0.5)
        apply(*args)

    monkeypatch.setattr(Folders, "_apply", staticmethod(slow_apply))
    folders.buffer_changed(folder.index.root / "main.py", "def start_server(port):\n    return bind_socket(port)\n")
    while folder.buffers:  # the background flush has taken the edit and is applying it
        await asyncio.sleep(0.01)
    await search_prepared(folders, folder)
    assert any(s is not None and "bind_socket" in s.text for s in folder.index.snippets)


async def test_a_search_with_no_edit_pending_does_not_wait_for_a_background_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every search took the folder's job to look for a flush under way, and so waited for a save holding it (the
    vectors' file is written after the index's lock is let go)."""
    folders, folder = await built_folder(tmp_path)

    class SlowVectors:
        def persist(self, only_if_changed: bool = False) -> bool:
            time.sleep(1.0)
            return True

    folder.dense = SlowVectors()  # type: ignore[assignment]
    save = asyncio.ensure_future(folders._persist(folder, in_background=True))
    await asyncio.sleep(0.2)  # the save holds the job: the index is written, the vectors are being written
    assert folder.job.locked()
    assert await search_prepared(folders, folder) < 0.5
    await save
