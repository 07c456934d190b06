"""`smartSearch/query`: validate, wait (boundedly) for the index, search, report progress, shape the result.

Errors follow the contract: InvalidParams naming the field, RequestFailed (-32803) when the judge fails
or a cap is reached, with what to do next; `$/cancelRequest` cancels the handler's task, which cancels
every judgment in flight and starts no new one.

With a `partialResultToken`, the best matches so far go out as `$/progress` on that token each time a model
judgment changes them (`{"matches": [...]}`, each batch replacing the one before); the response is still the
whole ranked result, so a client that ignores the batches loses nothing, and one that cancels keeps a valid list.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from smartsearch_ls.discovery.errors import CapExceeded, OutsideWorkspace
from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.discovery.workspace_paths import resolve_directory
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.contract import JudgeConfig, JudgeFailed
from smartsearch_ls.judge.redact import tally_redactions
from smartsearch_ls.judge.resolve import JudgeUnavailable, configured_judge, is_local
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import InvalidQuery, Mode, QueryParams, SearchRequest, parse_params
from smartsearch_ls.search.result import Match, PartialMatches, SearchResult, summary
from smartsearch_ls.search.routing import route
from smartsearch_ls.server.app import QUERY_METHOD, SmartSearchServer
from smartsearch_ls.server.features.lifecycle import _plain
from smartsearch_ls.server.folders import Folder
from smartsearch_ls.server.lsp_json import matches_dicts, result_dict
from smartsearch_ls.server.progress import Progress

REQUEST_FAILED = -32803


def request_failed(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=REQUEST_FAILED)


def scopes_for(server: SmartSearchServer, params: QueryParams) -> list[Scope]:
    """The folders (or the one folder inside one) a search covers; InvalidParams outside the workspace."""
    globs = GlobSet.of(params.glob or ())
    folders = server.folders.folders
    if params.directory is None:
        return [Scope(f.index, "", globs) for f in folders.values()]
    try:
        root, directory = resolve_directory(params.directory, list(folders), base=next(iter(folders), None))
    except OutsideWorkspace as error:
        raise JsonRpcInvalidParams(message=f"Invalid `directory`: {error}") from None
    prefix = "" if directory == root else directory.relative_to(root).as_posix()
    nested = [
        Scope(f.index, "", globs, mount=f.index.root.relative_to(directory).as_posix())
        for f in server.folders.under(directory)
    ]
    return [Scope(folders[root].index, prefix, globs), *nested]


def scope_folders(server: SmartSearchServer, scopes: list[Scope]) -> list[Folder]:
    """The folder of each scope (a folder dropped since the scope was made has none)."""
    return [folder for s in scopes if (folder := server.folders.folders.get(s.index.root)) is not None]


async def wait_for_indexes(server: SmartSearchServer, scopes: list[Scope]) -> tuple[list[str], bool]:
    """Wait up to the bound for the scopes' folders to be indexed and done re-listing for nested folders; a warning
    for each one still not, or broken, and whether every one was."""
    warnings: list[str] = []
    folders = scope_folders(server, scopes)
    waiting = [event.wait() for f in folders for event in (f.ready, f.listed) if not event.is_set()]
    if waiting:
        try:
            async with asyncio.timeout(server.settings.index_wait):
                await asyncio.gather(*waiting)
        except TimeoutError:
            pass
    for folder in folders:
        if not folder.ready.is_set():
            warnings.append(
                f"{folder.index.root} is still being indexed; this result covers only the files indexed so far. "
                "Search again when indexing ends."
            )
            continue
        warnings += relisting_warnings(folder)
        if folder.error:
            warnings.append(f"{folder.index.root} could not be indexed: {folder.error}")
    return warnings, all(folder.ready.is_set() and settled(folder) for folder in folders)


async def wait_and_flush(server: SmartSearchServer, scopes: list[Scope]) -> tuple[list[str], bool]:
    """`wait_for_indexes`, then the pending edits of the scopes' folders applied (`Folders.flush_settled`)."""
    warnings, ready = await wait_for_indexes(server, scopes)
    await server.folders.flush_settled(scope_folders(server, scopes))
    return warnings, ready


def settled(folder: Folder) -> bool:
    """Whether the folder holds exactly its own files: no re-listing for a nested folder pending or failed."""
    return folder.listed.is_set() and folder.relist_error is None


def relisting_warnings(folder: Folder) -> list[str]:
    if not folder.listed.is_set():
        return [
            f"{folder.index.root} is being re-listed for a nested workspace folder added or removed; this result "
            "may miss that folder's files or show them twice. Search again when it ends."
        ]
    if folder.relist_error is not None:
        return [
            f"{folder.index.root} could not be re-listed for a nested workspace folder added or removed "
            f"({folder.relist_error}); this result may miss that folder's files or show them twice."
        ]
    return []


async def judge_for(server: SmartSearchServer) -> JudgeConfig:
    try:
        return await asyncio.to_thread(configured_judge, server.settings)
    except JudgeUnavailable as error:
        raise request_failed(str(error)) from None


async def run_search(
    server: SmartSearchServer,
    params: QueryParams,
    mode: Mode | None,
    limit: int | None = None,
) -> SearchResult:
    """Search with progress and errors mapped to LSP."""
    scopes = scopes_for(server, params)
    warnings, ready = await wait_and_flush(server, scopes)
    broken = any(f.error is not None for f in scope_folders(server, scopes))
    routed = mode or route(params.query)
    settings = server.settings
    request = SearchRequest.of(
        params,
        settings,
        scopes,
        mode,
        dense=[d for s in scopes if (d := _dense_of(server, s)) is not None],
        limit=limit,
        # The local judge embeds its candidates anyway (sharing the vectors); with another judge, embedding
        # them here would add seconds to every search until background embedding has caught up.
        embed_missing=None if is_local(settings.judge.model) else 0,
        working_set=server.folders.working_set(server.edited),
    )
    judge = await judge_for(server) if routed == "behavior" else None
    progress: Progress | None = None

    def on_judged(done: int, total: int) -> None:
        if progress is not None:
            progress.report(f"judged {done} of {total}", done, total)

    if judge is not None:
        progress = await Progress.create(server, params.work_done_token)
        # Begun before the shortlist, which can take a second or more (embedding candidates of a folder the
        # background has not embedded yet): the editor shows the search as running from the start.
        progress.begin("SmartSearch", "shortlisting snippets")
    folders = server.folders  # new settings may replace them meanwhile: this search ends on the ones it began on
    folders.search_started()
    try:
        with tally_redactions() as redactions:
            partial = _partial_sender(server, params.partial_result_token)
            result = await search(request, judge, server.judgments, on_judged, warnings, partial)
    except JudgeFailed as error:
        _end(progress, f"failed: {error}")
        server.log_to_client(f"search failed: {error}", types.MessageType.Error)
        raise request_failed(str(error)) from None
    except CapExceeded as error:
        _end(progress, f"failed: {error}")
        raise request_failed(str(error)) from None
    except BaseException:
        _end(progress, "cancelled")
        raise
    finally:
        folders.search_finished()
    result = replace(result, warnings=[*result.warnings, *redactions.warnings()])
    if (broken or not ready) and result.coverage.complete:  # a folder not (yet) indexed was not searched
        result = replace(result, coverage=replace(result.coverage, complete=False))
    end = f"{len(result.matches)} matches; {summary(result.coverage)}"
    if result.warnings:
        end += "; warnings: " + " | ".join(result.warnings)
    _end(progress, end)
    server.log_to_client(f"search {params.query[:80]!r}: {end}")
    return result


def _partial_sender(server: SmartSearchServer, token: types.ProgressToken | None) -> PartialMatches | None:
    if token is None:
        return None

    def send(matches: list[Match]) -> None:
        value = {"matches": matches_dicts(matches, server.position_encoding)}
        server.protocol.notify(types.PROGRESS, types.ProgressParams(token=token, value=value))

    return send


def _dense_of(server: SmartSearchServer, scope: Scope) -> DenseIndex | None:
    folder = server.folders.folders.get(scope.index.root)
    return folder.dense if folder is not None else None


def _end(progress: Progress | None, message: str) -> None:
    if progress is not None:
        progress.end(message)


def register(server: SmartSearchServer) -> None:
    @server.feature(QUERY_METHOD)
    async def query(ls: SmartSearchServer, raw: Any) -> dict[str, Any]:
        try:
            params = parse_params(_plain(raw))
        except InvalidQuery as error:
            raise JsonRpcInvalidParams(message=str(error)) from None
        mode = None if params.mode == "auto" else params.mode
        result = await run_search(ls, params, mode)
        return result_dict(result, ls.position_encoding)
