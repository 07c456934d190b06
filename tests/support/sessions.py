"""Starting the real server over stdio with pytest-lsp, on a workspace copied into tmp_path."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.model_servers import ModelServer

SHARED_XDG_CACHE = Path(tempfile.gettempdir()) / "smartsearch-tests-xdg"
"""The XDG cache of servers under test: whatever they would put under the default `cacheDir` stays out of the
user's `~/.cache`."""

VSCODE = "visual-studio-code"
NEOVIM = "neovim"


@dataclass
class Session:
    """A started server, its client, and what a test needs to poke at."""

    client: LanguageClient
    root: Path
    judge: ModelServer
    registrations: list[types.Registration] = field(default_factory=list)

    async def query(self, **params: Any) -> Any:
        return await self.client.protocol.send_request_async("smartSearch/query", params)

    def open_buffer(self, relative: str) -> tuple[str, str]:
        """Open a workspace file as an editor does; its URI and text."""
        uri, text = (self.root / relative).as_uri(), (self.root / relative).read_text()
        item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        return uri, text

    def change_buffer(self, uri: str, text: str, version: int = 2) -> None:
        """Replace an open buffer's whole text, unsaved."""
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def raw_request(self, method: str, params: Any, timeout: float = 30) -> Any:
        """Send params exactly as given (no lsprotocol structuring), so malformed input reaches the server;
        `params=...` leaves the field out altogether."""
        protocol = self.client.protocol
        msg_id = f"raw-{uuid.uuid4().hex}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        protocol._request_futures[msg_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not ...:
            message["params"] = params
        protocol._send_data(message)
        return await asyncio.wait_for(future, timeout)

    @property
    def pid(self) -> int:
        process = self.client._server
        assert process is not None
        return process.pid

    def logs(self) -> list[str]:
        return [m.message for m in self.client.log_messages]

    async def wait_for_log(self, text: str, timeout: float = 60, after: int = 0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.logs()[after:]:
                if text in message:
                    return message
            await asyncio.sleep(0.05)
        raise AssertionError(f"no log message containing {text!r} within {timeout}s; got {self.logs()}")


def client_factory(
    registrations: list[types.Registration], handlers: dict[str, Callable[..., Any]] | None = None
) -> Callable[[], LanguageClient]:
    """A pytest-lsp client that records registrations; `handlers` replace its answers to server requests."""

    def make() -> LanguageClient:
        client = LanguageClient(converter_factory=default_converter)
        register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, **(handlers or {})})

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            registrations.extend(params.registrations)

        return client

    return make


async def start_session(
    root: Path,
    judge: ModelServer,
    cache: Path,
    capabilities: str = VSCODE,
    settings: dict[str, Any] | None = None,
    *,
    env: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
    kind: type[Session] = Session,
    client_handlers: dict[str, Callable[..., Any]] | None = None,
    prefix: tuple[str, ...] = (),
    folders: tuple[Path, ...] = (),
) -> Session:
    """Start the server; the index lives under `cache`, and background embedding is off unless asked. `prefix` is a
    command the server is started through (`setpriv ...`); `folders` are the workspace folders (default: `root`)."""
    registrations: list[types.Registration] = []
    config = ClientServerConfig(
        server_command=[*prefix, sys.executable, "-m", "smartsearch_ls", *args],
        client_factory=client_factory(registrations, client_handlers),
        server_env={
            **os.environ,
            "SYSTEM_ONE_BASE_URL": f"{judge.base_url}/v1",
            "OPENAI_BASE_URL": f"{judge.base_url}/v1",
            "OPENAI_API_KEY": "test-key",
            "XDG_CACHE_HOME": str(SHARED_XDG_CACHE),
            **(env or {}),
        },
    )
    client = await config.start()
    options: dict[str, Any] = {
        "judge": {"model": "system-one:test", "timeout": 10},
        "cacheDir": str(cache / "smartsearch-ls"),
        "semantic": False,
    }
    options.update(settings or {})
    client.set_configuration({}, section="smartSearch")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities(capabilities),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in (folders or (root,))],
            initialization_options=options,
        )
    )
    return kind(client, root, judge, registrations)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", SAMPLE_PROJECT)


@pytest_asyncio.fixture
async def session(workspace: Path, model_server: ModelServer, tmp_path: Path) -> AsyncIterator[Session]:
    """A VS Code-like client on the sample project, index ready."""
    started = await start_session(workspace, model_server, tmp_path / "cache")
    await started.wait_for_log("index ready")
    yield started
    await started.client.shutdown_session()
    await started.client.stop()
