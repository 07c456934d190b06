"""The persisted index: atomic, checked, and a cache miss when damaged."""

from __future__ import annotations

import logging
import pickle
import tracemalloc
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest

from smartsearch_ls.index import store

T = TypeVar("T")


def traced_peak(action: Callable[[], T]) -> tuple[T, int]:
    """What `action` returns, and the most memory Python allocated while it ran."""
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def whole(matrix: np.ndarray) -> store.RowSource:
    """A matrix to persist raw, all of it in one chunk."""
    return store.RowSource((matrix.shape[0], matrix.shape[1]), matrix.dtype.str, lambda: [matrix])


def test_round_trip(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    assert store.save(path, {"root": "x", "files": {"a.py": 1}})
    assert store.load(path) == {"root": "x", "files": {"a.py": 1}}


def test_saving_streams_into_the_file_instead_of_pickling_a_copy_in_memory(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    payload = {"blob": bytes(20_000_000), "rows": [str(i) for i in range(100_000)]}
    saved, peak = traced_peak(lambda: store.save(path, payload))
    assert saved
    assert peak < 12_000_000, peak  # a part's memo and frames, not a copy of the 20+ MB pickle
    assert store.load(path) == payload


def test_lists_and_dicts_are_pickled_in_parts_so_no_memo_spans_the_whole_payload(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    rows = [f"row {i}" for i in range(200_000)]  # every distinct object a memo entry of one whole pickle
    payload = {"root": "x", "rows": rows, "files": {f"f{i}.py": (i, f"f{i}") for i in range(3_000)}, "none": []}
    saved, peak = traced_peak(lambda: store.save(path, payload))
    assert saved
    assert peak < 2_000_000, peak
    assert store.load(path) == payload


def test_the_payload_s_other_values_are_pickled_without_a_memo(tmp_path: Path) -> None:
    """What stays in the first pickle (a root's postings) holds many distinct terms and arrays of what terms gained
    beside its buffer, each pickled as a copy of its bytes: a memo kept all of them alive until that pickle ended."""
    path = store.index_path(tmp_path, tmp_path / "root")
    table = Table([f"term {i}" for i in range(100_000)], {f"gain {i}": array("i", range(2_000)) for i in range(200)})
    saved, peak = traced_peak(lambda: store.save(path, {"root": "x", "postings": table}))
    assert saved
    assert peak < 2_000_000, peak
    assert store.load(path) == {"root": "x", "postings": table}


@dataclass(frozen=True)
class Table:
    """Stands for a postings table in a payload: an object, not a list or dict, so it is not written in parts."""

    terms: list[str]
    gains: dict[str, array[int]]


def test_a_file_of_one_pickle_still_loads(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    payload = {"root": "x", "rows": list(range(5_000)), "files": {"a.py": 1}}
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    path.parent.mkdir(parents=True)
    path.write_bytes(store.header(data) + data)
    assert store.load(path) == payload


def test_a_file_missing_parts_is_a_miss(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    data = pickle.dumps({"root": "x", "rows": store.Parts(list, 5)}) + pickle.dumps([1, 2])  # five said, two there
    path.parent.mkdir(parents=True)
    path.write_bytes(store.header(data) + data)
    assert store.load(path) is None


def test_loading_unpickles_from_the_file_without_holding_its_bytes(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    size = 20_000_000
    store.save(path, {"blob": bytes(size)})
    loaded, peak = traced_peak(lambda: store.load(path))
    assert loaded is not None and len(loaded["blob"]) == size
    assert peak < 1.3 * size, peak / size  # the payload and a chunk read for the checksum; not the file's bytes too


def test_a_matrix_is_written_raw_after_the_pickles_and_read_back_a_chunk_at_a_time(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    matrix = np.arange(3 * store.MATRIX_CHUNK_ROWS * 4, dtype=np.float16).reshape(-1, 4)
    assert store.save(path, {"keys": ["a", "b"], "matrix": whole(matrix), "after": 1})
    assert matrix.tobytes() in path.read_bytes()  # raw, not pickled
    loaded = store.load(path)
    assert loaded is not None and loaded["keys"] == ["a", "b"] and loaded["after"] == 1
    np.testing.assert_array_equal(loaded["matrix"], matrix)

    chunks: list[int] = []

    def in_chunks(payload: dict[str, object], spec: store.Matrix, next_rows: store.NextRows) -> np.ndarray:
        assert payload["keys"] == ["a", "b"]  # the rest of the payload is there to decide with
        parts = []
        while len(parts) * store.MATRIX_CHUNK_ROWS < spec.shape[0]:
            parts.append(next_rows(min(store.MATRIX_CHUNK_ROWS, spec.shape[0] - len(parts) * store.MATRIX_CHUNK_ROWS)))
            chunks.append(len(parts[-1]))
        return np.concatenate(parts)

    chunked = store.load(path, read_matrix=in_chunks)
    assert chunked is not None and chunks == [store.MATRIX_CHUNK_ROWS] * 3
    np.testing.assert_array_equal(chunked["matrix"], matrix)


def test_rows_made_while_they_are_written_persist_as_a_matrix_and_a_short_source_writes_nothing(
    tmp_path: Path,
) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    matrix = np.arange(40, dtype=np.float16).reshape(10, 4)
    source = store.RowSource((10, 4), matrix.dtype.str, lambda: (matrix[i : i + 3] for i in range(0, 10, 3)))
    assert store.save(path, {"matrix": source})
    loaded = store.load(path)
    assert loaded is not None
    np.testing.assert_array_equal(loaded["matrix"], matrix)
    short = store.RowSource((11, 4), matrix.dtype.str, lambda: iter([matrix]))
    with pytest.raises(ValueError, match="10 rows written of the 11"):
        store.save(path, {"matrix": short})
    assert list(path.parent.glob("*.tmp")) == []  # nothing half-written left behind
    again = store.load(path)  # the file saved before is still whole
    assert again is not None
    np.testing.assert_array_equal(again["matrix"], matrix)


def test_a_damaged_byte_among_a_matrix_s_raw_rows_makes_a_miss(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    matrix = np.ones((10, 4), dtype=np.float16)
    assert store.save(path, {"matrix": whole(matrix)})
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # inside the last row, after every pickle
    path.write_bytes(bytes(data))
    assert store.load(path) is None


def test_a_matrix_reader_that_stops_short_makes_a_miss(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    store.save(path, {"matrix": whole(np.zeros((10, 4), dtype=np.float16))})
    assert store.load(path, read_matrix=lambda payload, spec, next_rows: next_rows(5)) is None


def test_an_older_format_the_caller_still_reads_loads(tmp_path: Path) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    store.save(path, {"root": "x"}, version=3)
    assert store.load(path, version=4) is None
    assert store.load(path, version=4, older=(3,)) == {"root": "x"}


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
    for body in (b"", store.header(b""), store.header(b"")[:-1] + b"x" * 100_000, b"y" * 100_000):
        path.write_bytes(body)  # empty, a header alone, an endless checksum line, an endless first line
        assert store.load(path) is None


def test_a_file_written_in_place_while_it_loads_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = store.index_path(tmp_path, tmp_path / "root")
    store.save(path, {"root": "x"})
    unpickle = store.pickle.load

    def unpickle_then_write(handle: object) -> object:
        payload = unpickle(handle)  # type: ignore[arg-type]
        with path.open("ab") as writer:  # in place, as no save does: what was checked is no longer the file
            writer.write(b"more")
        return payload

    monkeypatch.setattr(store.pickle, "load", unpickle_then_write)
    assert store.load(path) is None


def test_an_unwritable_cache_costs_only_warmth(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    assert store.save(blocker / "index" / "x.pickle", {"root": "x"}) is False


def test_a_file_of_another_format_is_a_miss_and_never_unpickled(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "index.pickle"
    data = b"not a pickle: unpickling this would raise"
    for older in (
        store.header(data, store.FORMAT - 1),
        b"smartsearch-index\n" + store.header(data).split(b"\n")[1] + b"\n",
    ):
        path.write_bytes(older + data)
        with caplog.at_level(logging.INFO):
            assert store.load(path) is None
    assert "written by another version" in caplog.text and "unreadable" not in caplog.text
