"""`workspace/symbol` in both shapes, supersession of stale queries, and a warm restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import to_fs_path

from smartsearch_ls.index import store
from tests.conftest import write_tree
from tests.support.model_servers import ModelServer
from tests.support.sessions import Session, start_session


async def test_identifier_queries_are_answered_from_names_without_a_judge(session: Session) -> None:
    before = len(session.judge.recorder.requests)
    symbols = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="sessstore"))
    assert symbols and symbols[0].name == "SessionStore"
    assert symbols[0].kind == types.SymbolKind.Class and symbols[0].container_name == "auth/sessions.py"
    assert symbols[0].location.range.start.line == 5
    methods = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="create"))
    assert any(s.name == "create" and s.kind == types.SymbolKind.Method for s in methods)
    assert len(session.judge.recorder.requests) == before


async def test_names_typed_into_a_buffer_just_before_are_found(session: Session) -> None:
    """The buffer's edit waits for the next pause in typing; a look-up applies it first, as a search does."""
    uri, original = session.open_buffer("billing/invoice.py")
    session.change_buffer(uri, original + "\n\ndef freshly_typed():\n    pass\n")
    symbols = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="freshly_typed"))
    assert [(s.name, s.location.uri) for s in symbols] == [("freshly_typed", uri)]


async def test_a_new_buffer_not_saved_yet_is_searched_and_its_names_found(session: Session) -> None:
    """A `didOpen` of a path rg has not listed (a new file) was dropped until it was saved."""
    uri = (session.root / "billing/refunds.py").as_uri()
    text = "def issue_refund_note(order):\n    return -order.total\n"
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    symbols = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="issue_refund_note"))
    assert [(s.name, s.location.uri) for s in symbols] == [("issue_refund_note", uri)]
    result = await session.query(query="issue_refund_note", mode="symbol")
    assert [m.location.uri for m in result.matches][:1] == [uri]
    ignored = (session.root / "build/generated.py").as_uri()  # the sample project ignores build/
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=ignored, language_id="python", version=1, text="def generated_only():\n    pass\n"
            )
        )
    )
    assert not await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="generated_only"))


ODD_NAMES = ["x#y.py", "q?.py", "pct%41.py", "sp ace.py", "ünï.py"]


async def test_result_uris_name_the_file_whatever_its_characters(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    (workspace / "odd").mkdir()
    for n, name in enumerate(ODD_NAMES):
        (workspace / "odd" / name).write_text(f'def odd_value_{n}():\n    """Return the odd value."""\n    return 1\n')
    session = await start_session(workspace, model_server, tmp_path / "cache")
    try:
        await session.wait_for_log("index ready")
        for n, name in enumerate(ODD_NAMES):
            found = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=f"odd_value_{n}"))
            assert found[0].name == f"odd_value_{n}"
            assert to_fs_path(found[0].location.uri) == str(workspace / "odd" / name), found[0].location.uri
        judged = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="return the odd value"))
        assert sorted(to_fs_path(s.location.uri) for s in judged) == sorted(
            str(workspace / "odd" / n) for n in ODD_NAMES
        )
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_prose_queries_run_a_judged_search(session: Session) -> None:
    symbols = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="parse the config file"))
    assert [s.name for s in symbols][:1] == ["parse_config_file"]
    assert symbols[0].kind == types.SymbolKind.Function and symbols[0].container_name == "config/loader.py"
    # a kind other than the one a judged hit gets when its file's declarations are not found
    classes = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="keeps sessions in memory"))
    assert [(s.name, s.kind) for s in classes][:1] == [("SessionStore", types.SymbolKind.Class)]


async def test_a_newer_keystroke_supersedes_a_judged_query(session: Session) -> None:
    stale = asyncio.ensure_future(
        session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="reject expired sess"))
    )
    await asyncio.sleep(0.05)
    before = len(session.judge.recorder.requests)
    fresh = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="reject expired sessions"))
    with pytest.raises(Exception, match="cancel"):
        await stale
    assert fresh and fresh[0].container_name in {"auth/sessions.py", "tests/test_sessions.py"}
    queries = [str(b) for _, _, b in session.judge.recorder.requests[before:]]
    assert not any('reject expired sess"' in q or "reject expired sess'" in q for q in queries)


async def test_malformed_workspace_symbol_params_get_an_answer(session: Session) -> None:
    from pygls.exceptions import JsonRpcInvalidParams

    with pytest.raises(JsonRpcInvalidParams, match="query"):
        await session.raw_request("workspace/symbol", {"query": 12})
    with pytest.raises(JsonRpcInvalidParams, match="query"):
        await session.raw_request("workspace/symbol", None)
    assert await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")) == []


async def test_restart_reuses_the_persisted_index(workspace: Path, model_server: ModelServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = await start_session(workspace, model_server, cache)
    ready = await first.wait_for_log("index ready")
    assert "5 files read" in ready or "8 files read" in ready
    await first.client.shutdown_session()
    await first.client.stop()
    (workspace / "config/loader.py").write_text("def load_settings(path):\n    return open(path).read()\n")
    second = await start_session(workspace, model_server, cache)
    try:
        ready = await second.wait_for_log("index ready")
        assert "1 files read" in ready
        result = await second.query(query="load_settings")
        assert result.matches[0].path == "config/loader.py"
    finally:
        await second.client.shutdown_session()
        await second.client.stop()


async def test_a_restart_finds_names_asked_for_as_soon_as_it_is_ready(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    """A restart leaves its declarations pickled until something reads them: a look-up right after `index ready`,
    before the symbol index is built in the background, still finds every name (never an empty list)."""
    cache = tmp_path / "cache"
    first = await start_session(workspace, model_server, cache)
    await first.wait_for_log("index ready")
    await first.client.shutdown_session()
    await first.client.stop()
    second = await start_session(workspace, model_server, cache)
    try:
        assert "0 files read" in await second.wait_for_log("index ready")
        symbols = await second.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="SessionStore"))
        assert symbols and symbols[0].name == "SessionStore" and symbols[0].kind == types.SymbolKind.Class
        methods = await second.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="create"))
        assert any(s.name == "create" and s.container_name == "auth/sessions.py" for s in methods)
    finally:
        await second.client.shutdown_session()
        await second.client.stop()


async def test_a_cold_start_answers_before_it_saves_its_index_and_saves_it_soon_after(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    """The first answer no longer waits for the save, which follows a few seconds later without waiting for the
    session to end, and is not repeated at shutdown."""
    cache = tmp_path / "cache"
    session = await start_session(workspace, model_server, cache)
    try:
        assert (await session.query(query="load_config")).matches
        saved = cache / "smartsearch-ls" / "index"
        assert not saved.is_dir() or not any(saved.iterdir()), "the index was saved before the first answer"
        for _ in range(400):
            if saved.is_dir() and any(p.suffix != ".tmp" for p in saved.iterdir()):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the index was not saved within 20 s of the first answer")
        (written,) = saved.iterdir()
        payload = store.load(written)
        assert payload is not None and payload["root"] == str(workspace.resolve())
        stamp = written.stat().st_ino, written.stat().st_mtime_ns
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
    assert (written.stat().st_ino, written.stat().st_mtime_ns) == stamp, "saved twice: by its timer and at shutdown"


async def test_a_session_that_changed_nothing_leaves_the_persisted_index_as_it_was(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    """Every folder is persisted at exit; rewriting an unchanged one cost seconds of CPU at each editor close on a
    large root."""
    cache = tmp_path / "cache"
    first = await start_session(workspace, model_server, cache)
    await first.wait_for_log("index ready")
    await first.client.shutdown_session()
    await first.client.stop()
    (saved,) = (cache / "smartsearch-ls" / "index").iterdir()
    written = saved.stat().st_ino, saved.stat().st_mtime_ns
    second = await start_session(workspace, model_server, cache)
    try:
        assert "0 files read" in await second.wait_for_log("index ready")
        assert (await second.query(query="load_config")).matches
    finally:
        await second.client.shutdown_session()
        await second.client.stop()
    assert (saved.stat().st_ino, saved.stat().st_mtime_ns) == written


async def test_snippets_are_embedded_in_the_background_with_progress(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    session = await start_session(workspace, model_server, tmp_path / "cache", settings={"semantic": True})
    try:
        await session.wait_for_log("index ready")
        deadline = asyncio.get_running_loop().time() + 120
        while asyncio.get_running_loop().time() < deadline:
            reports = [r for values in session.client.progress_reports.values() for r in values]
            if any(r.kind == "end" and "snippets embedded" in (r.message or "") for r in reports):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"background embedding did not end within 120 s: {reports}")
        begin = next(r for r in reports if r.kind == "begin" and r.title.startswith("Embedding"))
        end = next(r for r in reports if r.kind == "end" and "snippets embedded" in (r.message or ""))
        assert begin.title == f"Embedding {workspace.name}"
        embedded, _, total = end.message.split()[:3]
        assert embedded == total and int(total) > 0
        result = await session.query(query="reject expired sessions")
        assert result.coverage.semantic == 1.0 and result.matches
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_background_embedding_reports_progress_at_most_once_a_second(
    model_server: ModelServer, tmp_path: Path
) -> None:
    """Not a notification per batch of eight: a large root's embedding would send thousands."""
    module = "\n\n".join(f"def f{j}(x):\n    return x + {j}\n" for j in range(20))
    files = {f"pkg/m{i}.py": module.replace("def f", f"def m{i}_f") for i in range(12)}
    root = write_tree(tmp_path / "ws", files)  # 240 snippets: 30 batches
    session = await start_session(root, model_server, tmp_path / "cache", settings={"semantic": True})
    loop = asyncio.get_running_loop()
    try:
        began = ended = None
        deadline = loop.time() + 120
        while ended is None and loop.time() < deadline:
            for values in session.client.progress_reports.values():
                if any(r.kind == "begin" and r.title.startswith("Embedding") for r in values):
                    began = began or loop.time()
                    if any(r.kind == "end" for r in values):
                        ended, reports = loop.time(), values
            await asyncio.sleep(0.05)
        assert began is not None and ended is not None, "background embedding never finished"
        assert reports[-1].message == "240 of 240 snippets embedded"
        assert sum(r.kind == "report" for r in reports) <= (ended - began) + 2
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_the_local_model_is_loaded_at_start_up_not_at_the_first_search(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    session = await start_session(workspace, model_server, tmp_path / "cache", settings={"judge": {"model": "local"}})
    try:
        ready = await session.wait_for_log("local model ready", timeout=120)
        assert ready.startswith("local model ready in ")
        assert not model_server.recorder.requests  # no search was needed for it
        result = await session.query(query="reject expired sessions")
        assert result.judge == "local" and result.matches
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_switching_the_judge_to_local_loads_the_model_before_the_next_search(session: Session) -> None:
    assert not any(line.startswith("local model ready") for line in session.logs())  # hosted judge, semantic off
    mark = len(session.logs())
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"smartSearch": {"judge": {"model": "local"}}})
    )
    ready = await session.wait_for_log("local model ready", timeout=120, after=mark)
    assert ready.startswith("local model ready in ")
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"smartSearch": {"threshold": 0.4}})
    )
    result = await session.query(query="reject expired sessions")
    assert result.judge == "local" and result.matches
    assert sum(line.startswith("local model ready") for line in session.logs()) == 1  # loaded once, not per change
