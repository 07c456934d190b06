"""Start-up, settings, workspace folders and shutdown.

On `initialized` the server pulls settings (when the client can answer), registers for configuration and
file-change notifications where the client allows dynamic registration, starts its own watcher where it
does not, and indexes every folder in the background with progress. Meanwhile it loads the embedded model when the
`local` judge or the semantic shortlist will need it, so the first search does not wait for that (a settings change
that starts needing it, the judge switched to `local`, loads it then), and once the builds spare the interpreter
it imports the agent framework a model judge needs (the heaviest import, kept off the path to the `initialize`
answer; bench/README.md times it).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from smartsearch_ls.judge.loading import load_local_model
from smartsearch_ls.judge.resolve import is_local
from smartsearch_ls.lazy_imports import HEAVY_IMPORTS
from smartsearch_ls.server.app import SmartSearchServer
from smartsearch_ls.server.folders import Folder, Folders
from smartsearch_ls.server.progress import Progress
from smartsearch_ls.server.tasks import spawn
from smartsearch_ls.server.watcher import FolderWatcher

log = logging.getLogger(__name__)

SECTION = "smartSearch"


def _plain(value: Any) -> Any:
    """pygls hands unknown JSON over as namedtuples; settings want plain dicts."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def folder_paths(server: SmartSearchServer) -> list[Path]:
    """The workspace folders as paths (the root URI when the client sends no folders)."""
    folders = [f.uri for f in server.workspace.folders.values()]
    if not folders and server.workspace.root_uri:
        folders = [server.workspace.root_uri]
    paths = [Path(p) for uri in folders if (p := to_fs_path(uri))]
    return [p for p in paths if p.is_dir()]


async def index_folder(server: SmartSearchServer, folder: Folder) -> None:
    """Build one folder's index with `$/progress`, then say so in the log."""
    root = folder.index.root
    progress = await Progress.create(server)
    progress.begin(f"Indexing {root.name}", "listing files")
    loop = asyncio.get_running_loop()

    def report(done: int, total: int) -> None:
        loop.call_soon_threadsafe(progress.report, f"{done} of {total} files indexed", done, total)

    try:
        await server.folders.build(folder, report)
    except asyncio.CancelledError:  # the loop is ending (`exit`, or the client went away)
        progress.end("indexing stopped")
        raise
    if folder.index.stopping.is_set():  # dropped while it was built: nothing is ready
        progress.end("indexing stopped")
        return
    skipped = folder.index.skipped()
    reasons = ", ".join(f"{n} {r}" for r, n in sorted(skipped.items()))
    stats = folder.stats
    detail = f": {reasons}" if reasons else ""
    files, read = (stats.files, stats.read) if stats else (0, 0)
    summary = (
        f"{files} files ({sum(skipped.values())} skipped{detail}), {folder.index.snippet_count} snippets, "
        f"{read} files read"
    )
    if folder.error:
        summary += f"; warning: {folder.error}"
    progress.end(summary)
    level = types.MessageType.Warning if folder.error else types.MessageType.Info
    server.log_to_client(f"index ready for {root}: {summary}", level)


def add_folders(server: SmartSearchServer) -> None:
    """Register the workspace folders at once, so a search arriving early waits for them instead of
    finding no folder at all."""
    for path in folder_paths(server):
        server.folders.add(path)


async def start_indexing(server: SmartSearchServer) -> None:
    for folder in list(server.folders.folders.values()):
        start_building(server, folder)


def start_building(server: SmartSearchServer, folder: Folder) -> None:
    """Watch the folder and build its index, unless its build was already started."""
    if folder.build_started:
        return
    folder.build_started = True
    if folder.index.stopping.is_set():  # `shutdown` stopped it before its build: nothing will read it
        never_built(folder, "indexing was stopped")
        return
    if server.watcher is not None:
        server.watcher.watch(folder.index.root)
    spawn(index_folder(server, folder))


def import_model_judging(judge: str) -> None:
    """Import the per-snippet judging of a Pydantic AI model judge, and with it Pydantic AI (the heaviest import
    there is), for a judge other than `local` (which needs neither).

    Called once the folders' builds spare the interpreter (`Folder.spared`): loading a persisted index, and a cold
    build's listing before it hands the files to worker processes, are Python work in this process too, and sharing
    the interpreter with these imports made them late. Not before indexing starts either: the imports would delay
    a cold build's workers for nothing. A search that arrives before the imports end waits for them where
    it resolves its judge (`HEAVY_IMPORTS`, in a worker thread)."""
    if is_local(judge):
        return
    try:
        with HEAVY_IMPORTS:
            importlib.import_module("smartsearch_ls.judge.per_snippet")
    except ImportError as error:  # the first search that judges imports it again and reports the failure
        log.warning("the judge runner could not be imported: %s", error)


def start_model_warmup(server: SmartSearchServer) -> None:
    """Load the embedded model in the background if the settings need it and no load has run or is running."""
    if not is_local(server.settings.judge.model) and not server.settings.semantic:
        return
    if server.model_warmup is not None:
        return  # loading, loaded, or failed with a reason the search that needs the model will repeat
    server.model_warmup = spawn(warm_local_model(server))


async def warm_local_model(server: SmartSearchServer) -> None:
    """Load the embedded model now rather than at the first search that needs it.

    The model's load and the imports before it overlap the index build this way instead of following it.
    """
    started = time.monotonic()
    try:
        await asyncio.to_thread(load_local_model)
    except Exception as error:  # the search or the embedding that needs the model reports it, with the fix
        log.info("the local model was not loaded ahead of searches: %s", error)
        return
    server.log_to_client(f"local model ready in {time.monotonic() - started:.1f} s")


async def _pull_settings(server: SmartSearchServer) -> None:
    if not server.supports_configuration_pull():
        return
    try:
        answer = await server.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as error:  # a client that cannot answer keeps the settings it pushed
        log.info("workspace/configuration failed: %s", error)
        return
    if answer and isinstance(_plain(answer[0]), dict):
        server.apply_settings(_plain(answer[0]), "workspace/configuration")


async def _register(server: SmartSearchServer, registrations: list[types.Registration]) -> None:
    if not registrations:
        return
    try:
        await server.client_register_capability_async(types.RegistrationParams(registrations=registrations))
    except Exception as error:  # a refused registration only loses that notification
        log.warning("client refused registration of %s: %s", [r.method for r in registrations], error)


def _index_settings(server: SmartSearchServer) -> tuple[Any, ...]:
    """The settings that decide what is indexed and where: changing one rebuilds the folders' indexes."""
    return tuple(server.settings.exclude), server.settings.cache_dir, server.settings.semantic


def _reconfigure_indexes(server: SmartSearchServer, before: tuple[Any, ...]) -> None:
    """Settings that change what is indexed (exclude, cacheDir) rebuild the folders' indexes."""
    after = _index_settings(server)
    if after == before:
        return
    replaced = server.folders
    replaced.stop_background()
    server.replaced_unsaved.append(replaced)
    server.folders = server.new_folders()
    add_folders(server)
    # The new indexes start from disk: buffers typed and not saved would wait for their next keystroke.
    for uri, document in list(server.workspace.text_documents.items()):
        if (path := to_fs_path(uri)) is not None and replaced.holds_unsaved(Path(path)):
            server.folders.buffer_changed(Path(path), document.source)
    server.reindexing = spawn(index_after_saving(server, replaced, server.folders, server.reindexing))


async def index_after_saving(
    server: SmartSearchServer, replaced: Folders, successor: Folders, previous: asyncio.Task[None] | None
) -> None:
    """Index the `successor` folders of new settings once the ones they replace are saved: a root of both then
    starts warm, and the two never save one file at once. Settings changed again meanwhile: the saves run in turn
    (this one after `previous`), and only the last settings' folders are built, after the last save."""
    try:
        if previous is not None:
            await asyncio.wait([previous])
        await replaced.persist_all()
    except Exception:  # a save that fails costs warmth, never the new indexes
        log.exception("saving the replaced folders' indexes failed")
    finally:
        server.replaced_unsaved.remove(replaced)
    if server.folders is successor:
        await start_indexing(server)
        return
    for folder in successor.folders.values():  # settings changed again before they were built: they never will be
        if not folder.build_started:
            folder.build_started = True
            never_built(folder, "replaced by newer index settings before it was indexed")


def never_built(folder: Folder, reason: str) -> None:
    """Mark a folder that will not be built as done, with the reason: whatever waits for it (a flush of a keystroke
    typed meanwhile, a re-listing) ends instead of waiting for ever."""
    folder.error = reason
    folder.spared.set()
    folder.ready.set()


def save_at_exit(server: SmartSearchServer) -> None:
    """Save at once every index whose save has not started, the folders' and those of folders that new settings
    replaced and that are still being saved: no `shutdown` came to save them, and a cold build would be lost."""
    for folders in (*server.replaced_unsaved, server.folders):
        folders.persist_pending_now()


async def save_at_shutdown(server: SmartSearchServer) -> None:
    """Stop the background work, let the saves of folders that new settings replaced end, then apply and save
    everything: the next start is warm and holds every edit."""
    if server.watcher is not None:
        server.watcher.stop()
    server.folders.stop_background()  # else a worker thread still embedding keeps the process from exiting
    if server.reindexing is not None:
        await asyncio.wait([server.reindexing])
    await server.folders.flush_all()
    await server.folders.persist_all()


def register(server: SmartSearchServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: SmartSearchServer, params: types.InitializeParams) -> None:
        options = _plain(params.initialization_options)
        if isinstance(options, dict):
            ls.apply_settings(options.get(SECTION, options), "initializationOptions")
        ls.folders = ls.new_folders()
        add_folders(ls)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: SmartSearchServer, params: types.InitializedParams) -> None:
        before = _index_settings(ls)
        await _pull_settings(ls)
        if _index_settings(ls) != before:
            ls.folders = ls.new_folders()
            add_folders(ls)
        ls.folders.read_for(ls.judge_reads_readings())  # the pulled settings may name another judge
        registrations = []
        if ls.can_register("did_change_configuration"):
            registrations.append(
                types.Registration(
                    id=str(uuid.uuid4()),
                    method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                    register_options=types.DidChangeConfigurationRegistrationOptions(section=SECTION),
                )
            )
        if ls.can_register("did_change_watched_files"):
            ls.watch_mode = "client"
            registrations.append(
                types.Registration(
                    id=str(uuid.uuid4()),
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                    ),
                )
            )
        else:
            ls.watch_mode = "server"
            ls.watcher = FolderWatcher(asyncio.get_running_loop(), ls.folders_disk_changed)
        ls.log_to_client(f"watch mode: {ls.watch_mode}")
        await _register(ls, registrations)
        spawn(_prepare_then_index(ls))

    async def _prepare_then_index(ls: SmartSearchServer) -> None:
        """The model and the indexes, then the judge's imports once the builds spare the interpreter (`Folders.spared`);
        in a task of its own, so that an `exit` arriving during the imports (the longest part of a model judge's start)
        ends the process quietly: a cancelled handler's future made pygls log a traceback at every such exit."""
        start_model_warmup(ls)
        await start_indexing(ls)
        try:
            await ls.folders.spared()
            await asyncio.to_thread(import_model_judging, ls.settings.judge.model)
        except asyncio.CancelledError:
            return  # the loop is ending: there is nothing left to start

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: SmartSearchServer, params: types.DidChangeConfigurationParams) -> None:
        before = _index_settings(ls)
        pushed = _plain(params.settings)
        if isinstance(pushed, dict) and isinstance(pushed.get(SECTION), dict):
            ls.apply_settings(pushed[SECTION], "workspace/didChangeConfiguration")
        else:
            await _pull_settings(ls)
        _reconfigure_indexes(ls, before)
        ls.folders.read_for(ls.judge_reads_readings())
        start_model_warmup(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(ls: SmartSearchServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for removed in params.event.removed:
            if path := to_fs_path(removed.uri):
                ls.folders.remove(Path(path))
                if ls.watcher is not None:
                    ls.watcher.unwatch(Path(path).resolve())
        for added in params.event.added:
            path = to_fs_path(added.uri)
            if path and Path(path).is_dir():
                start_building(ls, ls.folders.add(Path(path)))

    @server.feature(types.EXIT)
    def exit_now(ls: SmartSearchServer, params: None) -> None:
        """pygls closes the stream and ends the loop next, cancelling what still runs, which writes nothing more."""
        ls.protocol.exiting = True
        if ls.watcher is not None:
            ls.watcher.stop()
        ls.folders.stop_background()
        save_at_exit(ls)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: SmartSearchServer, params: None) -> None:
        await save_at_shutdown(ls)
