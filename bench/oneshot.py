"""One process doing what `smartsearch query` does, with an instant judge; prints its timings as one JSON line.

`python -m bench.oneshot ROOT CACHE_DIR QUERY... [--edit-file REL]` (run by `bench.speed`, in a fresh process each
time). The first query is the command line's path exactly (`smartsearch_ls.cli`): load the persisted index from
CACHE_DIR if there is one, refresh it against the disk, persist it, search. With an empty CACHE_DIR that is a
cold one-shot search; with the CACHE_DIR of an earlier run it is a restart. The other queries are then searched
in the same process with the index in memory (what the peer's `cache_index=True` gives), and, with
`--edit-file`, each once more after appending a line to that file on disk and refreshing the index (the file
is restored at the end). The judge is a Pydantic AI `FunctionModel` answering at once, as the peer's is, so the
figures are the engines' own cost. Search mode is `auto`, as on the command line; no embedding index is used,
as the command line uses none.

Output keys: `import_s` (our modules imported), `first_index_s`, `first_search_s`, `first_total_s` (index +
search), `files`, `snippets`, `later_s` and `after_edit_s` (lists), `peak_rss_mb` (`VmHWM`).
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
from pathlib import Path  # noqa: E402

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from smartsearch_ls.index.root_index import RootIndex  # noqa: E402
from smartsearch_ls.index.shortlist import Scope  # noqa: E402
from smartsearch_ls.judge.cache import JudgmentCache  # noqa: E402
from smartsearch_ls.judge.contract import JudgeConfig  # noqa: E402
from smartsearch_ls.search.engine import search  # noqa: E402
from smartsearch_ls.search.request import SearchRequest  # noqa: E402

IMPORTED = time.perf_counter()


def peak_rss_mb() -> float:
    """`VmHWM` (Linux): `ru_maxrss` survives fork and exec, so it would report the parent's peak when higher."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def instant_judge() -> JudgeConfig:
    """Answers at once with subject = action = 0.8 (relevance 0.64): the engine's cost without a model's."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"subject": 0.8, "action": 0.8})])

    return JudgeConfig(FunctionModel(answer), "instant", concurrency=8)


async def run(root: Path, cache_dir: Path, queries: list[str], edit_file: str | None) -> dict[str, object]:
    judge = instant_judge()
    out: dict[str, object] = {"import_s": round(IMPORTED - STARTED, 4)}

    started = time.perf_counter()
    index, stats = RootIndex.open_warm(root, cache_dir=cache_dir)
    indexed = time.perf_counter()
    await search(SearchRequest(queries[0], [Scope(index)]), judge, JudgmentCache())
    done = time.perf_counter()
    out.update(
        first_index_s=round(indexed - started, 4),
        first_search_s=round(done - indexed, 4),
        first_total_s=round(done - started, 4),
        files=stats.files,
        snippets=index.snippet_count,
    )

    later = []
    for query in queries[1:]:
        started = time.perf_counter()
        await search(SearchRequest(query, [Scope(index)]), judge, JudgmentCache())
        later.append(round(time.perf_counter() - started, 4))
    out["later_s"] = later

    after_edit = []
    if edit_file:
        path = root / edit_file
        original = path.read_bytes()
        try:
            for n, query in enumerate(queries[1:]):
                path.write_bytes(original + f"\n# bench edit {n}\n".encode())
                started = time.perf_counter()
                index.refresh()  # what a watcher's event leads to; the peer re-reads every file instead
                await search(SearchRequest(query, [Scope(index)]), judge, JudgmentCache())
                after_edit.append(round(time.perf_counter() - started, 4))
        finally:
            path.write_bytes(original)
            index.refresh()
    out["after_edit_s"] = after_edit
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("cache_dir")
    parser.add_argument("queries", nargs="+")
    parser.add_argument("--edit-file")
    args = parser.parse_args()
    figures = asyncio.run(run(Path(args.root), Path(args.cache_dir), args.queries, args.edit_file))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
