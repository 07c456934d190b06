"""When a folder's index is saved: after a build or changes, a few seconds later, and not postponed forever by changes
that keep coming.

In-process on `Folders`, with the delays shortened, so a test can watch the saved file appear: the saves run on the
event loop's timers, which no LSP message reports.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.server import folders as folders_module
from smartsearch_ls.server.folders import Folder, Folders
from tests.conftest import SAMPLE_PROJECT, write_tree


def saved_index(cache: Path) -> Path | None:
    directory = cache / "index"
    found = [p for p in directory.iterdir() if p.suffix != ".tmp"] if directory.is_dir() else []
    return found[0] if found else None


async def until_saved(cache: Path, within: float) -> float:
    """Seconds until the index file appears (AssertionError after `within`)."""
    started = time.monotonic()
    while saved_index(cache) is None:
        assert time.monotonic() - started < within, f"no index saved within {within} s"
        await asyncio.sleep(0.02)
    return time.monotonic() - started


async def built(tmp_path: Path, *, semantic: bool = False) -> tuple[Folders, Folder, Path, Path]:
    """A `Folders` with the sample project built in it, cold, saving under `tmp_path / "cache"`."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    cache = tmp_path / "cache"
    folders = Folders(cache_dir=cache, semantic=semantic)
    folder = folders.add(root)
    await folders.build(folder)
    return folders, folder, root, cache


@pytest.fixture
def short_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folders_module, "PERSIST_AFTER_SECONDS", 0.3)
    monkeypatch.setattr(folders_module, "PERSIST_AT_MOST_AFTER_SECONDS", 1.0)


async def test_a_build_is_saved_after_the_folder_is_ready_not_before(tmp_path: Path, short_delays: None) -> None:
    folders, folder, root, cache = await built(tmp_path)
    assert folder.ready.is_set() and saved_index(cache) is None
    await until_saved(cache, within=5)
    folders.remove(root)


async def test_changes_that_keep_coming_postpone_the_save_only_so_long(tmp_path: Path, short_delays: None) -> None:
    """A tool rewriting files more often than the save's delay held the first save of a cold build back for as long
    as it ran; a server ended without `shutdown` then lost the whole build."""
    folders, _folder, root, cache = await built(tmp_path)
    target = root / "auth" / "tokens.py"
    started = time.monotonic()
    for round_ in range(50):  # each change applied on its own (they come slower than a burst settles)
        if saved_index(cache) is not None:
            break
        target.write_text(f"def mint_token(user):\n    return f'token-{{user}}-{round_}'\n")
        folders.disk_changed(root, ["auth/tokens.py"])
        await asyncio.sleep(0.2)
    assert saved_index(cache) is not None, "changes every 0.2 s held the save back for 10 s"
    assert time.monotonic() - started < 3
    folders.remove(root)


async def test_an_exit_without_shutdown_saves_what_was_waiting(tmp_path: Path, short_delays: None) -> None:
    folders, _folder, _root, cache = await built(tmp_path)
    assert saved_index(cache) is None
    folders.stop_background()
    folders.persist_pending_now()
    assert saved_index(cache) is not None


async def test_a_folder_removed_before_its_save_is_saved_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removed (the folder closed in the editor), it kept its timer: saved only when that
    fired, and a folder added again meanwhile started cold."""
    monkeypatch.setattr(folders_module, "PERSIST_AFTER_SECONDS", 60.0)
    folders, _folder, root, cache = await built(tmp_path)
    folders.remove(root)
    await until_saved(cache, within=5)


async def test_a_save_waits_for_the_search_running_when_it_is_due(tmp_path: Path, short_delays: None) -> None:
    """The save locks the index every search reads: started under a search, it held that search up."""
    folders, _folder, root, cache = await built(tmp_path)
    folders.search_started()
    await asyncio.sleep(1.0)
    assert saved_index(cache) is None, "saved while a search ran"
    folders.search_finished()
    await until_saved(cache, within=5)
    folders.remove(root)


async def test_changes_during_a_long_search_past_the_deadline_queue_one_save_not_one_each(
    tmp_path: Path, short_delays: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the deadline every change armed a save at once; each waited for the search, then each took the folder's
    lock in turn after it, holding keystrokes and the next search behind rewrites of the whole index."""
    folders, _folder, root, cache = await built(tmp_path)
    await until_saved(cache, within=5)
    saves: list[float] = []
    persist = RootIndex.persist

    def counted(index: RootIndex, **options: Any) -> bool:
        saves.append(time.monotonic())
        return persist(index, **options)

    monkeypatch.setattr(RootIndex, "persist", counted)
    target = root / "auth" / "tokens.py"
    folders.search_started()  # a search with a hosted judge: seconds
    for round_ in range(12):
        target.write_text(f"def mint_token(user):\n    return f'token-{{user}}-{round_}'\n")
        folders.disk_changed(root, ["auth/tokens.py"])
        await asyncio.sleep(0.2)
    assert not saves, "saved while a search ran"
    folders.search_finished()
    await asyncio.sleep(1.5)
    assert len(saves) == 1, f"{len(saves)} saves after the search"
    folders.remove(root)


async def test_a_build_whose_last_steps_fail_is_still_saved(
    tmp_path: Path, short_delays: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index was brought up to date; a failure after that (here the vectors' load) must not cost its save."""

    def broken(dense: object, stored: object) -> None:
        raise RuntimeError("the vectors could not be loaded")

    monkeypatch.setattr(folders_module.DenseIndex, "adopt", broken)
    folders, folder, root, cache = await built(tmp_path, semantic=True)
    assert folder.error is not None
    await until_saved(cache, within=5)
    folders.remove(root)


async def test_a_folder_removed_and_added_again_at_once_starts_warm(tmp_path: Path, short_delays: None) -> None:
    """The new folder loaded the index beside the removed one's save: cold, every file read again."""
    folders, _, root, _ = await built(tmp_path)
    folders.remove(root)
    again = folders.add(root)
    await folders.build(again)
    assert again.stats is not None and again.stats.read == 0
    folders.remove(root)
