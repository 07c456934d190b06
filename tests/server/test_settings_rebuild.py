"""Index settings changed during a session, in-process on the lifecycle's own functions: the folders they replace are
saved before their successors are built, changes in a row save in turn, only the last settings' folders are built,
once (a folder added meanwhile too), the folders skipped never leave anything waiting for them, and `exit` or
`shutdown` meanwhile save what the replaced folders had not saved yet. (`test_folders_and_indexing.py` changes them
over stdio.)"""

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


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", {"app.py": "def start_server(port):\n    return port\n"})


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Counter[Path]:
    """How many times each root's build was started (the builds themselves are left out)."""
    counted: Counter[Path] = Counter()

    async def index_folder(server: Any, folder: Folder) -> None:
        counted[folder.index.root] += 1

    monkeypatch.setattr(lifecycle, "index_folder", index_folder)
    return counted


@pytest.fixture
def server(tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The parts of the server the lifecycle's functions use, its workspace the one folder `root`."""
    monkeypatch.setattr(lifecycle, "folder_paths", lambda server: [root])
    settings = SimpleNamespace(exclude=[], cache_dir=tmp_path / "cache", semantic=False)
    started: Any = SimpleNamespace(
        settings=settings,
        watcher=None,
        workspace=SimpleNamespace(text_documents={}),  # no buffer open
        reindexing=None,
        replaced_unsaved=[],
        new_folders=lambda: Folders(settings.cache_dir, settings.exclude, False),
    )
    started.folders = started.new_folders()
    lifecycle.add_folders(started)
    return started


def change_exclude(server: Any, exclude: list[str]) -> None:
    before = lifecycle._index_settings(server)
    server.settings.exclude = exclude
    lifecycle._reconfigure_indexes(server, before)


async def spawned_tasks_done(within: float = 10.0) -> None:
    """Wait for what the server spawned; one still waiting after `within` seconds would wait for ever."""
    deadline = asyncio.get_running_loop().time() + within
    while tasks._running and asyncio.get_running_loop().time() < deadline:
        await asyncio.wait(list(tasks._running), timeout=0.1)
    assert not tasks._running, [task.get_coro() for task in tasks._running]


def slow_saves(monkeypatch: pytest.MonkeyPatch, events: list[str], seconds: float) -> None:
    """A large root's save, which outlasts what comes next."""
    save = Folders.persist_all

    async def slow_save(self: Folders) -> None:
        events.append("save starts")
        await asyncio.sleep(seconds)
        await save(self)
        events.append("save ends")

    monkeypatch.setattr(Folders, "persist_all", slow_save)


async def test_two_changes_in_a_row_build_the_last_settings_folders_once_after_both_saves(
    server: Any, root: Path, built: Counter[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    slow_saves(monkeypatch, events, 0.3)
    change_exclude(server, ["build/**"])
    await asyncio.sleep(0.05)
    skipped = server.folders
    skipped.buffer_changed(root / "app.py", "def start_server(port):\n    return bind(port)\n")
    change_exclude(server, ["dist/**"])
    await spawned_tasks_done()  # the keystroke's flush on the skipped folders among them: it must not wait for ever
    assert built == {root.resolve(): 1}
    assert events == ["save starts", "save ends", "save starts", "save ends"]
    (skipped_folder,) = skipped.folders.values()
    assert skipped_folder.ready.is_set() and skipped_folder.error


async def test_a_folder_added_while_the_save_runs_is_built_once(
    server: Any, root: Path, tmp_path: Path, built: Counter[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    other = write_tree(tmp_path / "other", {"lib.py": "def helper():\n    return 1\n"})
    slow_saves(monkeypatch, [], 0.3)
    change_exclude(server, ["build/**"])
    await asyncio.sleep(0.05)
    lifecycle.start_building(server, server.folders.add(other))  # what `didChangeWorkspaceFolders` does
    await spawned_tasks_done()
    assert built == {root.resolve(): 1, other.resolve(): 1}


@pytest.fixture
def a_build_waiting_to_be_saved(server: Any, monkeypatch: pytest.MonkeyPatch) -> Folder:
    monkeypatch.setattr(folders_module, "PERSIST_AFTER_SECONDS", 60.0)
    (folder,) = server.folders.folders.values()
    return folder


async def test_an_exit_while_replaced_folders_wait_to_be_saved_saves_them(
    server: Any, a_build_waiting_to_be_saved: Folder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`exit` saved only the new settings' folders: a cold build the old ones had not saved yet was lost."""
    old = a_build_waiting_to_be_saved
    await server.folders.build(old)
    assert old.index.persisted != old.index.generation

    async def stalled_save(self: Folders) -> None:  # the exit comes before this save starts
        await asyncio.sleep(60)

    monkeypatch.setattr(Folders, "persist_all", stalled_save)
    change_exclude(server, ["build/**"])
    await asyncio.sleep(0.05)
    server.folders.persist_pending_now()  # what `exit` did before
    assert old.index.persisted != old.index.generation
    lifecycle.save_at_exit(server)
    assert old.index.persisted == old.index.generation
    server.reindexing.cancel()


async def test_a_shutdown_during_the_save_waits_for_it_and_builds_nothing_after(
    server: Any, a_build_waiting_to_be_saved: Folder, built: Counter[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It built the new settings' folders it had just stopped, after answering."""
    old = a_build_waiting_to_be_saved
    await server.folders.build(old)
    events: list[str] = []
    slow_saves(monkeypatch, events, 0.3)
    change_exclude(server, ["build/**"])
    await lifecycle.save_at_shutdown(server)
    # the replaced folders' save, then its own, not the two at once
    assert events == ["save starts", "save ends", "save starts", "save ends"]
    assert old.index.persisted == old.index.generation
    await spawned_tasks_done()
    assert not built
    (stopped,) = server.folders.folders.values()
    assert stopped.ready.is_set() and stopped.error == "indexing was stopped"
