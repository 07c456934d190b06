"""What goes after the code in an answer: a module's header, and a file that only declares what code elsewhere does.

A file's header (its imports, constants and module docstring) is worded like the question whenever its
docstring describes the behavior asked about, and then outranked the function that performs it: the README's own
example question was answered with two headers first. A declaration file (TypeScript's `.d.ts`, Python's `.pyi`
stubs) is the same kind of text for a whole module: its types and doc comments describe the behavior of code in
another file, in the question's words, and a new user's trial on a published package found its interfaces
answering before the functions. Like tests after the implementation (`discovery.file_kinds.implementation_first`),
it is a rule on the final answer, not a penalty on scores: a header or a declaration that passed stays in the
answer, after the code (measured on the development part of the quality set, `bench/ranker/README.md`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

from smartsearch_ls.chunking.snippet import Snippet, starts_a_module

T = TypeVar("T")

DECLARATION_FILE = re.compile(r"\.d\.[cm]?ts$|\.pyi$")
"""Files of types for code that lives elsewhere: `.d.ts` (and `.d.mts`, `.d.cts`), Python's `.pyi` stubs."""


def describes_code(snippet: Snippet) -> bool:
    """Whether a snippet describes code rather than being it: a module header, or part of a declaration file."""
    return description_kind(snippet.path, snippet.symbol, snippet.start_line) is not None


def description_kind(path: str, symbol: str | None, start_line: int) -> Literal["header", "declarations"] | None:
    """What a place that describes code is, so an answer can say why it comes after code that scored lower."""
    if is_declaration_file(path):
        return "declarations"
    return "header" if starts_a_module(symbol, start_line) else None


def is_declaration_file(path: str) -> bool:
    """Whether a root-relative path is a declaration file (`DECLARATION_FILE`)."""
    return DECLARATION_FILE.search(path) is not None


def descriptions_last(items: Sequence[T], describes: Callable[[T], bool]) -> list[T]:
    """`items` (best first) with those that describe code (`describes`) moved after the rest, each side in its
    order."""
    return [i for i in items if not describes(i)] + [i for i in items if describes(i)]
