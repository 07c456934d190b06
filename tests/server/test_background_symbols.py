"""The symbol index is built in the background after indexing, a slice at a time, and waits while searches run;
what starts at `ready` (it, and the embedding) waits for the first search, an edit's embedding only for typing.

In-process on `Folders` (no LSP needed): whether the build waited is internal state a client cannot see, and
the figure it protects (the first search after a restart) is measured in `bench.server`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from smartsearch_ls.search.symbols.index import SymbolIndex, symbol_index
from smartsearch_ls.server import folders as folders_module
from smartsearch_ls.server.folders import Folders
from tests.conftest import SAMPLE_PROJECT, write_tree


@pytest.fixture
def slices(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records every background slice (its file limit) while letting it run."""
    calls: list[int] = []
    prepare = SymbolIndex.prepare

    def recording(self: SymbolIndex, limit: int) -> bool:
        calls.append(limit)
        return prepare(self, limit)

    monkeypatch.setattr(SymbolIndex, "prepare", recording)
    return calls


async def test_the_symbol_index_waits_for_running_searches_then_is_built(tmp_path: Path, slices: list[int]) -> None:
    folders = Folders(cache_dir=None, semantic=False)
    folder = folders.add(write_tree(tmp_path / "project", SAMPLE_PROJECT))
    folders.search_started()
    await folders.build(folder)
    assert folder.symbols is not None
    await asyncio.sleep(0.3)
    assert not slices and not folder.symbols.done(), "the symbol index was built while a search ran"
    folders.search_finished()
    await asyncio.wait_for(folder.symbols, 10)
    symbols = symbol_index(folder.index, synced=False)
    assert slices and symbols.generation == folder.index.generation and symbols.sorted_names
    assert symbols.prepare(1), "the background build stopped before the graph"


async def test_the_symbol_index_waits_for_the_first_search_to_end_or_a_quiet_start(
    tmp_path: Path, slices: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Begun at `ready`, it took the interpreter from the first search of a restart, which arrives just after."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    folders = Folders(cache_dir=None, semantic=False)
    folder = folders.add(root)
    await folders.build(folder)
    await asyncio.sleep(0.3)
    assert folder.symbols is not None and not slices, "the symbol index was built before the first search came"
    folders.search_started()
    folders.search_finished()
    await asyncio.wait_for(folder.symbols, 10)
    assert slices

    monkeypatch.setattr(folders_module, "QUIET_START_SECONDS", 0.3)
    slices.clear()
    quiet = Folders(cache_dir=None, semantic=False)
    folder = quiet.add(root)
    await quiet.build(folder)
    assert folder.symbols is not None
    await asyncio.wait_for(folder.symbols, 10)  # no search came: it started once the quiet start had passed
    assert slices


async def test_removing_the_folder_stops_its_symbol_build(tmp_path: Path, slices: list[int]) -> None:
    folders = Folders(cache_dir=None, semantic=False)
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    folder = folders.add(root)
    folders.search_started()
    await folders.build(folder)
    folders.remove(root)
    folders.search_finished()
    assert folder.symbols is not None
    with pytest.raises(asyncio.CancelledError):
        await folder.symbols
    assert not slices


async def test_an_edit_s_embedding_waits_for_typing_to_pause_not_for_a_first_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the work begun at `ready` waits for the first search (`_quiet_start`); an edit's pass already waited for
    typing to pause, and must not wait a quiet start more when no search has come yet."""
    monkeypatch.setattr(folders_module, "QUIET_START_SECONDS", 0.1)
    monkeypatch.setattr(folders_module, "EMBED_AFTER_EDIT_SECONDS", 0.1)
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    folders = Folders(cache_dir=None, semantic=True)
    folder = folders.add(root)
    await folders.build(folder)
    assert folder.embedding is not None
    await asyncio.wait_for(folder.embedding, 60)  # the pass begun at `ready`, after its quiet start
    monkeypatch.setattr(folders_module, "QUIET_START_SECONDS", 600.0)
    (root / "auth" / "sessions.py").write_text("def drop_all(store):\n    store.clear()\n")
    folders.disk_changed(folder.index.root, ["auth/sessions.py"])
    await folders.flush(folder)
    assert folder.embedding is not None and not folder.embedding.done()
    await asyncio.wait_for(folder.embedding, 30)  # no search came, and the pass did not wait for one
    folders.remove(root)
