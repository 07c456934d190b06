"""Folders rg cannot read: what it could list is indexed, the rest is counted, and no answer claims to be complete.

A folder of mode 000 is what a user meets in another user's checkout or a volume mounted with other owners. rg
lists the rest and exits 2; that used to be fatal (the server indexed nothing and answered `complete: true`,
the command line printed a traceback). The tests run as root, which reads anything, so the processes under test
run without the capabilities that let root ignore file modes (`obeying_file_modes`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from smartsearch_ls.discovery import ripgrep
from smartsearch_ls.discovery.errors import CapExceeded
from tests.conftest import write_tree
from tests.support.faults import FaultServer, launch, obeying_file_modes

CODE = {
    "billing/charge.py": "def charge_card(card, amount):\n    '''Charge the card.'''\n    return card.charge(amount)\n",
    "private/refunds.py": "def refund_card(card, amount):\n    return card.refund(amount)\n",
}

QUIET = {"semantic": False}
"""No background embedding: these servers only list and search."""


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = write_tree(tmp_path / "project", CODE)
    (root / "private").chmod(0)
    yield root
    (root / "private").chmod(0o755)


def cli(root: Path, judge: FaultServer, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "SYSTEM_ONE_BASE_URL": f"{judge.base_url}/v1"}
    command = [*obeying_file_modes(), sys.executable, "-c", "from smartsearch_ls.cli import main; main()"]
    command += ["query", "charge the card", "--root", str(root), "--judge", "system-one:test", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_command_line_searches_what_rg_listed_and_says_what_it_could_not_read(
    workspace: Path, fault_judge: FaultServer, tmp_path: Path
) -> None:
    done = cli(workspace, fault_judge, tmp_path / "cache", "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    result = json.loads(done.stdout)
    assert [m["path"] for m in result["matches"]] == ["billing/charge.py"]
    coverage = result["coverage"]
    assert coverage["complete"] is False and coverage["skippedByReason"] == {"unreadable": 1}
    (said,) = [w for w in result["warnings"] if "could not be read" in w]
    assert f"{workspace / 'private'} (Permission denied" in said


def test_the_command_line_fails_with_exit_2_only_when_nothing_could_be_listed(
    workspace: Path, fault_judge: FaultServer, tmp_path: Path
) -> None:
    workspace.chmod(0)
    try:
        done = cli(workspace, fault_judge, tmp_path / "cache")
    finally:
        workspace.chmod(0o755)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("smartsearch: ") and "Permission denied" in done.stderr


async def test_the_server_indexes_what_rg_listed_and_no_answer_is_complete(
    workspace: Path, fault_judge: FaultServer, tmp_path: Path
) -> None:
    server = await launch(
        workspace, fault_judge, tmp_path / "cache", settings={"semantic": False}, prefix=obeying_file_modes()
    )
    try:
        ready = await server.wait_for_log("index ready")
        assert "2 files" in ready, ready  # billing/charge.py, and private/ counted as unreadable
        result = await server.query(query="charge the card", mode="behavior")
        assert [m.path for m in result.matches] == ["billing/charge.py"]
        assert result.coverage.complete is False and result.coverage.skippedByReason.unreadable == 1
        assert any("could not be read" in w and "Permission denied" in w for w in result.warnings)
        symbols = await server.query(query="charge_card")  # a look-up is not complete either
        assert symbols.coverage.complete is False
    finally:
        await server.stop()


async def test_a_folder_the_server_could_list_nothing_of_is_never_searched_as_complete(
    workspace: Path, fault_judge: FaultServer, tmp_path: Path
) -> None:
    workspace.chmod(0)
    try:
        server = await launch(workspace, fault_judge, tmp_path / "cache", settings=QUIET, prefix=obeying_file_modes())
        try:
            await server.wait_for_log("index ready")
            result = await server.query(query="charge the card", mode="behavior")
        finally:
            await server.stop()
    finally:
        workspace.chmod(0o755)
    assert result.matches == [] and result.coverage.complete is False
    assert any("could not be indexed" in w and "Permission denied" in w for w in result.warnings), result.warnings


def test_a_partial_listing_still_reaches_the_file_cap(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of `/` holds paths no one can read and more files than the cap: the answer is the cap, with what
    to do, not a failed listing. rg runs through a script that drops the capabilities (the cap made small)."""
    rg = tmp_path / "rg"
    rg.write_text(f'#!/bin/sh\nexec {" ".join(obeying_file_modes())} {ripgrep.find_rg()} "$@"\n')
    rg.chmod(0o755)
    monkeypatch.setattr(ripgrep, "find_rg", lambda: str(rg))
    assert ripgrep.list_files(workspace).unreadable == {"private": "Permission denied (os error 13)"}
    monkeypatch.setattr(ripgrep, "MAX_FILES", 0)
    with pytest.raises(CapExceeded, match="over the cap"):
        ripgrep.list_files(workspace)
