"""`$/progress` for long work, on the request's own token or one the server creates.

Clients that do not support work-done progress get nothing here (the same text still goes to the log),
and a client refusing to create a token never fails the work it was meant to report.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types

from smartsearch_ls.server.tasks import spawn

if TYPE_CHECKING:
    from pygls.progress import Progress as WorkDoneProgress

log = logging.getLogger(__name__)

REPORT_INTERVAL = 0.1
"""Counted reports (`judged 5 of 128`) go at most this often; one that comes sooner waits, replaced by any later
one, and the count's last goes at once. A judge without network (Pydantic AI's `test` model, a local server)
finishes a snippet in about a millisecond, a notification per snippet was a large share of such a search's time
(bench/README.md), and no editor redraws its progress that often."""


class ProgressServer(Protocol):
    """What progress needs of the server (`server.app.SmartSearchServer`), which imports this module."""

    @property
    def work_done_progress(self) -> WorkDoneProgress: ...

    def supports_progress(self) -> bool: ...


class Progress:
    """`create` a token, then one `begin`, any number of `report`s and one `end` (idempotent, for `finally`)."""

    def __init__(self, server: ProgressServer, token: types.ProgressToken | None) -> None:
        self._server = server
        self._token = token
        self._begun = False
        self._ended = False
        self._reported: float | None = None  # the event loop's time of the last report sent
        self._waiting: tuple[str, int | None, int | None] | None = None  # the latest report held back
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    async def create(cls, server: ProgressServer, token: types.ProgressToken | None = None) -> Progress:
        """Use the request's token, or create one when the client allows; else report nothing."""
        if token is None and server.supports_progress():
            token = f"smartsearch-{uuid.uuid4().hex[:12]}"
            try:
                # Shielded: cancelling the search must not cancel pygls' future for the client's answer, or the
                # answer arriving later makes pygls log "Unable to handle message" (InvalidStateError).
                await asyncio.shield(server.work_done_progress.create_async(token))
            except Exception as error:  # the client refused; the work goes on unreported
                log.info("client refused a progress token: %s", error)
                token = None
        return cls(server, token)

    def begin(self, title: str, message: str) -> None:
        if self._token is None or self._begun:
            return
        self._begun = True
        self._server.work_done_progress.begin(
            self._token, types.WorkDoneProgressBegin(title=title, message=message, percentage=0, cancellable=False)
        )

    def report(self, message: str, done: int | None = None, total: int | None = None) -> None:
        """Send a report (on the event loop's thread). One with an incomplete count that comes under
        `REPORT_INTERVAL` after the last one sent waits until that interval is over, replaced by any later one."""
        if self._token is None or not self._begun or self._ended:
            return
        loop = asyncio.get_running_loop()
        if done is not None and done != total and self._reported is not None:
            wait = self._reported + REPORT_INTERVAL - loop.time()
            if wait > 0:
                self._waiting = (message, done, total)
                if self._timer is None:
                    self._timer = loop.call_later(wait, self._send_waiting)
                return
        self._send(message, done, total)

    def _send_waiting(self) -> None:
        self._timer = None
        if self._waiting is not None:
            self._send(*self._waiting)

    def _send(self, message: str, done: int | None, total: int | None) -> None:
        self._drop_waiting()
        self._reported = asyncio.get_running_loop().time()
        percentage = int(100 * done / total) if done is not None and total else None
        self._server.work_done_progress.report(
            self._token, types.WorkDoneProgressReport(message=message, percentage=percentage)
        )

    def _drop_waiting(self) -> None:
        self._waiting = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def end(self, message: str) -> None:
        self._drop_waiting()  # the end says where the work ended
        if self._token is None or not self._begun or self._ended:
            self._ended = True
            return
        self._ended = True
        self._server.work_done_progress.end(self._token, types.WorkDoneProgressEnd(message=message))


class EmbeddingReporter:
    """`$/progress` for background embedding, one token per folder, begun on its first batch."""

    def __init__(self, server: ProgressServer) -> None:
        self._server = server
        self._progress: dict[Path, Progress] = {}
        self._finished: dict[Path, str] = {}  # the final message of folders that ended before their token existed

    def __call__(self, root: Path, embedded: int, total: int, finished: bool) -> None:
        message = f"{embedded} of {total} snippets embedded"
        current = self._progress.get(root)
        if finished:
            self._finished[root] = message
            if current is not None:
                current.end(message)
                del self._progress[root]
            return
        self._finished.pop(root, None)
        if current is None:
            self._progress[root] = Progress(self._server, None)  # a placeholder until the token exists
            spawn(self._begin(root, message))
        else:
            current.report(message, embedded, total)

    async def _begin(self, root: Path, message: str) -> None:
        progress = await Progress.create(self._server)
        progress.begin(f"Embedding {root.name}", message)
        if root in self._finished:
            progress.end(self._finished[root])
        elif root in self._progress:
            self._progress[root] = progress
