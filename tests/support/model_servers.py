"""Model APIs on 127.0.0.1 for tests: the System One decisions API, OpenAI chat completions and Responses.

The judges behind them are deterministic so tests can state what they expect: a snippet's relevance
answer is the share of the query's words (3+ letters, not stop words) that appear in the snippet's code,
so `subject * action = coverage ** 2`. The model name steers faults for the fault tests:

- `fail-500`, `fail-429` (with Retry-After), `malformed` (invalid JSON), `out-of-range` (p = 1.7)
- `hang` (never answers), `slow-<ms>` (answers after a delay)
- `framing`: honours the framing, i.e. scores only what is inside the snippet frame; any other name does too.

Every request body is recorded, so a test can prove what was (and was not) sent to the judge.
Run standalone for the editor tests: `python -m tests.support.model_servers --port 0` prints the base URL.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from smartsearch_ls.judge.prompt import read_query, read_snippet

_WORD = re.compile(r"[a-z][a-z0-9]{2,}")
_STOP = frozenset("the and for where how does what which that this with from code function our are".split())


def coverage(query: str, code: str) -> float:
    """Share of the query's content words found in the code, case-insensitively."""
    words = [w for w in _WORD.findall(query.lower()) if w not in _STOP]
    if not words:
        return 0.0
    lowered = code.lower()
    return sum(w in lowered for w in words) / len(words)


def _texts(value: Any) -> list[str]:
    """Every string inside a JSON value, depth first: where the state hides the query and the snippet."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def probability_for(texts: list[str]) -> float:
    """The deterministic judgment for a request whose strings are `texts`."""
    query = next((q for t in texts if (q := read_query(t)) is not None), None)
    framed = next((f for t in texts if (f := read_snippet(t)) is not None), None)
    if query is None or framed is None:
        return 0.0
    # Prompted output appends its schema to the same instructions (OpenAI Responses), after a blank line.
    return round(coverage(query.split("\n\n")[0], framed[1]), 4)


def _relevance_arguments(body: dict[str, Any], conversation: Any) -> str:
    """`Relevance` as JSON for an OpenAI-style request whose conversation is `conversation`."""
    p = 1.7 if body.get("model") == "out-of-range" else probability_for(_texts(conversation))
    return json.dumps({"subject": p, "action": p})


@dataclass
class Recorder:
    """What the server was sent, in order, with a timestamp each."""

    requests: list[tuple[float, str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, path: str, body: dict[str, Any]) -> None:
        with self.lock:
            self.requests.append((time.monotonic(), path, body))

    def bodies(self) -> list[dict[str, Any]]:
        with self.lock:
            return [body for _, _, body in self.requests]


class _Handler(BaseHTTPRequestHandler):
    server: ModelServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/requests":
            self._send(200, {"requests": self.server.recorder.bodies()})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, {"error": "invalid JSON"})
            return
        self.server.recorder.add(self.path, body)
        model = str(body.get("model", ""))
        if self._fault(model):
            return
        if self.path.rstrip("/").endswith("/systemone"):
            self._send(200, self._system_one(body))
        elif self.path.rstrip("/").endswith("/chat/completions"):
            self._send(200, self._chat_completion(body))
        elif self.path.rstrip("/").endswith("/responses"):
            self._send(200, self._response(body))
        else:
            self._send(404, {"error": f"no route {self.path}"})

    def _fault(self, model: str) -> bool:
        """Play the fault the model name asks for; True when the request is answered by it."""
        if model == "fail-500":
            self._send(500, {"error": "internal server error"})
        elif model == "fail-429":
            self._send(429, {"error": "rate limited"}, headers={"Retry-After": "1"})
        elif model == "malformed":
            self._send_raw(200, b"{not json")
        elif model == "hang":
            time.sleep(3600)
        elif model.startswith("slow-"):
            time.sleep(int(model.removeprefix("slow-")) / 1000)
            return False
        else:
            return False
        return True

    def _system_one(self, body: dict[str, Any]) -> dict[str, Any]:
        p = 1.7 if body.get("model") == "out-of-range" else probability_for(_texts(body))
        answers = {name: {"type": "noul", "noul": p} for name in body.get("questions", {})}
        return {
            "model": body.get("model"),
            "answers": answers,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }

    def _chat_completion(self, body: dict[str, Any]) -> dict[str, Any]:
        arguments = _relevance_arguments(body, body.get("messages"))
        tools = body.get("tools") or []
        if tools:
            name = tools[0]["function"]["name"]
            message: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
                ],
            }
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": arguments}, "stop"
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
        }

    def _response(self, body: dict[str, Any]) -> dict[str, Any]:
        """An OpenAI Responses answer: a call of the first function tool, or the JSON as text when none is offered."""
        arguments = _relevance_arguments(body, [body.get("instructions"), body.get("input")])
        tools = [t for t in body.get("tools") or [] if t.get("type") == "function"]
        if tools:
            item: dict[str, Any] = {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": tools[0]["name"],
                "arguments": arguments,
                "status": "completed",
            }
        else:
            content = [{"type": "output_text", "text": arguments, "annotations": []}]
            item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": content}
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": body.get("model"),
            "output": [item],
            "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "usage": {
                "input_tokens": 10,
                "output_tokens": 1,
                "total_tokens": 11,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }

    def _send(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), headers)

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


class ModelServer(ThreadingHTTPServer):
    """A threaded loopback server; `base_url` is what providers are pointed at."""

    daemon_threads = True

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.recorder = Recorder()

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (a cancelled or timed-out judgment) is expected here, not an error."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> ModelServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ModelServer(args.port)
    print(server.base_url, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    sys.exit(0)


if __name__ == "__main__":
    main()
