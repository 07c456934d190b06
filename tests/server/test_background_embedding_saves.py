"""Background embedding saves the vectors it stored, and only then.

In-process on `Folders`: a pass that finds nothing to embed reports nothing a client could wait on, so over LSP
a test cannot tell whether the pass had ended before it looked; awaiting the pass's task can.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from smartsearch_ls.index import store
from smartsearch_ls.index.dense import DenseIndex, StoredVectors
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.server.folders import Folders
from tests.conftest import SAMPLE_PROJECT, write_tree


async def embedded_to_the_end(root: Path, cache: Path) -> None:
    """A new `Folders` on `root`, until its background embedding has run to its end (its last save included); then
    everything is saved and the folder dropped, which stops its other background work (the symbol index), as a
    server's shutdown would."""
    folders = Folders(cache_dir=cache, semantic=True)
    folder = folders.add(root)
    await folders.build(folder)
    assert folder.embedding is not None, "the build started no background embedding"
    await folder.embedding
    await folders.persist_all()  # as a server's shutdown does: the next `Folders` starts warm
    folders.remove(root)


async def test_a_restart_with_every_snippet_embedded_leaves_the_saved_vectors_as_they_were(tmp_path: Path) -> None:
    """It saved the whole vectors file again: on a large root, a restart's first seconds spent rewriting every
    vector beside its first search."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    cache = tmp_path / "cache"
    await embedded_to_the_end(root, cache)
    (saved,) = (cache / "dense").iterdir()
    written = saved.stat().st_ino, saved.stat().st_mtime_ns
    await embedded_to_the_end(root, cache)
    assert (saved.stat().st_ino, saved.stat().st_mtime_ns) == written
    (root / "auth" / "tokens.py").write_text("def mint_token(user):\n    return f'token-{user}'\n")
    await embedded_to_the_end(root, cache)  # a new snippet's vector: saved
    assert saved.stat().st_ino != written[0]


async def test_a_restart_reads_its_vectors_beside_its_index_and_adopts_every_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read after the index's load, they made a restart of a large root later to be ready by their whole read."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    cache = tmp_path / "cache"
    await embedded_to_the_end(root, cache)
    reading = threading.Event()
    plain_store_load, plain_load_persisted = store.load, RootIndex.load_persisted

    def store_load(path: Path, **options: object) -> object:
        if path.parent.name == "dense":
            reading.set()
        return plain_store_load(path, **options)  # type: ignore[arg-type]

    overlapped: list[bool] = []

    def load_persisted(index: RootIndex) -> bool:
        overlapped.append(reading.wait(3))
        return plain_load_persisted(index)

    monkeypatch.setattr(store, "load", store_load)
    monkeypatch.setattr(RootIndex, "load_persisted", load_persisted)
    folders = Folders(cache_dir=cache, semantic=True)
    folder = folders.add(root)
    await folders.build(folder)
    assert overlapped == [True]
    assert folder.error is None and folder.dense is not None
    embedded, total = folder.dense.progress()
    assert embedded == total > 0
    folders.remove(root)


async def test_a_cold_rebuild_does_not_hold_the_vectors_read_beside_its_failed_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged index is rebuilt, the process's peak of memory: the vectors read beside the load that failed must not
    be held through it, and are still every one adopted after it."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    cache = tmp_path / "cache"
    await embedded_to_the_end(root, cache)
    stored = next((cache / "index").iterdir())
    stored.write_bytes(stored.read_bytes()[:100])
    plain_read, plain_refresh = DenseIndex.read_persisted, RootIndex.refresh
    read: list[int] = []
    read_once = threading.Event()

    def read_persisted(dense: DenseIndex) -> StoredVectors | None:
        vectors = plain_read(dense)
        read.append(id(vectors))
        read_once.set()
        return vectors

    held_during_build: list[int] = []

    def refresh(index: RootIndex, *args: object, **options: object) -> object:
        assert read_once.wait(3)  # the read beside the load has ended, kept or dropped
        gc.collect()
        held_during_build.append(sum(isinstance(o, StoredVectors) and id(o) in read for o in gc.get_objects()))
        return plain_refresh(index, *args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(DenseIndex, "read_persisted", read_persisted)
    monkeypatch.setattr(RootIndex, "refresh", refresh)
    folders = Folders(cache_dir=cache, semantic=True)
    folder = folders.add(root)
    await folders.build(folder)
    assert held_during_build == [0]
    assert folder.error is None and folder.dense is not None
    embedded, total = folder.dense.progress()
    assert embedded == total > 0
    folders.remove(root)
