"""The embedding side's snippet-vector cache."""

from __future__ import annotations

import numpy as np
import pytest

from smartsearch_ls.chunking.snippet import content_key
from smartsearch_ls.embedding.cache import EmbeddingCache


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
