"""Workspace folders coming and going, index settings changed, and searches that arrive before the index is ready."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.conftest import write_tree
from tests.support.model_servers import ModelServer
from tests.support.sessions import Session, start_session


async def test_folders_are_added_and_dropped(session: Session, tmp_path: Path) -> None:
    other = write_tree(tmp_path / "other", {"ledger.py": "def close_the_ledger(month):\n    return month\n"})
    session.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=other.as_uri(), name="other")], removed=[]
            )
        )
    )
    await session.wait_for_log(f"index ready for {other.resolve()}")
    result = await session.query(query="close the ledger month", directory=str(other))
    assert [m.path for m in result.matches] == ["ledger.py"]
    everywhere = await session.query(query="close the ledger month")
    assert everywhere.coverage.files == 9  # both folders
    session.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[], removed=[types.WorkspaceFolder(uri=other.as_uri(), name="other")]
            )
        )
    )
    with pytest.raises(JsonRpcInvalidParams, match="directory"):
        await session.query(query="close the ledger month", directory=str(other))


async def test_a_search_during_indexing_says_it_is_incomplete(model_server: ModelServer, tmp_path: Path) -> None:
    files = {f"pkg{i // 100}/mod{i}.py": f"def handler_{i}(event):\n    return event.reply({i})\n" for i in range(3000)}
    root = write_tree(tmp_path / "big", files)
    session = await start_session(root, model_server, tmp_path / "cache", settings={"indexWait": 0})
    try:
        result = await session.query(query="handler_7", mode="symbol")
        assert not result.coverage.complete
        assert any("still being indexed" in w for w in result.warnings)
        await session.wait_for_log("index ready", timeout=120)
        result = await session.query(query="handler_7", mode="symbol")
        assert result.coverage.complete and result.matches[0].symbol == "handler_7"
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_exclude_changed_twice_mid_session_rebuilds_once_with_the_last_value(session: Session) -> None:
    """Over stdio, the path an editor takes; a save outlasting the second change is raced in-process
    (`test_settings_rebuild.py`)."""
    mark = len(session.logs())
    for exclude in (["billing/**"], ["auth/**"]):
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"smartSearch": {"exclude": exclude}})
        )
    await session.wait_for_log("index ready", after=mark)
    result = await session.query(query="SessionStore", mode="symbol")
    assert result.coverage.complete and not any(m.path.startswith("auth/") for m in result.matches)
    assert any(m.path.startswith("billing/") for m in (await session.query(query="invoice", mode="symbol")).matches)
    await asyncio.sleep(1.0)  # a second build would start as soon as the first change's save ends
    built = [line for line in session.logs()[mark:] if line.startswith("index ready")]
    assert len(built) == 1, built


async def test_an_unsaved_buffer_is_searched_in_the_index_new_settings_build(session: Session) -> None:
    """New index settings build the folders anew from disk; a buffer typed before and not saved is in them too,
    without another keystroke."""
    uri, original = session.open_buffer("billing/invoice.py")
    session.change_buffer(uri, original + "\n\ndef refund_to_wallet(customer, money):\n    customer.wallet += money\n")
    assert (await session.query(query="refund_to_wallet", mode="symbol")).matches
    mark = len(session.logs())
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"smartSearch": {"exclude": ["auth/**"]}})
    )
    await session.wait_for_log("index ready", after=mark)
    result = await session.query(query="refund_to_wallet", mode="symbol")
    assert [(m.path, m.unsaved) for m in result.matches][:1] == [("billing/invoice.py", True)]
    assert (session.root / "billing/invoice.py").read_text() == original
