"""The warm index of one root folder: its files, their snippets and declarations, and the BM25 postings.

It is built once (from the persisted copy when there is one, re-reading only files whose size or
modification time changed, and re-chunking only those whose content hash changed) and then follows edits
one file at a time: an unsaved editor buffer, a watcher event, a save. Every mutation and every read of
the postings holds one lock, so a background refresh and a search in another thread never see a file
half-replaced.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from smartsearch_ls.chunking.snippet import Declaration, Snippet
from smartsearch_ls.discovery.errors import CapExceeded
from smartsearch_ls.discovery.globs import GlobSet, is_credential
from smartsearch_ls.discovery.reading import FileStamp, ReadFile, SkipReason, read_buffer, read_file, stamp_of
from smartsearch_ls.discovery.ripgrep import list_files
from smartsearch_ls.discovery.unlisted import would_list
from smartsearch_ls.index import store
from smartsearch_ls.index.bm25 import Bm25Index
from smartsearch_ls.index.bulk import BuildStopped, Share, build_in_parallel
from smartsearch_ls.index.entries import FileEntry, declarations_load, index_text
from smartsearch_ls.index.gc_pause import gc_paused
from smartsearch_ls.index.soundness import inconsistency

log = logging.getLogger(__name__)

MAX_LINES = 50_000_000
MAX_BYTES = 2 << 30
"""Caps on one root: past 50 M lines or 2 GiB of text, a search should be narrowed, not waited for."""

Progress = Callable[[int, int], None]
"""Called with (files done, files to do) while a refresh reads files."""


@dataclass(frozen=True, slots=True)
class RefreshStats:
    """What a refresh did, for logs and progress."""

    files: int
    read: int
    chunked: int
    removed: int


@dataclass
class RootIndex:
    """One root's index. Paths are root-relative and '/'-separated throughout."""

    root: Path
    exclude: tuple[str, ...] = ()
    cache_dir: Path | None = None
    files: dict[str, FileEntry] = field(default_factory=dict)
    snippets: list[Snippet | None] = field(default_factory=list)
    bm25: Bm25Index = field(default_factory=Bm25Index)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    writing: threading.RLock = field(default_factory=threading.RLock, repr=False)
    """Held by each writer (refresh, apply_changes, update_text, revert) from start to end, so two writers in
    different threads never interleave a listing with another's reads; readers only take `lock`."""
    generation: int = 0
    """Bumped on every change, so callers can cache what they derive from the index."""
    persisted: int = -1
    """The `generation` the persisted copy holds (-1: not known to hold any)."""
    nested: frozenset[str] = frozenset()
    """Root-relative folders that are roots of their own (a workspace folder inside this one): their files belong
    to the innermost index only, so a file is never indexed, searched or counted twice."""

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self._excluded = GlobSet(include=tuple(g.removeprefix("!") for g in self.exclude))
        self.listed: set[str] = set()
        """What rg listed last: the only files that may be read. A path outside it is re-checked with rg."""
        self.unreadable: dict[str, str] = {}
        """Paths rg could not read in its last listing (files below them are missing), with its message."""
        self.stopping = threading.Event()
        """Set by `stop`: a refresh under way ends between two files (or shares) with `BuildStopped`."""

    # -- building -------------------------------------------------------------------------------------

    @classmethod
    def open_warm(
        cls, root: Path, *, exclude: tuple[str, ...] = (), cache_dir: Path | None = None
    ) -> tuple[RootIndex, RefreshStats]:
        """A one-shot process's index: the persisted copy brought up to date with the disk, saved back if it moved.

        The command line and the benchmarks open a root this way; the server does the same in the background,
        with progress, in `server.folders`.
        """
        index = cls(root, exclude=exclude, cache_dir=cache_dir)
        index.load_persisted()
        stats = index.refresh()
        if stats.read or stats.removed:
            index.persist()
        return index, stats

    def load_persisted(self) -> bool:
        """Adopt the persisted index of this root, if there is a sound one."""
        if self.cache_dir is None:
            return False
        payload = store.load(store.index_path(self.cache_dir, self.root))
        if payload is None or payload.get("root") != str(self.root):
            return False
        files, snippets, bm25 = payload.get("files"), payload.get("snippets"), payload.get("bm25")
        if not (
            isinstance(files, dict)
            and isinstance(snippets, list)
            and isinstance(bm25, Bm25Index)
            and all(isinstance(e, FileEntry) for e in files.values())
        ):
            log.warning("ignoring a persisted index of another shape for %s; it will be rebuilt", self.root)
            return False
        if (problem := inconsistency(files, snippets, bm25)) is not None:
            log.warning("ignoring an inconsistent persisted index for %s (%s); it will be rebuilt", self.root, problem)
            return False
        if not declarations_load(files.values()):
            log.warning("ignoring a persisted index with declarations that do not load for %s; rebuilt", self.root)
            return False
        with self.lock:
            self.files, self.snippets, self.bm25 = files, snippets, bm25
            self.generation += 1
            self.persisted = self.generation
        return True

    def persist(self, *, only_if_changed: bool = False) -> bool:
        """Save this index for the next process; compacts first when many snippets were retired.

        `only_if_changed`: not when the persisted copy already holds this generation (a session that changed
        nothing: writing the whole index again at each exit would cost seconds on a large root).
        """
        if self.cache_dir is None:
            return False
        with self.lock:
            if only_if_changed and self.persisted == self.generation:
                return True
            self.bm25.compact_if_due()
            generation = self.generation
            # An unsaved buffer is persisted as "changed on disk", so the next process re-reads the file.
            files = {
                path: FileEntry(None, "", None, e.docs, e.declared, e.lines) if e.unsaved else e
                for path, e in self.files.items()
            }
            payload = {"root": str(self.root), "files": files, "snippets": self.snippets, "bm25": self.bm25}
            saved = store.save(store.index_path(self.cache_dir, self.root), payload)
            if saved:
                self.persisted = generation
            return saved

    def stop(self) -> None:
        """Make a refresh under way, and any later one, end soon with `BuildStopped` (the index is being dropped:
        a process exiting waits for its threads, and a cold build of a large root takes many seconds)."""
        self.stopping.set()

    def refresh(self, progress: Progress | None = None) -> RefreshStats:
        """Make the index equal the disk: list with rg, read what changed, drop what is gone."""
        with self.writing:
            return self._refresh(progress)

    def _refresh(self, progress: Progress | None) -> RefreshStats:
        listed = self._relist()
        with self.lock:
            gone = [p for p in self.files if p not in self.listed]
            for path in gone:
                self._drop(path)
        stamps = {path: stamp_of(self.root / path) for path in listed}
        total_bytes = sum(s.size for s in stamps.values() if s is not None)
        if total_bytes > MAX_BYTES:
            raise CapExceeded(
                f"{self.root} holds {total_bytes / (1 << 30):.1f} GiB of files, over the 2 GiB cap: "
                "narrow the directory or glob, or add `exclude` globs."
            )
        stale = [p for p in listed if self._is_stale(p, stamps[p])]
        chunked = len(stale)
        if not build_in_parallel(self, stale, progress):
            chunked = 0
            with gc_paused():
                for done, path in enumerate(stale, 1):
                    if self.stopping.is_set():
                        raise BuildStopped
                    chunked += self.read_into_index(path)
                    if progress is not None and (done % 50 == 0 or done == len(stale)):
                        progress(done, len(stale))
        if chunked:
            with self.lock:  # a build's postings as a loaded index holds them, not one array a term
                self.bm25.pack_if_worth_it()
        lines = sum(e.lines for e in self.files.values())
        if lines > MAX_LINES:
            raise CapExceeded(
                f"{self.root} holds {lines:,} lines, over the cap of {MAX_LINES:,}: narrow the directory or glob."
            )
        return RefreshStats(files=len(listed), read=len(stale), chunked=chunked, removed=len(gone))

    def admits(self, path: str) -> bool:
        """Whether a root-relative path may be indexed at all (exclude setting, credential files, nested roots)."""
        return (
            not self._excluded.names(path)
            and not is_credential(path)
            and not any(path == folder or path.startswith(folder + "/") for folder in self.nested)
        )

    def _is_stale(self, path: str, stamp: FileStamp | None) -> bool:
        entry = self.files.get(path)
        return entry is None or (not entry.unsaved and entry.stamp != stamp)

    def read_into_index(self, path: str) -> int:
        """Read one file from disk into the index; 1 if it was (re)chunked."""
        read = read_file(self.root / path)
        with self.lock:
            entry = self.files.get(path)
            if entry is not None and not entry.unsaved and read.skipped is None and entry.digest == read.digest:
                entry.stamp = read.stamp  # touched, not changed
                self.generation += 1  # the persisted copy's stamp is out of date
                return 0
            self._put(path, read, unsaved=False)
        return 1

    def absorb(self, share: Share) -> None:
        """Take over a share indexed by a worker process (see `bulk`), replacing those files' old entries."""
        with self.lock:
            for path in share.entries:
                self._drop(path)
            offset = self.bm25.absorb(share.bm25)
            self.snippets.extend(share.snippets)
            for path, entry in share.entries.items():
                entry.docs = tuple(doc + offset for doc in entry.docs)
                self.files[path] = entry
            self.generation += 1

    # -- following edits ------------------------------------------------------------------------------

    def _relist(self) -> list[str]:
        """List with rg. A path rg could not read (a folder without read permission) is listed too, so that it is
        kept as an entry skipped as unreadable, and `unreadable` keeps rg's message for the searches' warnings."""
        listing = list_files(self.root, self.exclude)
        unreadable = {p: m for p, m in listing.unreadable.items() if p and self.admits(p)}
        if unreadable and unreadable.keys() != self.unreadable.keys():
            log.warning("rg could not read %d paths under %s: %s", len(unreadable), self.root, summary(unreadable))
        self.unreadable = unreadable
        listed = [p for p in listing.paths if self.admits(p)] + [p for p in unreadable if p not in listing.paths]
        self.listed = set(listed)
        return listed

    def update_text(self, path: str, text: str) -> bool:
        """Index an editor buffer's unsaved text in place of the file's; False for a file rg would not list. A
        buffer for a path not on disk yet (a new file) is admitted when rg would list it once saved."""
        if path not in self.listed:
            if (self.root / path).exists() or not (self.admits(path) and would_list(self.root, path)):
                return False  # on disk but not listed: ignored or hidden, and it stays out
            self.listed.add(path)
        read = read_buffer(text)
        with self.writing, self.lock:
            entry = self.files.get(path)
            if entry is not None and entry.digest == read.digest:
                return True  # opened or typed back to what is already indexed: nothing is unsaved
            self._put(path, read, unsaved=True)
        return True

    def apply_changes(self, paths: Iterable[str]) -> None:
        """Follow files created, changed or deleted on disk (one watcher burst, or one save).

        A path rg did not list before may be new, or ignored, or hidden: only a fresh listing can tell, so
        one is made per burst that names such a path. A path that is a folder, or was one (files are indexed
        below it), stands for everything under it: a folder deleted, renamed or moved in or out comes as one
        event (VS Code sends one per folder, inotify one per move), so the listing is made again and every path
        under it, listed now or indexed before, is followed. Open buffers keep their unsaved text until closed.
        A reported file is read again even when its size and mtime look unchanged: a write in the same clock
        tick as the last read keeps both, so only the content hash can tell (`read_into_index` re-chunks
        only when it differs).
        """
        with self.writing:
            self._apply_changes(paths)

    def _apply_changes(self, paths: Iterable[str]) -> None:
        paths = [p for p in dict.fromkeys(paths) if p and self.admits(p)]
        folders = self._folders_among(paths)
        if folders or any(p not in self.listed and (self.root / p).is_file() for p in paths):
            self._relist()
        if folders:
            below = tuple(f"{folder}/" for folder in folders)
            paths += [p for p in {*self.listed, *self.files} if p.startswith(below)]
        for path in dict.fromkeys(paths):
            entry = self.files.get(path)
            if entry is not None and entry.unsaved:
                continue
            if path in self.listed and stamp_of(self.root / path) is not None:
                self.read_into_index(path)
            else:
                self.listed.discard(path)
                with self.lock:
                    self._drop(path)

    def _folders_among(self, paths: list[str]) -> list[str]:
        """The paths that are folders on disk, or were folders of indexed files (deleted, renamed, moved out)."""
        unknown = [p for p in paths if p not in self.files and not (self.root / p).is_file()]
        folders = [p for p in unknown if (self.root / p).is_dir()]
        if gone := [p for p in unknown if p not in folders]:  # the folders of every indexed file, only then
            indexed_folders = {path[:at] for path in self.files for at in _slashes(path)}
            folders += [p for p in gone if p in indexed_folders]
        return folders

    def revert(self, path: str) -> None:
        """Forget a closed buffer's unsaved text: back to what the disk holds."""
        with self.writing:
            entry = self.files.get(path)
            if entry is not None and entry.unsaved:
                with self.lock:  # a change like any other: whatever is derived from this generation is stale
                    entry.unsaved = False
                    entry.stamp = None
                    self.generation += 1
                self.apply_changes([path])

    def _put(self, path: str, read: ReadFile, *, unsaved: bool) -> None:
        self._drop(path)
        self.files[path] = index_text(self.bm25, self.snippets, path, read, unsaved=unsaved)
        self.bm25.compact_if_due()  # edits retire snippets: without this, typing grows the index for good
        self.generation += 1

    def _drop(self, path: str) -> None:
        entry = self.files.pop(path, None)
        if entry is None:
            return
        for doc in entry.docs:
            self.bm25.retire(doc)
            self.snippets[doc] = None
        self.generation += 1

    # -- reading --------------------------------------------------------------------------------------

    def entries(self, paths: Iterable[str] | None = None) -> list[tuple[str, FileEntry]]:
        """A consistent copy of (path, entry) pairs, all or for the given paths."""
        with self.lock:
            if paths is None:
                return list(self.files.items())
            return [(p, self.files[p]) for p in paths if p in self.files]

    def skipped(self) -> Counter[SkipReason]:
        """Files skipped, by reason."""
        with self.lock:
            return Counter(e.skipped for e in self.files.values() if e.skipped is not None)

    @property
    def snippet_count(self) -> int:
        return self.bm25.live

    def declarations(self) -> list[Declaration]:
        """Every declaration in the root."""
        with self.lock:
            return [d for e in self.files.values() for d in e.declarations]


def summary(messages: dict[str, str], count: int = 5) -> str:
    """Up to `count` of rg's messages about unreadable paths, as `path (message)`."""
    shown = [f"{path} ({message})" for path, message in list(messages.items())[:count]]
    return ", ".join(shown) + (f" and {len(messages) - count} more" if len(messages) > count else "")


def _slashes(path: str) -> Iterable[int]:
    """Where each folder of a '/'-separated path ends (`a/b/c.py`: after `a`, after `a/b`)."""
    at = path.find("/")
    while at > 0:
        yield at
        at = path.find("/", at + 1)
