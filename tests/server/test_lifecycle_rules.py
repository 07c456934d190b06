"""LSP's lifecycle rules, spoken as raw JSON-RPC to the real server: what a typed client would never send.

Before these, pygls answered a request before `initialize` with an internal error, took a second `initialize`
(replacing the workspace), left requests after `shutdown` unanswered (the client waited forever), ended with 0
on an `exit` without `shutdown`, and an `exit` during a search wrote tracebacks by the megabyte.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.model_servers import ModelServer
from tests.support.raw_client import RawClient, options


@pytest.fixture
def client(tmp_path: Path, model_server: ModelServer) -> Any:
    env = {
        **os.environ,
        "SYSTEM_ONE_BASE_URL": f"{model_server.base_url}/v1",
        "XDG_CACHE_HOME": str(tmp_path / "xdg"),
    }
    with open(tmp_path / "stderr.log", "wb") as stderr:
        started = RawClient(env, stderr)
        yield started
        started.process.kill()
        started.process.wait(timeout=10)


def test_requests_before_initialize_and_a_second_initialize_are_refused(client: RawClient, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    early_folder = {"uri": root.as_uri(), "name": "project"}
    client.send("workspace/didChangeConfiguration", {"settings": {"smartSearch": {"limit": 3}}}, request=False)
    client.send(
        "workspace/didChangeWorkspaceFolders", {"event": {"added": [early_folder], "removed": []}}, request=False
    )
    document = {"uri": (root / "auth/sessions.py").as_uri(), "languageId": "python", "version": 1, "text": "x = 1\n"}
    client.send("textDocument/didOpen", {"textDocument": document}, request=False)
    early = client.answer(client.send("smartSearch/query", {"query": "reject expired sessions"}))
    assert early["error"]["code"] == -32002
    time.sleep(1)  # their handlers, had they run, would have reported their failure by now
    while not client.received.empty():
        client.skipped.append(client.received.get())
    assert client.skipped == []  # the notifications were dropped: no "Error in server" message
    assert "capabilities" in client.initialize(root, options(tmp_path))["result"]
    again = client.answer(client.send("initialize", {"processId": None, "capabilities": {}, "rootUri": None}))
    assert again["error"]["code"] == -32600 and "only once" in again["error"]["message"]
    found = client.answer(client.send("smartSearch/query", {"query": "SessionStore.create"}))
    assert found["result"]["matches"][0]["path"] == "auth/sessions.py"  # the first workspace still stands


def test_after_shutdown_requests_are_refused_and_exit_ends_with_0(client: RawClient, tmp_path: Path) -> None:
    client.initialize(write_tree(tmp_path / "project", SAMPLE_PROJECT), options(tmp_path))
    assert client.answer(client.send("shutdown"))["result"] is None
    late = client.answer(client.send("smartSearch/query", {"query": "SessionStore.create"}))
    assert late["error"]["code"] == -32600 and "after `shutdown`" in late["error"]["message"]
    client.send("exit")  # sent as a request, as some clients do: still an exit
    assert client.process.wait(timeout=30) == 0


def test_exit_during_a_search_ends_at_once_with_1_and_writes_no_tracebacks(client: RawClient, tmp_path: Path) -> None:
    client.initialize(write_tree(tmp_path / "project", SAMPLE_PROJECT), options(tmp_path, "system-one:hang"))
    client.send("smartSearch/query", {"query": "reject expired sessions"})
    time.sleep(3)  # the judge holds every judgment open
    client.send("exit", request=False)
    started = time.monotonic()
    assert client.process.wait(timeout=30) == 1  # no `shutdown` came first
    assert time.monotonic() - started < 10
    log = (tmp_path / "stderr.log").read_text(errors="replace")
    assert "Traceback" not in log and "Error sending data" not in log and len(log) < 20_000


@pytest.mark.parametrize("judge", ["local", "system-one:test"])
def test_exit_right_after_initialized_writes_no_traceback(client: RawClient, tmp_path: Path, judge: str) -> None:
    """`exit` while a model judge's runner was still being imported (the first second after `initialized`) logged
    the handler's CancelledError with its traceback."""
    client.initialize(write_tree(tmp_path / "project", SAMPLE_PROJECT), options(tmp_path, judge))
    time.sleep(0.2)
    client.send("exit", request=False)
    assert client.process.wait(timeout=30) == 1  # no `shutdown` came first
    log = (tmp_path / "stderr.log").read_text(errors="replace")
    assert "Traceback" not in log and "CancelledError" not in log, log[-3000:]


def workers_of(pid: int) -> list[int]:
    """The server's child processes that are indexing workers (`python -P -c ...serve_shares...`), started by
    any of its threads."""
    children = [c for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]
    return [int(c) for c in children if b"serve_shares" in Path(f"/proc/{c}/cmdline").read_bytes()]


@pytest.mark.parametrize("ending", ["exit", "stdin closed"])
def test_exit_during_a_cold_build_ends_at_once(client: RawClient, tmp_path: Path, ending: str) -> None:
    """The build ran in worker processes and a thread the interpreter waits for at exit: many seconds on this tree."""
    root = tmp_path / "project"
    root.mkdir()
    body = "".join(
        f'def handler_{n}(request):\n    """Kind {n}."""\n    return request.reply({n})\n\n\n' for n in range(150)
    )
    for n in range(320):  # enough files for the parallel build
        (root / f"mod{n}.py").write_text(body)
    client.initialize(root, options(tmp_path))
    deadline = time.monotonic() + 60
    while not (workers := workers_of(client.process.pid)):  # the build has started its worker processes
        assert time.monotonic() < deadline, "no indexing worker started"
        time.sleep(0.05)
    if ending == "exit":
        client.send("exit", request=False)
    else:
        assert client.process.stdin is not None
        client.process.stdin.close()
    started = time.monotonic()
    assert client.process.wait(timeout=60) == 1
    assert time.monotonic() - started < 3
    log = (tmp_path / "stderr.log").read_text(errors="replace")
    assert "index ready" not in log and "Traceback" not in log, log[-3000:]
    assert [w for w in workers if Path(f"/proc/{w}").exists()] == []  # the workers did not outlive it


def test_an_exit_without_shutdown_saves_the_index_a_cold_start_had_not_saved_yet(
    client: RawClient, tmp_path: Path
) -> None:
    """A cold start saves its index a few seconds after its first answer; an `exit` in those seconds lost the build."""
    client.initialize(write_tree(tmp_path / "project", SAMPLE_PROJECT), options(tmp_path))
    found = client.answer(client.send("smartSearch/query", {"query": "SessionStore.create"}))
    assert found["result"]["matches"]
    saved = tmp_path / "cache" / "index"
    assert not saved.is_dir() or not any(saved.iterdir()), "saved before the exit: nothing to show"
    client.send("exit", request=False)
    assert client.process.wait(timeout=30) == 1  # no `shutdown` came first
    assert [p for p in saved.iterdir() if p.suffix != ".tmp"]
