"""What the rest of the engine holds of a judge: its configuration, the judgment cache, and its failure.

The cache has two levels: a bounded in-process LRU for every judge, and, for model judges, a `JudgmentMemory`
per root that outlives the process (`judge.memory`), found through the cache so that every front end that
already holds a cache gets the memory with it.

Kept apart from the runner so that importing them does not import Pydantic AI (~1 s of a start-up): a
symbol or path look-up judges nothing, and the command line's `--help`, those look-ups and the server's
`initialize` answer should not wait for the agent framework. The runner (`judge.runner`) is imported when a
search first judges (by the server, right after `initialized`), under `lazy_imports.HEAVY_IMPORTS`.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge.memory import JudgmentMemory, memory_path

if TYPE_CHECKING:
    from pydantic_ai.models import Model

CACHE_ENTRIES = 100_000
"""About 10 MB of keys: a day of searching in a large repository before the oldest judgments go."""


class JudgeFailed(Exception):
    """A judgment failed, so the search did; the message names the judge, the cause and what to do."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One shortlisted snippet with what the shortlist knew of it."""

    snippet: Snippet
    lexical: float = 0.0
    """Its BM25 score in its root (0: it came in by meaning alone)."""
    cosine: float | None = None
    """The query's cosine with the snippet's embedded text, when the shortlist had its vector."""
    memory: JudgmentMemory | None = None
    """Where judgments of this snippet's root outlive the process (None: not persisted)."""


@runtime_checkable
class ShortlistJudge(Protocol):
    """A judge that scores a whole shortlist at once."""

    @property
    def name(self) -> str: ...

    async def score_shortlist(self, query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float]) -> list[float]:
        """Relevance in [0, 1] of each candidate, in order; `idf` is the rarity of the query's terms in the roots."""
        ...


@runtime_checkable
class ExplainsShortlists(Protocol):
    """A shortlist judge that can say what weighed most in each candidate's score."""

    async def factors(
        self, query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float] | None
    ) -> list[tuple[tuple[str, float], ...]]:
        """Per candidate, `(what, effect on the log-odds)` pairs, largest first."""
        ...


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    """Which judge, and how hard to push it."""

    model: Model | ShortlistJudge
    name: str
    timeout: float = 30.0
    concurrency: int = 8


Judged = Callable[[int, int], None]
"""Called with (judged so far, to judge) after each judgment."""

Scored = Callable[[int, float], None]
"""Called with (the candidate's position in the shortlist, its relevance) as each one is known, for a search that
shows its best matches before the last judgment is in."""


@dataclass(slots=True)
class JudgingTally:
    """What one search's judging took from where: `remembered` judgments came from an earlier process."""

    remembered: int = 0


class JudgmentCache:
    """A bounded LRU of relevance scores, shared by every search of a process."""

    def __init__(self, capacity: int = CACHE_ENTRIES) -> None:
        self._scores: OrderedDict[tuple[str, str, str], float] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()
        self._memories: dict[Path, JudgmentMemory] = {}

    @staticmethod
    def key(judge: str, query: str, snippet: Snippet) -> tuple[str, str, str]:
        """(judge, the query with case and spacing normalized, the snippet's content hash)."""
        return judge, " ".join(query.split()).casefold(), content_hash(snippet)

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
    """What identifies a snippet's content where it stands: an edit of its text or a shift of its lines changes it."""
    content = f"{snippet.path}\0{snippet.symbol}\0{snippet.start_line}\0{snippet.text}".encode()
    return hashlib.blake2b(content, digest_size=16).hexdigest()
