"""Bulk loads pause the garbage collector, and overlapping pauses from several threads leave it as it was."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from smartsearch_ls.index import store
from smartsearch_ls.index.gc_pause import gc_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_overlapping_pauses_resume_only_when_the_last_one_ends(collector_on: None) -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with gc_paused():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with gc_paused():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.isenabled())  # the first pause ended, this one still runs
        seen.append(gc.isenabled())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == [False, True]


def test_a_collector_that_was_off_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_loading_a_persisted_payload_runs_no_collection(tmp_path: Path, collector_on: None) -> None:
    payload = {"items": [[i, str(i)] for i in range(200_000)]}  # enough allocations to trigger collections
    path = tmp_path / "index"
    assert store.save(path, payload)
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()  # allocation counts start from zero, so only the load's own allocations could trigger one
    gc.callbacks.append(count)
    try:
        assert store.load(path) == payload
    finally:
        gc.callbacks.remove(count)
    # Unpaused, the load ran a collection every 700 allocations (hundreds here, each walking the young objects);
    # paused, at most the one that the first allocation after the pause runs on the loaded objects.
    assert len(collections) <= 1, collections
    assert gc.isenabled()
