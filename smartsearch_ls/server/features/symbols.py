"""`workspace/symbol`: names at once from the symbol index; prose, optionally, through a judged search.

Names are ranked by the symbol index (`search/symbols.py`): exact name, qualified name, prefix, token
coverage, then subsequence; tests after code; ties to the most central declaration (most mentioned name,
most imported file, import-graph PageRank). It is kept per root index generation and updated per file.

Both answer from the index as the editor's buffers have it: pending edits are applied first, as for a search.
Editors send this on every keystroke, so a judged search first waits `workspaceSymbol.debounce` seconds,
and each new request cancels the one before it: a fast typist never pays judge calls for a stale query.
VS Code re-filters these results by name; its behavior UI is the extension's own command.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.search.request import QueryParams
from smartsearch_ls.search.result import Match
from smartsearch_ls.search.symbols.ranking import find_symbols
from smartsearch_ls.server.app import SmartSearchServer
from smartsearch_ls.server.features.lifecycle import _plain
from smartsearch_ls.server.features.query import run_search
from smartsearch_ls.server.lsp_json import file_uri, symbol_kind, uri_of

MAX_SYMBOLS = 100
"""Like gopls' cap: enough to pick from, few enough to send on every keystroke."""


def _symbol(declaration: Declaration, root: Path) -> types.WorkspaceSymbol:
    start = types.Position(line=declaration.start_line - 1, character=0)
    end = types.Position(line=declaration.end_line, character=0)
    return types.WorkspaceSymbol(
        name=declaration.name,
        kind=symbol_kind(declaration.kind),
        location=types.Location(uri=file_uri(root / declaration.path), range=types.Range(start=start, end=end)),
        container_name=declaration.path,
    )


def _match_symbol(
    server: SmartSearchServer, match: Match, kinds: dict[tuple[Path, str], dict[str, str]]
) -> types.WorkspaceSymbol:
    """A judged hit as a symbol; `kinds` holds each file's kinds by qualified name for the request, so that a file
    whose entry keeps its declarations pickled is read once however many of its snippets matched."""
    kind = types.SymbolKind.Function
    folder = server.folders.folders.get(match.root)
    if folder is not None and match.symbol:
        found = kinds.get((match.root, match.path))
        if found is None:
            found = kinds[(match.root, match.path)] = {
                d.qualified_name: d.kind for _, entry in folder.index.entries([match.path]) for d in entry.declarations
            }
        if match.symbol in found:
            kind = symbol_kind(found[match.symbol])
    start = types.Position(line=match.snippet_start_line - 1, character=0)
    end = types.Position(line=match.snippet_end_line, character=0)
    return types.WorkspaceSymbol(
        name=match.symbol or f"{match.path}:{match.start_line}",
        kind=kind,
        location=types.Location(uri=uri_of(match), range=types.Range(start=start, end=end)),
        container_name=match.path,
    )


def _query_of(raw: Any) -> str:
    params = _plain(raw)
    query = params.get("query") if isinstance(params, dict) else None
    if not isinstance(query, str):
        raise JsonRpcInvalidParams(message="Invalid `query`: workspace/symbol needs a string `query`.")
    if len(query) > 2_000:
        raise JsonRpcInvalidParams(message="Invalid `query`: at most 2,000 characters.")
    return query.strip()


def register(server: SmartSearchServer) -> None:
    latest: dict[str, asyncio.Task[Any]] = {}

    @server.feature(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolOptions(work_done_progress=True))
    async def workspace_symbol(ls: SmartSearchServer, raw: Any) -> list[types.WorkspaceSymbol]:
        query = _query_of(raw)
        current = asyncio.current_task()
        previous = latest.get("task")
        if previous is not None and previous is not current and not previous.done():
            previous.cancel()  # superseded: the user kept typing
        if current is not None:
            latest["task"] = current
        if not query:
            return []
        settings = ls.settings.workspace_symbol
        if settings.judged and len(query.split()) >= settings.min_words:
            await asyncio.sleep(settings.debounce)
            result = await run_search(ls, QueryParams(query=query), "behavior")
            kinds: dict[tuple[Path, str], dict[str, str]] = {}
            return [_match_symbol(ls, m, kinds) for m in result.matches]
        # names typed just before are in an unsaved buffer's pending edit
        await ls.folders.flush_settled(ls.folders.folders.values())
        scopes = [Scope(f.index) for f in ls.folders.folders.values()]
        hits, _, _ = await asyncio.to_thread(find_symbols, scopes, query, MAX_SYMBOLS)
        return [_symbol(h.declaration, h.index.root) for h in hits]
