"""Workspace folders inside one another: each file belongs to the innermost folder's index, so it is found,
counted and edited once. The real server over stdio, a model judge on loopback."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.conftest import write_tree
from tests.support.faults import poll
from tests.support.model_servers import ModelServer
from tests.support.sessions import Session, start_session

TREE = {
    "app/main.py": "def start_server(port):\n    return listen(port)\n",
    "app/lib/retry.py": "def retry_request(send, attempts):\n    return [send() for _ in range(attempts)]\n",
    "app/lib/backoff.py": "def retry_delay(attempt):\n    return 2 ** attempt\n",
}


def _locations(result: object) -> list[tuple[str, int]]:
    return [(m.location.uri, m.location.range.start.line) for m in result.matches]  # type: ignore[attr-defined]


async def _indexed(session: Session, count: int) -> None:
    await poll(lambda: sum("index ready" in m for m in session.logs()) >= count, 60, f"{count} folders indexed")


async def test_a_file_of_a_nested_folder_is_found_and_counted_once(tmp_path: Path, model_server: ModelServer) -> None:
    root = write_tree(tmp_path / "ws", TREE)
    outer, inner = root / "app", root / "app" / "lib"
    session = await start_session(outer, model_server, tmp_path / "cache", folders=(outer, inner))
    try:
        await _indexed(session, 2)
        everywhere = await session.query(query="retry request attempts", mode="behavior")
        locations = _locations(everywhere)
        assert len(locations) == len(set(locations)) >= 1
        assert everywhere.coverage.files == 3  # not 5: lib's two files once
        top = everywhere.matches[0]
        assert top.location.uri == (inner / "retry.py").as_uri() and top.path == "retry.py"  # the inner folder's
        # A search of the outer folder covers the nested one, once.
        outer_only = await session.query(query="retry request attempts", mode="behavior", directory=str(outer))
        assert _locations(outer_only) == locations and outer_only.coverage.files == 3
        # A glob written from the searched folder reaches into the nested one.
        globbed = await session.query(query="retry delay", mode="behavior", directory=str(outer), glob="lib/back*")
        assert [m.path for m in globbed.matches] == ["backoff.py"]
        # And an exclude written from there holds for the nested folder's files.
        excluded = await session.query(query="retry delay", mode="behavior", directory=str(outer), glob="!lib/**")
        assert not [m for m in excluded.matches if m.location.uri.startswith(inner.as_uri())]
        # An unsaved edit of a nested file reaches the one index that holds it.
        uri, text = session.open_buffer("lib/retry.py")
        session.change_buffer(uri, text + "\n\ndef retry_forever(send):\n    while not send():\n        pass\n")
        edited = await session.query(query="retry forever send", mode="behavior")
        assert any(m.symbol == "retry_forever" and m.unsaved for m in edited.matches), [
            (m.path, m.symbol, m.unsaved) for m in edited.matches
        ]
        assert len(_locations(edited)) == len(set(_locations(edited)))
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_adding_and_removing_a_nested_folder_moves_its_files(tmp_path: Path, model_server: ModelServer) -> None:
    root = write_tree(tmp_path / "ws", TREE)
    outer, inner = root / "app", root / "app" / "lib"
    session = await start_session(outer, model_server, tmp_path / "cache")
    try:
        await _indexed(session, 1)
        assert (await session.query(query="retry request attempts", mode="behavior")).coverage.files == 3
        change = types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=inner.as_uri(), name="lib")], removed=[]
        )
        session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=change))
        await _indexed(session, 2)
        await session.wait_for_log("index ready for " + str(inner))
        found: list[object] = []

        async def top_is(path: str) -> bool:
            found[:] = [await session.query(query="retry request attempts", mode="behavior")]
            return bool(found[0].matches) and found[0].matches[0].path == path  # type: ignore[attr-defined]

        # The outer folder is re-listed without lib's files in the background: the top is now the inner folder's.
        await poll(lambda: top_is("retry.py"), 30, "the outer folder leaving lib's files to the inner one")
        assert found[0].coverage.files == 3 and len(set(_locations(found[0]))) == len(_locations(found[0]))  # type: ignore[attr-defined]
        gone = types.WorkspaceFoldersChangeEvent(
            added=[], removed=[types.WorkspaceFolder(uri=inner.as_uri(), name="lib")]
        )
        session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=gone))

        # The outer folder takes lib's files back, and the next search waits for that (the test below).
        assert await top_is("lib/retry.py") and found[0].coverage.files == 3, found  # type: ignore[attr-defined]
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


def _still_listing(result: object) -> bool:
    return any("re-listed" in warning for warning in result.warnings)  # type: ignore[attr-defined]


FILLER = 400
"""Files in the nested folder beside the tree's: enough that re-listing the outer folder for them takes longer than a
search takes to start."""


async def test_a_search_right_after_a_nested_folder_comes_or_goes_waits_for_the_re_listing(
    tmp_path: Path, model_server: ModelServer
) -> None:
    files = {**TREE, **{f"app/lib/gen/part_{n}.py": f"def part_{n}():\n    return {n}\n" for n in range(FILLER)}}
    root = write_tree(tmp_path / "ws", files)
    outer, inner = root / "app", root / "app" / "lib"
    everything = len(files)
    session = await start_session(outer, model_server, tmp_path / "cache")
    try:
        await _indexed(session, 1)
        lib = types.WorkspaceFolder(uri=inner.as_uri(), name="lib")
        added = types.WorkspaceFoldersChangeEvent(added=[lib], removed=[])
        session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=added))
        await session.wait_for_log("index ready for " + str(inner))
        # The outer folder gives lib's files up in the background: a search now sees each of them once.
        during = await session.query(query="retry request attempts", mode="behavior")
        assert during.coverage.files == everything and not _still_listing(during), during.warnings
        assert len(set(_locations(during))) == len(_locations(during))
        gone = types.WorkspaceFoldersChangeEvent(added=[], removed=[lib])
        session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=gone))
        # And takes them back: the very next search finds them in it, not nowhere.
        after = await session.query(query="retry request attempts", mode="behavior")
        assert after.coverage.files == everything and not _still_listing(after), after.warnings
        assert after.matches and after.matches[0].path == "lib/retry.py", [m.path for m in after.matches]
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
