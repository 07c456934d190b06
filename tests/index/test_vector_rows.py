"""The dense index's storage: vectors by key in float32 or float16 rows, freed rows reused, persisted rows adopted."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from smartsearch_ls.embedding.encoder import DIMENSIONS
from smartsearch_ls.index.vector_rows import VectorRows


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=DIMENSIONS).astype(np.float32)
    return vector / np.linalg.norm(vector)


def f16(vector: np.ndarray) -> np.ndarray:
    return vector.astype(np.float16).astype(np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_vector_comes_back_with_float16_s_precision_whatever_the_rows_hold(dtype: type[np.floating]) -> None:
    rows = VectorRows(dtype)
    rows.store("a", unit(1))
    back = rows.vector("a")
    assert back is not None and back.dtype == np.float32
    assert np.array_equal(back, f16(unit(1)))
    assert rows.vector("b") is None and rows.holds_any()


def test_a_held_key_keeps_its_row_and_vector() -> None:
    """A key is its text's hash: storing it again (two identical snippets, a search and background embedding both
    embedding one) must not rewrite a row a persist may be reading."""
    rows = VectorRows(np.float32)
    rows.store("a", unit(1))
    rows.store("a", unit(2))
    assert rows.used == 1 and np.array_equal(rows.vector("a"), f16(unit(1)))  # type: ignore[arg-type]


def test_a_released_row_is_reused_before_the_matrix_grows() -> None:
    rows = VectorRows(np.float16)
    for i in range(3):
        rows.store(f"k{i}", unit(i))
    rows.release({"k0", "k2"})
    assert rows.vector("k1") is None and set(rows.row_of) == {"k0", "k2"}
    rows.store("new", unit(9))
    assert rows.used == 3 and rows.row_of["new"] == 1
    assert np.array_equal(rows.vector("k2"), f16(unit(2)))  # type: ignore[arg-type]


@pytest.mark.parametrize("into", [np.float32, np.float16])
def test_rows_survive_growth_release_and_a_reload_into_either_dtype(into: type[np.floating]) -> None:
    rows = VectorRows(np.float16)
    for i in range(1500):  # past the first allocation
        rows.store(f"k{i}", unit(i))
    rows.release({f"k{i}" for i in range(0, 1500, 2)})
    keys = rows.held()
    persisted = np.concatenate(list(rows.rows_of(keys).chunks(100)))  # as a persist writes them
    assert len(keys) == 750 and persisted.dtype == np.float16 and persisted.shape == (750, DIMENSIONS)
    reloaded = VectorRows(into)
    reloaded.fill(keys)[:] = persisted
    assert reloaded.matrix.dtype == into and reloaded.used == 750
    for i in (0, 700, 1498):
        assert np.array_equal(reloaded.vector(f"k{i}"), f16(unit(i)))  # type: ignore[arg-type]
    assert reloaded.vector("k1") is None


def test_a_store_whose_rows_are_all_released_holds_nothing() -> None:
    rows = VectorRows(np.float32)
    rows.store("a", unit(1))
    rows.release(set())
    assert not rows.holds_any()


def test_held_rows_are_read_a_chunk_at_a_time_and_keep_their_values_while_the_rows_grow() -> None:
    """What a persist reads after its locks: a chunk at a time, never a copy of all of them, and the same values
    however many keys are stored meanwhile (the matrix grows into a new one; the old one is left as it was)."""
    rows = VectorRows(np.float32)
    count = 20_000  # 30 MB of float32 rows
    for i in range(count):
        rows.store(f"k{i}", unit(i % 50))
    held = rows.rows_of(rows.held())
    for i in range(count, 2 * count):  # grows the matrix twice over
        rows.store(f"k{i}", unit(i % 50))
    read = 0
    tracemalloc.start()
    try:
        for chunk in held.chunks(1024):
            assert np.array_equal(chunk[5], unit((read + 5) % 50).astype(np.float16))
            read += len(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read == count
    assert peak < 0.2 * count * DIMENSIONS * 4, peak  # two chunks at most, not every row (half of it as float16)
