"""The local judge's small parts: calibration features, the micro-batcher, the embedding cache."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from smartsearch_ls.judge.local.batcher import MicroBatcher
from smartsearch_ls.judge.local.cache import EmbeddingCache, content_key
from smartsearch_ls.judge.local.calibration import answers, coverage, relevance_probability, words
from smartsearch_ls.judge.local.inert import performs_nothing


def test_words_split_identifiers_and_meet_across_inflections():
    assert {"pars", "http", "dat"} <= words("parseHTTPDate(x)")
    assert words("parse_http_date") == words("parseHTTPDate")
    assert words("parsing dates") == words("parsed date")


def test_coverage_counts_query_content_words_only():
    code = "def read_config_file(path):\n    return toml.loads(open(path).read())"
    assert coverage("read the config file", code) == 1.0
    assert coverage("read the config file from a socket", code) == pytest.approx(3 / 4)
    assert coverage("how is it done", code) == 0.0  # nothing but stop words


def test_probability_rises_with_each_feature_and_answers_multiply_back_to_it():
    assert relevance_probability(0.6, 0.5) > relevance_probability(0.3, 0.5)
    assert relevance_probability(0.4, 1.0) > relevance_probability(0.4, 0.0)
    for p in (0.0, 0.2, 0.5, 0.93, 1.0):
        subject, action = answers(p)
        assert 0 <= subject <= 1 and 0 <= action <= 1
        assert subject * action == pytest.approx(p)


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


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("auth/sessions.py", "import time\n"),
        (
            "auth/sessions.py",
            '"""Sessions."""\n\nfrom __future__ import annotations\n\nfrom x import (\n    a,\n    b,\n)\n',
        ),
        ("auth/sessions.py", "if TYPE_CHECKING:\n    from auth.tokens import Token\n"),
        ("auth/sessions.py", "    @overload\n    def get(self, key: str) -> int: ...\n"),
        (
            "auth/sessions.py",
            'class Store(Protocol):\n    """Where sessions live."""\n\n    def get(self) -> None: ...\n',
        ),
        ("web/cart.ts", 'import { a } from "./a";\nimport type { B } from "./b";\n// cart\nexport * from "./c";\n'),
        ("web/cart.js", 'const fs = require("fs");\n'),
        ("cmd/main.go", 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n'),
        ("src/lib.rs", "use std::io;\nmod cache;\n"),
        ("App.java", "package shop;\nimport java.util.List;\n"),
        ("lib/cart.rb", "require 'json'\n"),
    ],
)
def test_imports_docstrings_and_stubs_perform_nothing(path: str, code: str) -> None:
    assert performs_nothing(path, code)


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("auth/sessions.py", "SESSION_SECONDS = 3600\n"),  # "where is the session length set" is answered here
        ("auth/sessions.py", "import time\n\ndef expired(s):\n    return s.expires < time.time()\n"),
        ("auth/sessions.py", "    if session.expired:\n"),  # a block cut out of a long function: not judged inert
        ("web/cart.ts", 'import x from "y";\nx.reject();\n'),
        ("notes.txt", "import the data first\n"),
        ("config.h", "#define DEFAULT_TIMEOUT_MS 5000\n"),  # `#` is no comment in C, nor in CSS
        ("style.css", "#header { color: red; }\n"),
        ("auth/sessions.py", "\n"),
    ],
)
def test_code_that_does_or_sets_something_is_not_inert(path: str, code: str) -> None:
    assert not performs_nothing(path, code)
