"""The persisted index under faults: damaged files are rebuilt, an unwritable cache only costs warmth, and two
servers on one root share it safely. Never a crash, never a wrong answer."""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import pytest
from lsprotocol import types

from smartsearch_ls.index import store
from smartsearch_ls.index.root_index import RootIndex
from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.faults import FaultServer, differences, launch, snapshot


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", SAMPLE_PROJECT)


def persisted(project: Path, cache: Path) -> Path:
    index = RootIndex(project, cache_dir=cache)
    index.refresh()
    assert index.persist()
    return store.index_path(cache, project)


def assert_rebuilt(project: Path, cache: Path) -> None:
    index = RootIndex(project, cache_dir=cache)
    assert index.load_persisted() is False  # not trusted
    stats = index.refresh()
    assert stats.read == stats.files  # rebuilt from the disk
    fresh = RootIndex(project)
    fresh.refresh()
    assert differences(snapshot(index), snapshot(fresh)) == []
    assert index.persist() and RootIndex(project, cache_dir=cache).load_persisted()  # and healed on disk


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:-40] + bytes(40), id="zeroed-tail"),
        pytest.param(lambda data: data[:100] + bytes([data[100] ^ 0xFF]) + data[101:], id="flipped-byte"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: b"\x80\x04garbage", id="garbage"),
    ],
)
def test_a_damaged_index_file_is_rebuilt(project: Path, tmp_path: Path, damage) -> None:
    path = persisted(project, tmp_path / "cache")
    path.write_bytes(damage(path.read_bytes()))
    assert_rebuilt(project, tmp_path / "cache")


def test_an_index_from_another_format_is_rebuilt(project: Path, tmp_path: Path) -> None:
    path = persisted(project, tmp_path / "cache")
    payload = store.load(path)
    assert payload is not None
    data = pickle.dumps(payload)
    path.write_bytes(store.header(data, store.FORMAT + 1) + data)
    assert_rebuilt(project, tmp_path / "cache")


def test_an_index_of_the_wrong_shape_is_rebuilt(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    persisted(project, cache)
    store.save(store.index_path(cache, project), {"root": str(project.resolve()), "files": [], "snippets": {}})
    assert_rebuilt(project, cache)


def test_stale_temporary_files_of_killed_persists_are_removed_on_start(project: Path, tmp_path: Path) -> None:
    """A persist killed mid-write leaves its temporary file (up to the index's size); one still being written by
    another process on the same cache is young and stays."""
    cache = tmp_path / "cache"
    path = persisted(project, cache)
    stale = [path.parent / f"{path.name}killed{n}.tmp" for n in range(3)]
    for leftover in stale:
        leftover.write_bytes(b"half an index")
        os.utime(leftover, (time.time() - 3600, time.time() - 3600))
    writing = path.parent / f"{path.name}writing.tmp"
    writing.write_bytes(b"being written")
    assert RootIndex(project, cache_dir=cache).load_persisted()
    assert [p for p in stale if p.exists()] == [] and writing.exists()


def test_a_fifo_at_the_index_path_is_rebuilt_without_blocking(
    project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    path = persisted(project, cache)
    path.unlink()
    os.mkfifo(path)
    with ThreadPoolExecutor(1) as pool:
        loading = pool.submit(RootIndex(project, cache_dir=cache).load_persisted)
        try:
            assert loading.result(timeout=10) is False
        except FutureTimeout:
            with open(path, "wb"):  # a writer lets the blocked reader go, so the test can end
                pass
            raise AssertionError("loading the index blocked on a FIFO") from None
    assert "not a regular file" in caplog.text
    assert_rebuilt(project, cache)


def test_a_link_to_dev_zero_at_the_index_path_is_rebuilt(project: Path, tmp_path: Path) -> None:
    """Read whole, /dev/zero fills memory: the command line runs with its address space capped at 3 GB, so a
    reader that follows the link fails with a MemoryError rather than push the machine into swap."""
    cache = tmp_path / "cache"
    path = persisted(project, cache)
    path.unlink()
    path.symlink_to("/dev/zero")

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    command = [sys.executable, "-c", "from smartsearch_ls.cli import main; main()", "query", "SessionStore.get"]
    command += ["--root", str(project), "--cache-dir", str(cache)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, preexec_fn=capped, check=False)
    assert done.returncode == 0 and done.stdout.startswith("auth/sessions.py"), done.stderr[-2000:]
    assert "not a regular file" in done.stderr  # the reason, logged
    assert not path.is_symlink() and RootIndex(project, cache_dir=cache).load_persisted()  # healed on disk


def _short_of_snippets(payload: dict) -> None:
    payload["snippets"] = payload["snippets"][:2]


def _entry_names_a_retired_snippet(payload: dict) -> None:
    entry = payload["files"]["auth/sessions.py"]
    payload["snippets"][entry.docs[0]] = None


def _entry_names_another_files_snippet(payload: dict) -> None:
    files = payload["files"]
    files["auth/sessions.py"].docs = files["config/loader.py"].docs


def _postings_name_a_missing_snippet(payload: dict) -> None:
    bm25 = payload["bm25"]
    bm25.add({"phantom": 1}, ())
    bm25.lengths.pop()
    bm25.alive.pop()


INCONSISTENT = [
    _short_of_snippets,
    _entry_names_a_retired_snippet,
    _entry_names_another_files_snippet,
    _postings_name_a_missing_snippet,
]


@pytest.mark.parametrize("damage", INCONSISTENT)
def test_an_index_with_a_valid_checksum_but_inconsistent_contents_is_rebuilt(
    project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, damage
) -> None:
    """The checksum proves the bytes are what was written, not that what was written agrees with itself: such an
    index failed every run with an IndexError until the cache was deleted."""
    cache = tmp_path / "cache"
    path = persisted(project, cache)
    payload = store.load(path)
    assert payload is not None
    damage(payload)
    assert store.save(path, payload)
    with caplog.at_level(logging.WARNING):
        assert_rebuilt(project, cache)
    assert "inconsistent" in caplog.text


def test_an_unwritable_cache_only_costs_warmth(project: Path, tmp_path: Path) -> None:
    """The cache directory's parent is a regular file: nothing can be created there, even by root."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache's parent folder should be\n")
    index = RootIndex(project, cache_dir=blocker / "cache")
    assert index.load_persisted() is False
    index.refresh()
    assert index.persist() is False  # refused, logged, not raised
    assert index.snippet_count > 0


async def test_the_server_works_with_an_unwritable_cache(
    project: Path, fault_judge: FaultServer, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x\n")
    server = await launch(
        project, fault_judge, tmp_path / "xdg", settings={"cacheDir": str(blocker / "cache"), "semantic": False}
    )
    try:
        await server.wait_for_log("index ready")
        result = await server.query(query="parse config file", mode="behavior")
        assert result.matches[0].path == "config/loader.py" and result.coverage.complete
    finally:
        await server.stop()


async def test_the_server_rebuilds_a_damaged_index(project: Path, fault_judge: FaultServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = persisted(project, cache)
    path.write_bytes(path.read_bytes()[:200])
    server = await launch(project, fault_judge, tmp_path / "xdg", settings={"cacheDir": str(cache), "semantic": False})
    try:
        message = await server.wait_for_log("index ready")
        assert "8 files read" in message  # every file read again: a cold rebuild, not the damaged copy
        assert "warning" not in message
        result = await server.query(query="SessionStore.get")
        assert result.matches[0].path == "auth/sessions.py"
    finally:
        await server.stop()
    assert RootIndex(project, cache_dir=cache).load_persisted()  # the damaged file was replaced


async def test_two_servers_on_one_root_share_the_cache_safely(
    project: Path, fault_judge: FaultServer, tmp_path: Path
) -> None:
    cache = tmp_path / "shared-cache"
    settings = {"cacheDir": str(cache), "semantic": False}
    first, second = await asyncio.gather(
        launch(project, fault_judge, tmp_path / "xdg1", settings=settings),
        launch(project, fault_judge, tmp_path / "xdg2", settings=settings),
    )
    try:
        await asyncio.gather(first.wait_for_log("index ready"), second.wait_for_log("index ready"))
        # both edit and persist while both search
        (project / "billing/refunds.py").write_text("def refund_invoice(invoice):\n    return -invoice.total\n")
        for server in (first, second):
            server.client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[
                        types.FileEvent(
                            uri=(project / "billing/refunds.py").as_uri(), type=types.FileChangeType.Created
                        )
                    ]
                )
            )
        queries = [s.query(query="refund the invoice", mode="behavior") for s in (first, second)]
        answers = await asyncio.gather(*queries)
        for answer in answers:
            assert answer.matches[0].path == "billing/refunds.py"
        assert [m.path for m in answers[0].matches] == [m.path for m in answers[1].matches]
    finally:
        await asyncio.gather(first.stop(), second.stop())  # both persist at shutdown, at the same moment
    index = RootIndex(project, cache_dir=cache)
    assert index.load_persisted()  # one whole index, not a mix of two
    assert index.refresh().read == 0  # and it is the current one: nothing to re-read
