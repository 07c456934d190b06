"""Which files are prose documentation, and which queries ask for it.

A behavior search asks whether code performs an action, and prose never does: a README paragraph that
explains the shortlist is not where the shortlist is built. Documentation is also worded like the query, so
an embedding ranks it above the code it describes (on the behavior set, a `.rst` page was the top answer to
11 of 74 questions whose answer is code). So behavior searches leave it out, unless the query is about
documentation or a glob names the files; it stays indexed for path look-ups.
"""

from __future__ import annotations

import re
from functools import lru_cache

PROSE_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".org", ".rdoc"})
"""Markup formats that hold prose. Configuration and data (`.toml`, `.json`, `.yaml`) are not documentation:
"where do we configure the linter" is answered by them."""

PROSE_NAMES = frozenset(
    {"readme", "changelog", "changes", "history", "news", "authors", "contributing", "notice", "license", "copying"}
)
"""Documentation files by name, with no suffix or `.txt`. Other `.txt` files count only inside a docs folder:
`requirements.txt` and `CMakeLists.txt` are not prose."""

DOCS_FOLDERS = frozenset({"doc", "docs"})

_ASKS_FOR_DOCUMENTATION = re.compile(r"\b(docs|documentation|documented|readme|changelog|release notes)\b", re.I)


@lru_cache(maxsize=1 << 16)
def is_documentation(path: str) -> bool:
    """Whether a root-relative '/'-separated path is a prose documentation file (cached: asked per file per search)."""
    folders, _, name = path.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    suffix = f".{suffix.lower()}" if dot and stem else ""
    stem = (stem if suffix else name).lower()
    if suffix in PROSE_SUFFIXES:
        return True
    if suffix in ("", ".txt") and stem in PROSE_NAMES:
        return True
    return suffix == ".txt" and any(folder.lower() in DOCS_FOLDERS for folder in folders.split("/"))


def asks_for_documentation(query: str) -> bool:
    """Whether a query is about documentation itself ("where is the retry policy documented")."""
    return bool(_ASKS_FOR_DOCUMENTATION.search(query))
