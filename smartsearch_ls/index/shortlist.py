"""The shortlist: which snippets are worth a judgment, ranked by BM25 over the search's scope.

It is a shortlist, not a verdict. Code worded unlike the query can be missed, so the result says how many
snippets were in scope and how many were shortlisted; a scope no larger than `candidates` is shortlisted
whole, and then the search is complete: every snippet was judged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.discovery.reading import SkipReason
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.terms import query_weights


@dataclass(frozen=True, slots=True)
class Scope:
    """Where one search looks inside one root: a folder prefix ('' for all) and narrowing globs."""

    index: RootIndex
    prefix: str = ""
    globs: GlobSet = field(default_factory=GlobSet)

    def contains(self, path: str) -> bool:
        """Whether a root-relative path lies in this scope."""
        inside = not self.prefix or path == self.prefix or path.startswith(self.prefix + "/")
        if not inside:
            return False
        return self.globs.matches(path[len(self.prefix) + 1 :] if self.prefix else path) or self.globs.matches(path)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A shortlisted snippet and where it came from."""

    index: RootIndex
    snippet: Snippet
    score: float
    unsaved: bool


@dataclass(frozen=True, slots=True)
class Shortlist:
    """The ranked candidates, and what the scope held."""

    candidates: list[Candidate]
    files: int
    skipped: Counter[SkipReason]
    snippets: int
    matched: int
    """Snippets with any lexical match; more than `len(candidates)` means the shortlist was cut."""


def shortlist(scopes: Sequence[Scope], query: str, candidates: int) -> Shortlist:
    """The best `candidates` snippets of all scopes for `query`, best first."""
    weights = query_weights(query)
    ranked: list[tuple[float, int, int]] = []  # (score, scope number, doc)
    files = snippets = matched = 0
    skipped: Counter[SkipReason] = Counter()
    unsaved_docs: list[set[int]] = []
    for number, scope in enumerate(scopes):
        index = scope.index
        with index.lock:
            entries = [(p, e) for p, e in index.files.items() if scope.contains(p)]
            docs = np.fromiter((d for _, e in entries for d in e.docs), dtype=np.int64)
            unsaved_docs.append({d for _, e in entries if e.unsaved for d in e.docs})
            scores = index.bm25.scores(weights)[docs] if len(docs) else np.zeros(0, dtype=np.float32)
        files += len(entries)
        skipped.update(e.skipped for _, e in entries if e.skipped is not None)
        snippets += len(docs)
        hits = scores > 0
        matched += int(hits.sum())
        if len(docs) <= candidates:
            keep = np.arange(len(docs))  # a scope this small is judged whole
        else:
            positive = np.flatnonzero(hits)
            keep = positive[np.argsort(-scores[positive], kind="stable")[:candidates]]
        ranked.extend((float(scores[i]), number, int(docs[i])) for i in keep)
    ranked.sort(key=lambda item: -item[0])
    chosen: list[Candidate] = []
    for score, number, doc in ranked[:candidates]:
        index = scopes[number].index
        snippet = index.snippets[doc]
        if snippet is not None:
            chosen.append(Candidate(index, snippet, score, doc in unsaved_docs[number]))
    return Shortlist(chosen, files, skipped, snippets, matched)
