"""What the local judge reads of a snippet besides its code: one definition for the index and the judge.

A snippet gets a vector for its code, and may get two more that only the judge reads: its commentary (what it
says in comments and docstrings, `embedding.commentary`) and its passages (its lines past what its own vector
sees, `embedding.passages`). The root's dense index embeds them in the background and the judge embeds whatever
the index has not handed over at search time; both must embed the same texts under the same keys, or a cosine
would depend on which of them computed the vector. So both take them from `READINGS`.

A documentation file has neither: its prose is its code, which the snippet's own vector already reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.documentation import is_documentation
from smartsearch_ls.embedding.cache import commentary_key, passage_key
from smartsearch_ls.embedding.commentary import commentary_text
from smartsearch_ls.embedding.passages import passage_texts

TokenCounts = Callable[[Sequence[str]], list[int]]
"""Each text's number of tokens (`Embedder.token_counts`)."""


@dataclass(frozen=True)
class ReadingKind:
    """One way of reading a snippet besides its code."""

    key: Callable[[str], str]
    """The reading's cache key, from the key of the snippet's own vector (`content_key`)."""
    texts: Callable[[Snippet, TokenCounts], list[str]]
    """What to embed (the normalized mean of several texts is one vector); none: nothing to read this way."""
    persisted_as: str
    """The name under which the index persists the snippets that have nothing to read this way."""


def _commentary(snippet: Snippet, _: TokenCounts) -> list[str]:
    said = None if is_documentation(snippet.path) else commentary_text(snippet.text)
    return [] if said is None else [said]


def _passages(snippet: Snippet, token_counts: TokenCounts) -> list[str]:
    if is_documentation(snippet.path):
        return []
    return passage_texts(snippet.path, snippet.symbol, snippet.text, token_counts)


COMMENTARY = ReadingKind(commentary_key, _commentary, "silent")
PASSAGES = ReadingKind(passage_key, _passages, "short")
READINGS = (COMMENTARY, PASSAGES)
