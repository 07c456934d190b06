"""Overlapping line windows: the chunking that works for any text at all.

Used for files no outline covers (unknown languages, prose, data) and for files whose parse failed.
It knows nothing about the content, so a declaration may be cut anywhere; the overlap keeps a few lines
of context on both sides of each cut so a short match is rarely split between two windows.
"""

from __future__ import annotations

from collections.abc import Sequence

from smartsearch_ls.chunking.snippet import Snippet

WINDOW = 60
"""Lines per window."""
STEP = 50
"""Lines between window starts, so consecutive windows share WINDOW - STEP lines."""


def line_windows(path: str, lines: Sequence[str], window: int = WINDOW, step: int = STEP) -> list[Snippet]:
    """Windows over `lines`, trimmed of blank edges; blank-only windows are dropped."""
    snippets: list[Snippet] = []
    last_end = 0
    for first in range(1, len(lines) + 1, step):
        start, end = first, min(first + window - 1, len(lines))
        while start <= end and not lines[start - 1].strip():
            start += 1
        while end >= start and not lines[end - 1].strip():
            end -= 1
        if start <= end and end > last_end:
            snippets.append(Snippet(path, start, end, "\n".join(lines[start - 1 : end])))
            last_end = end
        if first + window - 1 >= len(lines):
            break
    return snippets
