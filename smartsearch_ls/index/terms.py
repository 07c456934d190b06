"""Terms for the lexical index: identifier-aware, lightly stemmed, with programming synonyms for queries.

Code names things `refreshToken`, `refresh_token` and `REFRESH_TOKEN`; people type "refresh token". Every
identifier is indexed both whole (`refreshtoken`, so exact names still rank first) and split into its
words. A light suffix stemmer lets "expired" meet `expires` and `expiry_check`. Synonyms are added only on
the query side, at a lower weight, so "delete" also finds `remove` without diluting the index.

Speed: identifiers repeat heavily across a codebase, so splitting is cached per distinct identifier; a
snippet's terms come from one regex pass plus dictionary look-ups. The regex is a single character class
(`[A-Za-z0-9_]+`, measured 1.7x faster than "a letter, then letters or digits | digits" over 8.8 M tokens):
`404` and `0x1F` come out as one token each, and `_PARTS` splits letters from digits afterwards.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

QUERY_STOP_WORDS = frozenset(
    "a an and are as at be by can code do does doing done for from function functions get gets how i in "
    "into is it its me method methods my of on or our place places the their there this to us we what "
    "when where which who why with file files find show logic part parts handled handles handle".split()
)
"""Words of a question rather than of its subject; `get`/`handle` are kept out because every codebase uses them."""

SYNONYM_WEIGHT = 0.3
"""Synonyms count a third as much as the words typed, so they widen recall without reordering exact hits."""

_SYNONYM_GROUPS = (
    "auth authenticate authentication login signin logon credential",
    "authorize authorization permission permit allow access grant role acl",
    "session cookie token",
    "retry retries backoff attempt",
    "cache memo memoize lru",
    "delete remove drop unlink erase purge destroy",
    "create make new build construct spawn",
    "update modify change edit patch mutate",
    "read load fetch parse open",
    "write save persist store dump flush",
    "expire expiry expiration ttl timeout stale deadline",
    "reject deny refuse forbid invalid",
    "error exception fail failure raise throw panic",
    "validate check verify ensure assert",
    "config configuration setting settings option options preference",
    "start begin launch init initialize boot",
    "stop end halt shutdown terminate kill close",
    "cancel abort interrupt",
    "send emit publish dispatch notify",
    "receive consume subscribe listen handler",
    "request http fetch call client",
    "response reply result",
    "user account member customer",
    "password passwd secret hash",
    "log logger logging trace",
    "test spec assert",
    "parallel concurrent thread async worker pool",
    "sort order rank",
    "search find query lookup match",
    "duplicate dedupe dedup unique distinct",
    "path file directory folder dir",
    "encode serialize marshal dump",
    "decode deserialize unmarshal parse",
    "limit throttle quota rate",
    "payment billing invoice charge subscription",
    "email mail smtp",
    "schedule cron timer periodic",
    "database db sql query table",
    "convert transform cast coerce",
    "compare diff equal",
    "count tally size length",
    # What code abbreviates and a question spells out ("the average of the numbers", `_func_avg`).
    "average avg mean",
    "number num",
    "string str",
    "message msg",
    "argument arg param parameter",
    "attribute attr",
    "value val",
    "index idx",
    "length len",
    "temporary temp tmp",
    "previous prev",
    "current cur curr",
    "maximum max",
    "minimum min",
    "source src",
    "destination dest dst",
    "reference ref",
    "position pos",
    "environment env",
    "callback cb",
    "context ctx",
    "request req",
    "response resp",
    "command cmd",
    "utility util utils",
    "element elem",
    "object obj",
    "sequence seq",
    "expression expr",
    "character char chr",
    "buffer buf",
    "integer int",
    "boolean bool",
    "address addr",
    "allocate alloc",
    "information info",
    "description desc",
    "implementation impl",
    "config cfg conf",
)


def _stem(word: str) -> str:
    """A deliberately small suffix stripper: enough to join inflections, too small to join unrelated words."""
    if len(word) <= 3:
        return word
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("er", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss" if suffix == "s" else "~"):
            word = word[: len(word) - len(suffix)] + keep
            break
    return word[:-1] if len(word) > 4 and word[-1] in "ey" else word


SPLIT_CACHE_ENTRIES = 200_000
"""Distinct identifiers whose split is kept (~30 MB at most); past that the cache starts over."""

_split_cache: dict[str, tuple[str, ...]] = {}
"""A plain dict, not `lru_cache`: the look-up runs millions of times in a cold build of a large repository and a
dict `get` is the cheapest call Python has; clearing it when full keeps a long-lived server bounded."""


def identifier_terms(identifier: str) -> tuple[str, ...]:
    """`parseHTTPResponse` -> (parsehttpresponse, pars, http, respons): whole, then its stemmed words."""
    found = _split_cache.get(identifier)
    if found is None:
        if len(_split_cache) >= SPLIT_CACHE_ENTRIES:
            _split_cache.clear()
        found = _split_cache[identifier] = _split(identifier)
    return found


def _split(identifier: str) -> tuple[str, ...]:
    parts = [p.lower() for p in _PARTS.findall(identifier)]
    words = [_stem(p) for p in parts if len(p) > 1]
    whole = identifier.lower().replace("_", "")  # refresh_token and refreshToken are one name
    if len(parts) > 1 and len(whole) > 1:
        return (whole, *words)
    return tuple(words) if words else ((whole,) if len(whole) > 1 else ())


def name_words(name: str) -> tuple[str, ...]:
    """`parseHTTPResponse` -> (parse, http, response): lower-case words, unstemmed."""
    return tuple(p.lower() for p in _PARTS.findall(name))


def text_terms(text: str) -> dict[str, int]:
    """Term frequencies of a snippet or any text (a plain dict: `Counter` pays a Python call per new key)."""
    counts: dict[str, int] = {}
    get = counts.get
    cached = _split_cache.get
    for identifier, times in Counter(_IDENTIFIER.findall(text)).items():
        for term in cached(identifier) or identifier_terms(identifier):
            counts[term] = get(term, 0) + times
    return counts


def distinct_terms(text: str) -> set[str]:
    """The terms a text holds, without their counts: what a line's or an excerpt's test for the question's words
    needs, at a fraction of `text_terms`' cost (no tally; each identifier split once)."""
    found: set[str] = set()
    cached = _split_cache.get
    for identifier in set(_IDENTIFIER.findall(text)):
        found.update(cached(identifier) or identifier_terms(identifier))
    return found


def meta_terms(path: str, symbol: str | None) -> frozenset[str]:
    """The distinct terms of a snippet's path and symbol, which rank above the same words in its body."""
    found = _path_terms(path)
    return found | distinct_terms(symbol) if symbol else found


@lru_cache(maxsize=4096)
def _path_terms(path: str) -> frozenset[str]:
    """A file's path terms, shared by all of its snippets (a file has dozens)."""
    return frozenset(distinct_terms(path))


_SYNONYMS: dict[str, tuple[str, ...]] = {}
for _group in _SYNONYM_GROUPS:
    _stems = tuple(dict.fromkeys(_stem(w) for w in _group.split()))
    for _term in _stems:
        _SYNONYMS[_term] = tuple(dict.fromkeys((*_SYNONYMS.get(_term, ()), *(s for s in _stems if s != _term))))


def query_weights(query: str) -> dict[str, float]:
    """Weighted query terms: typed words at 1.0, their synonyms at `SYNONYM_WEIGHT`."""
    weights: dict[str, float] = {}
    for identifier in _IDENTIFIER.findall(query):
        if identifier.lower() in QUERY_STOP_WORDS:
            continue
        for term in identifier_terms(identifier):
            weights[term] = 1.0
    for term in list(weights):
        for synonym in _SYNONYMS.get(term, ()):
            weights.setdefault(synonym, SYNONYM_WEIGHT)
    return weights
