"""Streamed partial results of `smartSearch/query` (`partialResultToken`): the real server over stdio, a model judge
on loopback answering one snippet at a time, batches received as `$/progress` on the token, then a cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from tests.support.model_servers import ModelServer
from tests.support.sessions import Session, start_session

TOKEN = "partial-1"
HANDLERS = 40


def recording_client(batches: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """A `$/progress` handler that keeps the partial results sent on `TOKEN` and files work-done reports as the
    test client does."""

    def progress(client: LanguageClient, params: types.ProgressParams) -> None:
        if params.token == TOKEN:
            batches.append(params.value["matches"])  # type: ignore[index]
            return
        kind = params.value["kind"]  # type: ignore[index]
        shape = {"begin": types.WorkDoneProgressBegin, "report": types.WorkDoneProgressReport}.get(kind)
        value = client.protocol._converter.structure(params.value, shape or types.WorkDoneProgressEnd)
        client.progress_reports.setdefault(params.token, []).append(value)

    return {types.PROGRESS: progress}


async def _session(root: Path, model_server: ModelServer, cache: Path, judge: str, batches: list[Any]) -> Session:
    for i in range(HANDLERS):
        (root / f"gen/mod{i}.py").parent.mkdir(exist_ok=True)
        (root / f"gen/mod{i}.py").write_text(f"def handler_{i}(request):\n    return request.reply({i})\n")
    session = await start_session(
        root,
        model_server,
        cache,
        settings={"judge": {"model": judge, "timeout": 10}, "concurrency": 2},
        client_handlers=recording_client(batches),
    )
    await session.wait_for_log("index ready")
    return session


async def test_batches_arrive_while_judging_and_the_response_is_the_whole_result(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    batches: list[list[dict[str, Any]]] = []
    session = await _session(workspace, model_server, tmp_path / "cache", "system-one:slow-20", batches)
    try:
        result = await session.query(query="handler request reply", limit=5, partialResultToken=TOKEN)
        assert len(batches) >= 2  # the list filled as judgments came in, not once at the end
        for batch in batches:
            assert 1 <= len(batch) <= 5
            scores = [m["relevance"] for m in batch]
            assert scores == sorted(scores, reverse=True)
            assert all(m["location"]["uri"].startswith("file://") and m["excerpt"] for m in batch)
        assert [(m["path"], m["relevance"]) for m in batches[-1]] == [(m.path, m.relevance) for m in result.matches]
        assert result.coverage.judged == result.coverage.shortlisted > 5
        # Without a token, nothing is streamed.
        before = len(batches)
        plain = await session.query(query="reply to a request in a handler")
        assert plain.matches and len(batches) == before
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_a_cancel_keeps_what_was_sent_valid(workspace: Path, model_server: ModelServer, tmp_path: Path) -> None:
    batches: list[list[dict[str, Any]]] = []
    session = await _session(workspace, model_server, tmp_path / "cache", "system-one:slow-300", batches)
    try:
        request = asyncio.ensure_future(
            session.client.protocol.send_request_async(
                "smartSearch/query",
                {"query": "handler request reply", "partialResultToken": TOKEN, "threshold": 0.1},
                msg_id=77,
            )
        )
        deadline = asyncio.get_running_loop().time() + 30
        while not batches:
            assert asyncio.get_running_loop().time() < deadline, "no partial result before the cancel"
            await asyncio.sleep(0.05)
        session.client.cancel_request(types.CancelParams(id=77))
        with pytest.raises(JsonRpcRequestCancelled):
            await request
        sent, received = len(session.judge.recorder.requests), len(batches)
        await asyncio.sleep(1.0)  # long enough for three more slow judgments, had any gone on
        assert len(session.judge.recorder.requests) == sent < HANDLERS
        assert len(batches) == received  # nothing is streamed after the cancel
        for match in batches[-1]:
            path = match["path"]
            start = match["location"]["range"]["start"]["line"]
            lines = (session.root / path).read_text().splitlines()
            assert match["excerpt"].splitlines()[0] == lines[start]  # points at real lines of a real file
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
