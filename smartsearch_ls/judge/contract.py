"""What the rest of the engine holds of a judge: its configuration, what it is shown, and how it fails.

Kept apart from the runner so that importing them does not import Pydantic AI (~1 s of a start-up): a
symbol or path look-up judges nothing, and the command line's `--help`, those look-ups and the server's
`initialize` answer should not wait for the agent framework. The runner (`judge.runner`) is imported when a
search first judges (by the server, right after `initialized`), under `lazy_imports.HEAVY_IMPORTS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge.memory import JudgmentMemory

if TYPE_CHECKING:
    from pydantic_ai.models import Model


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
    commentary_cosine: float | None = None
    """The query's cosine with what the snippet says in comments and docstrings (`embedding.commentary`), once
    the local judge has it; None while unknown, and for a snippet that says nothing."""
    passage_cosine: float | None = None
    """The query's cosine with the snippet's lines past its head (`embedding.passages`), once the local judge has
    it; None while unknown, and for a snippet whose head holds all of it."""


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

Scored = Callable[[Sequence[tuple[int, float]]], None]
"""Called with (the candidate's position in the shortlist, its relevance) pairs as they are known: those already
cached or remembered at once, then each new judgment; for a search that shows its best matches before the last
judgment is in."""


@dataclass(slots=True)
class JudgingTally:
    """What one search's judging took from where: `remembered` judgments came from an earlier process."""

    remembered: int = 0
