"""A long snippet's passages: the lines past what its own vector sees, cut into windows the model can read."""

from __future__ import annotations

from smartsearch_ls.embedding.encoder import MAX_TOKENS
from smartsearch_ls.embedding.loading import load_encoder
from smartsearch_ls.embedding.passages import MAX_PASSAGES, passage_texts, window_tokens


def count_tokens(lines: list[str]) -> list[int]:
    return load_encoder().embedder.token_counts(lines)


def test_a_snippet_its_head_holds_has_no_passages() -> None:
    assert passage_texts("a.py", "f", "def f(x):\n    return x + 1", count_tokens) == []


def test_the_lines_past_the_head_are_cut_at_line_ends_into_at_most_three_windows_with_the_header() -> None:
    lines = ["def settle(ledger):"] + [f"    ledger.post(entry_{i}, amount={i})" for i in range(120)]
    texts = passage_texts("books/ledger.py", "settle", "\n".join(lines), count_tokens)
    budget = window_tokens("books/ledger.py", "settle", count_tokens)
    assert budget == MAX_TOKENS - 2 - count_tokens(["books/ledger.py :: settle"])[0]  # the header's room left out
    assert len(texts) == MAX_PASSAGES
    bodies = [text.split("\n")[1:] for text in texts]
    assert all(text.startswith("books/ledger.py :: settle\n") for text in texts)
    assert all(sum(count_tokens(body)) <= budget for body in bodies)
    joined = [line for body in bodies for line in body]
    first = lines.index(joined[0])
    assert first > 0 and joined == lines[first : first + len(joined)]  # whole lines, in order, right after the head
    assert sum(count_tokens(lines[:first])) <= budget < sum(count_tokens(lines[: first + 1]))


def test_a_line_longer_than_a_window_is_a_window_of_its_own() -> None:
    huge = "    table = [" + ", ".join(str(i) for i in range(200)) + "]"
    texts = passage_texts("t.py", None, "def build():\n" + huge + "\n    return table", count_tokens)
    assert [text.split("\n")[1:] for text in texts] == [[huge], ["    return table"]]
    assert count_tokens([huge])[0] == MAX_TOKENS - 2  # what a vector can see of it at most
