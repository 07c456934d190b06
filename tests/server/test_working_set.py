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
    "beta/retry.py": TWIN,
    "notes/unrelated.py": "def format_invoice(invoice):\n    return str(invoice)\n",
}


async def _paths_after_opening(
    tmp_path: Path, model_server: ModelServer, opened: list[str], **settings: object
) -> tuple[list[str], list[float]]:
    root = write_tree(tmp_path / "project", PROJECT)
    session = await start_session(root, model_server, tmp_path / "cache", settings=dict(settings))
    try:
        await session.wait_for_log("index ready")
        for relative in opened:
            session.open_buffer(relative)
        result = await session.query(query="retry request attempts", mode="behavior")
        return [m.path for m in result.matches], [m.relevance for m in result.matches]
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


async def test_a_file_open_in_the_editor_wins_a_tie(tmp_path: Path, model_server: ModelServer) -> None:
    unopened, _ = await _paths_after_opening(tmp_path / "a", model_server, [])
    assert unopened == ["alpha/retry.py", "beta/retry.py"]  # equal relevance: by path
    opened, scores = await _paths_after_opening(tmp_path / "b", model_server, ["beta/retry.py"])
    assert opened == ["beta/retry.py", "alpha/retry.py"]
    assert scores[0] == scores[1]  # the relevance shown is the judge's, untouched


async def test_the_working_set_never_adds_a_match_and_can_be_switched_off(
    tmp_path: Path, model_server: ModelServer
) -> None:
    paths, _ = await _paths_after_opening(tmp_path / "a", model_server, ["notes/unrelated.py", "beta/retry.py"])
    assert "notes/unrelated.py" not in paths and paths[0] == "beta/retry.py"
    off, _ = await _paths_after_opening(tmp_path / "b", model_server, ["beta/retry.py"], workingSet=False)
    assert off == ["alpha/retry.py", "beta/retry.py"]
