"""Folder-level events: a folder deleted, renamed, moved out of or into the workspace, and a file made readable.

VS Code sends one event for a folder that is deleted or renamed, never one per file in it, and inotify reports
a folder moved in or out as one event on the folder; a chmod is an attribute change. Each must leave the index
equal to a fresh one, in both watch modes: the client's events and the server's own watcher.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from smartsearch_ls.index.root_index import RootIndex
from tests.conftest import write_tree
from tests.support.faults import FaultServer, Server, differences, launch, obeying_file_modes, poll, snapshot
from tests.support.sessions import NEOVIM, VSCODE

QUIET = {"semantic": False}
"""No background embedding: these servers only follow files and look names up."""


def package(name: str) -> dict[str, str]:
    return {
        f"{name}/ledger.py": f"def post_{name}_ledger_entry(entry):\n    return entry\n",
        f"{name}/deep/audit.py": f"def audit_{name}_trail(trail):\n    return trail\n",
    }


def assert_fresh(index: RootIndex) -> None:
    fresh = RootIndex(index.root)
    fresh.refresh()
    assert differences(snapshot(index), snapshot(fresh)) == []


def test_one_event_per_folder_relists_under_it(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "project", {"main.py": "def main():\n    pass\n", **package("old"), **package("gone")})
    outside = tmp_path / "outside"
    write_tree(outside, package("arrived"))
    index = RootIndex(root)
    index.refresh()
    (root / "old").rename(root / "renamed")  # a rename: the old folder's event and the new one's
    shutil.rmtree(root / "gone")  # a delete
    (outside / "arrived").rename(root / "arrived")  # moved in: its files were never reported one by one
    index.apply_changes(["old", "renamed", "gone", "arrived"])
    assert_fresh(index)
    (root / "arrived").rename(outside / "left")  # moved out
    index.apply_changes(["arrived"])
    assert_fresh(index)
    assert not any(p.startswith(("old/", "gone/", "arrived/")) for p, _ in index.entries())


async def finds(server: Server, query: str, path: str) -> bool:
    return path in {m.path for m in (await server.query(query=query)).matches}


@pytest.mark.parametrize("capabilities", [VSCODE, NEOVIM], ids=["client-watch", "server-watch"])
async def test_folders_moved_out_and_in_reach_the_index(
    fault_judge: FaultServer, tmp_path: Path, capabilities: str
) -> None:
    root = write_tree(tmp_path / "project", {"main.py": "def main():\n    pass\n", **package("old")})
    outside = write_tree(tmp_path / "outside", package("arrived"))
    server = await launch(root, fault_judge, tmp_path / "cache", capabilities=capabilities, settings=QUIET)
    try:
        await server.wait_for_log("index ready")
        assert await finds(server, "post_old_ledger_entry", "old/ledger.py")
        (root / "old").rename(outside / "old")
        (outside / "arrived").rename(root / "arrived")
        if capabilities == VSCODE:  # one event per folder, as VS Code sends (the server's watcher sees its own)
            events = [(root / "old", types.FileChangeType.Deleted), (root / "arrived", types.FileChangeType.Created)]
            changes = [types.FileEvent(uri=path.as_uri(), type=kind) for path, kind in events]
            server.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=changes))

        async def old_gone() -> bool:
            return not await finds(server, "post_old_ledger_entry", "old/ledger.py")

        await poll(old_gone, 10, "dropping the files of the folder moved out")
        await poll(
            lambda: finds(server, "audit_arrived_trail", "arrived/deep/audit.py"), 10, "indexing the folder moved in"
        )
    finally:
        await server.stop()


async def test_a_file_made_readable_again_is_read(fault_judge: FaultServer, tmp_path: Path) -> None:
    """Skipped as unreadable at start; `chmod 644` is an attribute change, which the server's watcher must pass on.
    The server runs without the capabilities that let root ignore file modes."""
    root = write_tree(tmp_path / "project", {"vault.py": "def unlock_the_vault(vault):\n    return vault\n"})
    (root / "vault.py").chmod(0)
    server = await launch(
        root, fault_judge, tmp_path / "cache", capabilities=NEOVIM, settings=QUIET, prefix=obeying_file_modes()
    )
    try:
        await server.wait_for_log("index ready")
        result = await server.query(query="unlock_the_vault")
        assert result.matches == [] and result.coverage.skippedByReason.unreadable == 1
        (root / "vault.py").chmod(0o644)
        await poll(lambda: finds(server, "unlock_the_vault", "vault.py"), 10, "reading the file made readable")
    finally:
        await server.stop()
