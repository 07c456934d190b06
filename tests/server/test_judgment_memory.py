"""The judgment memory across restarts: the real server over stdio, a model judge on loopback, requests counted."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.support.faults import poll
from tests.support.model_servers import ModelServer
from tests.support.sessions import Session, start_session


async def _search_then_stop(
    workspace: Path, model_server: ModelServer, cache: Path, query: str, judge: str = "system-one:test"
) -> tuple[object, int]:
    """One session's search; the result and how many judge requests it sent."""
    session: Session = await start_session(workspace, model_server, cache, settings={"judge": {"model": judge}})
    try:
        await session.wait_for_log("index ready")
        before = len(model_server.recorder.requests)
        result = await session.query(query=query)
        return result, len(model_server.recorder.requests) - before
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


def _remembered_rows(cache: Path) -> int:
    """Rows in the sample project's judgment memory (the server keeps one file per root)."""
    (memory,) = (cache / "smartsearch-ls" / "judgments").glob("*.sqlite")
    with sqlite3.connect(memory) as connection:
        return int(connection.execute("SELECT count(*) FROM judgments").fetchone()[0])


async def test_a_repeated_search_after_a_restart_sends_no_judge_request(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first, sent = await _search_then_stop(workspace, model_server, cache, "reject expired sessions")
    assert sent == first.coverage.judged > 0 and first.coverage.remembered == 0  # type: ignore[attr-defined]
    assert _remembered_rows(cache) == sent
    # Case and spacing do not make another question.
    again, sent_again = await _search_then_stop(workspace, model_server, cache, "Reject  expired sessions")
    assert sent_again == 0
    assert again.coverage.remembered == again.coverage.judged == first.coverage.judged  # type: ignore[attr-defined]
    assert [(m.path, m.relevance) for m in again.matches] == [(m.path, m.relevance) for m in first.matches]  # type: ignore[attr-defined]


async def test_an_edited_snippet_is_judged_again_and_its_old_judgment_dropped(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first, _ = await _search_then_stop(workspace, model_server, cache, "reject expired sessions")
    sessions = workspace / "auth/sessions.py"
    sessions.write_text(sessions.read_text().replace('"session expired"', '"this session has expired"'))
    session = await start_session(workspace, model_server, cache)
    try:
        await session.wait_for_log("index ready")
        await poll(lambda: _remembered_rows(cache) == first.coverage.judged - 1, 30, "the edited snippet's row pruned")  # type: ignore[attr-defined]
        before = len(model_server.recorder.requests)
        again = await session.query(query="reject expired sessions")
        sent = len(model_server.recorder.requests) - before
        assert again.matches[0].path == "auth/sessions.py" and "has expired" in again.matches[0].excerpt
        assert 1 <= sent < again.coverage.judged  # only what changed is asked again
        assert again.coverage.remembered == again.coverage.judged - sent
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
    assert first.coverage.judged > 0  # type: ignore[attr-defined]


async def test_another_judge_never_reuses_a_remembered_judgment(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    await _search_then_stop(workspace, model_server, cache, "reject expired sessions")
    other, sent = await _search_then_stop(
        workspace, model_server, cache, "reject expired sessions", judge="system-one:other"
    )
    assert sent == other.coverage.judged > 0 and other.coverage.remembered == 0  # type: ignore[attr-defined]
