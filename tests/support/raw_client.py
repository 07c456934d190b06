"""The server over stdio framed by hand, for tests that speak raw JSON-RPC: what a typed client would never send."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO


class RawClient:
    """The server over stdio, framed by hand; a reader thread queues what it writes."""

    def __init__(self, env: dict[str, str], stderr: BinaryIO) -> None:
        command = [sys.executable, "-m", "smartsearch_ls"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env)
        self.next_id = 0
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.skipped: list[dict[str, Any]] = []
        """What `answer` read past: notifications and requests from the server."""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = 0
            while (line := stdout.readline()).strip():
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return  # the server closed its output
            self.received.put(json.loads(stdout.read(length)))

    def send(self, method: str, params: Any = None, *, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()
        return message.get("id")

    def answer(self, request_id: int | None, timeout: float = 60) -> dict[str, Any]:
        """The response to `request_id`, skipping notifications and server requests; fails if none comes."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.received.get(timeout=max(0.01, deadline - time.monotonic()))  # queue.Empty: no answer
            if message.get("id") == request_id and "method" not in message:
                return message
            self.skipped.append(message)

    def initialize(self, root: Path, options: dict[str, Any]) -> dict[str, Any]:
        params = {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": options,
        }
        answer = self.answer(self.send("initialize", params))
        self.send("initialized", {}, request=False)
        return answer


def options(tmp_path: Path, judge: str = "system-one:test") -> dict[str, Any]:
    """Initialization options with a loopback judge and a cache under `tmp_path`."""
    return {"judge": {"model": judge, "timeout": 60}, "cacheDir": str(tmp_path / "cache"), "semantic": False}
