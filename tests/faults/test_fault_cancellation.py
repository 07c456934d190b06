"""50 overlapping searches, half cancelled mid-judging, against the real server over stdio.

Measured from outside: the judge's own record of requests (per query, timestamped), and the server
process's thread count and resident memory from /proc. A cancelled search must send no judge request
once its cancellation is answered; nothing may keep judging after every search is answered; threads
return to the count before the storm; memory comes back near it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from tests.support.faults import FaultServer, Server, launch, poll, requests_for

SEARCHES = 50
CANDIDATES = 8
POOL_THREADS = 6 + 4
"""asyncio's default executor grows up to min(32, cores + 4) threads on demand and keeps them, and pygls' own
pool up to its `max_workers` (4): not a leak. A leak would add a thread per cancelled search (25 a storm)."""
RSS_SLACK_KB = 40 * 1024
"""Allowed growth of the resident set over the storm: caches of 50 queries and allocator slack."""


def widget_project(root: Path, files: int = 40) -> Path:
    for n in range(files):
        path = root / f"widgets/w{n:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "".join(
                f"def widget_{n}_{k}(widget, number):\n"
                f"    '''Handle widget number {k} of module {n}.'''\n"
                f"    return widget.handle(number + {k})\n\n\n"
                for k in range(4)
            )
        )
    return root


async def search(server: Server, query: str) -> tuple[str, object]:
    """Send a search with a known id; returns (id, future)."""
    msg_id = f"storm-{uuid.uuid4().hex}"
    params = {"query": query, "mode": "behavior", "candidates": CANDIDATES}
    future = server.client.protocol.send_request("smartSearch/query", params, msg_id=msg_id)
    return msg_id, asyncio.wrap_future(future)


async def storm(server: Server, judge: FaultServer, round_: int) -> None:
    """SEARCHES overlapping searches, every other one cancelled once its judging has started."""
    queries = [f"widget handling number {i} round {round_}" for i in range(SEARCHES)]
    sent = {q: await search(server, q) for q in queries}
    cancelled = queries[::2]
    answered_at: dict[str, float] = {}

    async def cancel(query: str) -> None:
        msg_id, future = sent[query]
        await poll(lambda: bool(requests_for(judge, query)), 60, f"judging of {query!r}")
        server.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
        with pytest.raises(JsonRpcRequestCancelled):
            await future
        answered_at[query] = time.monotonic()

    await asyncio.wait_for(asyncio.gather(*(cancel(q) for q in cancelled)), 120)
    kept = [q for q in queries if q not in cancelled]
    results = await asyncio.wait_for(asyncio.gather(*(sent[q][1] for q in kept)), 120)
    for result in results:  # the searches left alone were judged completely
        assert result.coverage.judged == result.coverage.shortlisted == CANDIDATES

    # Nothing keeps judging once every search is answered: the judge hears nothing more.
    total = len(judge.recorder.requests)
    await asyncio.sleep(1.0)
    assert len(judge.recorder.requests) == total

    late = {q: [t for t, _ in requests_for(judge, q) if t > answered_at[q]] for q in cancelled}
    assert not any(late.values()), f"judge requests after the cancellation was answered: {late}"
    unjudged = [q for q in cancelled if len(requests_for(judge, q)) < CANDIDATES]
    assert len(unjudged) >= len(cancelled) // 2, "the cancellations did not land mid-judging"


async def test_cancelled_searches_stop_judging_and_leak_nothing(fault_judge: FaultServer, tmp_path: Path) -> None:
    root = widget_project(tmp_path / "project")
    server = await launch(
        root,
        fault_judge,
        tmp_path / "cache",
        settings={"judge": {"model": "system-one:slow-400", "timeout": 30}, "concurrency": 1, "semantic": False},
    )
    try:
        await server.wait_for_log("index ready")
        # Warm up with overlapping searches, so pools and caches of the process reach their working size.
        warm = [await search(server, f"warm up widget handling {i}") for i in range(10)]
        for _, future in warm:
            assert (await future).coverage.judged == CANDIDATES
        before = server.status()

        await storm(server, fault_judge, 1)
        first = server.status()
        await storm(server, fault_judge, 2)
        # Two storms stay within the bounded pools (pools grow lazily, so the second may add a thread or two the
        # first did not need; a leak would add one per cancelled search), and memory stays level.
        bound = before.threads + POOL_THREADS
        await poll(lambda: server.status().threads <= bound, 10, f"threads back within the pools' bound ({bound})")
        after = server.status()
        print(
            f"\nthreads {before.threads} before, {first.threads} after one storm, {after.threads} after two; RSS "
            f"{before.rss_kb // 1024} MB, {first.rss_kb // 1024} MB, {after.rss_kb // 1024} MB "
            f"(peak {after.peak_rss_kb // 1024} MB)"
        )
        assert first.threads <= before.threads + POOL_THREADS
        assert after.rss_kb - before.rss_kb < RSS_SLACK_KB and after.rss_kb - first.rss_kb < RSS_SLACK_KB // 2
        again = await server.query(query="handle widget number", mode="behavior", candidates=CANDIDATES)
        assert again.matches and again.coverage.judged == CANDIDATES  # still serving
    finally:
        await server.stop()
