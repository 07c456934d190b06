"""File churn while the index is built and searched: afterwards the index equals the disk.

Engine level: one thread builds a root's index (`refresh`, which deals 1,000 files to worker processes),
another creates, modifies, renames and deletes files and reports each burst with `apply_changes` (as the
server's watcher does, after the change), a third runs shortlists all along. When all three are done, every
file's snippets, declarations and skip reason must be exactly those of a fresh index of the same disk.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

from smartsearch_ls.discovery.reading import SkipReason
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope, shortlist
from tests.support.faults import FaultServer, differences, launch, poll, snapshot
from tests.support.sessions import NEOVIM

FILES = 1_000


def source(n: int, version: int) -> str:
    return (
        f"def churn_{n}_v{version}(value):\n"
        f"    '''Version {version} of churn function {n}.'''\n"
        f"    return value * {n} + {version}\n"
    )


class Churner:
    """Creates, modifies, renames and deletes files, telling the index after each burst."""

    def __init__(self, root: Path, index: RootIndex, seed: int) -> None:
        self.root = root
        self.index = index
        self.random = random.Random(seed)
        self.version: dict[str, int] = {}
        self.next_id = FILES
        self.operations = 0

    def create_all(self) -> None:
        for n in range(FILES):
            self.write(f"pkg{n % 20}/f{n:04d}.py", n)

    def write(self, path: str, n: int) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        version = self.version.get(path, -1) + 1
        target.write_text(source(n, version))
        self.version[path] = version

    def burst(self, size: int = 25) -> None:
        self.index.apply_changes(self.burst_on_disk(size))

    def burst_on_disk(self, size: int = 25) -> list[str]:
        """Change `size` files on disk; the paths touched."""
        touched: list[str] = []
        for _ in range(size):
            paths = list(self.version)
            action = self.random.choice(["create", "modify", "modify", "rename", "delete"])
            path = self.random.choice(paths)
            n = int(path.rsplit("f", 1)[1].removesuffix(".py"))
            if action == "create":
                new = f"new/f{self.next_id:04d}.py"
                self.write(new, self.next_id)
                self.next_id += 1
                touched.append(new)
            elif action == "modify":
                self.write(path, n)
                touched.append(path)
            elif action == "rename":
                new = f"moved/f{n:04d}.py"
                if new in self.version:
                    continue
                (self.root / new).parent.mkdir(parents=True, exist_ok=True)
                os.rename(self.root / path, self.root / new)
                self.version[new] = self.version.pop(path)
                touched += [path, new]
            else:
                (self.root / path).unlink()
                del self.version[path]
                touched.append(path)
            self.operations += 1
        return touched


def test_churn_during_the_build_and_searches_leaves_the_index_equal_to_the_disk(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    index = RootIndex(root)
    churner = Churner(root, index, seed=7)
    churner.create_all()
    errors: list[BaseException] = []
    building = threading.Event()
    built = threading.Event()

    def guarded(work: Any) -> Any:
        def run() -> None:
            try:
                work()
            except BaseException as error:  # reported by the main thread
                errors.append(error)

        return run

    def build() -> None:
        building.set()
        index.refresh()
        built.set()

    def churn() -> None:
        building.wait()
        while not built.is_set():
            churner.burst()
        for _ in range(4):  # and a few bursts after the build, while searches still run
            churner.burst()

    searches = 0

    def search() -> None:
        nonlocal searches
        building.wait()
        while not built.is_set() or searches < 20:
            found = shortlist([Scope(index)], "churn function value version", 16)
            assert found.files >= 0 and len(found.candidates) <= 16
            searches += 1
            time.sleep(0.01)

    threads = [threading.Thread(target=guarded(w)) for w in (build, churn, search)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    assert not errors, errors
    assert churner.operations >= 100, f"only {churner.operations} changes overlapped the build"

    fresh = RootIndex(root)
    fresh.refresh()
    assert len(fresh.files) == len(churner.version)
    assert differences(snapshot(index), snapshot(fresh)) == []
    assert not index.skipped(), "files that exist were counted as skipped"


def test_a_file_deleted_between_listing_and_reading_is_skipped_not_an_error(tmp_path: Path) -> None:
    root = tmp_path / "project"
    for n in range(120):  # few enough files to be read in-process, so the progress callback runs between reads
        (root / f"f{n:03d}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / f"f{n:03d}.py").write_text(source(n, 0))
    index = RootIndex(root)
    doomed = [root / f"f{n:03d}.py" for n in range(60, 120)]
    deleted: list[Path] = []

    def delete_unread(done: int, total: int) -> None:
        if not deleted:  # after the first 50 files, delete files listed but not read yet
            for path in doomed:
                path.unlink()
            deleted.extend(doomed)

    stats = index.refresh(delete_unread)
    assert deleted and stats.files == 120
    skipped = index.skipped()
    assert set(skipped) == {SkipReason.VANISHED}  # counted under their reason, not an error
    vanished = {p for p, e in index.entries() if e.skipped is SkipReason.VANISHED}
    read_before = {p for p, e in index.entries() if e.docs and not (root / p).exists()}
    assert vanished | read_before == {p.name for p in deleted} and skipped[SkipReason.VANISHED] == len(vanished)
    # The watcher reports the deletions afterwards; then the index equals the disk.
    index.apply_changes(p.name for p in deleted)
    fresh = RootIndex(root)
    fresh.refresh()
    assert differences(snapshot(index), snapshot(fresh)) == []


async def test_churn_against_the_real_server_settles_to_the_disk(fault_judge: FaultServer, tmp_path: Path) -> None:
    """The same churn against the real server with its own watcher (a Neovim-like client), while it builds
    its first index and answers searches; then every file's function is found, and no gone one is."""
    root = tmp_path / "project"
    root.mkdir()
    churner = Churner(root, RootIndex(root), seed=11)
    churner.create_all()
    churner.index = None  # type: ignore[assignment]  # the server's watcher reports the changes now
    server = await launch(root, fault_judge, tmp_path / "cache", capabilities=NEOVIM, settings={"semantic": False})
    try:
        gone: set[str] = set()

        def burst() -> None:
            before = dict(churner.version)
            churner.burst_on_disk()
            for path, version in before.items():
                if churner.version.get(path) != version:
                    gone.add(function_name(path, version))

        searches = []
        for round_ in range(12):  # about the first index build, then a while longer
            await asyncio.to_thread(burst)
            searches.append(
                asyncio.ensure_future(server.query(query=f"churn function value version {round_}", candidates=8))
            )
            searches.append(asyncio.ensure_future(server.query(query="churn_5_v0")))
            await asyncio.sleep(0.1)
        for result in await asyncio.gather(*searches):  # every search during the churn got an answer
            assert result.mode in ("behavior", "symbol")
        await server.wait_for_log("index ready")
        assert churner.operations >= 200

        fresh = RootIndex(root)
        fresh.refresh()
        assert len(fresh.files) == len(churner.version)
        want = snapshot(fresh)
        cache = tmp_path / "cache" / "smartsearch-ls"
        started = time.monotonic()
        left: list[str] = []

        def persisted_equals_disk() -> bool:
            """The server persists its live index a few seconds after applying changes: read it from outside."""
            served = RootIndex(root, cache_dir=cache)
            left[:] = differences(snapshot(served), want) if served.load_persisted() else ["nothing persisted"]
            return not left

        try:
            await poll(persisted_equals_disk, 40, "the server's index settling to the disk", every=0.5)
        except AssertionError as error:
            raise AssertionError(f"{error}: {len(left)} differences, e.g. {left[:5]}") from None
        print(f"\n{churner.operations} changes; index equal to the disk {time.monotonic() - started:.1f} s after")
        stale = gone - {function_name(p, v) for p, v in churner.version.items()}
        newest = next(p for p in reversed(list(churner.version)) if p.startswith(("new/", "moved/")))
        result = await server.query(query=function_name(newest, churner.version[newest]), mode="symbol", limit=3)
        assert result.matches[0].path == newest
        assert stale  # old versions, deleted and renamed-away names exist, and are gone from the index:
        assert not {d.name for _, e in fresh.entries() for d in e.declarations} & stale
    finally:
        await server.stop()


def function_name(path: str, version: int) -> str:
    n = int(path.rsplit("f", 1)[1].removesuffix(".py"))
    return f"churn_{n}_v{version}"
