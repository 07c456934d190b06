"""Soak: a bounded mixed load against the real server over stdio, reporting throughput, errors, latency and memory.

    .venv/bin/python -m bench prepare --quick            # once: bench/.corpora/click
    .venv/bin/python -m bench.soak --minutes 10          # edits + searches + cancels on a copy of click
    .venv/bin/python -m bench.soak --tree-files 100000   # resident memory of the server on a generated tree

The corpus is copied to a temporary folder first (edits never touch `bench/.corpora`). The judge is the loopback
System One API of the tests (`tests/support/model_servers.py`, deterministic, `--judge-delay-ms` per answer), so
the figures measure the server, not a model; `--judge local` uses the embedded judge instead. Clients behave
like an editor: `--clients` loops each pick a behavior search, a symbol search, a search cancelled mid-way, or
an edit of a file followed by `workspace/didChangeWatchedFiles`. Every `--report-seconds` a line prints requests
served, errors, p50/p99 latency and the server's RSS and threads (from /proc); the summary goes to stdout and
to `bench/out/soak-<corpus>.json`. An error is any answer other than a result, or RequestCancelled for a
cancelled search, and any ERROR record in the server's log (`--log-file` in the scratch folder); the run exits
1 when there was one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from tests.support.faults import FaultServer, Server, generate_tree, launch, proc_status

HERE = Path(__file__).resolve().parent
CORPORA = HERE / ".corpora"
OUT = HERE / "out"

QUERIES = [
    "parse command line options into parameters",
    "print the help text of a command",
    "prompt the user for confirmation",
    "open a file lazily for writing",
    "convert a value to the parameter type",
    "echo text to the terminal with colors",
    "find the closest matching command name",
    "read environment variables for options",
    "handle keyboard interrupt and abort",
    "format usage errors for the user",
]
SYMBOLS = ["Command", "Context.invoke", "echo", "prompt", "Option", "ParamType.convert", "style", "get_app_dir"]


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


EDIT_MARKERS = {
    ".py": "\n\ndef soak_edit_{n}(value):\n    return value  # soak edit\n",
    ".ts": "\n\nexport function soakEdit{n}(value: unknown) {{\n  return value; // soak edit\n}}\n",
    ".js": "\n\nexport function soakEdit{n}(value) {{\n  return value; // soak edit\n}}\n",
}
"""What an edit appends to a file, by language (replacing the previous one), so the file still parses."""


class Soak:
    """The load, and what it measured."""

    def __init__(self, server: Server, root: Path, seed: int) -> None:
        self.server = server
        self.root = root
        self.random = random.Random(seed)
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.served: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.samples: list[dict[str, Any]] = []
        self.files = [p for p in sorted(root.rglob("*")) if p.suffix in EDIT_MARKERS and p.is_file()]
        if not self.files:
            raise SystemExit(f"{root} has no {', '.join(EDIT_MARKERS)} file for the soak to edit")
        self.edits = 0

    async def timed(self, kind: str, params: dict[str, Any]) -> None:
        started = time.monotonic()
        try:
            await self.server.query(**params)
        except JsonRpcException as error:
            self.errors[f"{kind}: {type(error).__name__} {error.code}"] += 1
            return
        self.latency[kind].append(time.monotonic() - started)
        self.served[kind] += 1

    async def cancelled(self) -> None:
        msg_id = f"soak-{uuid.uuid4().hex}"
        params = {"query": self.random.choice(QUERIES) + f" {self.random.randrange(10**6)}", "mode": "behavior"}
        future = asyncio.wrap_future(
            self.server.client.protocol.send_request("smartSearch/query", params, msg_id=msg_id)
        )
        await asyncio.sleep(self.random.uniform(0.02, 0.3))
        self.server.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
        started = time.monotonic()
        try:
            await future
            self.served["cancel-too-late"] += 1  # finished before the cancel arrived: fine
        except JsonRpcRequestCancelled:
            self.latency["cancel"].append(time.monotonic() - started)
            self.served["cancel"] += 1
        except JsonRpcException as error:
            self.errors[f"cancel: {type(error).__name__} {error.code}"] += 1

    async def edit(self) -> None:
        path = self.random.choice(self.files)
        text = path.read_text(encoding="utf-8", errors="replace")
        marker = EDIT_MARKERS[path.suffix].format(n=self.edits)
        kept = text.split(EDIT_MARKERS[path.suffix].split("{n}")[0])[0]  # the previous soak edit goes
        path.write_text(kept + marker)
        self.edits += 1
        self.server.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]
            )
        )
        self.served["edit"] += 1

    async def client(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            pick = self.random.random()
            if pick < 0.45:
                query = self.random.choice(QUERIES)
                if self.random.random() < 0.5:  # a new query, so the judgment cache does not answer it all
                    query += f" {self.random.randrange(10**6)}"
                await self.timed("behavior", {"query": query, "mode": "behavior"})
            elif pick < 0.65:
                await self.timed("symbol", {"query": self.random.choice(SYMBOLS), "mode": "symbol"})
            elif pick < 0.8:
                await self.cancelled()
            else:
                await self.edit()
                await asyncio.sleep(0.05)

    def sample(self, started: float) -> dict[str, Any]:
        status = proc_status(self.server.pid)
        answered = [v for values in self.latency.values() for v in values]
        line = {
            "seconds": round(time.monotonic() - started),
            "served": sum(self.served.values()),
            "errors": sum(self.errors.values()),
            "p50_ms": round(percentile(answered, 0.5) * 1000),
            "p99_ms": round(percentile(answered, 0.99) * 1000),
            "rss_mb": round(status.rss_kb / 1024),
            "peak_rss_mb": round(status.peak_rss_kb / 1024),
            "threads": status.threads,
        }
        self.samples.append(line)
        print(
            f"{line['seconds']:5d} s  served {line['served']:6d}  errors {line['errors']:3d}  "
            f"p50 {line['p50_ms']:5d} ms  p99 {line['p99_ms']:6d} ms  RSS {line['rss_mb']:4d} MB  "
            f"threads {line['threads']}",
            flush=True,
        )
        return line

    async def run(self, minutes: float, clients: int, report_seconds: float) -> dict[str, Any]:
        started = time.monotonic()
        deadline = started + minutes * 60
        workers = [asyncio.ensure_future(self.client(deadline)) for _ in range(clients)]
        while not all(w.done() for w in workers):
            await asyncio.wait(workers, timeout=report_seconds)
            self.sample(started)
        for worker in workers:
            worker.result()
        return {
            "minutes": minutes,
            "clients": clients,
            "served": dict(self.served),
            "errors": dict(self.errors),
            "latency_ms": {
                kind: {
                    "n": len(values),
                    "p50": round(percentile(values, 0.5) * 1000),
                    "p99": round(percentile(values, 0.99) * 1000),
                    "mean": round(statistics.fmean(values) * 1000),
                }
                for kind, values in sorted(self.latency.items())
            },
            "samples": self.samples,
        }


async def tree_run(args: argparse.Namespace, judge: FaultServer, scratch: Path) -> dict[str, Any]:
    root = scratch / "tree"
    started = time.monotonic()
    generate_tree(root, args.tree_files)
    print(f"generated {args.tree_files} files in {time.monotonic() - started:.0f} s", flush=True)
    settings = {"judge": {"model": args.judge_model}, "semantic": args.semantic}
    server = await launch(root, judge, scratch / "cache", settings=settings)
    try:
        started = time.monotonic()
        await server.wait_for_log("index ready", timeout=3600)
        indexed = time.monotonic() - started
        after_index = proc_status(server.pid)
        await server.query(query=f"handler_{args.tree_files // 2}")
        await server.query(query="handle request kind reply", mode="behavior", candidates=32)
        status = proc_status(server.pid)
    finally:
        await server.stop()
    result = {
        "files": args.tree_files,
        "index_seconds": round(indexed, 1),
        "rss_mb_after_index": round(after_index.rss_kb / 1024),
        "rss_mb_after_searches": round(status.rss_kb / 1024),
        "peak_rss_mb": round(status.peak_rss_kb / 1024),
        "threads": status.threads,
    }
    print(json.dumps(result, indent=2))
    return result


async def soak_run(args: argparse.Namespace, judge: FaultServer, scratch: Path) -> dict[str, Any]:
    source = CORPORA / args.corpus
    if not source.is_dir():
        sys.exit(f"{source} is missing: run `.venv/bin/python -m bench prepare --quick` first")
    root = scratch / args.corpus
    shutil.copytree(source, root, symlinks=True)
    settings = {"judge": {"model": args.judge_model, "timeout": 60}, "semantic": args.semantic}
    log_file = scratch / "server.log"
    server = await launch(root, judge, scratch / "cache", settings=settings, args=("--log-file", str(log_file)))
    try:
        await server.wait_for_log("index ready", timeout=600)
        baseline = proc_status(server.pid)
        print(f"index ready; RSS {baseline.rss_kb // 1024} MB, {baseline.threads} threads", flush=True)
        summary = await Soak(server, root, args.seed).run(args.minutes, args.clients, args.report_seconds)
        summary["rss_mb_at_start"] = round(baseline.rss_kb / 1024)
        await server.query(query="Command", mode="symbol")  # still serving after the soak (matches or not)
        summary["served_after"] = True
    finally:
        await server.stop()
    logged = server_log_errors(log_file)
    summary["server_log_errors"] = sum(logged.values())
    summary["errors"].update({f"server log: {message}": n for message, n in logged.items()})
    print(json.dumps({k: v for k, v in summary.items() if k != "samples"}, indent=2))
    return summary


def server_log_errors(log_file: Path) -> Counter[str]:
    """ERROR and CRITICAL records in the server's own log (rotated files included), by their first line.

    A client sees only answers; a server that answered but logged a traceback (a pygls handler failing, a
    background task crashing) has still misbehaved, so those count as errors too.
    """
    found: Counter[str] = Counter()
    for path in sorted(log_file.parent.glob(log_file.name + "*")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            parts = line.split(" ", 3)
            if len(parts) == 4 and parts[2] in ("ERROR", "CRITICAL"):
                found[parts[3][:200]] += 1
    return found


async def main_async(args: argparse.Namespace) -> int:
    judge = FaultServer().start()
    scratch = Path(tempfile.mkdtemp(prefix="smartsearch-soak-"))
    try:
        if args.tree_files:
            result = await tree_run(args, judge, scratch)
            name = f"soak-tree-{args.tree_files}"
        else:
            result = await soak_run(args, judge, scratch)
            name = f"soak-{args.corpus}"
    finally:
        judge.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    OUT.mkdir(exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    return 1 if result.get("errors") else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long the load runs (default 10)")
    parser.add_argument("--corpus", default="click", help="a prepared corpus under bench/.corpora (default click)")
    parser.add_argument("--clients", type=int, default=4, help="concurrent editor-like clients (default 4)")
    parser.add_argument("--judge-delay-ms", type=int, default=20, help="loopback judge delay per answer")
    parser.add_argument("--judge", default=None, help="a judge model instead of the loopback one, e.g. `local`")
    parser.add_argument("--semantic", action=argparse.BooleanOptionalAction, default=True, help="dense shortlist")
    parser.add_argument("--report-seconds", type=float, default=30.0, help="seconds between progress lines")
    parser.add_argument("--tree-files", type=int, default=0, help="instead: RSS on a generated tree of N files")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.judge_model = args.judge or f"system-one:slow-{args.judge_delay_ms}"
    sys.exit(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
