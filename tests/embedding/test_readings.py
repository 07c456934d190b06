"""What the judge reads of a snippet besides its code: commentary and passages, none for documentation files."""

from __future__ import annotations

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.embedding.loading import load_encoder
from smartsearch_ls.embedding.readings import COMMENTARY, PASSAGES, READINGS


def count_tokens(lines: list[str]) -> list[int]:
    return load_encoder().embedder.token_counts(lines)


LONG_BODY = "\n".join(f"    # post entry {i} to the ledger\n    ledger.post(entry_{i}, amount={i})" for i in range(80))


def test_a_commented_long_function_has_both_readings_under_keys_derived_from_its_own() -> None:
    snippet = Snippet("books/ledger.py", 1, 161, "def settle(ledger):\n" + LONG_BODY, "settle")
    assert COMMENTARY.texts(snippet, count_tokens)[0].startswith("post entry 0 to the ledger")
    assert len(PASSAGES.texts(snippet, count_tokens)) == 3
    assert {reading.key("abc") for reading in READINGS} == {"abc:commentary", "abc:passages"}


def test_a_documentation_file_has_no_reading_besides_its_own_text() -> None:
    text = "def settle(ledger):\n" + LONG_BODY
    code, page = (Snippet(path, 1, 161, text, "settle") for path in ("books/ledger.py", "docs/ledger.md"))
    assert all(reading.texts(code, count_tokens) for reading in READINGS)  # the same text, read as code
    assert [reading.texts(page, count_tokens) for reading in READINGS] == [[], []]
