"""Which search a query needs, from its shape: `GitIndexer` is a name, `core/indexer.py` a path, prose a behavior.

Names and paths are answered at once from the index with no judge; only prose pays for judgments.
"""

from __future__ import annotations

import re

from smartsearch_ls.search.result import Mode

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*")
_SOURCE_SUFFIX = re.compile(
    r"\.(py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|rs|java|rb|c|h|cc|cpp|hpp|cs|kt|swift|php|scala|sh|md|rst|txt|"
    r"toml|ya?ml|json|ini|cfg|html|css|scss|sql|lua|vim|el|ex|exs|erl|hs|ml|dart|vue|svelte)$",
    re.IGNORECASE,
)


def route(query: str) -> Mode:
    """The mode `auto` picks for a query."""
    text = query.strip()
    if " " not in text and ("/" in text or _SOURCE_SUFFIX.search(text)):
        return "path"
    if _IDENTIFIER.fullmatch(text):
        return "symbol"
    return "behavior"
