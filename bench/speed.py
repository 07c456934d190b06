"""Speed and memory next to the peer: same corpus, same queries, an instant judge on both sides.

Three runners, each in its own processes so memory figures are their own:

- ours, command-line path (`bench.oneshot`, a fresh process per run, `FunctionModel` judge in-process): a cold
  one-shot search (empty cache dir), later searches in the same process, searches after a file changed on
  disk, then restarts on the persisted index;
- ours, server (`bench.server`, the real `smartsearch-ls` over stdio, Pydantic AI's instant `test` model): cold
  start to first answer, later searches, a search after a change on disk, restart to first answer, peak RSS;
  and once more with the embedded `local` judge, for its later searches;
- the peer (`bench/peer/run_peer.py` in its own venv, `FunctionModel` judge): `cold_s` (`cache_index=False`),
  `cached_s` (`cache_index=True`), `after_edit_s`, `index_build_s` (its first search with an index cache,
  which is also what a restart costs it: it keeps nothing on disk), `peak_rss_mb`.

Every figure is a median over runs or queries; `scenarios()` pairs them and computes ours / peer.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import server
from bench.peer import venv

REPO = Path(__file__).resolve().parent.parent


def median(values: list[float]) -> float:
    return round(statistics.median(values), 4) if values else float("nan")


def oneshot(
    root: Path, queries: list[str], *, runs: int, edit_file: str | None, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """`runs` cold one-shot processes (each with an empty cache dir), then `runs` restarts on the last one's cache."""
    cache = Path(tempfile.mkdtemp(prefix="smartsearch-oneshot-"))
    rows: dict[str, list[dict[str, Any]]] = {"cold": [], "restart": []}
    try:
        for phase in ("cold", "restart"):
            for run in range(runs):
                if phase == "cold":
                    shutil.rmtree(cache, ignore_errors=True)
                    cache.mkdir()
                # Later searches and edits only in the first cold run: they do not depend on how it started.
                extra = queries[1:] if phase == "cold" and run == 0 else []
                cmd = [sys.executable, "-m", "bench.oneshot", str(root), str(cache), queries[0], *extra]
                if extra and edit_file:
                    cmd += ["--edit-file", edit_file]
                started = time.perf_counter()
                proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
                wall = time.perf_counter() - started
                if proc.returncode != 0:
                    raise RuntimeError(f"bench.oneshot failed:\n{proc.stderr[-3000:]}")
                row = json.loads(proc.stdout.strip().splitlines()[-1])
                row["process_wall_s"] = round(wall, 4)
                rows[phase].append(row)
                log(
                    f"  ours one-shot {root.name} {phase} {run + 1}/{runs}: process {wall:.2f}s, "
                    f"index+search {row['first_total_s']:.2f}s"
                )
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return summarize(rows)


def summarize(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Medians of `oneshot` runs. The first cold run also did the later and after-edit searches, so its process
    wall time is left out of the cold process median (when there are other runs)."""
    first = rows["cold"][0]
    plain_cold = rows["cold"][1:] or rows["cold"]
    return {
        "runs": rows,
        "files": first["files"],
        "snippets": first["snippets"],
        "median_cold_in_process_s": median([r["first_total_s"] for r in rows["cold"]]),
        "median_cold_index_s": median([r["first_index_s"] for r in rows["cold"]]),
        "median_cold_process_s": median([r["process_wall_s"] for r in plain_cold]),
        "median_import_s": median([r["import_s"] for r in rows["cold"]]),
        "median_later_s": median(first["later_s"]),
        "median_after_edit_s": median(first["after_edit_s"]),
        "median_restart_in_process_s": median([r["first_total_s"] for r in rows["restart"]]),
        "median_restart_process_s": median([r["process_wall_s"] for r in rows["restart"]]),
        "peak_rss_mb": max(r["peak_rss_mb"] for phase in rows.values() for r in phase),
    }


def peer(
    root: Path, corpus: str, queries_file: Path, out: Path, *, max_queries: int, edit_file: str | None
) -> dict[str, Any]:
    """Run the peer over the corpus's queries (the first `max_queries`; 0 = all); returns its report."""
    if not venv.is_ready():
        raise RuntimeError("the peer venv is missing: run `python -m bench peer-setup`")
    extra = ["--corpus", corpus, "--quiet"]
    if max_queries:
        extra += ["--max-queries", str(max_queries)]
    if edit_file:
        extra += ["--edit-file", edit_file]
    code = venv.run(root, queries_file, out, extra)
    if code != 0:
        raise RuntimeError(f"the peer failed on {corpus} (exit {code})")
    return slim_peer(json.loads(out.read_text()))


def slim_peer(report: dict[str, Any]) -> dict[str, Any]:
    """The peer's report without hits, excerpts and judged spans (they stay in `peer.<corpus>.json`)."""
    timings = ("corpus", "query", "cold_s", "cached_s", "after_edit_s")
    return {**report, "queries": [{k: q[k] for k in timings if k in q} for q in report["queries"]]}


def run_server(
    root: Path, queries: list[str], *, runs: int, searches: int, judge: str = server.INSTANT
) -> dict[str, Any]:
    return asyncio.run(server.measure(root, queries, runs=runs, searches=searches, judge=judge))


@dataclass(frozen=True)
class Scenario:
    name: str
    ours_label: str
    ours_s: float
    peer_label: str
    peer_s: float

    @property
    def ratio(self) -> float:
        return self.ours_s / self.peer_s if self.peer_s else float("nan")


def scenarios(corpus: dict[str, Any]) -> list[Scenario]:
    """The pairs, in seconds (RSS pairs in MB), from one corpus's `oneshot`, `server` and `peer` figures."""
    o, s, p = corpus["oneshot"], corpus["server"], corpus["peer"]
    ps = p["summary"]
    return [
        Scenario(
            "cold search",
            "one-shot: cold index + search, fresh process (in-process time)",
            o["median_cold_in_process_s"],
            "`cache_index=False` search",
            ps["median_cold_s"],
        ),
        Scenario(
            "cold search, whole process",
            "one-shot process wall time (interpreter start + imports + index + search)",
            o["median_cold_process_s"],
            "`cache_index=False` search (in a warm process)",
            ps["median_cold_s"],
        ),
        Scenario(
            "first search, long-lived",
            "server: cold start to first answer",
            s["median_cold_to_first_answer_s"],
            "first `cache_index=True` search (builds the index)",
            p["index_build_s"],
        ),
        Scenario(
            "later searches",
            "server: later searches (median)",
            s["later_search_p50_ms"] / 1000,
            "`cache_index=True` search",
            ps["median_cached_s"],
        ),
        *(
            [
                Scenario(
                    "later searches, embedded judge",
                    "server with the `local` judge: later searches (median), embedding its candidates",
                    corpus["server_local"]["later_search_p50_ms"] / 1000,
                    "`cache_index=True` search (instant stand-in judge)",
                    ps["median_cached_s"],
                ),
                Scenario(
                    "later searches, embedded judge, all embedded",
                    "the same once background embedding has ended (every vector there)",
                    corpus["server_local"]["embedded_search_p50_ms"] / 1000,
                    "`cache_index=True` search (instant stand-in judge)",
                    ps["median_cached_s"],
                ),
            ]
            if "server_local" in corpus
            else []
        ),
        Scenario(
            "later searches, in-process",
            "engine in-process, index in memory (one-shot process)",
            o["median_later_s"],
            "`cache_index=True` search",
            ps["median_cached_s"],
        ),
        Scenario(
            "search after editing one file",
            "server: file written + didChangeWatchedFiles, then an earlier query again (judgments of unchanged "
            "snippets are cached)",
            s["after_disk_edit_p50_ms"] / 1000,
            "the same query again after the file changed (no judgment cache)",
            ps["median_after_edit_s"],
        ),
        *(
            [
                Scenario(
                    "search after editing one file, new query",
                    "server: file written + didChangeWatchedFiles, then a query not searched before",
                    s["after_disk_edit_new_query_p50_ms"] / 1000,
                    "the same query again after the file changed (no judgment cache)",
                    ps["median_after_edit_s"],
                )
            ]
            if "after_disk_edit_new_query_p50_ms" in s
            else []
        ),
        Scenario(
            "search after editing one file, in-process",
            "engine: refresh + search (one-shot process)",
            o["median_after_edit_s"],
            "search after the file changed on disk",
            ps["median_after_edit_s"],
        ),
        Scenario(
            "restart to first answer",
            "server restart on its persisted index",
            s["median_restart_to_first_answer_s"],
            "new process: first `cache_index=True` search (nothing persisted)",
            p["index_build_s"],
        ),
        Scenario(
            "restart to first answer, one-shot",
            "one-shot process on the persisted index (in-process time)",
            o["median_restart_in_process_s"],
            "`cache_index=False` search",
            ps["median_cold_s"],
        ),
    ]


def memory(corpus: dict[str, Any]) -> list[Scenario]:
    o, s, p = corpus["oneshot"], corpus["server"], corpus["peer"]
    return [
        Scenario("peak RSS, server (MB)", "server `VmHWM`", s["peak_rss_mb"], "peer process `VmHWM`", p["peak_rss_mb"]),
        Scenario(
            "peak RSS, one-shot (MB)",
            "one-shot process `VmHWM`",
            o["peak_rss_mb"],
            "peer process `VmHWM`",
            p["peak_rss_mb"],
        ),
    ]
