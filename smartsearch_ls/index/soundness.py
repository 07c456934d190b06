"""Whether a persisted index agrees with itself, checked before it is adopted.

The store's checksum proves that the bytes are those that were written, not that what was written is
consistent: an index whose entries name snippets it does not hold, or whose postings name documents past its
end, passed every check and then failed every run with an IndexError (in a search or the first refresh) until
the cache was deleted. An index that fails one is rebuilt. The checks are one pass over the snippets and one
numpy pass over each postings table, a few milliseconds beside a warm start's unpickling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.index.bm25 import Bm25Index


class _Entry(Protocol):
    docs: tuple[int, ...]


def inconsistency(files: Mapping[str, _Entry], snippets: Sequence[Snippet | None], bm25: Bm25Index) -> str | None:
    """What is wrong with a root's files, snippets and postings taken together, or None when they agree."""
    documents = len(snippets)
    if len(bm25.lengths) != documents or len(bm25.alive) != documents:
        return f"{documents} snippets for {len(bm25.lengths)} BM25 documents"
    if not all(s is None or isinstance(s, Snippet) for s in snippets):
        return "a snippet of another type"
    owned = 0
    for path, entry in files.items():
        for doc in entry.docs:
            if not 0 <= doc < documents or not bm25.alive[doc]:
                return f"{path} names snippet {doc}, which is not live"
            snippet = snippets[doc]
            if snippet is None or snippet.path != path:
                return f"{path} names snippet {doc}, which is {snippet.path if snippet else 'retired'}"
        owned += len(entry.docs)
    live = sum(s is not None for s in snippets)
    if not owned == live == bm25.live == sum(bm25.alive):
        return f"{owned} snippets named by files, {live} held, {bm25.live} live in BM25"
    if (problem := bm25.postings_problem()) is not None:
        return problem
    return None
