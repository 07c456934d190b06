"""The server object: pygls' LanguageServer plus the state every feature shares.

Features live in `server/features/`, one module per concern, each a few short handlers that turn params
into a call on the engine and its answer into LSP shapes. Here: settings (from initializationOptions,
pulled, or pushed), the folders' warm indexes, the judgment cache, and the client's capabilities as
questions ("can it watch files?").
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Generator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, LanguageServerProtocol, lsp_method

from smartsearch_ls import __version__
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.resolve import is_local
from smartsearch_ls.server.folders import Folders
from smartsearch_ls.server.framing import FRAMING_ERROR_METHOD
from smartsearch_ls.server.progress import EmbeddingReporter
from smartsearch_ls.server.watcher import FolderWatcher
from smartsearch_ls.settings import Settings, merge

log = logging.getLogger(__name__)

QUERY_METHOD = "smartSearch/query"

UNDECODABLE_METHOD = "$/smartSearch/undecodable"
"""What an undecodable request becomes once answered (see `structure_message`): a notification handled by a no-op,
so pygls does not log it as an unknown method."""

RAW_PARAMS = {types.WORKSPACE_SYMBOL}
"""Methods whose params we validate ourselves: pygls drops a request whose params fail lsprotocol's
structuring without answering it, and a client must always get an answer (InvalidParams at worst)."""


class SmartSearchProtocol(LanguageServerProtocol):
    """Advertises `smartSearch/query` under `experimental`, leaves some params raw (see RAW_PARAMS), and keeps the
    lifecycle rules of LSP that pygls leaves out: a request before `initialize` is ServerNotInitialized (-32002),
    a second `initialize` or any request after `shutdown` is InvalidRequest (-32600) (pygls dropped those
    unanswered, and the client waited forever), and after `exit` nothing more is written.

    Private members of pygls 2.1 are used here, so pyproject pins `pygls>=2.1.1,<2.2`: `_shutdown` (read: pygls
    sets it on `shutdown` and has no public flag), `_send_response` (called: the only way to answer a request id
    that never reaches a handler) and `_send_data` (overridden: pygls writes to a stream `exit` has closed and
    logs a traceback per message). Each works around a pygls behavior noted for upstream in the closing notes:
    requests dropped unanswered before `initialize`, after `shutdown` and when params fail to decode.
    """

    initialized = False
    """`initialize` was answered."""
    exiting = False
    """`exit` arrived: what cancelled work would still send (a last progress report, an answer) goes nowhere,
    quietly. Writing it to the closed stream logged a traceback per message, megabytes of them for one search."""

    @property
    def shut_down(self) -> bool:
        """`shutdown` was received: the process may end with 0 at `exit`."""
        return bool(self._shutdown)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {"smartSearch": {"query": True, "version": __version__}}
        self.initialized = True  # only once it worked: a failed `initialize` may be sent again
        return result

    def handle_message(self, message: Any) -> None:
        method, request_id = getattr(message, "method", None), getattr(message, "id", None)
        if method == FRAMING_ERROR_METHOD:  # a message the reader could not take (`server.framing`): say why
            error = JsonRpcException(message=message.params.message, code=message.params.code)
            self._send_response(None, error=error.to_response_error())  # type: ignore[arg-type]
            return
        if method is not None and request_id is None and not self.initialized and method != types.EXIT:
            return  # LSP: notifications before `initialize` are dropped (their handlers need the workspace)
        refusal = self._refusal(method) if method is not None and request_id is not None else None
        if refusal is not None:
            self._send_response(request_id, error=refusal.to_response_error())
            return
        super().handle_message(message)

    def _refusal(self, method: str) -> JsonRpcException | None:
        if self._shutdown and method != types.EXIT:  # `exit` sent as a request is still an exit
            return JsonRpcInvalidRequest(message=f"`{method}` after `shutdown`: the server only takes `exit` now.")
        if method == types.INITIALIZE and self.initialized:
            return JsonRpcInvalidRequest(message="`initialize` may be sent only once.")
        if method != types.INITIALIZE and not self.initialized:
            return JsonRpcServerNotInitialized(message=f"`{method}` before `initialize`.")
        return None

    def _send_data(self, data: Any) -> None:
        # pygls 2.1 writes whatever cancelled work still sends after `exit` to the closed stream, logging each.
        if not self.exiting:
            super()._send_data(data)

    def get_message_type(self, method: str) -> type[Any] | None:
        return None if method in RAW_PARAMS else super().get_message_type(method)

    def structure_message(self, data: dict[str, Any]) -> Any:
        if isinstance(data, dict) and "id" in data and "method" in data and "params" not in data:
            # JSON-RPC lets a request leave `params` out, but pygls's generic request requires the member, and the
            # request would be answered as undecodable below. Without params it is a request with none: the handler
            # names the first required one (`smartSearch/query`: `query`).
            data = {**data, "params": None}
        try:
            return super().structure_message(data)
        except JsonRpcException:
            if not (isinstance(data, dict) and "id" in data and "method" in data):
                raise
            # pygls names its params namedtuple after a `type_name` key; a value that is not an identifier makes
            # decoding raise, and the request would be dropped unanswered. Answer it, then drop it.
            error = JsonRpcInvalidParams(message="Invalid params: they cannot be decoded (a `type_name` field?).")
            self._send_response(data["id"], error=error.to_response_error())
            return JsonRPCNotification(jsonrpc="2.0", method=UNDECODABLE_METHOD, params=None)


class SmartSearchServer(LanguageServer):
    """The language server and its shared state."""

    def __init__(self) -> None:
        super().__init__("smartsearch-ls", __version__, protocol_cls=SmartSearchProtocol, max_workers=4)
        self.settings = Settings()
        self.judgments = JudgmentCache()
        self.folders = self.new_folders()
        self.edited: set[Path] = set()
        """Files the user edited in the editor this session: the working set a search favors a little. Edits
        only: an editor opens every result it previews, and favoring those would feed the ranking its own picks."""
        self.watch_mode = "none"
        self.watcher: FolderWatcher | None = None
        self.model_warmup: asyncio.Task[None] | None = None
        """Loading the embedded model in the background, once settings need it (kept so it is not collected)."""
        self.replaced_unsaved: list[Folders] = []
        """Folders replaced by new index settings whose save has not ended: `exit` saves what they hold unsaved."""
        self.reindexing: asyncio.Task[None] | None = None
        """Saving the folders that new index settings replaced, then building their successors: the next change of
        settings waits for it (`lifecycle.index_after_saving`)."""
        self.feature(UNDECODABLE_METHOD)(_already_answered)

    def folders_disk_changed(self, root: Path, paths: list[str]) -> None:
        """Watcher callback; looks up `folders` at call time, since settings may replace it."""
        self.folders.disk_changed(root, paths)

    def new_folders(self) -> Folders:
        """Folder indexes for the current settings (exclude, cacheDir, semantic decide what is indexed, and where;
        the judge, whether the snippets' readings are embedded)."""
        gc.unfreeze()  # the indexes being replaced were frozen when built (`Folders.build`): let them be collected
        folders = Folders(
            self.settings.cache_dir,
            self.settings.exclude,
            self.settings.semantic,
            self.judgments,
            reads_readings=self.judge_reads_readings(),
        )
        folders.embedding_progress = EmbeddingReporter(self)
        return folders

    # -- settings -------------------------------------------------------------------------------------

    def judge_reads_readings(self) -> bool:
        """Whether the configured judge reads what the index embeds of a snippet besides its code: only `local`."""
        return is_local(self.settings.judge.model)

    def apply_settings(self, incoming: object, source: str) -> None:
        """Merge settings; each bad key is reported to the user and the previous value kept."""
        if not incoming:
            return
        if not isinstance(incoming, dict):  # `"smartSearch": "x"`: nothing to merge, and no reason to fail
            message = f"SmartSearch: settings from {source} must be an object, not {type(incoming).__name__}; ignored."
            self.log_to_client(message, types.MessageType.Warning)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
            return
        settings, problems = merge(self.settings, incoming)
        for problem in problems:
            self.log_to_client(f"settings from {source}: {problem}", types.MessageType.Warning)
            if problem.kept:  # a wrong value deserves the user's eyes, an unknown key a log line
                message = f"SmartSearch: {problem}"
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        self.settings = settings

    # -- client capabilities --------------------------------------------------------------------------

    def supports_progress(self) -> bool:
        window = self.client_capabilities.window
        return bool(window and window.work_done_progress)

    def supports_configuration_pull(self) -> bool:
        workspace = self.client_capabilities.workspace
        return bool(workspace and workspace.configuration)

    def can_register(self, capability: str) -> bool:
        """Whether the client accepts dynamic registration of a workspace capability."""
        workspace = self.client_capabilities.workspace
        found = getattr(workspace, capability, None) if workspace else None
        return bool(found and getattr(found, "dynamic_registration", False))

    @property
    def position_encoding(self) -> str:
        return str(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)

    def log_to_client(self, message: str, level: types.MessageType = types.MessageType.Info) -> None:
        """A `window/logMessage` (and our own log): where coverage summaries and warnings also go."""
        log.info(message)
        self.window_log_message(types.LogMessageParams(type=level, message=message))


def _already_answered(ls: SmartSearchServer, params: None) -> None:
    """An undecodable request was answered InvalidParams where it was decoded; nothing is left to do."""
