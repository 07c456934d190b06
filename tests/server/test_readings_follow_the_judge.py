"""A change of judge reaches every folder's embedding of readings, whatever the folder is doing at that moment.

In-process on `Folders`, where the moment can be chosen: during a folder's build (its dense index exists, the
folder does not hold it yet), and while a background pass that found nothing left is saving its vectors.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.server.folders import Folder, Folders
from tests.conftest import SAMPLE_PROJECT, write_tree


def readings_saved(root: Path, cache: Path) -> int:
    """How many readings the root's saved vectors hold."""
    stored = DenseIndex(RootIndex(root.resolve(), cache_dir=cache)).read_persisted()
    assert stored is not None, "no vectors were saved"
    return len(stored.read.held())


async def passes_ended(folder: Folder) -> None:
    """Until the folder's background embedding, and any pass queued after it, has ended."""
    while folder.embedding is not None and not folder.embedding.done():
        await asyncio.wait([folder.embedding])
        await asyncio.sleep(0)  # a pass queued by the one that ended starts on the loop's next turn


async def test_a_change_to_local_during_a_build_reaches_that_folder(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    cache = tmp_path / "cache"
    folders = Folders(cache_dir=cache, semantic=True, reads_readings=False)
    folder = folders.add(root)
    building = asyncio.create_task(folders.build(folder))
    await asyncio.sleep(0)  # the build has made its dense index and awaits its first step
    assert folder.dense is None
    folders.read_for(True)
    await building
    await passes_ended(folder)
    assert readings_saved(root, cache) > 0
    folders.remove(root)


async def saving_with_nothing_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Folders, Folder, threading.Event]:
    """A built folder of a model judge whose background pass has embedded every snippet's own vector and is held in
    its final save until the returned event is set."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    folders = Folders(cache_dir=tmp_path / "cache", semantic=True, reads_readings=False)
    folder = folders.add(root)
    saving, release = threading.Event(), threading.Event()
    plain_persist = DenseIndex.persist

    def held_persist(dense: DenseIndex, *, only_if_changed: bool = False) -> bool:
        if folder.embedding is not None and not folder.embedding.done():  # the pass's save, not the index's
            saving.set()
            release.wait(10)
        return plain_persist(dense, only_if_changed=only_if_changed)

    monkeypatch.setattr(DenseIndex, "persist", held_persist)
    await folders.build(folder)
    assert await asyncio.to_thread(saving.wait, 30)
    return folders, folder, release


async def test_a_change_to_local_while_a_finished_pass_saves_starts_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders, folder, release = await saving_with_nothing_left(tmp_path, monkeypatch)
    folders.read_for(True)
    release.set()
    await passes_ended(folder)
    assert readings_saved(folder.index.root, tmp_path / "cache") > 0
    folders.remove(folder.index.root)


async def test_a_folder_stopped_after_a_change_to_local_starts_no_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pass a change queues after the one under way must not start on a folder removed (or replaced by new
    settings, or shut down) meanwhile: it would embed a whole root nobody searches any more."""
    folders, folder, release = await saving_with_nothing_left(tmp_path, monkeypatch)
    folders.read_for(True)
    folder.stop_background()  # as removing the folder, new settings or `shutdown` do
    release.set()
    await passes_ended(folder)
    assert folder.dense is not None
    embedded, total = folder.dense.progress()  # the readings count now, and none was embedded
    assert embedded < total
