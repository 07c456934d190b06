"""Which search a query needs, from its shape: `GitIndexer` is a name, `core/indexer.py` a path, prose a behavior.

Names and paths are answered at once from the index with no judge; only prose pays for judgments. Prose
that also names an identifier ("where does GitIndexer skip binary files", "why is index_repo slow") runs
both: the symbol look-up of the names it contains, then the judged search. A word counts as an identifier
inside prose when it could not be an English word: CamelCase with an inner capital (`GitIndexer`,
`getUser`), snake_case (`index_repo`), dotted or `::`/`#`-joined names (`Cache.get`), a call (`parse()`),
or anything in backticks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from smartsearch_ls.search.request import Mode

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*")
_SOURCE_SUFFIX = re.compile(
    r"\.(py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|rs|java|rb|c|h|cc|cpp|hpp|cs|kt|swift|php|scala|sh|md|rst|txt|"
    r"toml|ya?ml|json|ini|cfg|html|css|scss|sql|lua|vim|el|ex|exs|erl|hs|ml|dart|vue|svelte)$",
    re.IGNORECASE,
)
_BACKTICKED = re.compile(r"`([^`\s]+)`")
_WORD = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?")
_CAMEL_INNER = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2,}[a-z]")
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")
_PROSE_DOTTED = re.compile(r"^(e\.g|i\.e|etc|vs|a\.k\.a)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Plan:
    """What `auto` runs for a query."""

    mode: Mode
    """The mode reported: `symbol`, `path`, or `behavior` (also when symbol hits are added first)."""
    identifiers: tuple[str, ...] = ()
    """Names to look up in the symbol index: the query itself for `symbol`, the names inside prose otherwise."""

    @property
    def mixed(self) -> bool:
        """Prose that names identifiers: symbol hits first, then the judged search."""
        return self.mode == "behavior" and bool(self.identifiers)


def is_path(text: str) -> bool:
    return " " not in text and ("/" in text or bool(_SOURCE_SUFFIX.search(text)))


def is_identifier(text: str) -> bool:
    return bool(_IDENTIFIER.fullmatch(text))


def route(query: str) -> Mode:
    """The mode `auto` picks for a query."""
    return plan(query).mode


def plan(query: str) -> Plan:
    """The mode and the names `auto` looks up for a query."""
    text = query.strip()
    if is_path(text):
        return Plan("path")
    if is_identifier(text):
        return Plan("symbol", (text,))
    return Plan("behavior", identifiers_in(text))


def identifiers_in(prose: str) -> tuple[str, ...]:
    """The identifier-shaped words of a sentence, in order, without repeats."""
    found: list[tuple[int, str]] = [
        (m.start(), m.group(1).removesuffix("()"))
        for m in _BACKTICKED.finditer(prose)
        if is_identifier(m.group(1).removesuffix("()"))
    ]
    for match in _WORD.finditer(_BACKTICKED.sub(lambda m: " " * len(m.group()), prose)):
        word = match.group()
        call = word.endswith("()")
        word = word.removesuffix("()").rstrip(".")
        if not word or _PROSE_DOTTED.match(word) or is_path(word):
            continue
        dotted = any(sep in word for sep in (".", "::", "#"))
        snake = "_" in word.strip("_") or word.startswith("__")
        camel = bool(_CAMEL_INNER.search(word)) and not _ACRONYM_PLURAL.fullmatch(word)
        if call or dotted or snake or camel or "$" in word:
            found.append((match.start(), word))
    return tuple(dict.fromkeys(word for _, word in sorted(found)))
