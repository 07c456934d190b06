"""Turn a file's outline of blocks into snippets under a line budget, the same way for every language.

A language module only says where its declarations and statements are (`Block`s, with children on
demand); this module owns the policy: a declaration up to the budget is one snippet, a longer one is
split into its children, and the code between declarations is grouped into pieces of at most the
budget. Children are asked for lazily, so only blocks that are too long pay for a deeper look.

Trade-offs: pieces never cross a declaration boundary, so a file of many tiny declarations yields many
tiny snippets; a region without usable children is cut at plain line counts; a piece made only of
closing punctuation (`}`, `end`) is folded into the snippet just before it instead of standing alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from smartsearch_ls.chunking.snippet import Declaration, Snippet

BUDGET = 160
"""The longest snippet, in lines; longer declarations are split."""

_CLOSER = re.compile(r"[\W_]*(?:end)?[\W_]*")
"""A line that only closes something (`}`, `});`, `end`): not worth a snippet of its own."""


class Block(NamedTuple):
    """One declaration or statement, as 1-based inclusive lines."""

    start: int
    end: int
    symbol: str | None
    """The qualified name when the block is a declaration that gets its own snippet, else None."""
    node: object
    """The language module's own handle, handed back to its `children`."""


@dataclass(frozen=True, slots=True)
class Outline:
    """What a language module knows about one file."""

    blocks: Sequence[Block]
    """The top-level blocks, in order."""
    children: Callable[[Block], Sequence[Block]]
    """The blocks directly inside a block, in order (empty when it has none worth splitting on)."""
    declarations: Sequence[Declaration]


def pack(path: str, lines: Sequence[str], outline: Outline, budget: int = BUDGET) -> list[Snippet]:
    """Snippets covering every non-blank line of `lines`, cut along the outline's blocks."""
    packer = _Packer(lines, outline.children, budget)
    packer.walk(outline.blocks, None)
    packer.flush(len(lines), None)
    return [Snippet(path, start, end, "\n".join(lines[start - 1 : end]), symbol) for start, end, symbol in packer.spans]


class _Packer:
    """Walks blocks in line order, keeping one open group of loose lines and small statements."""

    def __init__(self, lines: Sequence[str], children: Callable[[Block], Sequence[Block]], budget: int):
        self.lines = lines
        self.children = children
        self.budget = budget
        self.spans: list[tuple[int, int, str | None]] = []
        self.group = 1
        """First line of the open group."""
        self.cursor = 1
        """First line no block has claimed yet."""

    def walk(self, blocks: Sequence[Block], symbol: str | None) -> None:
        budget = self.budget
        for block in blocks:
            if block.end < self.cursor:
                continue  # shares its only line with the previous block
            start = max(block.start, self.cursor)
            if block.end > len(self.lines):
                raise ValueError(f"block ends at line {block.end} of {len(self.lines)}")
            if block.symbol is not None:
                self.flush(start - 1, symbol)
                if block.end - block.start < budget:
                    self.emit(block.start, block.end, block.symbol)
                else:
                    self.group = self.cursor = start
                    self.walk(self.children(block), block.symbol)
                    self.flush(block.end, block.symbol)
                self.group = self.cursor = block.end + 1
            elif block.end - start >= budget:
                self.walk(self.children(block), symbol)  # the open group carries on inside
                self.cursor = max(self.cursor, block.end + 1)
            else:
                if block.end - self.group >= budget:
                    self.flush(start - 1, symbol)
                self.cursor = block.end + 1

    def flush(self, end: int, symbol: str | None) -> None:
        """Close the open group at `end` (inclusive), in pieces of at most the budget."""
        start, self.group = self.group, max(self.group, end + 1)
        for piece_start in range(start, end + 1, self.budget):
            self.emit(piece_start, min(end, piece_start + self.budget - 1), symbol)

    def emit(self, start: int, end: int, symbol: str | None) -> None:
        lines = self.lines
        while start <= end and not lines[start - 1].strip():
            start += 1
        while end >= start and not lines[end - 1].strip():
            end -= 1
        if start > end:
            return
        spans = self.spans
        if spans and end - start < 3 and all(_CLOSER.fullmatch(line) for line in lines[start - 1 : end]):
            previous_start, previous_end, previous_symbol = spans[-1]
            joins = start - 1 - _blank_run(lines, start) <= previous_end < end
            if joins and end - previous_start < self.budget:
                spans[-1] = (previous_start, end, previous_symbol)
                return
        spans.append((start, end, symbol))


def _blank_run(lines: Sequence[str], start: int) -> int:
    """How many blank lines come straight before line `start`."""
    count = 0
    while start - count > 1 and not lines[start - count - 2].strip():
        count += 1
    return count
