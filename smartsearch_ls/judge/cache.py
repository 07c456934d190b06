"""Judgments kept so that repeating a search pays only for what changed.

Two levels: a bounded in-process LRU for every judge, and, for model judges, a `JudgmentMemory` per root that
outlives the process (`judge.memory`), found through the cache so that every front end that already holds a
cache gets the memory with it. Keys are (judge, normalized query, snippet content hash): an edit of a snippet's
text or a shift of its lines is a new key.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge.memory import JudgmentMemory, memory_path

CACHE_ENTRIES = 100_000
"""About 10 MB of keys: a day of searching in a large repository before the oldest judgments go."""


class JudgmentCache:
    """A bounded LRU of relevance scores, shared by every search of a process."""

    def __init__(self, capacity: int = CACHE_ENTRIES) -> None:
        self._scores: OrderedDict[tuple[str, str, str], float] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()
        self._memories: dict[Path, JudgmentMemory] = {}

    @staticmethod
    def key(judge: str, query: str, snippet: Snippet) -> tuple[str, str, str]:
        """(judge, the query with its spacing normalized, the snippet's content hash). Case is the caller's to
        fold: the local judge's features split words by case (`getUserName`), a model judge's answer does not."""
        return judge, " ".join(query.split()), content_hash(snippet)

    def memory(self, cache_dir: Path | None, root: Path) -> JudgmentMemory | None:
        """The persisted judgments of `root` under `cache_dir` (None when nothing is persisted), one per file."""
        if cache_dir is None:
            return None
        path = memory_path(cache_dir, root)
        with self._lock:
            return self._memories.setdefault(path, JudgmentMemory(path))

    def get(self, key: tuple[str, str, str]) -> float | None:
        with self._lock:
            score = self._scores.get(key)
            if score is not None:
                self._scores.move_to_end(key)
            return score

    def put(self, key: tuple[str, str, str], score: float) -> None:
        with self._lock:
            self._scores[key] = score
            self._scores.move_to_end(key)
            while len(self._scores) > self._capacity:
                self._scores.popitem(last=False)

    def __len__(self) -> int:
        return len(self._scores)


def content_hash(snippet: Snippet) -> str:
    """What identifies a snippet's content where it stands: an edit of its text or a shift of its lines changes it.
    The text enters through the key the snippet carries (hashed when it was made), so neither a search's cache
    look-ups nor the sweep of stale judgments over a whole root unpacks any text."""
    content = f"{snippet.path}\0{snippet.symbol}\0{snippet.start_line}\0{snippet.key}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(content, digest_size=16).hexdigest()
