"""A search of one folder the caller names, outside any editor: the command line's and the MCP server's.

Neither front end has a workspace. The folder named on each run (`--root`) or call (`directory`) becomes the
index's root, persisted under the same cache directory as the language server's folders, so the three share
warmth; nothing outside it is indexed. The command line opens the folder once per run; the MCP server keeps
it open across calls and brings it up to date with the disk before each one (`FolderIndex.refresh`). Both validate
params with `QueryParams`, build the same `SearchRequest`, share one list of errors that are the caller's to
fix (`FAILURES`: printed by one, returned as tool errors by the other), and shape the result the same way
(`to_json`: the contract's result with 1-based lines in place of LSP ranges).
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from smartsearch_ls.discovery.errors import DiscoveryError
from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.discovery.workspace_paths import path_from
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.gc_pause import gc_paused
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import JudgeConfig, JudgeFailed
from smartsearch_ls.judge.redact import tally_redactions
from smartsearch_ls.judge.resolve import JudgeUnavailable, configured_judge, is_local
from smartsearch_ls.search.engine import search
from smartsearch_ls.search.request import InvalidQuery, Mode, QueryParams, SearchRequest
from smartsearch_ls.search.result import Copy, Match, SearchResult
from smartsearch_ls.search.routing import route
from smartsearch_ls.search.wire import result_wire
from smartsearch_ls.settings import Settings, merge

FAILURES = (InvalidQuery, DiscoveryError, JudgeUnavailable, JudgeFailed, ValueError)
"""What a search of a folder raises when the caller can fix it; each message says what to change."""


def settings_from(given: Mapping[str, Any]) -> Settings:
    """The defaults with the given settings applied (None: not given); a ValueError naming each bad one."""
    settings, problems = merge(Settings(), given)
    if problems:
        raise ValueError("; ".join(problem.message for problem in problems))
    return settings


def folder_of(value: str, name: str) -> Path:
    """The folder a caller named (a path or a `file:` URI; `~` expanded), resolved; a ValueError naming `name`."""
    path = path_from(value)
    try:
        resolved = path.resolve()
        is_dir = resolved.is_dir()
    except (OSError, ValueError, RuntimeError):  # NUL bytes, a symlink loop, a name too long
        is_dir = False
    if not is_dir:
        raise ValueError(f"{name} {value!r} is not a directory.")
    return resolved


@dataclass
class FolderIndex:
    """One root's index and, once a search with the embedded judge needs them, its snippet vectors."""

    index: RootIndex
    dense: DenseIndex | None = None
    _loading: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(cls, root: Path, settings: Settings) -> FolderIndex:
        """The persisted index brought up to date with the disk (blocking: seconds for a large cold root)."""
        with gc_paused():
            index, _ = RootIndex.open_warm(root, exclude=tuple(settings.exclude), cache_dir=settings.cache_dir)
            # The index lives as long as its process holds it: frozen before the collector resumes, its million
            # objects are walked by none of the collections the symbol build and the search set off, which on a
            # large root were a tenth of the run. Whoever drops an open folder unfreezes (`gc.unfreeze`).
            gc.freeze()
        return cls(index)

    def refresh(self) -> None:
        """Re-read what changed on disk since the last search (blocking), and persist the index if it moved."""
        stats = self.index.refresh()
        if stats.read or stats.removed:
            self.index.persist()

    def vectors(self) -> DenseIndex:
        """The root's snippet vectors, loaded from the cache on first use (blocking)."""
        with self._loading:
            if self.dense is None:
                self.dense = DenseIndex.for_root(self.index)
            return self.dense


async def judge_for(params: QueryParams, settings: Settings) -> JudgeConfig | None:
    """The configured judge when the params route to a behavior search (loading it may take seconds), else None."""
    behavior = (_forced_mode(params) or route(params.query)) == "behavior"
    return await asyncio.to_thread(configured_judge, settings) if behavior else None


async def search_folder(
    folder: FolderIndex, params: QueryParams, settings: Settings, judge: JudgeConfig | None, judgments: JudgmentCache
) -> SearchResult:
    """One search of the whole folder (`judge` from `judge_for`); the vectors it embedded are persisted."""
    mode = _forced_mode(params)
    # The embedded judge embeds its candidates anyway (and shares the vectors), so the semantic side of the
    # shortlist costs nothing extra then; with a hosted judge it would cost seconds per one-shot run. Symbol and
    # path searches embed nothing and do not read the vectors.
    local_judge = judge is not None and is_local(settings.judge.model)
    dense = await asyncio.to_thread(folder.vectors) if local_judge and settings.semantic else None
    scope = Scope(folder.index, "", GlobSet.of(params.glob or ()))
    request = SearchRequest.of(params, settings, [scope], mode, dense=[dense] if dense is not None else [])
    with tally_redactions() as redactions:
        result = await search(request, judge, judgments)
    if dense is not None:  # what this search embedded, the shortlist and the judge, is not embedded again next time
        await asyncio.to_thread(_keep_vectors, dense)
    return replace(result, warnings=[*result.warnings, *redactions.warnings()])


def _keep_vectors(dense: DenseIndex) -> None:
    dense.adopt_cached()
    dense.persist(only_if_changed=True)


def _forced_mode(params: QueryParams) -> Mode | None:
    return None if params.mode == "auto" else params.mode


def to_json(result: SearchResult) -> dict[str, Any]:
    """The contract's result with 1-based lines in place of LSP ranges."""

    def place(match: Match) -> dict[str, Any]:
        return {
            "start_line": match.start_line,
            "end_line": match.end_line,
            "snippet_start_line": match.snippet_start_line,
            "snippet_end_line": match.snippet_end_line,
        }

    def copy_place(copy: Copy) -> dict[str, Any]:
        return {"snippet_start_line": copy.snippet_start_line, "snippet_end_line": copy.snippet_end_line}

    return result_wire(
        result, place, copy_place, lambda path: path.as_uri(), lambda u: {"path": u.path, "line": u.line}
    )
