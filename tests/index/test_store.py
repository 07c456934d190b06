"""The persisted index: atomic, checked, and a cache miss when damaged."""

from __future__ import annotations

from pathlib import Path

from smartsearch_ls.index import store


def test_round_trip(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    assert store.save(path, {"root": "x", "files": {"a.py": 1}})
    assert store.load(path) == {"format": store.FORMAT, "root": "x", "files": {"a.py": 1}}


def test_truncated_or_corrupted_files_are_a_miss(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path)
    store.save(path, {"root": "x", "data": list(range(1000))})
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    assert store.load(path) is None
    path.write_bytes(raw[:-10] + b"0123456789")
    assert store.load(path) is None
    path.write_bytes(b"garbage")
    assert store.load(path) is None


def test_an_unwritable_cache_costs_only_warmth(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    assert store.save(blocker / "index" / "x.pickle", {"root": "x"}) is False
