"""Judgments kept across restarts, one small SQLite file per root, so a repeated search pays no judge again.

A model judge's answer costs a network round trip and money; the same question about the same code deserves the
same answer tomorrow. Each judgment is keyed by (the judge's name and version, the normalized query, the judged
snippet's content hash), so an edited snippet (new text, new lines) simply stops matching, and a judge whose
version changes (another model, another prompt) never reuses an old answer. The file is bounded: past
`MEMORY_ENTRIES` rows the least recently used go, and rows of snippets no longer in the root are dropped by
`forget_all_but` when the server builds the root's index.

SQLite (standard library) rather than a pickled dict: a lookup reads only the rows it needs, a write appends a
few rows in one transaction instead of rewriting the file, and a second process on the same cache sees a
consistent file. Any failure to read or write the file degrades to "not remembered": the memory is a saving,
never a reason for a search to fail.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

MEMORY_ENTRIES = 200_000
"""Rows kept per root (~30 MB): weeks of searching a large repository with a model judge."""

Key = tuple[str, str, str]
"""(judge and version, normalized query, snippet content hash), as `JudgmentCache.key` makes it."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    judge TEXT NOT NULL, query TEXT NOT NULL, snippet TEXT NOT NULL, score REAL NOT NULL, used REAL NOT NULL,
    PRIMARY KEY (judge, query, snippet)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS judgments_used ON judgments (used);
"""


def memory_path(cache_dir: Path, root: Path) -> Path:
    """Where the judgments about `root`'s snippets are kept."""
    key = hashlib.blake2b(str(root.resolve()).encode(), digest_size=10).hexdigest()
    return cache_dir / "judgments" / f"{root.name or 'root'}-{key}.sqlite"


class JudgmentMemory:
    """The persisted judgments of one root; safe to share between threads."""

    def __init__(self, path: Path, capacity: int = MEMORY_ENTRIES) -> None:
        self.path = path
        self._capacity = capacity
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._broken = False

    def recall(self, keys: Iterable[Key]) -> dict[Key, float]:
        """The remembered scores among `keys` (each found row is marked as used now)."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        with self._lock:
            connection = self._open()
            if connection is None:
                return {}
            try:
                found: dict[Key, float] = {}
                for key in wanted:
                    row = connection.execute(
                        "SELECT score FROM judgments WHERE judge = ? AND query = ? AND snippet = ?", key
                    ).fetchone()
                    if row is not None:
                        found[key] = float(row[0])
                if found:
                    now = time.time()
                    with connection:
                        connection.executemany(
                            "UPDATE judgments SET used = ? WHERE judge = ? AND query = ? AND snippet = ?",
                            [(now, *key) for key in found],
                        )
                return found
            except sqlite3.Error as error:
                self._fail("read", error)
                return {}

    def remember(self, scores: Mapping[Key, float]) -> None:
        """Keep these judgments, then drop the least recently used rows past the capacity."""
        if not scores:
            return
        with self._lock:
            connection = self._open()
            if connection is None:
                return
            now = time.time()
            try:
                with connection:
                    connection.executemany(
                        "INSERT OR REPLACE INTO judgments VALUES (?, ?, ?, ?, ?)",
                        [(*key, score, now) for key, score in scores.items()],
                    )
                    (rows,) = connection.execute("SELECT count(*) FROM judgments").fetchone()
                    if rows > self._capacity:
                        connection.execute(
                            "DELETE FROM judgments WHERE (judge, query, snippet) IN "
                            "(SELECT judge, query, snippet FROM judgments ORDER BY used LIMIT ?)",
                            (rows - self._capacity,),
                        )
            except sqlite3.Error as error:
                self._fail("write", error)

    def forget_all_but(self, live: set[str]) -> int:
        """Drop the judgments of snippets whose content hash is not in `live` (edited or deleted); how many went."""
        if self._connection is None and not self.path.exists():
            return 0  # nothing was ever remembered for this root: do not create the file
        with self._lock:
            connection = self._open()
            if connection is None:
                return 0
            try:
                stale = [
                    row
                    for row in connection.execute("SELECT judge, query, snippet FROM judgments")
                    if row[2] not in live
                ]
                with connection:
                    connection.executemany("DELETE FROM judgments WHERE judge = ? AND query = ? AND snippet = ?", stale)
                return len(stale)
            except sqlite3.Error as error:
                self._fail("prune", error)
                return 0

    def count(self) -> int:
        """Rows kept (a method, not `__len__`, so that testing a memory for truth never touches its file)."""
        with self._lock:
            connection = self._open()
            if connection is None:
                return 0
            try:
                return int(connection.execute("SELECT count(*) FROM judgments").fetchone()[0])
            except sqlite3.Error as error:
                self._fail("count", error)
                return 0

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _open(self) -> sqlite3.Connection | None:
        if self._connection is not None or self._broken:
            return self._connection
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False)
            connection.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            self._fail("open", error)
            return None
        self._connection = connection
        return connection

    def _fail(self, action: str, error: Exception) -> None:
        """Stop using a file that cannot be used, once, with one log line: searches go on without the memory."""
        log.warning("judgment memory %s: cannot %s (%s); judgments are not remembered", self.path, action, error)
        self._broken = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None
