"""The judge phase alone: 128 real snippets through `judge_snippets`, for the local judge and an instant model.

Three figures, each the median of `--rounds` runs, wall time and this process's CPU time (on a shared machine
the wall time swings with whatever else runs; CPU time is the work itself):

- `local, cached`: the embedded judge on a shortlist whose vectors are all cached, the snippets' own and what the
  judge reads besides (a warm server, once background embedding has reached them), a judge new to the snippets;
- `local, seen before`: the same judge again on the same shortlist (it remembers which snippets perform nothing);
- `local, cold`: no vector anywhere, so the judge embeds all 128 snippets and its leaders' readings;
- `instant model, per snippet`: Pydantic AI's `FunctionModel` answering at once, one request per snippet as every
  model judge is asked: what the framework costs around a judge that costs nothing.

Snippets are click's first 128 code snippets (`bench prepare --quick`); every run uses a fresh judgment cache.

    .venv/bin/python -m bench.judge_speed [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from bench.__main__ import save_figures
from bench.corpora import corpus_root
from smartsearch_ls.chunking.snippet import snippet_text
from smartsearch_ls.discovery.documentation import is_documentation
from smartsearch_ls.embedding.cache import EmbeddingCache
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import Evidence, JudgeConfig
from smartsearch_ls.judge.local.model import LocalJudge, local_judge
from smartsearch_ls.judge.runner import judge_snippets

QUERY = "wrap long help text so no line is wider than the terminal"
COUNT = 128


def instant(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"subject": 0.5, "action": 0.5})])


async def timed(run: Callable[[], Awaitable[object]], rounds: int) -> dict[str, float]:
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        await run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {"wall_s": round(statistics.median(walls), 3), "cpu_s": round(statistics.median(cpus), 3)}


async def measure(rounds: int) -> dict[str, object]:
    index, _ = RootIndex.open_warm(corpus_root("click"))
    snippets = [s for s in index.snippets if s is not None and not is_documentation(s.path)][:COUNT]
    shared = local_judge()
    query_vector = shared.embedder.embed_query(QUERY)
    vectors = shared.embedder.embed_snippets([snippet_text(s.path, s.symbol, s.text) for s in snippets])
    cached = [Evidence(s, 1.0, float(query_vector @ v)) for s, v in zip(snippets, vectors, strict=True)]
    bare = [Evidence(s, 1.0) for s in snippets]
    # Untimed: the leaders' readings into the shared cache, where a warm server's index would have handed them.
    await judge_snippets(JudgeConfig(shared, "local"), QUERY, cached, JudgmentCache())

    def local_cached() -> Awaitable[object]:
        new_to_them = LocalJudge(shared.embedder, cache=shared.cache)
        return judge_snippets(JudgeConfig(new_to_them, "local"), QUERY, cached, JudgmentCache())

    def local_cold() -> Awaitable[object]:
        fresh = LocalJudge(shared.embedder, cache=EmbeddingCache())
        return judge_snippets(JudgeConfig(fresh, "local"), QUERY, bare, JudgmentCache())

    instant_model = JudgeConfig(FunctionModel(instant), "instant", concurrency=8)
    return {
        "snippets": len(snippets),
        "local, cached": await timed(local_cached, rounds),
        "local, seen before": await timed(
            lambda: judge_snippets(JudgeConfig(shared, "local"), QUERY, cached, JudgmentCache()), rounds
        ),
        "local, cold": await timed(local_cold, rounds),
        "instant model, per snippet": await timed(
            lambda: judge_snippets(instant_model, QUERY, snippets, JudgmentCache()), rounds
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    save_figures("judge-speed", asyncio.run(measure(args.rounds)))


if __name__ == "__main__":
    main()
