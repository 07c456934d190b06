"""Near-miss questions for training: a query with one of its words changed to one its answer does not hold.

The question model's hardest negatives are near misses (`bench/quality/near_misses.jsonl`): a behavior close to
what the project does, missing one constraint (a timeout, a hash, a direction), where the best candidate matches
the topic. Random and BM25 negatives teach a model which snippet is on the topic, not whether it does every part
of what was asked. Changing one content word of a doc summary to a word of the same package that the function's
snippet never uses ("Returns the month name" -> "Returns the week name") gives, for free, a question its own
function does not answer and that stays in the package's vocabulary.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from typing import Any

from smartsearch_ls.index.terms import QUERY_STOP_WORDS, distinct_terms, identifier_terms

_WORD = re.compile(r"^[A-Za-z][a-z]{2,}$")
"""A plain word of three letters or more: not an identifier, a number or code, which a summary rarely holds."""

FILLER = frozenset(
    "all also always any based both but each every given just least less like made make makes more most only "
    "other others same some such than that then these those very".split()
)
"""Words code uses as names too (`all`, `make`), that change how a question reads, not what it asks."""

_SKIPPED = QUERY_STOP_WORDS | FILLER


def content_words(text: str) -> list[str]:
    """The plain words of `text` that are not stop words, in order, once each (lower case)."""
    found: dict[str, None] = {}
    for token in text.split():
        word = token.strip(".,;:()'\"`")
        if _WORD.match(word) and word.lower() not in _SKIPPED:
            found[word.lower()] = None
    return list(found)


def package_vocabulary(queries: Iterable[str], code: Iterable[str]) -> list[str]:
    """The content words of a package's queries that its (comment-free) `code` also uses: the package's own
    nouns and verbs ("hook", "offset", "parse"), not a summary's filler ("specified", "whether"), which would
    make a question no one asks. Sorted, so a seeded choice from it is reproducible."""
    used: set[str] = set()
    for text in code:
        used |= distinct_terms(text)
    words = {word for query in queries for word in content_words(query)}
    return sorted(word for word in words if used.intersection(identifier_terms(word)))


def altered(query: str, answer: str, vocabulary: list[str], chooser: random.Random) -> str | None:
    """`query` with one of its content words replaced by a word of `vocabulary` whose terms `answer` (the
    snippet the query describes) does not hold; None when no such pair exists."""
    asked = content_words(query)
    # A word the question already asks, or the answer already holds, would leave the question answered.
    taken = distinct_terms(answer) | {term for word in asked for term in identifier_terms(word)}
    replacements = [word for word in vocabulary if not taken.intersection(identifier_terms(word))]
    if not asked or not replacements:
        return None
    target = chooser.choice(asked)
    replacement = chooser.choice(replacements)
    pattern = re.compile(rf"\b{re.escape(target)}\b", re.IGNORECASE)
    return pattern.sub(replacement, query, count=1)


def vocabularies(data: dict[str, Any], text: Callable[[Any], str]) -> dict[str, list[str]]:
    """Each package's vocabulary (`package_vocabulary`) in a trainer's data (`data["queries"]` with their
    `package`, `data["packages"][name]["snippets"]`), `text` giving a snippet's text."""
    by_package: dict[str, list[str]] = {}
    for query in data["queries"]:
        by_package.setdefault(query["package"], []).append(query["query"])
    return {
        name: package_vocabulary(queries, map(text, data["packages"][name]["snippets"]))
        for name, queries in by_package.items()
    }
