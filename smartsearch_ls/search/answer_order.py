"""Where a module header goes in an answer: after the code that passed with it.

A file's header (its imports, constants and module docstring) is worded like the question whenever its
docstring describes the behavior asked about, and then outranked the function that performs it: the README's own
example question was answered with two headers first. Like tests after the implementation
(`discovery.file_kinds.implementation_first`), it is a rule on the final answer, not a penalty on scores: a
header that passed stays in the answer, after the code (measured on the development part of the quality set,
`bench/ranker/README.md`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def headers_last(items: Sequence[T], is_header: Callable[[T], bool]) -> list[T]:
    """`items` (best first) with module headers moved after the rest, each side in its order."""
    return [i for i in items if not is_header(i)] + [i for i in items if is_header(i)]
