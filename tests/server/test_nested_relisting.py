"""The re-listing of a folder when a workspace folder nested in it comes or goes, in-process on `Folders`: a search
waits for it (up to its bound, a keystroke pending in that folder included), it is skipped when a listing already saw
the change, and one that fails or is cancelled leaves no search waiting or told "complete" over a half-moved folder.
(`test_nested_folders.py` drives the same over stdio.)"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.server import tasks
from smartsearch_ls.server.features.query import wait_and_flush, wait_for_indexes
from smartsearch_ls.server.folders import Folder, Folders
from tests.conftest import write_tree

TREE = {
    "app/main.py": "def start_server(port):\n    return listen(port)\n",
    "app/lib/retry.py": "def retry_request(send, attempts):\n    return [send() for _ in range(attempts)]\n",
}


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> Counter[Path]:
    """How many times each root was listed."""
    counted: Counter[Path] = Counter()
    refresh = RootIndex.refresh

    def counting(self: RootIndex, *args: Any, **kwargs: Any) -> Any:
        counted[self.root] += 1
        return refresh(self, *args, **kwargs)

    monkeypatch.setattr(RootIndex, "refresh", counting)
    return counted


def _roots(tmp_path: Path) -> tuple[Path, Path]:
    root = write_tree(tmp_path / "ws", TREE)
    return (root / "app").resolve(), (root / "app" / "lib").resolve()


async def _relists_done(folder: Folder) -> None:
    await asyncio.wait_for(folder.listed.wait(), 10)


async def _search_sees(folders: Folders, *searched: Folder) -> tuple[list[str], bool]:
    server: Any = SimpleNamespace(folders=folders, settings=SimpleNamespace(index_wait=0.3))
    return await wait_for_indexes(server, [SimpleNamespace(index=f.index) for f in searched])  # type: ignore[list-item]


async def _held_re_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Folders, Folder, asyncio.Event]:
    """The outer folder built, then re-listed for the inner one coming, its listing held until the event is set."""
    outer_root, inner_root = _roots(tmp_path)
    folders = Folders(cache_dir=None, semantic=False)
    outer = folders.add(outer_root)
    await folders.build(outer)
    release = asyncio.Event()
    refresh = outer.index.refresh
    loop = asyncio.get_running_loop()

    def held(*args: Any, **kwargs: Any) -> Any:
        asyncio.run_coroutine_threadsafe(release.wait(), loop).result()
        return refresh(*args, **kwargs)

    monkeypatch.setattr(outer.index, "refresh", held)
    folders.add(inner_root)
    return folders, outer, release


async def test_a_folder_whose_build_lists_after_the_nested_one_came_is_not_listed_again(
    tmp_path: Path, listings: Counter[Path]
) -> None:
    outer_root, inner_root = _roots(tmp_path)
    folders = Folders(cache_dir=None, semantic=False)
    outer = folders.add(outer_root)
    inner = folders.add(inner_root)  # before the outer folder is built, as the folders of `initialize` are
    assert not outer.listed.is_set()
    await asyncio.gather(folders.build(outer), folders.build(inner))
    await _relists_done(outer)
    assert listings[outer_root] == 1 and listings[inner_root] == 1
    assert await _search_sees(folders, outer, inner) == ([], True)


async def test_a_failed_re_listing_makes_searches_say_the_folder_may_be_half_moved(
    tmp_path: Path, listings: Counter[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    outer_root, inner_root = _roots(tmp_path)
    folders = Folders(cache_dir=None, semantic=False)
    outer = folders.add(outer_root)
    await folders.build(outer)
    inner = folders.add(inner_root)
    await folders.build(inner)
    await _relists_done(outer)
    assert listings[outer_root] == 2  # the build, then the re-listing without lib's files

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise OSError("disk went away")

    monkeypatch.setattr(outer.index, "refresh", failing)
    folders.remove(inner_root)
    await _relists_done(outer)
    warnings, ready = await _search_sees(folders, outer)
    assert not ready and len(warnings) == 1 and "disk went away" in warnings[0], warnings
    monkeypatch.undo()
    folders.add(inner_root)  # the nesting changes again: this re-listing succeeds and the warning goes
    await _relists_done(outer)
    assert await _search_sees(folders, outer) == ([], True)


async def test_a_re_listing_cancelled_before_it_starts_leaves_no_search_waiting(tmp_path: Path) -> None:
    outer_root, inner_root = _roots(tmp_path)
    folders = Folders(cache_dir=None, semantic=False)
    outer = folders.add(outer_root)
    await folders.build(outer)
    folders.add(inner_root)
    pending = [t for t in tasks._running if t.get_coro().__name__ == "_relist"]  # type: ignore[union-attr]
    assert pending and not outer.listed.is_set()
    for task in pending:
        task.cancel()
    await asyncio.wait(pending)
    assert outer.listed.is_set() and outer.relists == 0


async def test_a_search_during_a_re_listing_waits_for_it_and_one_longer_than_the_bound_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders, outer, release = await _held_re_listing(tmp_path, monkeypatch)
    warnings, ready = await _search_sees(folders, outer)  # the bound passes with the re-listing held
    assert not ready and "being re-listed" in warnings[0], warnings
    waiting = asyncio.ensure_future(_search_sees(folders, outer))
    await asyncio.sleep(0.05)
    release.set()
    assert await waiting == ([], True)


async def test_a_keystroke_pending_in_a_folder_being_re_listed_does_not_hold_a_search_past_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders, outer, release = await _held_re_listing(tmp_path, monkeypatch)
    folders.buffer_changed(outer.index.root / "main.py", "def start_server(port):\n    return bind_socket(port)\n")
    server: Any = SimpleNamespace(folders=folders, settings=SimpleNamespace(index_wait=0.3))
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        warnings, ready = await asyncio.wait_for(wait_and_flush(server, [SimpleNamespace(index=outer.index)]), 5)
    finally:
        release.set()  # else a search held by the re-listing would wait for it here, for ever
    assert loop.time() - started < 2
    assert not ready and "being re-listed" in warnings[0], warnings
    await _relists_done(outer)
    assert await wait_and_flush(server, [SimpleNamespace(index=outer.index)]) == ([], True)
    assert any(s is not None and "bind_socket" in s.text for s in outer.index.snippets)  # the keystroke, applied


async def test_a_re_listing_pending_when_its_folder_is_stopped_lists_nothing(
    tmp_path: Path, listings: Counter[Path]
) -> None:
    """New index settings stop the folders they replace: a re-listing waiting for the folder's job still walked the
    whole tree of an index nobody would read again."""
    outer_root, inner_root = _roots(tmp_path)
    folders = Folders(cache_dir=None, semantic=False)
    outer = folders.add(outer_root)
    await folders.build(outer)
    async with outer.job:  # a flush or a save under way
        folders.add(inner_root)
        await asyncio.sleep(0.05)
        folders.stop_background()
    await _relists_done(outer)
    assert listings[outer_root] == 1  # its build only
