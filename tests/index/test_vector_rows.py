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
def test_rows_survive_growth_release_and_adoption_into_either_dtype(into: type[np.floating]) -> None:
    rows = VectorRows(np.float16)
    for i in range(1500):  # past the first allocation
        rows.store(f"k{i}", unit(i))
    rows.release({f"k{i}" for i in range(0, 1500, 2)})
    keys = rows.held()
    matrix = np.empty((len(keys) + 2, DIMENSIONS), dtype=np.float16)  # persisted beside other rows, here two
    rows.persist_into(keys, matrix[2:])
    assert len(keys) == 750
    adopted = VectorRows(into)
    adopted.adopt(keys, matrix, np.arange(2, 752))
    assert adopted.matrix.dtype == into and adopted.used == 750
    for i in (0, 700, 1498):
        assert np.array_equal(adopted.vector(f"k{i}"), f16(unit(i)))  # type: ignore[arg-type]
    assert adopted.vector("k1") is None


def test_a_store_whose_rows_are_all_released_holds_nothing() -> None:
    rows = VectorRows(np.float32)
    rows.store("a", unit(1))
    rows.release(set())
    assert not rows.holds_any()


def test_persisting_and_adopting_rows_copy_them_without_a_whole_intermediate_copy() -> None:
    rows = VectorRows(np.float32)
    count = 20_000  # 30 MB of float32 rows
    for i in range(count):
        rows.store(f"k{i}", unit(i % 50))
    keys = rows.held()
    out = np.empty((count, DIMENSIONS), dtype=np.float16)
    adopted = VectorRows(np.float32)
    tracemalloc.start()
    try:
        rows.persist_into(keys, out)
        _, persisting = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        adopted.adopt(keys, out, np.arange(count))
        held, adopting = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = count * DIMENSIONS * 4
    assert persisting < 0.1 * size, persisting  # chunks of rows, not a float32 copy of all of them
    assert adopting < held + 0.1 * size, (adopting, held)  # the adopted rows, not a copy of them first
    assert np.array_equal(adopted.vector("k123"), f16(unit(123 % 50)))  # type: ignore[arg-type]
