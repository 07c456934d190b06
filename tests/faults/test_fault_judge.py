"""Judge faults through the real server over stdio: each fails the search with RequestFailed (-32803) that
names the cause and what to do, never a half-judged result; the same server then answers the next search.

One server serves the whole module; the judge is switched between faults with `didChangeConfiguration`,
as an editor would. The retry policy for HTTP 429 (documented in `judge/per_snippet.py`) is exercised too.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcException

from smartsearch_ls.judge.per_snippet import RATE_LIMIT_RETRIES
from smartsearch_ls.judge.prompt import read_snippet
from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.faults import FaultServer, Server, closed_port, launch, requests_for
from tests.support.model_servers import _texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

REQUEST_FAILED = -32803
GOOD = "system-one:test"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(fault_judge: FaultServer, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    base = tmp_path_factory.mktemp("judge-faults")
    root = write_tree(base / "project", SAMPLE_PROJECT)
    refused = f"http://127.0.0.1:{closed_port()}/v1"
    # semantic off: the background embedding of the dense shortlist is not under test here and costs CI seconds
    started = await launch(
        root, fault_judge, base / "cache", env={"OPENAI_BASE_URL": refused}, settings={"semantic": False}
    )
    await started.wait_for_log("index ready")
    yield started
    await started.stop()


async def fails_with(server: Server, model: str, query: str, timeout: float = 10, **params: object) -> str:
    """Run a behavior search with judge `model`; it must fail with RequestFailed; the error message."""
    server.configure({"judge": {"model": model, "timeout": timeout}})
    with pytest.raises(JsonRpcException) as caught:
        await server.query(query=query, mode="behavior", **params)
    assert caught.value.code == REQUEST_FAILED, caught.value
    message = str(caught.value)
    assert model in message and "No partial result was returned" in message
    return message


async def still_serves(server: Server, query: str) -> None:
    """The same server answers the next search with a working judge, completely judged."""
    server.configure({"judge": {"model": GOOD, "timeout": 10}})
    result = await server.query(query=query, mode="behavior")
    assert result.judge == GOOD and result.matches
    assert result.coverage.complete and result.coverage.judged == result.coverage.snippets


@pytest.mark.parametrize(
    ("model", "cause", "advice"),
    [
        ("system-one:fail-500", "status_code: 500", "the model service failed: retry, or configure another judge"),
        ("system-one:malformed", "Invalid JSON", "the model answered out of shape: try another judge model"),
        ("system-one:out-of-range", "1.7", "the model answered out of shape: try another judge model"),
        ("openai-chat:refused", "Connection error", "could not be reached: check its URL and that it is running"),
    ],
)
async def test_a_failing_judge_fails_the_search_with_cause_and_advice(
    server: Server, model: str, cause: str, advice: str
) -> None:
    message = await fails_with(server, model, f"reject expired sessions {model}")
    assert cause in message and advice in message
    await still_serves(server, "reject expired sessions")


async def test_a_judge_that_hangs_times_out_and_the_server_moves_on(server: Server, fault_judge: FaultServer) -> None:
    started = time.monotonic()
    message = await fails_with(server, "system-one:hang", "parse config file hang", timeout=1)
    assert "did not answer within 1 s" in message and "raise `judge.timeout`" in message
    assert time.monotonic() - started < 8  # bounded by the timeout, not by the judge
    await still_serves(server, "parse config file")


async def test_a_slow_judge_past_the_timeout_fails(server: Server) -> None:
    message = await fails_with(server, "system-one:slow-3000", "parse config file slowly", timeout=0.5)
    assert "did not answer within 0.5 s" in message
    await still_serves(server, "parse config file")


async def test_a_judge_failing_midway_never_yields_a_half_judged_result(
    server: Server, fault_judge: FaultServer
) -> None:
    fault_judge.answered = 0
    query = "invoice total amount with tax"
    server.configure({"concurrency": 1})
    try:
        message = await fails_with(server, "system-one:partial-3", query)
    finally:
        server.configure({"concurrency": 8})
    assert "status_code: 500" in message
    assert len(requests_for(fault_judge, query)) >= 4  # three judged, then the failure: the search still failed
    await still_serves(server, query)


async def test_rate_limiting_is_retried_after_the_wait_it_names_then_fails(
    server: Server, fault_judge: FaultServer
) -> None:
    query = "format the invoice rate limited"
    message = await fails_with(server, "system-one:fail-429", query, timeout=30, glob="billing/**")
    assert "rate limiting" in message and f"retried {RATE_LIMIT_RETRIES} times" in message
    by_snippet: dict[str, list[float]] = {}
    for at, body in requests_for(fault_judge, query):
        framed = next(f for t in _texts(body) if (f := read_snippet(t)) is not None)
        by_snippet.setdefault(framed[1], []).append(at)
    # The first snippet to run out of retries fails the search and cancels the others, which may be a few ms
    # short of their last retry then: one has every attempt, none has more.
    attempts = sorted(len(times) for times in by_snippet.values())
    assert attempts and attempts[-1] == RATE_LIMIT_RETRIES + 1 and all(n >= 1 for n in attempts)
    for times in by_snippet.values():  # each retry waited the second Retry-After asked for
        assert all(later - earlier >= 0.9 for earlier, later in itertools.pairwise(times))
    await still_serves(server, "format the invoice")


async def test_a_single_429_is_absorbed_by_the_retry(server: Server, fault_judge: FaultServer) -> None:
    query = "sum invoice lines with tax"
    server.configure({"judge": {"model": "system-one:flaky-429", "timeout": 10}})
    result = await server.query(query=query, mode="behavior", glob="billing/**")
    assert result.judge == "system-one:flaky-429" and result.coverage.complete
    assert result.matches[0].symbol == "total_amount"
    assert len(requests_for(fault_judge, query)) == 2 * result.coverage.judged  # one 429 and one answer each
    await still_serves(server, query)


async def test_the_failure_ends_the_progress_with_the_cause(server: Server, tmp_path: Path) -> None:
    token = "fault-progress"
    server.client.progress_reports.setdefault(token, [])
    await fails_with(server, "system-one:fail-500", "session store progress", workDoneToken=token)
    reports = server.client.progress_reports[token]
    assert reports[-1].kind == "end" and reports[-1].message.startswith("failed: Judge system-one:fail-500")
