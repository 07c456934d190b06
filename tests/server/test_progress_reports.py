"""Counted progress reports are thinned to one per `REPORT_INTERVAL`: a judge answering in a millisecond must not
send a notification per snippet, while the first report, the count's last, reports without a count, and (after
the interval) the latest report held back still reach the editor."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest
from lsprotocol import types

from smartsearch_ls.server import progress
from smartsearch_ls.server.progress import Progress


@dataclass
class Recorded:
    """The `work_done_progress` side of a server: what would go to the client."""

    sent: list[str] = field(default_factory=list)

    def begin(self, token: types.ProgressToken, value: types.WorkDoneProgressBegin) -> None:
        self.sent.append(f"begin {value.message}")

    def report(self, token: types.ProgressToken, value: types.WorkDoneProgressReport) -> None:
        self.sent.append(f"report {value.message}")

    def end(self, token: types.ProgressToken, value: types.WorkDoneProgressEnd) -> None:
        self.sent.append(f"end {value.message}")


@dataclass
class Server:
    work_done_progress: Recorded = field(default_factory=Recorded)

    def supports_progress(self) -> bool:
        return True


def begun(server: Server) -> Progress:
    reporter = Progress(server, "tok")
    reporter.begin("SmartSearch", "shortlisting snippets")
    return reporter


async def test_a_fast_count_sends_its_first_and_last_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress, "REPORT_INTERVAL", 0.2)  # far longer than the loop, however loaded the machine
    server = Server()
    reporter = begun(server)
    for done in range(129):
        reporter.report(f"judged {done} of 128", done, 128)
    reporter.end("done")
    assert server.work_done_progress.sent == [
        "begin shortlisting snippets",
        "report judged 0 of 128",
        "report judged 128 of 128",
        "end done",
    ]


def burst(monkeypatch: pytest.MonkeyPatch, server: Server) -> Progress:
    """Nine answers of a remote judge at once, well inside a 0.2 s interval: only the first is sent at once."""
    monkeypatch.setattr(progress, "REPORT_INTERVAL", 0.2)
    reporter = begun(server)
    for done in range(9):
        reporter.report(f"judged {done} of 128", done, 128)
    assert server.work_done_progress.sent[-1] == "report judged 0 of 128"
    return reporter


async def test_the_latest_report_held_back_goes_when_the_interval_is_over(monkeypatch: pytest.MonkeyPatch) -> None:
    server = Server()
    burst(monkeypatch, server)
    await asyncio.sleep(0.3)
    assert server.work_done_progress.sent[1:] == ["report judged 0 of 128", "report judged 8 of 128"]


async def test_nothing_held_back_goes_after_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    server = Server()
    burst(monkeypatch, server).end("cancelled")
    await asyncio.sleep(0.3)  # the held-back "judged 8" would have gone by now
    assert server.work_done_progress.sent[1:] == ["report judged 0 of 128", "end cancelled"]


async def test_a_slow_count_and_reports_without_a_count_are_all_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "REPORT_INTERVAL", 0.05)
    server = Server()
    reporter = begun(server)
    for done in range(3):
        reporter.report(f"judged {done} of 3", done, 3)
        await asyncio.sleep(0.06)
    reporter.report("embedding candidates")
    reporter.report("reading results")
    assert server.work_done_progress.sent[1:] == [
        *(f"report judged {done} of 3" for done in range(3)),
        "report embedding candidates",
        "report reading results",
    ]
