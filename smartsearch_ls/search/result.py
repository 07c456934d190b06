"""What a search returns, before a front end shapes it (LSP ranges for the server, 1-based lines for the CLI).

`Match.of` is the one way a match is made, whichever step found it (a declaration, a reference, a path, the
judge), so every match labels test files and rounds its relevance the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from smartsearch_ls.discovery.file_kinds import is_test

if TYPE_CHECKING:
    from smartsearch_ls.search.openable import FileCandidate, UnresolvedImport
    from smartsearch_ls.search.request import Mode
    from smartsearch_ls.search.why import Why


def kind_of(path: str, symbol: str | None = None) -> Literal["test"] | None:
    """`"test"` for a test file, or a test declared in an implementation's file (`discovery.file_kinds`)."""
    return "test" if is_test(path, symbol) else None


@dataclass(frozen=True, slots=True)
class Copy:
    """Where else a match's code is (`search.copies`): another build of the same source, a vendored copy. Lines are
    1-based, inclusive: the copy's whole snippet."""

    root: Path
    path: str
    snippet_start_line: int
    snippet_end_line: int


@dataclass(frozen=True, slots=True)
class Match:
    """One relevant snippet with a focused excerpt of at most 12 lines. Lines are 1-based, inclusive."""

    root: Path
    path: str
    start_line: int
    end_line: int
    snippet_start_line: int
    snippet_end_line: int
    symbol: str | None
    kind: Literal["test"] | None
    relevance: float
    excerpt: str
    unsaved: bool = False
    """The text came from an editor buffer that is not saved yet."""
    source: str | None = None
    """How it was found: `declaration`, `reference`, `import`, `judged`, `path`, `related` (README, "Query shapes")."""
    why: Why | None = None
    """The evidence behind a judged match's score; None for a look-up's match."""
    copies: tuple[Copy, ...] = ()
    """The same code in other files, folded into this match (a judged match only)."""

    @classmethod
    def of(
        cls,
        root: Path,
        path: str,
        excerpt: tuple[int, int, str],
        snippet: tuple[int, int],
        *,
        symbol: str | None,
        relevance: float,
        unsaved: bool = False,
        source: str | None = None,
        why: Why | None = None,
        copies: tuple[Copy, ...] = (),
    ) -> Match:
        """A match showing `excerpt` (`(start_line, end_line, text)`) of the snippet (or declaration) whose lines
        `snippet` spans, in `path` under `root`; test files are labeled and the relevance rounded to 3 places."""
        start, end, text = excerpt
        return cls(
            root=root,
            path=path,
            start_line=start,
            end_line=end,
            snippet_start_line=snippet[0],
            snippet_end_line=snippet[1],
            symbol=symbol,
            kind=kind_of(path, symbol),
            relevance=round(relevance, 3),
            excerpt=text,
            unsaved=unsaved,
            source=source,
            why=why,
            copies=copies,
        )


@dataclass(frozen=True, slots=True)
class Coverage:
    """What the search saw, so "no matches" can be told apart from "did not look"."""

    files: int = 0
    skipped_files: int = 0
    snippets: int = 0
    shortlisted: int = 0
    judged: int = 0
    remembered: int = 0
    """Of `judged`, the judgments a model judge gave in an earlier process, kept in the root's memory."""
    complete: bool = False
    """Every snippet in scope was judged (or, for symbol and path modes, every declaration or file matched)."""
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    semantic: float | None = None
    """Behavior mode: the share of in-scope snippets the semantic (embedding) shortlist could pick; None when
    the shortlist was lexical only (no embedding index, no local model, or nothing embedded yet)."""
    documentation: int = 0
    """Behavior mode: snippets of prose documentation left out, because the query did not ask about documentation
    and no glob named the files. Their files count in `files`; the snippets do not count in `snippets`."""
    roots: tuple[str, ...] = ()
    """The directories searched (absolute), one per scope."""
    symbols: int = 0
    """Declarations in scope that a symbol look-up compared (0 when none ran)."""
    searches: tuple[str, ...] = ()
    """What ran, in order: `symbol`, `references`, `tests`, `path`, `behavior`, `related`."""
    identifiers: tuple[str, ...] = ()
    """The names looked up in the symbol index (the query, or the identifiers inside a prose query)."""
    reference_snippets: int = 0
    """Snippets scanned lexically for references (`references`/`tests` intents)."""
    unresolved_imports: tuple[UnresolvedImport, ...] = ()
    """With `expandRelated`: imports that could not be followed to a file of the workspace."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    matches: list[Match]
    omitted_matches: int
    coverage: Coverage
    warnings: list[str]
    mode: Mode
    judge: str | None
    candidates: list[FileCandidate] = field(default_factory=list)
    """Up to `limit` distinct files, best first: which to open first."""
    related: list[FileCandidate] = field(default_factory=list)
    """With `expandRelated`: files linked to the hits by imports."""
    intent: str | None = None
    closest: Match | None = None
    """A behavior search that answers with no match: the match it would have shown first with no threshold."""


PartialMatches = Callable[[list[Match]], None]
"""Hears the best matches found so far, best first, at most `limit` (a streamed search's partial results)."""


def summary(coverage: Coverage) -> str:
    """One line for progress end messages and logs."""
    skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(coverage.skipped_by_reason.items()))
    # The documentation left out qualifies the snippets counted, not completeness: beside "not complete" it read as
    # its reason, where a behavior search is incomplete because it judges its shortlist alone.
    return (
        f"{coverage.files} files ({coverage.skipped_files} skipped{': ' + skipped if skipped else ''}), "
        f"{coverage.snippets} snippets"
        + (f" (and {coverage.documentation} of documentation, left out)" if coverage.documentation else "")
        + f", {coverage.shortlisted} shortlisted, {coverage.judged} judged"
        + (f" ({coverage.remembered} remembered)" if coverage.remembered else "")
        + f", {'complete' if coverage.complete else 'not complete'}"
    )
