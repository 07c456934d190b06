"""`smartSearch/query` end to end: the real server over stdio, a real judge API on loopback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from tests.support.faults import poll
from tests.support.model_servers import ModelServer
from tests.support.sessions import Session, start_session


async def test_indexing_reports_progress_and_coverage(session: Session) -> None:
    reports = [r for values in session.client.progress_reports.values() for r in values]
    kinds = [r.kind for r in reports]
    assert kinds[0] == "begin" and "end" in kinds
    begin = next(r for r in reports if r.kind == "begin")
    assert begin.title.startswith("Indexing")
    end = next(r for r in reports if r.kind == "end")
    assert "files" in end.message and "skipped" in end.message and "snippets" in end.message
    assert any("watch mode: client" in m for m in session.logs())


async def test_a_behavior_query_finds_the_code_and_reports_coverage(session: Session) -> None:
    result = await session.query(query="reject expired sessions")
    assert result.mode == "behavior" and result.judge == "system-one:test"
    top = result.matches[0]
    assert top.path == "auth/sessions.py"
    assert top.location.uri == (session.root / "auth/sessions.py").resolve().as_uri()
    assert top.location.range.start.line + 1 <= 17 <= top.location.range.end.line + 1  # the raise line
    assert top.location.range.end.line - top.location.range.start.line < 12
    assert 0.5 <= top.relevance <= 1
    assert result.coverage.files == 8 and result.coverage.skippedFiles == 3
    assert result.coverage.judged == result.coverage.shortlisted
    assert result.coverage.documentation == 1  # README.md: counted, not judged
    test_match = next(m for m in result.matches if m.path.startswith("tests/"))
    assert test_match.kind == "test"
    # nothing hidden or ignored reached the judge
    sent = str(session.judge.recorder.bodies())
    assert "sk-live-secret-value" not in sent and "generated_expired_sessions" not in sent
    assert "A sample project" not in sent


async def test_progress_on_the_requests_token(session: Session) -> None:
    session.client.progress_reports.setdefault("tok-1", [])
    await session.query(query="parse config file", workDoneToken="tok-1")
    reports = session.client.progress_reports["tok-1"]
    assert reports[0].kind == "begin" and reports[0].message == "shortlisting snippets"
    assert reports[1].kind == "report" and reports[1].message == "judged 0 of 8" and reports[1].percentage == 0
    assert reports[-2].kind == "report" and reports[-2].message == "judged 8 of 8" and reports[-2].percentage == 100
    assert reports[-1].kind == "end" and "matches" in reports[-1].message and "judged" in reports[-1].message


async def test_directory_and_glob_narrow_the_search(session: Session) -> None:
    result = await session.query(query="expired sessions rejected", directory=str(session.root / "tests"))
    assert {m.path for m in result.matches} == {"tests/test_sessions.py"}
    result = await session.query(query="expired sessions rejected", glob="auth/**")
    assert {m.path for m in result.matches} == {"auth/sessions.py"}
    # A list of globs, as the command line's repeated `--glob`: a file matching any, none matching a `!glob`.
    result = await session.query(query="expired sessions rejected", glob=["auth/**", "tests/**"])
    assert {m.path for m in result.matches} == {"auth/sessions.py", "tests/test_sessions.py"}
    result = await session.query(query="expired sessions rejected", glob=["*.py", "!tests/**"])
    assert {m.path for m in result.matches} == {"auth/sessions.py"}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": "x" * 2001}, "query"),
        ({"query": 42}, "query"),
        ({"query": "ok", "limit": 0}, "limit"),
        ({"query": "ok", "candidates": 1000}, "candidates"),
        ({"query": "ok", "mode": "psychic"}, "mode"),
        ({"query": "ok", "glob": 5}, "glob"),
        ({"query": "ok", "glob": []}, "glob"),
        ({"query": "ok", "glob": ["*.py", "src/*.{ts"]}, "glob"),
        ({"query": "ok", "directory": "/"}, "directory"),
        ({"query": "ok", "directory": "../.."}, "directory"),
    ],
)
async def test_invalid_params_name_the_field(session: Session, params: dict[str, object], field: str) -> None:
    with pytest.raises(JsonRpcInvalidParams, match=f"`{field}`"):
        await session.query(**params)
    assert (await session.query(query="parse config file")).matches  # still serving


async def test_a_request_without_params_names_the_missing_field(session: Session) -> None:
    """JSON-RPC lets a request leave `params` out; the answer is the one to `{}`, not pygls's decoding failure."""
    for params in (..., None):
        with pytest.raises(JsonRpcInvalidParams) as refused:
            await session.raw_request("smartSearch/query", params)
        assert refused.value.message == "Invalid `query`: Field required"
    with pytest.raises(JsonRpcInvalidParams, match="cannot be decoded"):  # lsprotocol's own types still need theirs
        await session.raw_request("textDocument/hover", ...)
    assert (await session.query(query="parse config file")).matches  # still serving


async def test_symbol_and_path_queries_need_no_judge(session: Session) -> None:
    before = len(session.judge.recorder.requests)
    result = await session.query(query="SessionStore.get")
    assert result.mode == "symbol" and result.judge is None
    assert result.matches[0].symbol == "SessionStore.get" and result.matches[0].path == "auth/sessions.py"
    result = await session.query(query="config/loader.py")
    assert result.mode == "path" and result.matches[0].path == "config/loader.py"
    assert len(session.judge.recorder.requests) == before


async def test_open_buffer_text_is_searched_without_saving(session: Session) -> None:
    uri, original = session.open_buffer("billing/invoice.py")
    query = "refund money to customer wallet"
    assert not (await session.query(query=query)).matches
    session.change_buffer(uri, original + "\n\ndef refund_to_wallet(customer, money):\n    customer.wallet += money\n")
    result = await session.query(query=query)
    assert result.matches[0].symbol == "refund_to_wallet" and result.matches[0].unsaved is True
    assert any("unsaved" in w for w in result.warnings)
    assert (session.root / "billing/invoice.py").read_text() == original


async def test_watched_file_notification_updates_the_index(session: Session) -> None:
    assert any(r.method == "workspace/didChangeWatchedFiles" for r in session.registrations)
    new = session.root / "shipping/labels.py"
    new.parent.mkdir()
    new.write_text("def print_shipping_label(parcel):\n    return parcel.address\n")
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=new.as_uri(), type=types.FileChangeType.Created)]
        )
    )

    async def found() -> bool:
        result = await session.query(query="print shipping label parcel")
        return bool(result.matches) and result.matches[0].path == "shipping/labels.py"

    await poll(found, 30, "the new file in the index")


async def test_server_watcher_follows_disk_when_the_client_cannot(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    session = await start_session(workspace, model_server, tmp_path / "cache", capabilities="neovim")
    try:
        await session.wait_for_log("index ready")
        assert any("watch mode: server" in m for m in session.logs())
        (workspace / "mail.py").write_text("def send_welcome_email(user):\n    smtp.send(user.email)\n")

        async def paths() -> list[str]:
            return [m.path for m in (await session.query(query="send welcome email user")).matches]

        async def indexed() -> bool:
            return (await paths())[:1] == ["mail.py"]

        async def dropped() -> bool:
            return not await paths()

        await poll(indexed, 30, "the watcher's new file in the index")
        (workspace / "mail.py").unlink()
        await poll(dropped, 30, "the deleted file out of the index")
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_a_failing_judge_is_request_failed_and_the_server_survives(session: Session) -> None:
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"smartSearch": {"judge": {"model": "system-one:fail-500"}}})
    )
    failures: list[JsonRpcException] = []

    async def failed() -> bool:
        try:
            await session.query(query="reject expired sessions")
        except JsonRpcException as error:
            failures.append(error)
            return True
        return False

    await poll(failed, 30, "the failing judge in use")
    assert failures[0].code == -32803 and "system-one:fail-500" in failures[0].message
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"smartSearch": {"judge": {"model": "system-one:test"}}})
    )

    async def answered() -> bool:
        try:
            return bool((await session.query(query="reject expired sessions")).matches)
        except JsonRpcException:
            return False

    await poll(answered, 30, "the working judge back in use")


async def test_a_bad_setting_is_named_and_the_old_value_kept(session: Session) -> None:
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"smartSearch": {"threshold": 7}})
    )
    await poll(lambda: any("`threshold`" in m.message for m in session.client.messages), 30, "the setting named")
    assert (await session.query(query="reject expired sessions")).matches


async def test_settings_of_the_wrong_shape_are_refused_and_initialize_still_answers(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    """`initializationOptions: {"smartSearch": "x"}` made `initialize` fail with an internal error."""
    started = await start_session(workspace, model_server, tmp_path / "cache", settings={"smartSearch": "x"})
    try:
        await started.wait_for_log("index ready")
        assert any("must be an object, not str" in m.message for m in started.client.messages)
        assert (await started.query(query="SessionStore.create")).matches
    finally:
        await started.client.shutdown_session()
        await started.client.stop()


async def test_cancel_stops_judging(session: Session) -> None:
    for i in range(40):
        (session.root / f"gen/mod{i}.py").parent.mkdir(exist_ok=True)
        (session.root / f"gen/mod{i}.py").write_text(f"def handler_{i}(request):\n    return request.reply({i})\n")
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=(session.root / f"gen/mod{i}.py").as_uri(), type=types.FileChangeType.Created)
                for i in range(40)
            ]
        )
    )
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"smartSearch": {"judge": {"model": "system-one:slow-300"}, "concurrency": 2}}
        )
    )
    await asyncio.sleep(0.8)  # the settings and the 40 files are taken in (nothing to observe before the search)
    before = len(session.judge.recorder.requests)
    request = asyncio.ensure_future(
        session.client.protocol.send_request_async("smartSearch/query", {"query": "handler request reply"}, msg_id=99)
    )
    await poll(lambda: len(session.judge.recorder.requests) > before, 30, "judging under way")
    session.client.cancel_request(types.CancelParams(id=99))
    with pytest.raises(JsonRpcRequestCancelled):
        await request
    sent = len(session.judge.recorder.requests)
    await asyncio.sleep(1.0)  # long enough for three more rounds of slow judgments, had any been started
    assert len(session.judge.recorder.requests) == sent < before + 40


async def test_undecodable_params_are_answered_once_and_logged_as_nothing_unknown(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    """pygls cannot decode params with a `type_name` key; the request is answered InvalidParams and the stand-in
    notification it becomes is handled, so the server's log holds no "unknown method" line for it."""
    log_file = tmp_path / "server.log"
    started = await start_session(workspace, model_server, tmp_path / "cache", args=("--log-file", str(log_file)))
    try:
        await started.wait_for_log("index ready")
        with pytest.raises(JsonRpcInvalidParams, match="cannot be decoded"):
            await started.raw_request("smartSearch/query", {"query": "parse config file", "type_name": None})
        assert (await started.query(query="parse config file")).matches  # answered after it, in order
    finally:
        await started.client.shutdown_session()
        await started.client.stop()
    log = log_file.read_text()
    assert "index ready" in log and "unknown method" not in log


async def test_a_search_cancelled_while_its_progress_token_is_pending_leaves_no_error(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    """The server asks for a progress token before judging; a client that answers late, after the search was
    cancelled, must find pygls still waiting for that answer (it logged InvalidStateError under the soak)."""

    async def slow_create(client: LanguageClient, params: types.WorkDoneProgressCreateParams) -> None:
        await asyncio.sleep(1.0)

    log_file = tmp_path / "server.log"
    started = await start_session(
        workspace,
        model_server,
        tmp_path / "cache",
        args=("--log-file", str(log_file)),
        client_handlers={types.WINDOW_WORK_DONE_PROGRESS_CREATE: slow_create},
    )
    try:
        await started.wait_for_log("index ready")
        protocol = started.client.protocol
        request = asyncio.ensure_future(
            protocol.send_request_async("smartSearch/query", {"query": "parse config file"}, msg_id=7)
        )
        await asyncio.sleep(0.3)  # the server now waits for the token
        started.client.cancel_request(types.CancelParams(id=7))
        with pytest.raises(JsonRpcRequestCancelled):
            await request
        await asyncio.sleep(1.2)  # the late answer to the token request arrives
        assert (await started.query(query="parse config file")).matches
    finally:
        await started.client.shutdown_session()
        await started.client.stop()
    log = log_file.read_text()
    assert "index ready" in log and "Unable to handle message" not in log and "InvalidStateError" not in log
