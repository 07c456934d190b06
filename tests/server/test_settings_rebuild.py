"""Index settings changed during a session, in-process on the lifecycle's own functions: the folders they replace are
saved before their successors are built, changes in a row save in turn, only the last settings' folders are built,
once, and an `exit` meanwhile saves what the replaced folders had not saved yet. (`test_folders_and_indexing.py`
changes them over stdio.)"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from smartsearch_ls.server import folders as folders_module
from smartsearch_ls.server import tasks
from smartsearch_ls.server.features import lifecycle
from smartsearch_ls.server.folders import Folder, Folders
from tests.conftest import write_tree


async def test_two_changes_in_a_row_build_the_last_settings_folders_once_after_both_saves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree(tmp_path / "ws", {"app.py": "def start_server(port):\n    return port\n"})
    events: list[str] = []
    built: Counter[int] = Counter()

    async def index_folder(server: Any, folder: Folder) -> None:
        built[id(folder)] += 1
        events.append("build")

    save = Folders.persist_all

    async def slow_save(self: Folders) -> None:  # a large root's save outlasts the next change
        events.append("save starts")
        await asyncio.sleep(0.3)
        await save(self)
        events.append("save ends")

    monkeypatch.setattr(lifecycle, "index_folder", index_folder)
    monkeypatch.setattr(lifecycle, "folder_paths", lambda server: [root])
    monkeypatch.setattr(Folders, "persist_all", slow_save)
    settings = SimpleNamespace(exclude=[], cache_dir=tmp_path / "cache", semantic=False)
    server: Any = SimpleNamespace(
        settings=settings,
        watcher=None,
        reindexing=None,
        replaced=[],
        new_folders=lambda: Folders(settings.cache_dir, settings.exclude, False),
    )
    server.folders = server.new_folders()
    lifecycle.add_folders(server)
    for exclude in (["build/**"], ["dist/**"]):
        before = lifecycle._index_settings(server)
        settings.exclude = exclude
        lifecycle._reconfigure_indexes(server, before)
        await asyncio.sleep(0.05)
    while tasks._running:  # the saves and builds the changes spawned
        await asyncio.wait(list(tasks._running), timeout=5)
    (last,) = server.folders.folders.values()
    assert built == {id(last): 1}
    assert events == ["save starts", "save ends", "save starts", "save ends", "build"]


async def test_an_exit_while_replaced_folders_wait_to_be_saved_saves_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`exit` saved only the new settings' folders: a cold build the old ones had not saved yet was lost."""
    root = write_tree(tmp_path / "ws", {"app.py": "def start_server(port):\n    return port\n"})
    monkeypatch.setattr(folders_module, "PERSIST_AFTER_SECONDS", 60.0)  # the build's save is still to come
    monkeypatch.setattr(lifecycle, "folder_paths", lambda server: [root])
    settings = SimpleNamespace(exclude=[], cache_dir=tmp_path / "cache", semantic=False)
    server: Any = SimpleNamespace(
        settings=settings,
        watcher=None,
        reindexing=None,
        replaced=[],
        new_folders=lambda: Folders(settings.cache_dir, settings.exclude, False),
    )
    server.folders = server.new_folders()
    lifecycle.add_folders(server)
    (old,) = server.folders.folders.values()
    await server.folders.build(old)
    assert old.index.persisted != old.index.generation

    async def stalled_save(self: Folders) -> None:  # the exit comes before this save starts
        await asyncio.sleep(60)

    monkeypatch.setattr(Folders, "persist_all", stalled_save)
    before = lifecycle._index_settings(server)
    settings.exclude = ["build/**"]
    lifecycle._reconfigure_indexes(server, before)
    await asyncio.sleep(0.05)
    server.folders.persist_pending_now()  # what `exit` did before
    assert old.index.persisted != old.index.generation
    lifecycle.save_at_exit(server)
    assert old.index.persisted == old.index.generation
    server.reindexing.cancel()
