"""Mis-framed messages on stdio: each costs at most itself, is logged, and the server answers the next one.

Before `server.framing`, any of these left pygls's reader waiting for a header that never came: the server
stayed alive and answered nothing ever again, logging nothing.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from smartsearch_ls.server.framing import FRAMING_ERROR_METHOD, Reframer
from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.model_servers import ModelServer
from tests.support.raw_client import RawClient, options


def body(request_id: Any, query: str = "SessionStore") -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "workspace/symbol", "params": {"query": query}}
    return json.dumps(message, ensure_ascii=False).encode()


MISFRAMED = {
    # name: (bytes sent, whether that message itself is answered: recovered, or an error with `id: null`)
    "non-numeric length": (b"Content-Length: twelve\r\n\r\n" + body("a"), "a"),
    "length in characters": (
        b"Content-Length: %d\r\n\r\n" % len(body("b", "caf\u00e9").decode()) + body("b", "caf\u00e9"),
        "b",
    ),
    "LF-only line ends": (b"Content-Length: %d\n\n" % len(body("c")) + body("c"), "c"),
    "no space after the colon": (b"content-length:%d\r\n\r\n" % len(body("d")) + body("d"), "d"),
    "length too large": (b"Content-Length: %d\r\n\r\n" % (len(body("e")) + 40) + body("e"), "e"),
    "not JSON": (b'Content-Length: 17\r\n\r\n{"jsonrpc": 2.0,]', None),
    "an object as id": (b"Content-Length: %d\r\n\r\n" % len(body({"x": 1})) + body({"x": 1}), None),
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RawClient, Path]]:
    """One server for every case, on one connection: each case must leave it answering the next."""
    tmp_path = tmp_path_factory.mktemp("framing")
    judge = ModelServer().start()
    env = {**os.environ, "SYSTEM_ONE_BASE_URL": f"{judge.base_url}/v1", "XDG_CACHE_HOME": str(tmp_path / "x")}
    with open(tmp_path / "stderr.log", "wb") as stderr:
        started = RawClient(env, stderr)
        started.initialize(write_tree(tmp_path / "project", SAMPLE_PROJECT), options(tmp_path))
        yield started, tmp_path / "stderr.log"
        started.process.kill()
        started.process.wait(timeout=10)
    judge.shutdown()
    judge.server_close()


@pytest.mark.parametrize("case", MISFRAMED)
def test_a_misframed_message_costs_at_most_itself(served: tuple[RawClient, Path], case: str) -> None:
    client, log = served
    logged_before = len(log.read_text())
    sent, answered = MISFRAMED[case]
    assert client.process.stdin is not None
    client.process.stdin.write(sent)
    client.process.stdin.flush()
    if answered is not None:
        assert "result" in client.answer(answered, timeout=20)  # recovered: taken as meant
    else:
        error = client.answer(None, timeout=20)["error"]
        assert error["code"] == (-32700 if case == "not JSON" else -32600)
    after = client.answer(client.send("workspace/symbol", {"query": "SessionStore"}), timeout=20)
    assert "result" in after  # and the connection goes on
    if case not in ("no space after the colon", "LF-only line ends"):  # those are simply read as meant
        assert "smartsearch_ls.server.framing" in log.read_text()[logged_before:]  # what it did, logged


def test_back_to_back_messages_are_each_found_whatever_came_before() -> None:
    """In one stream: a length running into the next message, garbage between messages, a body glued to the next
    header, a stream ending inside a message; every well-formed message after each is read as sent."""
    wanted = [body(n) for n in range(4)]
    stream = b"".join(
        [
            b"Content-Length: %d\r\n\r\n" % (len(wanted[0]) + 30) + wanted[0],
            b"Content-Length: %d\r\n\r\n" % len(wanted[1]) + wanted[1],
            b"\r\n\r\nstray bytes\r\n",
            b"Content-Length: 7\r\n\r\n{broken" + b"Content-Length: %d\r\n\r\n" % len(wanted[2]) + wanted[2],
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % len(wanted[3]),
            wanted[3] + b'Content-Length: 900\r\n\r\n{"jsonrpc"',
        ]
    )
    reader = Reframer(io.BufferedReader(io.BytesIO(stream)))
    read = []
    while line := reader.readline():
        assert reader.readline() == b"\r\n"
        read.append(json.loads(reader.read(int(line.split(b":")[1]))))
    framing_errors = [m for m in read if m.get("method") == FRAMING_ERROR_METHOD]
    assert [m for m in read if m not in framing_errors] == [json.loads(w) for w in wanted]
    assert [m["params"]["code"] for m in framing_errors] == [-32700]  # `{broken`, answered
