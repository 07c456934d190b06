"""The embedding side's small parts: the micro-batcher and the snippet-vector cache."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from smartsearch_ls.embedding.batcher import MicroBatcher
from smartsearch_ls.embedding.cache import EmbeddingCache, content_key


async def test_batcher_runs_concurrent_requests_as_one_deduplicated_batch():
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([[float(len(t))] for t in texts], dtype=np.float32)

    batcher = MicroBatcher(embed, window=0.01)
    results = await asyncio.gather(*(batcher.embed(t) for t in ["a", "bb", "a", "cccc"]))
    assert calls == [["a", "bb", "cccc"]]
    assert [float(r[0]) for r in results] == [1.0, 2.0, 1.0, 4.0]


async def test_batcher_flushes_a_full_batch_without_waiting():
    batcher = MicroBatcher(lambda texts: np.zeros((len(texts), 1), dtype=np.float32), window=10.0, max_batch=2)
    await asyncio.wait_for(asyncio.gather(batcher.embed("a"), batcher.embed("b")), timeout=1.0)


async def test_batcher_gives_every_waiter_the_failure():
    def broken(texts: list[str]) -> np.ndarray:
        raise RuntimeError("onnx failed")

    batcher = MicroBatcher(broken, window=0.001)
    outcomes = await asyncio.gather(batcher.embed("a"), batcher.embed("b"), return_exceptions=True)
    assert [str(o) for o in outcomes] == ["onnx failed", "onnx failed"]


def test_cache_is_bounded_keyed_by_content_and_exportable():
    cache = EmbeddingCache(capacity=2)
    for i, text in enumerate(["one", "two", "three"]):
        cache.put(text, np.full(3, i, dtype=np.float32))
    assert cache.get("one") is None and len(cache) == 2
    exported = dict(cache.items())
    assert set(exported) == {content_key("two"), content_key("three")}
    restored = EmbeddingCache()
    restored.update(exported)
    assert restored.get("three") == pytest.approx(np.full(3, 2.0))
    with pytest.raises(ValueError):
        restored.get("three")[0] = 9  # stored vectors are read-only
