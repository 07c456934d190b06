"""Shared checks for the chunking tests: the invariants every `ChunkedFile` must keep."""

from collections.abc import Callable

import pytest

from smartsearch_ls.chunking.blocks import BUDGET
from smartsearch_ls.chunking.snippet import ChunkedFile, split_lines


def assert_invariants(text: str, chunked: ChunkedFile, budget: int | None = BUDGET) -> None:
    """Every non-blank line is covered; each snippet is exactly its lines, non-blank, in range."""
    lines = split_lines(text)
    covered = [False] * (len(lines) + 1)
    for snippet in chunked.snippets:
        assert 1 <= snippet.start_line <= snippet.end_line <= len(lines), snippet
        assert snippet.text == "\n".join(lines[snippet.start_line - 1 : snippet.end_line])
        assert snippet.text.strip(), snippet
        if budget is not None and chunked.declarations:
            assert snippet.end_line - snippet.start_line < budget, snippet
        for number in range(snippet.start_line, snippet.end_line + 1):
            covered[number] = True
    missed = [number for number, line in enumerate(lines, 1) if line.strip() and not covered[number]]
    assert not missed, f"lines not in any snippet: {missed[:10]}"
    for declaration in chunked.declarations:
        assert 1 <= declaration.start_line <= declaration.name_line <= declaration.end_line <= len(lines)
        name_line = lines[declaration.name_line - 1]
        column = declaration.name_column
        assert name_line[column : column + len(declaration.name)] == declaration.name, declaration


@pytest.fixture(scope="session")
def invariants() -> Callable[..., None]:
    return assert_invariants
