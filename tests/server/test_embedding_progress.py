"""Background embedding's `$/progress` ends with the final count, even when it ends before its token exists.

The token is created by a round trip to the client; a small folder can finish embedding within it. The
race is driven here through a client that answers `window/workDoneProgress/create` only when told to.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from smartsearch_ls.server.progress import EmbeddingReporter


class SlowClientProgress:
    """pygls' work-done progress, as seen by the reporter, with the client's answer held back."""

    def __init__(self) -> None:
        self.answer = asyncio.Event()
        self.sent: list[tuple[str, object]] = []

    async def create_async(self, token: types.ProgressToken) -> None:
        await self.answer.wait()

    def begin(self, token: types.ProgressToken, value: types.WorkDoneProgressBegin) -> None:
        self.sent.append(("begin", value.message))

    def report(self, token: types.ProgressToken, value: types.WorkDoneProgressReport) -> None:
        self.sent.append(("report", value.message))

    def end(self, token: types.ProgressToken, value: types.WorkDoneProgressEnd) -> None:
        self.sent.append(("end", value.message))


class ProgressCapableServer:
    def __init__(self) -> None:
        self.work_done_progress = SlowClientProgress()

    def supports_progress(self) -> bool:
        return True


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_embedding_that_ends_before_its_token_exists_ends_with_the_final_count() -> None:
    server = ProgressCapableServer()
    reporter = EmbeddingReporter(server)
    root = Path("/project")
    reporter(root, 8, 9, False)  # the first batch begins the progress: the token is being created
    reporter(root, 9, 9, True)  # the last batch lands before the client answered
    await settle()
    server.work_done_progress.answer.set()
    await settle()
    assert server.work_done_progress.sent == [
        ("begin", "8 of 9 snippets embedded"),
        ("end", "9 of 9 snippets embedded"),
    ]


async def test_embedding_reports_then_ends_once_its_token_exists() -> None:
    server = ProgressCapableServer()
    server.work_done_progress.answer.set()
    reporter = EmbeddingReporter(server)
    root = Path("/project")
    reporter(root, 8, 24, False)
    await settle()
    reporter(root, 16, 24, False)
    reporter(root, 24, 24, True)
    assert server.work_done_progress.sent == [
        ("begin", "8 of 24 snippets embedded"),
        ("report", "16 of 24 snippets embedded"),
        ("end", "24 of 24 snippets embedded"),
    ]
