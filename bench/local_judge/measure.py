"""Time the local judge: load, re-quantize, embedding throughput, and 128 judgments through `Agent` runs.

The 128 judgments run as a search runs them, through the engine's runner (`judge_snippets`): the model is shown
every prompt first (the local judge embeds the uncached snippets in one call), then `concurrency` (8) ordinary
`Agent(model, output_type=Relevance, ...).run(framed_snippet(...))` runs go at a time. "Cold" starts from empty caches;
"cached" has every snippet vector in the `EmbeddingCache` already (as a persisted index would). The same 128
runs on a decision model that does no work give the floor the agent framework itself costs.

Every figure is wall time and, in brackets, this process's CPU time: on a shared machine the wall time
swings with whatever else runs, while CPU time (with ONNX threads that do not spin) is the work itself.

    .venv/bin/python bench/local_judge/measure.py
"""

from __future__ import annotations

import asyncio
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from calibrate import functions  # the same real functions the calibration uses
from pydantic_ai.models.decision import DecisionModelSettings, DecisionRequest, DecisionResponse, NoulAnswer

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.embedding.encoder import Embedder, load_tokenizer, snippet_text
from smartsearch_ls.embedding.quantize import fast_model
from smartsearch_ls.embedding.weights import resolve_weights
from smartsearch_ls.judge.judgments import JudgeConfig, JudgmentCache
from smartsearch_ls.judge.local.model import LocalJudgeModel
from smartsearch_ls.judge.runner import judge_snippets

QUERY = "parse the configuration file into settings"
CONCURRENCY = 8
CANDIDATES = 128


class NoWork(LocalJudgeModel):
    """Answers at once without embedding: what the agent framework costs on its own."""

    async def decide(self, request: DecisionRequest, model_settings: DecisionModelSettings) -> DecisionResponse:
        return DecisionResponse(answers={name: NoulAnswer(noul=0.5) for name in request.questions}, model_name="none")

    async def prepare_batch(self, instructions: str, prompts: Sequence[str]) -> None:
        """Nothing to embed: the floor is the runs alone."""


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, cpu_seconds() - self.cpu

    def __str__(self) -> str:
        return f"{self.wall:.2f} s [cpu {self.cpu:.2f} s]"


def timed(action: Callable[[], object], repeat: int = 1) -> Clock:
    """The run of `action` with the median wall time over `repeat` runs."""
    clocks = []
    for _ in range(repeat):
        with Clock() as clock:
            action()
        clocks.append(clock)
    return sorted(clocks, key=lambda c: c.wall)[len(clocks) // 2]


async def judge_all(model: LocalJudgeModel, snippets: list[Snippet]) -> Clock:
    """The time to judge every snippet as a search does, `CONCURRENCY` agent runs in flight, no judgment cached."""
    with Clock() as clock:
        await judge_snippets(JudgeConfig(model, "local", concurrency=CONCURRENCY), QUERY, snippets, JudgmentCache())
    return clock


def main() -> None:
    pool = [item for package in ("click", "requests", "pygls", "anyio", "yaml") for item in functions(package)]
    snippets = [Snippet(i["path"], 1, 1, i["code"], i["symbol"]) for i in pool[:CANDIDATES]]
    texts = [snippet_text(s.path, s.symbol, s.text) for s in snippets]
    tokens = [len(e.ids) for e in load_tokenizer().encode_batch(texts)]
    print(f"{os.cpu_count()} cores; {len(texts)} snippets, median {statistics.median(tokens)} tokens (cap 128)")

    weights = resolve_weights()
    print(f"verify weights (read + sha256): {timed(resolve_weights, 3)}")
    with tempfile.TemporaryDirectory() as fresh:
        print(f"re-quantize per channel (once, cached): {timed(lambda: fast_model(weights, Path(fresh)))}")
    fast_model(weights)  # make sure the real cache is filled
    print(f"load (verify + cached quantized model + session): {timed(Embedder.load, 3)}")

    embedder = Embedder.load()
    options = ort.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as `Embedder.load` runs it
    session = ort.InferenceSession(weights.data, options, providers=["CPUExecutionProvider"])
    original = Embedder(session, load_tokenizer())
    for name, model in (("re-quantized", embedder), ("original float graph", original)):
        model.embed_snippets(texts[:8])
        for size in (8, 32, 128):
            clock = timed(lambda m=model, n=size: m.embed_snippets(texts[:n]), 3)
            print(
                f"embed {name}, batch of {size}: {size / clock.wall:.0f} snippets/s, "
                f"{1000 * clock.cpu / size:.0f} cpu-ms per snippet"
            )

    alone = np.concatenate([embedder.embed_snippets([t]) for t in texts[:32]])
    together = embedder.embed_snippets(texts[:32])
    drift = (alone * together).sum(axis=1)
    print(f"same snippet alone vs in a batch of 32: cosine min {drift.min():.4f}, median {np.median(drift):.4f}")

    async def runs() -> None:
        floor = await judge_all(NoWork(embedder), snippets)
        cold = sorted([await judge_all(LocalJudgeModel(embedder), snippets) for _ in range(3)], key=lambda c: c.wall)
        cache = EmbeddingCache()
        for text, vector in zip(texts, embedder.embed_snippets(texts), strict=True):
            cache.put(text, vector)
        warm_model = LocalJudgeModel(embedder, cache=cache)
        await judge_all(warm_model, snippets[:1])  # the query vector, as the first judgment of a search makes it
        warm = sorted([await judge_all(warm_model, snippets) for _ in range(3)], key=lambda c: c.wall)
        print(f"{CANDIDATES} agent runs, concurrency {CONCURRENCY}, no-op model (framework floor): {floor}")
        print(f"{CANDIDATES} judgments, concurrency {CONCURRENCY}, cold: {cold[1]}")
        print(f"{CANDIDATES} judgments, concurrency {CONCURRENCY}, embeddings cached: {warm[1]}")

    asyncio.run(runs())


if __name__ == "__main__":
    main()
