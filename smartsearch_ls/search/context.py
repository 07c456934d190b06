"""Context words: the `context` of a request re-ranks what the query found and never widens it.

A hit's agreement with the context is the share of the context's weighted terms found in the hit (its path,
name, and text), from 0 to 1. Kept in one place so that declarations, references, paths and judged hits
are all scored against the same terms and weights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.terms import distinct_terms, query_weights
from smartsearch_ls.search.result import Match
from smartsearch_ls.search.symbols.index import symbol_index

CONTEXT_WEIGHT = 0.25
"""How much full context agreement adds to a judged, path or reference hit's relevance when re-ranking."""


@dataclass(frozen=True, slots=True)
class Context:
    weights: dict[str, float]
    total: float

    @classmethod
    def of(cls, text: str | None) -> Context | None:
        weights = query_weights(text) if text else {}
        total = sum(w for w in weights.values() if w >= 1.0)
        return cls(weights, total) if total else None

    def score(self, terms: set[str] | dict[str, int]) -> float:
        return min(sum(w for t, w in self.weights.items() if t in terms) / self.total, 1.0)


def declaration_context(context: Context | None) -> Callable[[RootIndex, Declaration], float] | None:
    """The context scorer `find_symbols` takes (None without context, so that it skips the work)."""
    if context is None:
        return None
    return lambda index, declaration: context.score(declaration_terms(index, declaration))


def match_terms(match: Match) -> set[str]:
    """Terms of a hit's path, symbol and excerpt: what a judged hit is scored on."""
    return distinct_terms(match.path) | distinct_terms(match.symbol or "") | distinct_terms(match.excerpt)


def declaration_terms(index: RootIndex, declaration: Declaration) -> set[str]:
    """Terms of a declaration's path, qualified name and the snippet that holds it (for context re-ranking)."""
    terms = distinct_terms(declaration.path) | distinct_terms(declaration.qualified_name)
    symbols = symbol_index(index)
    for snippet in symbols.snippets_of(declaration.path):
        if snippet.start_line <= declaration.name_line <= snippet.end_line:
            terms.update(distinct_terms(snippet.text))
            break
    return terms
