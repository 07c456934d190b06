"""How a training query is asked: sometimes without the words of its function's name.

The corpus's queries are doc-comment summaries, and most of them repeat a word of the function they describe
("Returns the month name for a specified month" above `month_name`; `bench/train/README.md` counts them). A model
trained on them learns to match the summary's words to the name in the snippet's header, which the ranker already
does from BM25 and the word shares. The quality set's questions, like a newcomer's, are written without the target's
names, so the answer has to be recognized from what its body does. Asked without the name's words in a seeded share
of its epochs, a query keeps only what the name does not say, and the model has to find its snippet by the rest; in
the others it is whole, so a user who does type the name is still served. The name-less wording is computed once,
when the run's data is built (`biencoder.prepare`), so a resumed run asks what the run began with whatever the
product's term splitting has become since.
"""

from __future__ import annotations

import random
import re

from smartsearch_ls.index.terms import identifier_terms
from smartsearch_ls.judge.local.features import query_terms

_WORD = re.compile(r"[A-Za-z0-9_]+")

MIN_LEFT = 3
"""Terms (`query_terms`: stop words out) a query must keep to be asked without the name's: fewer, and it no longer
describes anything."""


def name_terms(symbol: str | None) -> frozenset[str]:
    """The stemmed words of a declaration's own name: `Locale.month_name` -> {monthname, month, name}."""
    if not symbol:
        return frozenset()
    own = _WORD.findall(symbol)
    # `to`, `of`, `is`: a name this short is a word of almost every summary, not what names the function.
    return frozenset(term for term in identifier_terms(own[-1]) if len(term) > 2) if own else frozenset()


def without_name(query: str, symbol: str | None) -> str:
    """`query` with every word that is a word of `symbol`'s own name removed; the query unchanged when that
    would leave fewer than `MIN_LEFT` terms, or remove nothing."""
    names = name_terms(symbol)
    if not names:
        return query
    kept: list[str] = []
    dropped = False
    for token in query.split():
        words = _WORD.findall(token)
        if words and all(names.intersection(identifier_terms(word)) for word in words):
            dropped = True
            continue
        kept.append(token)
    left = " ".join(kept)
    if not dropped or len(query_terms(left)) < MIN_LEFT:
        return query
    return left


def asked(query: str, nameless: str | None, *, share: float, seed: int, epoch: int, key: int) -> str:
    """The query as one epoch asks it: its `nameless` wording (`without_name`, None when that is the query itself)
    for a seeded `share` of (epoch, query) pairs, whole for the rest; the same on a run's resumption."""
    if nameless is None or share <= 0 or random.Random(f"names:{seed}:{epoch}:{key}").random() >= share:
        return query
    return nameless
