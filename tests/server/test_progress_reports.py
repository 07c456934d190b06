"""Counted progress reports are thinned to one per `REPORT_INTERVAL`: a judge answering in-process must not send a
notification per snippet, while the first report, every report of a slow judge and the count's last still go."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from lsprotocol import types

from smartsearch_ls.server import progress
from smartsearch_ls.server.progress import REPORT_INTERVAL, Progress


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


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    return now


def test_a_fast_count_sends_its_first_and_last_report(clock: list[float]) -> None:
    server = Server()
    reporter = Progress(server, "tok")
    reporter.begin("SmartSearch", "shortlisting snippets")
    for done in range(129):
        clock[0] = done / 1000  # a snippet judged every millisecond
        reporter.report(f"judged {done} of 128", done, 128)
    reporter.end("done")
    assert server.work_done_progress.sent == [
        "begin shortlisting snippets",
        "report judged 0 of 128",
        "report judged 100 of 128",
        "report judged 128 of 128",
        "end done",
    ]


def test_a_slow_count_and_reports_without_a_count_are_all_sent(clock: list[float]) -> None:
    server = Server()
    reporter = Progress(server, "tok")
    reporter.begin("SmartSearch", "shortlisting snippets")
    for done in range(4):
        reporter.report(f"judged {done} of 3", done, 3)
        clock[0] += REPORT_INTERVAL
    reporter.report("embedding candidates")
    reporter.report("reading results")
    assert server.work_done_progress.sent[1:] == [
        *(f"report judged {done} of 3" for done in range(4)),
        "report embedding candidates",
        "report reading results",
    ]
