"""The editor's working set as a ranking signal: the real server over stdio, a model judge on loopback."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write_tree
from tests.support.model_servers import ModelServer
from tests.support.sessions import start_session

TWIN = (
    "def retry_request(send, attempts):\n    for _ in range(attempts):\n        if send():\n            return True\n"
)
PROJECT = {
    "alpha/retry.py": TWIN,
    # Not a copy (a copy would fold into one match: search.copies), and the judge scores it the same.
    "beta/retry.py": TWIN.replace("if send():", "if send() is True:"),
    "notes/unrelated.py": "def format_invoice(invoice):\n    return str(invoice)\n",
}


async def _paths_after_editing(
    tmp_path: Path, model_server: ModelServer, edited: list[str], **settings: object
) -> tuple[list[str], list[float]]:
    root = write_tree(tmp_path / "project", PROJECT)
    session = await start_session(root, model_server, tmp_path / "cache", settings=dict(settings))
    try:
        await session.wait_for_log("index ready")
        for relative in edited:
            uri, text = session.open_buffer(relative)
            session.change_buffer(uri, text + "\n")  # an edit: what the working set counts
        result = await session.query(query="retry request attempts", mode="behavior")
        return [m.path for m in result.matches], [m.relevance for m in result.matches]
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_a_file_edited_in_the_editor_wins_a_tie(tmp_path: Path, model_server: ModelServer) -> None:
    untouched, _ = await _paths_after_editing(tmp_path / "a", model_server, [])
    assert untouched == ["alpha/retry.py", "beta/retry.py"]  # equal relevance: by path
    edited, scores = await _paths_after_editing(tmp_path / "b", model_server, ["beta/retry.py"])
    assert edited == ["beta/retry.py", "alpha/retry.py"]
    assert scores[0] == scores[1]  # the relevance shown is the judge's, untouched


async def test_a_file_only_opened_is_not_favored(tmp_path: Path, model_server: ModelServer) -> None:
    """Editors open every result they preview; favoring those would feed the ranking its own picks."""
    root = write_tree(tmp_path / "project", PROJECT)
    session = await start_session(root, model_server, tmp_path / "cache")
    try:
        await session.wait_for_log("index ready")
        session.open_buffer("beta/retry.py")
        result = await session.query(query="retry request attempts", mode="behavior")
        assert [m.path for m in result.matches] == ["alpha/retry.py", "beta/retry.py"]
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_the_working_set_never_adds_a_match_and_can_be_switched_off(
    tmp_path: Path, model_server: ModelServer
) -> None:
    paths, _ = await _paths_after_editing(tmp_path / "a", model_server, ["notes/unrelated.py", "beta/retry.py"])
    assert "notes/unrelated.py" not in paths and paths[0] == "beta/retry.py"
    off, _ = await _paths_after_editing(tmp_path / "b", model_server, ["beta/retry.py"], workingSet=False)
    assert off == ["alpha/retry.py", "beta/retry.py"]
