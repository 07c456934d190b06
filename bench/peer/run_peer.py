"""Run the peer, pydantic-ai-harness's SmartSearch, over one corpus and a query file; write timings and hits as JSON.

Standalone on purpose: it runs inside the peer's own venv (`bench/.corpora/.peer-venv`, made by
`python -m bench peer-setup`), which has pydantic-ai-slim 2.62.0 and pydantic-ai-harness 0.62.0 and not this
project, so it imports nothing from `bench` or `smartsearch_ls`.

The peer is driven the way an agent uses it: a pydantic-ai `Agent` with `LocalWorkspace(corpus)` and the
`SmartSearch` capability, whose driving model (a `FunctionModel`) calls `smart_search` once and then stops. The
judge is a `FunctionModel` too and answers instantly, so the times measure the peer's own pipeline (listing,
reading, chunking, BM25, the judge plumbing) and not a model's latency. Its score is a lexical stand-in (the
share of the query's words found in the snippet): good enough to rank, and identical for both engines if ours
is run with the same stand-in. `threshold=0` lets every judged snippet through, `request_limit` is raised so all
`candidates` (128) snippets are judged, and hits are reported at the judged snippet's span.

Usage: python run_peer.py CORPUS_DIR QUERIES.jsonl OUT.json [--corpus NAME] [--limit 10] [--candidates 128]
       [--edit-file REL_PATH] [--phases cold,cached,edit]

Output: {"corpus_dir", "versions", "files", "snippets", "index_build_s", "peak_rss_mb", "rss_after_cold_mb",
"summary": {...medians...}, "queries": [{"corpus", "query", "cold_s", "cached_s", "after_edit_s", "hits":
[[path, start, end], ...], "excerpts": [[path, start, end, score], ...], "judged": [[path, start, end], ...]}]}.
`judged` lists the snippets in the order the judge was called, which follows the shortlist order.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import statistics
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import LocalWorkspace
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits
from pydantic_ai_harness import SmartSearch

REQUEST_LIMIT = 1000
"""A search may judge half of what the run's limit leaves; 1000 leaves room for 256 candidates."""
_WORD = re.compile(r"[A-Za-z0-9]+")
_ATTR = re.compile(r'(\w+)="([^"]*)"')


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) >= 3}


@dataclass
class Probe:
    """What the stand-in judge saw and what the driving model got back, for the query being run."""

    query: str = ""
    query_words: set[str] = field(default_factory=set)
    judged: list[list[Any]] = field(default_factory=list)
    result: Any = None


def make_judge(probe: Probe) -> FunctionModel:
    def judge(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = "".join(
            str(part.content) for m in messages if isinstance(m, ModelRequest) for part in m.parts
            if hasattr(part, "content")
        )  # fmt: skip
        head = prompt[: prompt.find(">") + 1] if ">" in prompt else ""
        attrs = dict(_ATTR.findall(head))
        if "path" in attrs and "-" in attrs.get("lines", ""):
            start, end = attrs["lines"].split("-", 1)
            probe.judged.append([attrs["path"], int(start), int(end)])
        share = len(probe.query_words & words(prompt)) / max(1, len(probe.query_words))
        score = share**0.5  # relevance is entity * operation
        tool = info.output_tools[0].name
        return ModelResponse(parts=[ToolCallPart(tool, {"entity": score, "operation": score})])

    return FunctionModel(judge, model_name="instant-lexical-judge")


def make_driver(probe: Probe, limit: int, candidates: int) -> FunctionModel:
    def drive(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        for message in messages:
            if isinstance(message, ModelRequest):
                for part in message.parts:
                    if isinstance(part, ToolReturnPart) and part.tool_name == "smart_search":
                        probe.result = part.content
                        if isinstance(part.content, str):
                            raise RuntimeError(f"smart_search failed: {part.content}")
                        return ModelResponse(parts=[TextPart("done")])
        args = {"query": probe.query, "limit": limit, "candidates": candidates}
        return ModelResponse(parts=[ToolCallPart("smart_search", args)])

    return FunctionModel(drive, model_name="driver")


class Peer:
    """One agent (so one SmartSearch toolset, whose index cache lives as long as it does)."""

    def __init__(self, corpus_dir: Path, *, cache_index: bool, limit: int, candidates: int) -> None:
        self.probe = Probe()
        self.agent = Agent(
            make_driver(self.probe, limit, candidates),
            capabilities=[
                LocalWorkspace(str(corpus_dir)),
                SmartSearch(make_judge(self.probe), threshold=0.0, cache_index=cache_index, guidance=""),
            ],
        )

    async def search(self, query: str) -> tuple[float, Any, list[list[Any]]]:
        self.probe.query, self.probe.query_words = query, words(query)
        self.probe.judged, self.probe.result = [], None
        started = time.perf_counter()
        await self.agent.run(query, usage_limits=UsageLimits(request_limit=REQUEST_LIMIT))
        elapsed = time.perf_counter() - started
        if self.probe.result is None:
            raise RuntimeError(f"smart_search returned nothing for {query!r}")
        return elapsed, self.probe.result, list(self.probe.judged)


def _field(obj: Any, name: str) -> Any:
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


def hits_of(result: Any) -> tuple[list[list[Any]], list[list[Any]]]:
    """`(snippet spans, excerpt spans with scores)` of a `SmartSearchResult` (object or its dict form)."""
    spans, excerpts = [], []
    for m in _field(result, "matches"):
        path = _field(m, "file_path")
        spans.append([path, _field(m, "snippet_start_line"), _field(m, "snippet_end_line")])
        excerpts.append([path, _field(m, "start_line"), _field(m, "end_line"), _field(m, "score")])
    return spans, excerpts


def rss_mb() -> float:
    """Peak resident memory of this process: `VmHWM` on Linux, else `ru_maxrss`.

    Not `ru_maxrss` on Linux: it survives fork and exec, so a child reports its parent's peak when that is higher.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def load_queries(path: Path, corpus: str | None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if corpus is None or r.get("corpus") == corpus]


def pick_edit_file(corpus_dir: Path) -> Path:
    """A mid-sized Python (else any) source file to touch between searches."""
    for pattern in ("*.py", "*.ts", "*"):
        files = sorted(p for p in corpus_dir.rglob(pattern) if p.is_file() and ".git" not in p.parts)
        if files:
            return max(files[:200], key=lambda p: (p.stat().st_size < 64_000, p.stat().st_size))
    raise FileNotFoundError(f"no file to edit under {corpus_dir}")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    corpus_dir = Path(args.corpus_dir).resolve()
    queries = load_queries(Path(args.queries), args.corpus)
    phases = set(args.phases.split(","))
    rows: list[dict[str, Any]] = [{"corpus": q.get("corpus"), "query": q["query"]} for q in queries]
    out: dict[str, Any] = {
        "corpus_dir": str(corpus_dir),
        "versions": {p: metadata.version(p) for p in ("pydantic-ai-harness", "pydantic-ai-slim")},
        "candidates": args.candidates,
        "queries": rows,
    }
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if not args.quiet else (lambda s: None)

    if "cold" in phases:
        cold = Peer(corpus_dir, cache_index=False, limit=args.limit, candidates=args.candidates)
        for row in rows:
            elapsed, result, judged = await cold.search(row["query"])
            row["cold_s"] = round(elapsed, 4)
            row["hits"], row["excerpts"] = hits_of(result)
            row["judged"] = judged
            coverage = _field(result, "coverage")
            out["files"], out["snippets"] = _field(coverage, "files"), _field(coverage, "snippets")
            log(f"cold {elapsed:7.3f}s  {row['query'][:70]}")
        out["rss_after_cold_mb"] = round(rss_mb(), 1)

    if phases & {"cached", "edit"}:
        warm = Peer(corpus_dir, cache_index=True, limit=args.limit, candidates=args.candidates)
        started = time.perf_counter()
        await warm.search("warm the index")
        out["index_build_s"] = round(time.perf_counter() - started, 4)
        edit_path = corpus_dir / args.edit_file if args.edit_file else pick_edit_file(corpus_dir)
        out["edit_file"] = edit_path.relative_to(corpus_dir).as_posix()
        original = edit_path.read_bytes()
        try:
            for n, row in enumerate(rows):
                if "cached" in phases:
                    elapsed, result, judged = await warm.search(row["query"])
                    row["cached_s"] = round(elapsed, 4)
                    if "hits" not in row:
                        row["hits"], row["excerpts"] = hits_of(result)
                        row["judged"] = judged
                if "edit" in phases:
                    # A new line each time, so the next cached search finds nothing changed since this one.
                    edit_path.write_bytes(original + f"\n# bench edit {n}\n".encode())
                    elapsed, _, _ = await warm.search(row["query"])
                    row["after_edit_s"] = round(elapsed, 4)
                log(f"warm cached={row.get('cached_s')}s edit={row.get('after_edit_s')}s  {row['query'][:60]}")
        finally:
            edit_path.write_bytes(original)

    out["peak_rss_mb"] = round(rss_mb(), 1)
    summary: dict[str, float] = {}
    for key in ("cold_s", "cached_s", "after_edit_s"):
        values = [r[key] for r in rows if key in r]
        if values:
            summary[f"median_{key}"] = round(statistics.median(values), 4)
            summary[f"max_{key}"] = round(max(values), 4)
    out["summary"] = summary
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus_dir")
    parser.add_argument("queries", help="JSON lines with a `query` key (and optionally `corpus`)")
    parser.add_argument("output", help="where to write the JSON report")
    parser.add_argument("--corpus", help="only the queries whose `corpus` is this")
    parser.add_argument("--limit", type=int, default=10, help="matches returned per search (1-100)")
    parser.add_argument("--candidates", type=int, default=128, help="snippets judged per search (1-256)")
    parser.add_argument("--edit-file", help="file (relative to the corpus) to touch before each after-edit search")
    parser.add_argument("--phases", default="cold,cached,edit", help="any of cold,cached,edit")
    parser.add_argument("--max-queries", type=int, default=0, help="run only the first N queries (0: all)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    # The peer lists files with `rg` from PATH; the venv's own (from the `coder` extra) sits beside python.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    if args.max_queries:
        all_queries = load_queries(Path(args.queries), args.corpus)[: args.max_queries]
        tmp = Path(args.output).with_suffix(".queries.jsonl")
        tmp.write_text("".join(json.dumps(q) + "\n" for q in all_queries), encoding="utf-8")
        args.queries, args.corpus = str(tmp), None
    report = asyncio.run(run(args))
    Path(args.output).write_text(json.dumps(report, indent=1), encoding="utf-8")
    s = report["summary"]
    print(
        f"{len(report['queries'])} queries over {report.get('files')} files / {report.get('snippets')} snippets: "
        + ", ".join(f"{k}={v}" for k, v in s.items())
        + f", index_build_s={report.get('index_build_s')}, peak_rss_mb={report['peak_rss_mb']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
