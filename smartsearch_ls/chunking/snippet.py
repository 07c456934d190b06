"""The units that flow through the pipeline: a snippet to judge and a declaration to name.

Both are plain frozen values so they can be cached, persisted and compared without surprises. Lines are
1-based and inclusive, counted the way editors count them (`\\n`, `\\r\\n` and a lone `\\r` end a line;
form feeds and other Unicode separators do not), so a range maps straight onto an LSP position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from smartsearch_ls.pickling import by_fields

LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""Line ends as LSP clients count them; `str.splitlines` also splits on form feeds and would drift."""


def split_lines(text: str) -> list[str]:
    """The text's lines without their line ends, numbered as an editor numbers them."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # a final line end does not start another line
    return lines


@by_fields
@dataclass(frozen=True, slots=True)
class Snippet:
    """A span of one file that is shortlisted and judged as a whole."""

    path: str
    """Relative to the search root, '/'-separated."""
    start_line: int
    end_line: int
    text: str
    symbol: str | None = None
    """The enclosing declaration's qualified name, e.g. `Cache.get`; None for a plain line window."""
    key_until: int = 0
    """When the snippet starts inside a private key block whose `BEGIN` line is above it: the block's last line,
    so its lines up to there are redacted before judging (`chunking.key_blocks`); 0 otherwise."""


def is_module_header(snippet: Snippet) -> bool:
    """A file's first lines outside any declaration: imports, constants and a module docstring, which describes
    what the file's code does rather than doing it."""
    return snippet.symbol is None and snippet.start_line == 1


@by_fields
@dataclass(frozen=True, slots=True)
class Declaration:
    """A named declaration the chunker found: what `workspace/symbol` and symbol search answer from."""

    name: str
    """The bare name, e.g. `get`."""
    qualified_name: str
    """Dotted through enclosing declarations, e.g. `Cache.get`."""
    kind: str
    """An LSP SymbolKind name in lower case: class, method, function, interface, struct, enum, module..."""
    path: str
    start_line: int
    end_line: int
    name_line: int
    """The line holding the name itself (after decorators), for a selection range."""
    name_column: int
    """0-based column of the name on `name_line`, in characters."""


@dataclass(frozen=True, slots=True)
class ChunkedFile:
    """Everything the index keeps from one file."""

    snippets: tuple[Snippet, ...]
    declarations: tuple[Declaration, ...]
