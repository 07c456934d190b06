"""The passages of a long snippet: its lines past what the snippet's own vector sees, as up to three texts.

A snippet's vector is cut at `MAX_TOKENS` tokens: its signature, docstring and first lines. Most functions a
question asks about are longer than that (bench/ranker/README.md has the quality set's figures), and the lines
that perform the asked action often come after the head. So the lines past the head are cut into windows of at most
as many tokens as the model reads beside the snippet's `path :: symbol` header (`window_tokens`), at line ends, each
with that header as the head has it; the first `MAX_PASSAGES` of them are embedded, and the normalized mean of their
vectors is the snippet's passage vector, which only the local judge reads (`judge/local/features.py`). One vector,
not one per window: it is what measured best (`bench/ranker/README.md`), and it costs one row per long snippet. A
snippet whose head holds all of it has no passages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from smartsearch_ls.chunking.snippet import snippet_text
from smartsearch_ls.embedding.encoder import MAX_TOKENS

MIN_WINDOW_TOKENS = 32
"""Tokens of code a window holds even when the header leaves less room (their end is then cut by the model)."""
MAX_PASSAGES = 3
"""Windows past the head that are embedded: the lines a reader would scan of a long function, at a bounded cost."""


def passage_texts(
    path: str, symbol: str | None, code: str, count_tokens: Callable[[Sequence[str]], list[int]]
) -> list[str]:
    """The texts to embed for the snippet's passages (none when its head holds all of it); `count_tokens` gives
    each line's number of tokens (`Embedder.token_counts`)."""
    lines = code.split("\n")
    budget = window_tokens(path, symbol, count_tokens)
    windows: list[list[str]] = []
    window: list[str] = []
    size = 0
    for line, tokens in zip(lines, count_tokens(lines), strict=True):
        if window and size + tokens > budget:
            windows.append(window)
            window, size = [], 0
            if len(windows) > MAX_PASSAGES:  # the head and MAX_PASSAGES windows: the rest is not read
                break
        window.append(line)
        size += tokens
    if window:
        windows.append(window)
    return [snippet_text(path, symbol, "\n".join(window)) for window in windows[1 : 1 + MAX_PASSAGES]]


def window_tokens(path: str, symbol: str | None, count_tokens: Callable[[Sequence[str]], list[int]]) -> int:
    """Tokens of code the model reads beside the snippet's header: what its own vector sees of the code, and what
    one window may hold."""
    (header,) = count_tokens([snippet_text(path, symbol, "")])
    return max(MAX_TOKENS - 2 - header, MIN_WINDOW_TOKENS)
