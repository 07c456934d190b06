"""Shared fixtures: a judge API on loopback, and small workspaces written into tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.model_servers import ModelServer


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    """A System One + OpenAI chat API on 127.0.0.1 with a deterministic judge."""
    server = ModelServer().start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def provider_env(model_server: ModelServer, monkeypatch: pytest.MonkeyPatch) -> ModelServer:
    """Point pydantic-ai's System One and OpenAI providers at the loopback server."""
    monkeypatch.setenv("SYSTEM_ONE_BASE_URL", f"{model_server.base_url}/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model_server.base_url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    return model_server


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (relative path -> content) under `root`."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


SAMPLE_PROJECT: dict[str, str | bytes] = {
    "auth/sessions.py": '''"""Session handling."""

import time


class SessionStore:
    """Keeps sessions in memory."""

    def __init__(self):
        self.sessions = {}

    def get(self, token):
        session = self.sessions.get(token)
        if session is None:
            return None
        if session["expires_at"] < time.time():
            # expired sessions are rejected and forgotten
            del self.sessions[token]
            raise PermissionError("session expired")
        return session

    def create(self, user, ttl=3600):
        token = f"{user}-{time.time()}"
        self.sessions[token] = {"user": user, "expires_at": time.time() + ttl}
        return token
''',
    "billing/invoice.py": '''def total_amount(lines):
    """Sum invoice lines with tax."""
    return sum(line.price * line.quantity for line in lines) * 1.2


def format_invoice(invoice):
    return f"Invoice {invoice.number}: {total_amount(invoice.lines):.2f}"
''',
    "config/loader.py": '''import json


def parse_config_file(path):
    """Read the JSON configuration file at path."""
    with open(path) as handle:
        return json.load(handle)
''',
    "tests/test_sessions.py": """from auth.sessions import SessionStore


def test_expired_session_is_rejected():
    store = SessionStore()
    token = store.create("ann", ttl=-1)
    try:
        store.get(token)
    except PermissionError:
        pass
""",
    "README.md": "# Sample\n\nA sample project for smartsearch tests.\n",
    ".env": "API_KEY=sk-live-secret-value\n",
    ".gitignore": "build/\n",
    "build/generated.py": "def generated_expired_sessions():\n    pass\n",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\0\0\0binary",
    "legacy/latin1.py": "caf\xe9 = 1\n".encode("latin-1"),
    "static/app.min.js": "var a=1;" * 400,
}
