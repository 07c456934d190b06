"""Cold builds on every core: files are dealt to worker processes, each indexes its share, shares are merged.

Chunking (`ast`, tree-sitter) and tokenizing are CPU-bound Python, so threads would not help. A worker is a
fresh interpreter that imports just this module (`WORKER_COMMAND`), never a fork: a forked copy
of a language server that has already used threads can hang. It is not a `multiprocessing` spawn either:
that re-imports the parent's main module in every worker (the command line's or a benchmark's imports,
pydantic-ai and onnxruntime among them), a large share of a cold build on 2 cores. The parent writes
`(root, shares)` to the worker's stdin as one pickle; the worker writes back one pickled `Share` per share
on its stdout (never the parent's stdout, which is the language server's protocol stream), which the parent
unpickles as it reads it: read whole first, the last shares' bytes were held beside everything they unpickle into
as the build ends, the moment a cold start holds the most.

A share comes back as a small index of its own (packed postings, entries, snippets) and is absorbed by
shifting its document ids, so merging costs one numpy operation per share and a buffer slice per term. Below
`PARALLEL_MIN_FILES`, starting workers costs more than it saves and files are read in-process.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.reading import read_file
from smartsearch_ls.index.bm25 import Bm25Index, Packed
from smartsearch_ls.index.entries import FileEntry, index_text
from smartsearch_ls.index.gc_pause import gc_paused

log = logging.getLogger(__name__)

PARALLEL_MIN_FILES = 300
"""Starting and importing two worker interpreters costs a fraction of a second; below a few hundred files that
does not pay (`python -m bench.engine` times the cold build)."""

SHARES_PER_WORKER = 2
"""A few shares per worker keep both cores busy to the end and give progress reports; each costs a merge."""

WORKER_COMMAND = f"from {__name__} import serve_shares; import sys; serve_shares(sys.stdin.buffer, sys.stdout.buffer)"
"""Run with `python -P -c`: importing the module by name (not `-m`) keeps pickled shares' classes importable,
and `-P` keeps the working directory off the import path, so a `smartsearch_ls` folder in the folder being
indexed (another version, or code planted there) is never what the worker runs."""

PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])
"""Put first on the workers' import path, so they run this very copy of the package, installed or not."""


class WorkerFailed(RuntimeError):
    """A worker process exited before sending all its shares (its traceback is on stderr)."""


class BuildStopped(Exception):
    """The index was asked to stop (`RootIndex.stop`: the server is exiting, or the folder was dropped)."""


STOP_POLL_SECONDS = 0.1
"""How often a build waiting for its workers looks whether it was asked to stop."""


@dataclass
class Share:
    """One worker's result: an index of its files with ids from 0."""

    bm25: Packed
    entries: dict[str, FileEntry]
    snippets: list[Snippet | None]


class Absorbing(Protocol):
    """The index a parallel build fills (`root_index.RootIndex`, which imports this module)."""

    root: Path
    stopping: threading.Event
    """Set when the build should stop (`RootIndex.stop`)."""

    def absorb(self, share: Share) -> None: ...


def index_share(root: str, paths: Sequence[str]) -> Share:
    """Read, chunk and index `paths` into fresh postings, with doc ids from 0."""
    base = Path(root).resolve()
    bm25, entries, snippets = Bm25Index(), {}, []
    for path in paths:
        entries[path] = index_text(bm25, snippets, path, read_file(base / path), unsaved=False)
    return Share(bm25.packed(), entries, snippets)


def serve_shares(source: IO[bytes], sink: IO[bytes]) -> None:
    """Worker loop: one `(root, shares)` request in, one pickled `Share` out per share, in order."""
    gc.disable()  # millions of small objects, none of them garbage
    root, shares = pickle.load(source)
    for paths in shares:
        pickle.dump(index_share(root, paths), sink, protocol=pickle.HIGHEST_PROTOCOL)
        sink.flush()


def worker_count() -> int:
    return min(os.cpu_count() or 1, 8)


def build_in_parallel(index: Absorbing, stale: Sequence[str], progress: Callable[[int, int], None] | None) -> bool:
    """Index `stale` files with worker processes; False (nothing done) when workers cannot be used."""
    workers = worker_count()
    if workers < 2 or len(stale) < PARALLEL_MIN_FILES or not sys.executable:
        return False
    sizes = {path: _size(index.root / path) for path in stale}
    ordered = sorted(stale, key=lambda p: -sizes[p])
    count = workers * SHARES_PER_WORKER
    shares = [ordered[i::count] for i in range(count)]  # dealt largest first, so shares weigh about the same
    pool: list[_Worker] = []
    try:
        for i in range(workers):
            pool.append(_Worker(str(index.root), shares[i::workers]))
    except OSError as error:  # no processes allowed here: fall back to one core
        for worker in pool:
            worker.stop()
        log.warning("parallel indexing unavailable (%s); indexing in-process", error)
        return False
    arrivals: queue.Queue[Share | WorkerFailed] = queue.Queue()
    readers = [threading.Thread(target=worker.deliver, args=(arrivals,), daemon=True) for worker in pool]
    try:
        if progress is not None:  # at once, with none done: the files are the workers' now, and this process waits
            progress(0, len(stale))
        with gc_paused():  # the shares unpickled by the readers and merged here are millions of objects
            for reader in readers:
                reader.start()
            done = 0
            for _ in range(count):
                arrival = _next_arrival(arrivals, index)
                if isinstance(arrival, WorkerFailed):
                    raise arrival
                index.absorb(arrival)
                done += len(arrival.entries)
                if progress is not None:
                    progress(done, len(stale))
    except WorkerFailed as error:  # the files it did not index are read in-process; absorbed ones are kept
        log.warning("%s; indexing the rest in-process", error)
        return False
    finally:
        for worker in pool:
            worker.stop()
    return True


def _next_arrival(arrivals: queue.Queue[Share | WorkerFailed], index: Absorbing) -> Share | WorkerFailed:
    """The next share, unless the index is asked to stop first (BuildStopped: the caller kills the workers)."""
    while True:
        if index.stopping.is_set():
            raise BuildStopped
        try:
            return arrivals.get(timeout=STOP_POLL_SECONDS)
        except queue.Empty:
            continue


class _Worker:
    """One worker process and the shares it was given."""

    def __init__(self, root: str, shares: list[list[str]]) -> None:
        self.expected = len(shares)
        path = os.pathsep.join(filter(None, (PACKAGE_PARENT, os.environ.get("PYTHONPATH"))))
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-c", WORKER_COMMAND],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path},
        )
        assert self.process.stdin is not None
        try:
            pickle.dump((root, shares), self.process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.process.stdin.close()
        except OSError:
            self.stop()
            raise

    def deliver(self, arrivals: queue.Queue[Share | WorkerFailed]) -> None:
        """Reader thread: put each share on `arrivals` as it comes, or one `WorkerFailed`.

        Whatever goes wrong here (a worker that died, a share that does not unpickle) must reach the builder as a
        `WorkerFailed`: a reader thread that died silently would leave it waiting forever.
        """
        assert self.process.stdout is not None
        for _ in range(self.expected):
            try:
                arrivals.put(pickle.load(self.process.stdout))  # a pipe that ends early raises
            except BaseException as error:
                if self.process.poll() is None:
                    self.process.kill()
                code = self.process.wait()
                arrivals.put(WorkerFailed(f"an indexing worker stopped early (exit code {code}: {error!r})"))
                return

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
