"""Why a judged match ranked: the evidence behind its score, in a few fields a person can read.

Users of code search ask "why did this come back?" and no score answers that. A match's `why` says where the
question's words were found (the declaration's name, the path, the body), how close the snippet is in meaning
(the cosine), which lines of the excerpt hold those words, and, for a judge that can say it, what weighed most
in its verdict (the local judge's ranker: the features that moved this candidate's score most, up or down).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Snippet, split_lines
from smartsearch_ls.index.terms import QUERY_STOP_WORDS, distinct_terms, identifier_terms, meta_terms


@dataclass(frozen=True, slots=True)
class Why:
    """The evidence behind one match."""

    name: tuple[str, ...]
    """The question's words (as typed, lower-cased) found in the declaration's name."""
    path: tuple[str, ...]
    body: tuple[str, ...]
    semantic: float | None
    """The cosine between the question and the snippet, when it was computed."""
    lines: tuple[int, ...]
    """Lines of the excerpt (1-based, in the file) that hold a term of the question."""
    factors: tuple[tuple[str, float], ...] = ()
    """What weighed most in the judge's verdict, `(feature, effect on the log-odds)`, largest first; empty for a
    judge that does not say."""

    def wire(self) -> dict[str, object]:
        return {
            "words": {"name": list(self.name), "path": list(self.path), "body": list(self.body)},
            "semantic": None if self.semantic is None else round(self.semantic, 3),
            "lines": list(self.lines),
            "factors": [{"feature": name, "effect": round(effect, 2)} for name, effect in self.factors],
        }


def why(
    query: str,
    snippet: Snippet,
    excerpt: tuple[int, int, str],
    cosine: float | None,
    factors: Sequence[tuple[str, float]] = (),
) -> Why:
    """The evidence for `snippet` as a match of `query`, shown as `excerpt` (`(start, end, text)`)."""
    words = {
        word.lower(): identifier_terms(word)
        for word in re.findall(r"[A-Za-z0-9_]+", query)
        if word.lower() not in QUERY_STOP_WORDS
    }
    terms = {term for found in words.values() for term in found}
    named = distinct_terms(snippet.symbol) if snippet.symbol else set()
    in_path = meta_terms(snippet.path, None)
    body = distinct_terms(snippet.text)
    start, _, text = excerpt
    lines = tuple(start + offset for offset, line in enumerate(split_lines(text)) if terms & distinct_terms(line))

    def found_in(place: Collection[str]) -> tuple[str, ...]:
        return tuple(word for word, parts in words.items() if any(part in place for part in parts))

    return Why(found_in(named), found_in(in_path), found_in(body), cosine, lines, tuple(factors))
