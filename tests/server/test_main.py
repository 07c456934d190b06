"""`smartsearch-ls` started as a process: stdio is covered by every server test; here the TCP mode and its errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest

COMMAND = [sys.executable, "-c", "from smartsearch_ls.server.main import main; main()"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_the_server_answers_initialize_over_tcp() -> None:
    port = free_port()
    server = subprocess.Popen([*COMMAND, "--tcp", "--port", str(port)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline and server.poll() is None, "the server never listened"
                time.sleep(0.1)
        with connection:
            connection.sendall(
                frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
            )
            received = b""
            while b'"id": 1' not in received and b'"id":1' not in received:
                chunk = connection.recv(65536)
                assert chunk, "the connection closed before the answer"
                received += chunk
        assert b'"smartsearch-ls"' in received and b'"capabilities"' in received
    finally:
        server.kill()
        server.wait(timeout=10)


@pytest.mark.parametrize("port", ["99999", "0", "http"])
def test_a_bad_port_is_a_usage_error(port: str) -> None:
    done = subprocess.run([*COMMAND, "--tcp", "--port", port], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "is not a TCP port" in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*COMMAND, "--tcp", "--port", str(port)], capture_output=True, text=True, timeout=60, check=False
        )
    assert done.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
