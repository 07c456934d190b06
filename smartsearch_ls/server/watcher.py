"""The server's own file watcher, for clients that cannot watch files (Neovim on Linux never offers to).

watchdog's inotify observer reports from its own thread; events are reduced to root-relative paths,
hidden paths (`.git/`, `.venv/`...) are dropped at once since rg never lists them, and the rest are
handed to the event loop, where the index coalesces bursts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

log = logging.getLogger(__name__)

CHANGES = frozenset({"created", "modified", "deleted", "moved", "attrib"})
"""The events that change content or whether it can be read (`attrib`: a chmod). inotify also reports every
open and close: counting those would turn the index's own reads into changes, and each re-read into the next
event, a loop that never settles (reads do not change attributes: their atime is not an inotify event)."""

FOLDER_CHANGES = frozenset({"created", "deleted", "moved", "attrib"})
"""The events of a folder that the index re-lists under it for: one moved in or out comes as one event, with
none for the files in it. A folder's `modified` (any entry in it changed) comes with the entry's own event."""

Changed = Callable[[Path, list[str]], None]
"""Called on the event loop with (root, root-relative paths that changed)."""


class _Forward(FileSystemEventHandler):
    def __init__(self, root: Path, loop: asyncio.AbstractEventLoop, changed: Changed) -> None:
        self._root = root
        self._loop = loop
        self._changed = changed

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in (FOLDER_CHANGES if event.is_directory else CHANGES):
            return
        paths = []
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = raw.decode() if isinstance(raw, bytes) else raw
            try:
                relative = Path(path).relative_to(self._root).as_posix()
            except ValueError:
                continue
            if not any(part.startswith(".") for part in relative.split("/")):
                paths.append(relative)
        if paths:
            self._loop.call_soon_threadsafe(self._changed, self._root, paths)


class FolderWatcher:
    """Watches workspace folders recursively until stopped."""

    def __init__(self, loop: asyncio.AbstractEventLoop, changed: Changed) -> None:
        self._loop = loop
        self._changed = changed
        self._observer = Observer()
        self._watches: dict[Path, object] = {}
        self._observer.daemon = True
        self._observer.start()

    def watch(self, root: Path) -> None:
        if root in self._watches:
            return
        try:
            self._watches[root] = self._observer.schedule(
                _Forward(root, self._loop, self._changed), str(root), recursive=True
            )
        except OSError as error:  # e.g. the inotify watch limit: the index still follows buffers and saves
            log.warning(
                "cannot watch %s (%s); changes made outside the editor will be seen at the next restart", root, error
            )

    def unwatch(self, root: Path) -> None:
        watch = self._watches.pop(root, None)
        if watch is not None:
            self._observer.unschedule(watch)  # type: ignore[arg-type]

    def stop(self) -> None:
        self._observer.stop()
