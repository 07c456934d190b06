"""Background embedding's `$/progress` ends with the final count, even when it ends before its token exists.

The token is created by a round trip to the client; a small folder can finish embedding within it. The real
server is driven here by a client that answers `window/workDoneProgress/create` late, as a busy editor does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.support.faults import poll
from tests.support.model_servers import ModelServer
from tests.support.sessions import start_session

CREATE_DELAY = 2.0
"""Seconds the client takes to create a token: far longer than embedding the sample project's few snippets."""


async def test_embedding_that_ends_before_its_token_exists_ends_with_the_final_count(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    async def late_create(client: LanguageClient, params: types.WorkDoneProgressCreateParams) -> None:
        await asyncio.sleep(CREATE_DELAY)
        client.progress_reports.setdefault(params.token, [])

    session = await start_session(
        workspace,
        model_server,
        tmp_path / "cache",
        settings={"semantic": True},
        client_handlers={types.WINDOW_WORK_DONE_PROGRESS_CREATE: late_create},
    )

    def ended() -> list[types.WorkDoneProgressEnd]:
        reports = [r for values in session.client.progress_reports.values() for r in values]
        return [r for r in reports if r.kind == "end" and "snippets embedded" in (r.message or "")]

    try:
        await poll(lambda: bool(ended()), timeout=CREATE_DELAY + 30, what="the embedding progress's end")
        embedded, _, total = ended()[0].message.split()[:3]
        assert embedded == total and int(total) > 0
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
