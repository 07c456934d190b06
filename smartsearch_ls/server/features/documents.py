"""Following the editor: open buffers (unsaved text is what is searched), saves, and file-change events."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from smartsearch_ls.server.app import SmartSearchServer


def _path(uri: str) -> Path | None:
    found = to_fs_path(uri)
    return Path(found) if found else None


def register(server: SmartSearchServer) -> None:
    def buffer_changed(ls: SmartSearchServer, uri: str) -> None:
        path = _path(uri)
        if path is not None:
            ls.folders.buffer_changed(path, ls.workspace.get_text_document(uri).source)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SmartSearchServer, params: types.DidOpenTextDocumentParams) -> None:
        buffer_changed(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SmartSearchServer, params: types.DidChangeTextDocumentParams) -> None:
        buffer_changed(ls, params.text_document.uri)
        if (path := _path(params.text_document.uri)) is not None:
            ls.edited.add(path)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SmartSearchServer, params: types.DidSaveTextDocumentParams) -> None:
        if (path := _path(params.text_document.uri)) is not None:
            ls.folders.buffer_settled(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SmartSearchServer, params: types.DidCloseTextDocumentParams) -> None:
        if (path := _path(params.text_document.uri)) is not None:
            ls.folders.buffer_settled(path)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: SmartSearchServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.folders.paths_changed(p for change in params.changes if (p := _path(change.uri)) is not None)
