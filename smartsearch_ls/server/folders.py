"""The workspace folders' indexes, kept warm while the editor runs.

Each folder gets a `RootIndex`, loaded from its persisted copy and refreshed in a worker thread at
start-up. After that it follows the editor: unsaved buffer text (latest wins, applied before the next
search reads the index), saves and file events (from the client, or from the server's own watcher),
coalesced so that a `git checkout` touching a thousand files costs one re-listing and one pass. All work
on one folder's index runs one job at a time, off the event loop, so requests are never blocked by it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from smartsearch_ls.discovery.errors import DiscoveryError
from smartsearch_ls.heap import release_free_memory
from smartsearch_ls.index.bulk import BuildStopped
from smartsearch_ls.index.dense import DenseIndex, StoredVectors
from smartsearch_ls.index.root_index import Progress as IndexProgress
from smartsearch_ls.index.root_index import RefreshStats, RootIndex
from smartsearch_ls.judge.cache import JudgmentCache, content_hash
from smartsearch_ls.search.symbols.index import symbol_index
from smartsearch_ls.server.tasks import spawn

log = logging.getLogger(__name__)

SETTLE_SECONDS = 0.15
"""Quiet time after the last keystroke or file event before a burst is applied (a search applies it at once)."""

MAX_SETTLE_SECONDS = 2.0
"""A burst that never goes quiet is still applied this often, so the index cannot fall behind forever."""

PERSIST_AFTER_SECONDS = 5.0
"""A build's or an edit's changes are saved this long after they stop coming (the save then waits for the searches
being answered): not on every keystroke, and not before a cold start's first answer."""

PERSIST_AT_MOST_AFTER_SECONDS = 30.0
"""Changes that keep coming (a tool regenerating files) make the save due no later than this after the first."""

EMBED_AFTER_EDIT_SECONDS = 2.0
"""Edited snippets are re-embedded once typing pauses, not on every keystroke."""

QUIET_START_SECONDS = 1.0
"""Background work (the symbol index, embedding) starts once a search has ended, or after this long without one: begun
at `ready`, it took the interpreter from the first search of a restart, whose request arrives just after."""

SYMBOL_SLICE_FILES = 100
"""Files whose names, imports or import edges one background slice takes in: small enough that a search arriving
meanwhile waits a fraction of a second at most (bench/README.md, start-up)."""

EMBED_BATCH = 8
"""Snippets embedded per background step: small, so a search never waits long behind one."""

EMBED_REPORT_SECONDS = 1.0
"""Background embedding is reported (and its total re-counted) at most this often, not after every batch: on a large
root, one report a batch was thousands of `$/progress` notifications, each after a walk of every snippet."""

EMBED_RELEASE_SECONDS = 5.0
"""How often background embedding gives the memory it freed back to the system (`heap`): each batch leaves its
token lists and arrays behind, and their pages would otherwise stay resident for the life of the server."""

EmbeddingProgress = Callable[[Path, int, int, bool], None]
"""Called on the event loop with (root, snippets embedded, snippets in all, finished)."""


def _set_event() -> asyncio.Event:
    event = asyncio.Event()
    event.set()
    return event


@dataclass
class Folder:
    """One workspace folder and its index's state."""

    index: RootIndex
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    spared: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once what is left of its build spares this process's interpreter, so that other Python work (a model
    judge's imports) no longer delays it: a persisted index was read (listing and the files that changed are left),
    a build's files were handed to worker processes (its report of none done yet), or the build ended."""
    listed: asyncio.Event = field(default_factory=_set_event)
    """Clear while a re-listing for a nested folder's coming or going is pending: until it ends, the files of that
    folder may be in both indexes or in neither, so a search waits for it as for `ready`."""
    relists: int = 0
    """Re-listings pending (nesting can change again before the first ends)."""
    nesting: int = 0
    """Counts the changes of the folders nested in this one; `listed_nesting` is the count its last listing saw, so
    a re-listing that a listing already covered (a build that had not listed yet) is skipped."""
    listed_nesting: int = -1
    relist_error: str | None = None
    """Why the last re-listing failed: the nested folder's files may be in both indexes or neither until a later
    re-listing (the next nesting change) or a rebuild succeeds, and searches say so."""
    job: asyncio.Lock = field(default_factory=asyncio.Lock)
    applied: asyncio.Event = field(default_factory=_set_event)
    """Clear while a flush applies the edits it took: a search waits for that, not for the folder's other jobs."""
    build_started: bool = False
    """Set when its build is spawned: a folder added while new settings wait for a save is built once, not again
    when the wait ends."""
    error: str | None = None
    buffers: dict[str, str] = field(default_factory=dict)
    """Unsaved text waiting to be indexed, latest per path."""
    changed: set[str] = field(default_factory=set)
    """Paths changed on disk waiting to be re-read."""
    closed: set[str] = field(default_factory=set)
    """Buffers saved or closed, whose disk text counts again."""
    first_change: float | None = None
    stats: RefreshStats | None = None
    dense: DenseIndex | None = None
    """The embedding side of the shortlist, filled in the background once the lexical index is ready."""
    embedding: asyncio.Task[None] | None = None
    symbols: asyncio.Task[None] | None = None
    """The symbol index being built in the background after indexing."""

    def stop_background(self) -> None:
        """Stop the index build, the background embedding and the symbol build (a file, batch or slice already
        running finishes): at exit the process waits for their threads."""
        self.index.stop()
        for task in (self.embedding, self.symbols):
            if task is not None:
                task.cancel()


Starting = Callable[[Folder], Awaitable[Callable[[int, int], None]]]
"""Called before a folder is indexed; returns the per-file progress callback."""
Finished = Callable[[Folder], None]


class Folders:
    """Every workspace folder's index; all methods run on the event loop."""

    def __init__(
        self,
        cache_dir: Path | None,
        exclude: Iterable[str] = (),
        semantic: bool = True,
        judgments: JudgmentCache | None = None,
        reads_readings: bool = True,
    ) -> None:
        self.cache_dir = cache_dir
        self.judgments = judgments
        self.exclude = tuple(exclude)
        self.semantic = semantic
        self._reading = threading.Event()
        """Set while the configured judge reads the snippets' readings, so the folders embed them (`read_for`); its
        `is_set` is every folder's `DenseIndex.reads_readings`, which worker threads ask."""
        if reads_readings:
            self._reading.set()
        self.folders: dict[Path, Folder] = {}
        self._flusher: dict[Path, asyncio.Task[None]] = {}
        self._persister: dict[Path, asyncio.TimerHandle] = {}
        self._unsaved: dict[Path, tuple[Folder, float]] = {}
        """Per root, the folder whose changes' save has not started (its timer pending, or fired and waiting for
        searches to end, or the folder removed meanwhile) and when the oldest of them asked for it (loop time).
        `exit` and `shutdown` save these whatever else they save."""
        self._saves_due: set[Path] = set()
        """Roots whose background save is due and has not started (waiting for searches to end): it saves every
        change made until it starts, so changes meanwhile ask for no other."""
        self._removed_saves: dict[Path, asyncio.Task[None]] = {}
        """The save of a removed folder, which a folder added again for its root waits for before loading."""
        self.embedding_progress: EmbeddingProgress | None = None
        self._searches = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._searched = asyncio.Event()
        """Set once a search has ended: background work no longer waits for one (`_quiet_start`)."""

    # -- folders --------------------------------------------------------------------------------------

    def add(self, root: Path) -> Folder:
        """Register a folder (not yet indexed: call `build`)."""
        root = root.resolve()
        if root not in self.folders:
            self.folders[root] = Folder(RootIndex(root, exclude=self.exclude, cache_dir=self.cache_dir))
            self._nest(root)
        return self.folders[root]

    def _nest(self, added: Path | None = None) -> None:
        """Give each file to the innermost folder holding it: every folder leaves out the folders nested in it.
        A folder registered earlier whose nesting changed is re-listed (dropping or taking back those files);
        `added` is still to be built, which lists it anyway."""
        for root, folder in self.folders.items():
            nested = frozenset(
                other.relative_to(root).as_posix() for other in self.folders if other != root and root in other.parents
            )
            if nested != folder.index.nested:
                folder.index.nested = nested
                folder.nesting += 1
                if root != added:
                    folder.relists += 1
                    folder.listed.clear()
                    # Counted down when the task ends, however: a task cancelled before it starts runs no `finally`.
                    spawn(self._relist(folder)).add_done_callback(lambda _, folder=folder: self._relisted(folder))

    @staticmethod
    def _relisted(folder: Folder) -> None:
        folder.relists -= 1
        if not folder.relists:
            folder.listed.set()

    async def _relist(self, folder: Folder) -> None:
        stats = await self._refresh_for_nesting(folder)
        if stats is None:
            return
        root = folder.index.root
        log.info("re-listed %s for nested folders: %d read, %d removed", root, stats.read, stats.removed)
        self._persist_later(folder)
        if stats.read:
            self.embed_in_background(folder)

    async def _refresh_for_nesting(self, folder: Folder) -> RefreshStats | None:
        """Re-list the folder unless a listing since the last nesting change already did (None then, or when it is
        stopped or fails)."""
        await folder.ready.wait()  # a build under way may have listed before the nesting changed: catch it up
        root = folder.index.root
        async with folder.job:
            if (
                self.folders.get(root) is not folder
                or folder.index.stopping.is_set()
                or folder.listed_nesting == folder.nesting
            ):
                # Removed, stopped (replaced by new settings) or its build (or a re-listing) listed after the change
                return None
            folder.listed_nesting = folder.nesting
            try:
                stats = await asyncio.to_thread(folder.index.refresh)
            except BuildStopped:
                log.info("re-listing %s for nested folders stopped", root)
                return None
            except Exception as error:  # as a flush's: the folder keeps its index, and says why
                folder.relist_error = str(error) or type(error).__name__
                log.warning("re-listing %s for nested folders failed: %s", root, folder.relist_error)
                return None
        folder.relist_error = None
        return stats

    def under(self, directory: Path) -> list[Folder]:
        """The folders whose root lies strictly inside `directory` (nested workspace folders)."""
        return [f for root, f in self.folders.items() if directory in root.parents]

    def remove(self, root: Path) -> None:
        root = root.resolve()
        gc.unfreeze()  # a dropped index caught in a reference cycle must stay collectable (see `build`)
        folder = self.folders.pop(root, None)
        if (task := self._flusher.pop(root, None)) is not None:
            task.cancel()
        if folder is not None:
            folder.stop_background()
            self._nest()
            if (timer := self._persister.pop(root, None)) is not None:
                timer.cancel()
            if self._unsaved_folder(root) is folder:  # saved now, so that adding it again starts warm
                self._removed_saves[root] = spawn(self._persist(folder))

    async def build(self, folder: Folder, progress: IndexProgress | None = None) -> None:
        """Load the persisted index, then make it equal the disk; sets `ready` whatever happens."""
        index = folder.index
        moved = False
        if (removed_save := self._removed_saves.pop(index.root, None)) is not None:
            await asyncio.wait([removed_save])  # its outcome is its own; this build loads what is on disk
        dense = DenseIndex(index, reads_readings=self._reading.is_set) if self.semantic else None
        vectors: asyncio.Future[StoredVectors | None] | None = None
        loop = asyncio.get_running_loop()

        def reporting(done: int, total: int) -> None:
            if not done:
                loop.call_soon_threadsafe(folder.spared.set)
            if progress is not None:
                progress(done, total)

        try:
            async with folder.job:
                started = time.monotonic()
                if dense is not None:
                    # Read beside the index's load, which they need nothing of: much of their read runs outside
                    # the GIL, so a restart is ready sooner than reading them after it.
                    vectors = asyncio.ensure_future(asyncio.to_thread(dense.read_persisted))
                    vectors.add_done_callback(lambda read: read.cancelled() or read.exception())  # none unretrieved
                warm = await asyncio.to_thread(index.load_persisted)
                if warm:
                    folder.spared.set()
                if not warm and vectors is not None:
                    # A cold build comes next, the process's peak: the read is let end and dropped rather than held
                    # through it, and made again after it (the rebuilt snippets key the same vectors).
                    await asyncio.wait([vectors])
                    vectors = None
                folder.listed_nesting = folder.nesting
                folder.stats = await asyncio.to_thread(index.refresh, reporting)
                log.info(
                    "index ready for %s: %d files, %d read, %d removed, %d snippets (%s start, %.2f s)",
                    index.root,
                    folder.stats.files,
                    folder.stats.read,
                    folder.stats.removed,
                    index.snippet_count,
                    "warm" if warm else "cold",
                    time.monotonic() - started,
                )
                moved = bool(folder.stats.read or folder.stats.removed or not warm)  # saved whatever follows
                if moved:
                    await asyncio.to_thread(self._forget_stale_judgments, index)
                # The index is millions of long-lived objects that are never cyclic garbage; out of the cyclic
                # collector's reach, a full collection no longer walks them during a keystroke's update or a
                # search (`bench.engine --corpus large` measures the update with the heap frozen).
                # Dropping folders (`remove`, or new settings that replace them all) unfreezes it again.
                gc.freeze()
                # Loading or building it freed far more than it keeps (`heap`).
                await asyncio.to_thread(release_free_memory)
                if dense is not None:
                    stored = await vectors if vectors is not None else await asyncio.to_thread(dense.read_persisted)
                    await asyncio.to_thread(dense.adopt, stored)
                    folder.dense = dense
                folder.error = folder.relist_error = None
        except asyncio.CancelledError:
            # The loop is ending (`exit`, or the client closed the stream): it waits for its threads before the
            # process can end, and the build's thread would run on to the end of a cold build.
            index.stop()
            raise
        except BuildStopped:
            folder.error = "indexing was stopped"
            log.info("indexing %s stopped", index.root)
        except DiscoveryError as error:
            folder.error = str(error)
            log.warning("cannot index %s: %s", index.root, error)
        except Exception as error:  # a file or the disk misbehaving must not take the server down
            folder.error = f"indexing failed: {error}"
            log.exception("indexing %s failed", index.root)
        finally:
            if vectors is not None:
                vectors.cancel()  # not awaited when the build failed or stopped first: its thread's result is dropped
            folder.spared.set()
            folder.ready.set()
        if moved:  # saved after the folder is ready, not before: a cold start's first answer does not wait for it
            self._persist_later(folder)
        if folder.error is None:
            folder.symbols = spawn(self._prepare_symbols(weakref.ref(index)))
        self.embed_in_background(folder)

    async def spared(self) -> None:
        """Until every folder's build spares this process's interpreter (`Folder.spared`)."""
        for folder in list(self.folders.values()):
            await folder.spared.wait()

    async def _prepare_symbols(self, waiting: weakref.ref[RootIndex]) -> None:
        """Build the symbol index and import graph before the first look-up, in slices, pausing while searches run.

        In one piece it ran just as the first searches of a restart came in, and its thread held the GIL so often
        that the first search was much slower (bench/README.md, start-up). It starts after `_quiet_start`, holding
        the index weakly until then: a cancelled task's frame lives on until the loop next runs it, and a folder
        removed meanwhile must be collectable at once."""
        await self._quiet_start()
        index = waiting()
        if index is None:
            return
        try:
            symbols = symbol_index(index, synced=False)
            while True:
                await self._idle.wait()
                if await asyncio.to_thread(symbols.prepare, SYMBOL_SLICE_FILES):
                    break
        except Exception:  # a look-up will build (and report) it again
            log.exception("preparing the symbol index of %s failed", index.root)

    async def _quiet_start(self) -> None:
        """Until a search has ended, or `QUIET_START_SECONDS`."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(QUIET_START_SECONDS):
                await self._searched.wait()

    # -- embeddings -----------------------------------------------------------------------------------

    def search_started(self) -> None:
        """Background embedding pauses while searches run: they need the CPU (and the model) first."""
        self._searches += 1
        self._idle.clear()

    def search_finished(self) -> None:
        self._searches -= 1
        self._searched.set()
        if self._searches <= 0:
            self._searches = 0
            self._idle.set()

    def read_for(self, reads_readings: bool) -> None:
        """The judge changed: whether the new one reads the snippets' readings (`DenseIndex.reads_readings`, which
        asks this). A change to the `local` judge has each built folder embed them in the background from now on: a
        pass under way takes them up at its next batch, and another pass follows it, since it may already have found
        nothing left (unless the folder was stopped meanwhile: removed, replaced by new settings, or shut down); a
        folder still building starts its pass when its build ends. A change away stops embedding them and keeps those
        stored."""
        if reads_readings == self._reading.is_set():
            return
        if not reads_readings:
            self._reading.clear()
            return
        self._reading.set()
        for folder in self.folders.values():
            if folder.dense is None:
                continue
            if folder.embedding is not None and not folder.embedding.done():
                folder.embedding.add_done_callback(lambda _, folder=folder: self.embed_in_background(folder))
            else:
                self.embed_in_background(folder)

    def embed_in_background(self, folder: Folder, delay: float = 0.0) -> None:
        """Embed the folder's snippets that have no vector yet, a small batch at a time, at low priority; not once the
        folder is stopped (`Folder.stop_background`)."""
        if folder.dense is None or folder.index.stopping.is_set():
            return
        if folder.embedding is not None and not folder.embedding.done():
            return
        folder.embedding = spawn(self._embed(weakref.ref(folder), delay))

    async def _embed(self, waiting: weakref.ref[Folder], delay: float) -> None:
        """One pass after `delay` (an edit's: typing paused) or, right after a build or load, `_quiet_start`, holding
        the folder weakly until then (as `_prepare_symbols`)."""
        if delay:
            await asyncio.sleep(delay)
        else:
            await self._quiet_start()
        folder = waiting()
        if folder is None or folder.dense is None:
            return
        root, dense = folder.index.root, folder.dense
        embedded = total = 0
        try:
            if not await asyncio.to_thread(dense.available):
                return  # no weights: the shortlist stays lexical, and coverage says so
            loop = asyncio.get_running_loop()
            reported = -EMBED_REPORT_SECONDS  # the first batch is reported at once: it begins the progress
            released = loop.time()
            while True:
                await self._idle.wait()
                if not await asyncio.to_thread(dense.embed_pending, EMBED_BATCH):
                    # Nothing embedded: done, unless an edit retired the batch's snippets meanwhile.
                    embedded, total = await asyncio.to_thread(dense.progress)
                    if embedded >= total or not await asyncio.to_thread(dense.embed_pending, EMBED_BATCH):
                        break
                if loop.time() - reported >= EMBED_REPORT_SECONDS:
                    reported = loop.time()
                    embedded, total = await asyncio.to_thread(dense.progress)
                    if self.embedding_progress is not None:
                        self.embedding_progress(root, embedded, total, False)
                if loop.time() - released >= EMBED_RELEASE_SECONDS:
                    released = loop.time()
                    await asyncio.to_thread(release_free_memory)
            embedded, total = await asyncio.to_thread(dense.progress)
            # Only what this pass stored needs saving: a restart on a root embedded to its end stores nothing, and
            # rewriting the whole unchanged file would compete with its first search. Vectors of snippets retired
            # meanwhile stay on disk until the next save, as after any unchanged session (`DenseIndex.persist`).
            await asyncio.to_thread(dense.persist, only_if_changed=True)
            await asyncio.to_thread(release_free_memory)
            log.info("embeddings ready for %s: %d of %d snippets", root, embedded, total)
        except Exception:  # the dense side is an optimisation: losing it must never hurt the server
            log.exception("embedding %s failed; the shortlist stays lexical", root)
        finally:
            if self.embedding_progress is not None:
                self.embedding_progress(root, embedded, total, True)

    # -- locating -------------------------------------------------------------------------------------

    def locate(self, path: Path) -> tuple[Folder, str] | None:
        """The folder holding a file, and the file's root-relative path (the innermost folder wins)."""
        try:
            resolved = path.resolve()
        except OSError:
            return None
        best: tuple[Folder, str] | None = None
        for root, folder in self.folders.items():
            if resolved == root or root in resolved.parents:
                relative = resolved.relative_to(root).as_posix()
                if best is None or len(relative) < len(best[1]):
                    best = (folder, relative)
        return best

    # -- following edits ------------------------------------------------------------------------------

    def buffer_changed(self, path: Path, text: str) -> None:
        """An open buffer's text changed: it is indexed before the next search (latest text wins)."""
        found = self.locate(path)
        if found is not None and not path.is_symlink():
            folder, relative = found
            folder.buffers[relative] = text
            self._schedule(folder)

    def working_set(self, paths: Iterable[Path]) -> frozenset[tuple[Path, str]]:
        """(root, root-relative path) of each of `paths` in the folder that owns it now (the innermost)."""
        return frozenset((found[0].index.root, found[1]) for path in paths if (found := self.locate(path)) is not None)

    def holds_unsaved(self, path: Path) -> bool:
        """Whether the file's open buffer, not its disk text, is what its folder's index holds or is about to."""
        found = self.locate(path)
        if found is None:
            return False
        folder, relative = found
        if relative in folder.buffers:
            return True
        with folder.index.lock:
            entry = folder.index.files.get(relative)
            return entry is not None and entry.unsaved and relative not in folder.closed

    def buffer_settled(self, path: Path) -> None:
        """A buffer was saved or closed: the file's disk text counts again."""
        found = self.locate(path)
        if found is not None:
            folder, relative = found
            folder.buffers.pop(relative, None)
            folder.closed.add(relative)
            self._schedule(folder)

    def disk_changed(self, root: Path, paths: Iterable[str]) -> None:
        """Files changed on disk (watcher or client notification)."""
        folder = self.folders.get(root)
        if folder is not None:
            folder.changed.update(paths)
            self._schedule(folder)

    def paths_changed(self, paths: Iterable[Path]) -> None:
        """Absolute paths changed on disk, grouped by folder."""
        for path in paths:
            found = self.locate(path)
            if found is not None:
                self.disk_changed(found[0].index.root, [found[1]])

    def _schedule(self, folder: Folder) -> None:
        root = folder.index.root
        if folder.first_change is None:
            folder.first_change = time.monotonic()
        task = self._flusher.get(root)
        if task is None or task.done():
            self._flusher[root] = spawn(self._settle_then_flush(folder))

    async def _settle_then_flush(self, folder: Folder) -> None:
        pending = -1
        while True:
            size = len(folder.changed) + len(folder.buffers) + len(folder.closed)
            waited = time.monotonic() - (folder.first_change or time.monotonic())
            if size == pending or waited >= MAX_SETTLE_SECONDS:
                break
            pending = size
            await asyncio.sleep(SETTLE_SECONDS)
        await self.flush(folder)

    async def flush(self, folder: Folder) -> None:
        """Apply every pending buffer and disk change to the index now."""
        await folder.ready.wait()
        async with folder.job:
            buffers, folder.buffers = folder.buffers, {}
            changed, folder.changed = folder.changed, set()
            closed, folder.closed = folder.closed, set()
            folder.first_change = None
            if not buffers and not changed and not closed:
                return
            folder.applied.clear()
            try:
                await asyncio.to_thread(self._apply, folder.index, buffers, changed, closed)
            except Exception:  # one bad file must not stop the index from following the others
                log.exception("updating the index of %s failed", folder.index.root)
            finally:
                folder.applied.set()
        if changed:
            self._persist_later(folder)
        self.embed_in_background(folder, EMBED_AFTER_EDIT_SECONDS)

    @staticmethod
    def _apply(index: RootIndex, buffers: dict[str, str], changed: set[str], closed: set[str]) -> None:
        for path in closed - buffers.keys():
            index.revert(path)
        index.apply_changes(changed - buffers.keys())
        for path, text in buffers.items():
            if not index.update_text(path, text):
                index.apply_changes([path])  # maybe new on disk since the last listing
                index.update_text(path, text)

    async def flush_all(self) -> None:
        """Apply everything pending in every folder, waiting for any build or re-listing first (at shutdown)."""
        await asyncio.gather(*(self.flush(f) for f in self.folders.values() if f.buffers or f.changed or f.closed))

    async def flush_settled(self, folders: Iterable[Folder]) -> None:
        """Apply what is pending in each of `folders` that is indexed and not being re-listed, or wait for a flush
        already applying edits there: called before a search reads the indexes, which must hold every edit made
        before it. Nothing else that holds a folder's job is waited for (a background save, say). A folder still
        being built or re-listed keeps its edits for its own flush after that job: flushing it would hold the search
        for the whole job, past the `indexWait` bound it was given, and the search already says that folder is
        incomplete."""
        await asyncio.gather(
            *(
                self.flush(f) if f.buffers or f.changed or f.closed else f.applied.wait()
                for f in folders
                if f.ready.is_set() and f.listed.is_set()
            )
        )

    def _persist_later(self, folder: Folder) -> None:
        root = folder.index.root
        if folder.index.cache_dir is None:
            return  # nowhere to save it
        if root in self._saves_due and self._unsaved_folder(root) is folder:
            return  # the save that is due takes this change too
        if (timer := self._persister.pop(root, None)) is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        first = self._unsaved[root][1] if self._unsaved_folder(root) is folder else loop.time()
        self._unsaved[root] = folder, first
        delay = min(PERSIST_AFTER_SECONDS, max(0.0, first + PERSIST_AT_MOST_AFTER_SECONDS - loop.time()))
        self._persister[root] = loop.call_later(delay, self._persist_due, folder)

    def _unsaved_folder(self, root: Path) -> Folder | None:
        entry = self._unsaved.get(root)
        return entry[0] if entry is not None else None

    def _persist_due(self, folder: Folder) -> None:
        self._persister.pop(folder.index.root, None)
        self._saves_due.add(folder.index.root)
        spawn(self._persist(folder, in_background=True))

    async def _persist(self, folder: Folder, *, in_background: bool = False) -> None:
        """Save the folder's index and its vectors. `in_background` (a save nobody waits for) lets running searches,
        which read the index the save locks, finish first, and leaves the vectors to background embedding while it
        runs (it saves them when it ends; two saves of one file would race)."""
        root = folder.index.root
        try:
            if in_background:
                await self._idle.wait()
            await folder.job.acquire()
        except asyncio.CancelledError:
            self._saves_due.discard(root)  # it never started: the next change asks again
            raise
        try:
            self._saves_due.discard(root)
            if self._unsaved_folder(root) is folder:  # a change from here on asks for another save
                del self._unsaved[root]
            await asyncio.to_thread(folder.index.persist, only_if_changed=True)
            embedding = folder.embedding is not None and not folder.embedding.done()
            if folder.dense is not None and not (in_background and embedding):
                await asyncio.to_thread(folder.dense.persist, only_if_changed=True)
        finally:
            folder.job.release()

    def persist_pending_now(self) -> None:
        """Save at once, in this thread, every index whose save has not started (`exit` without `shutdown`). One
        that fails is logged: the others are still saved, and the server still exits."""
        for timer in self._persister.values():
            timer.cancel()
        self._persister.clear()
        for folder, _ in list(self._unsaved.values()):
            try:
                folder.index.persist(only_if_changed=True)
            except Exception:
                log.exception("saving the index of %s at exit failed", folder.index.root)
        self._unsaved.clear()

    def _forget_stale_judgments(self, index: RootIndex) -> None:
        """The root's remembered judgments of snippets edited or removed since the index was persisted are dropped,
        once per build: an edit during the session only leaves rows no key can reach (the bound keeps them few),
        and hashing every snippet at each persist would cost the edits that trigger it."""
        if self.judgments is None or (memory := self.judgments.memory(index.cache_dir, index.root)) is None:
            return
        if not memory.path.exists():
            return  # nothing was ever remembered here (the `local` judge's users): no snippet is hashed
        live = {content_hash(s) for s in index.snippets if s is not None}
        if dropped := memory.forget_all_but(live):
            log.info("dropped %d remembered judgments of edited or removed snippets in %s", dropped, index.root)

    def stop_background(self) -> None:
        """Stop every folder's index build, embedding and symbol build (at shutdown): work already running ends at
        its next file, batch or slice, none starts."""
        for folder in self.folders.values():
            folder.stop_background()

    async def persist_all(self) -> None:
        """Persist every index now (at shutdown): each folder indexed without error, and any whose save has not
        started (its index was brought up to date even if what followed failed, or it was removed since). Each
        leaves `_unsaved` as its save starts, so an `exit` arriving meanwhile saves the rest."""
        for timer in self._persister.values():
            timer.cancel()
        self._persister.clear()
        ready = [f for f in self.folders.values() if f.ready.is_set() and f.error is None]
        unsaved = [folder for folder, _ in self._unsaved.values()]
        for folder in {id(f): f for f in [*unsaved, *ready]}.values():
            await self._persist(folder)
