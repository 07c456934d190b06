"""Which files are prose documentation, and which queries ask for it.

A behavior search asks whether code performs an action, and prose never does: a README paragraph that
explains the shortlist is not where the shortlist is built. Documentation is also worded like the query, so
an embedding ranks it above the code it describes (on the behavior set, a `.rst` page was the top answer to
11 of 74 questions whose answer is code). So behavior searches leave it out, unless the query is about
documentation or a glob about documentation names the files; it stays indexed for path look-ups.
"""

from __future__ import annotations

import re
from functools import lru_cache

PROSE_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".org", ".rdoc"})
"""Markup formats that hold prose. Configuration and data (`.toml`, `.json`, `.yaml`) are not documentation:
"where do we configure the linter" is answered by them."""

PROSE_NAMES = frozenset({"readme", "changelog", "license", "copying", "authors", "contributing", "pkg-info"})
"""Documentation files by name, with no suffix or `.txt`, wherever they are. A Python package's `PKG-INFO` (at an
sdist's root and in its `*.egg-info`) is its README again under a few header lines."""

ROOT_PROSE_NAMES = frozenset({"history", "changes", "news", "notice"})
"""Names that are documentation only at the root or in a docs folder (`src/history` may well be code)."""

DOCS_FOLDERS = frozenset({"doc", "docs"})
"""Folders whose `.txt` files are prose too, except `requirements*.txt` (Read the Docs keeps one there)."""

_ASKS_FOR_DOCUMENTATION = re.compile(
    r"\bdocumented\b"
    r"|\b(?:in|from|per) (?:the |our )?(?:docs|documentation|readme|changelog|release notes)\b"
    r"|\b(?:docs|documentation|readme|changelog|release notes) (?:say|says|said|mention|mentions|explain|explains"
    r"|describe|describes|cover|covers)\b"
    r"|\bdocumentation (?:for|of|about|on)\b",
    re.IGNORECASE,
)
"""Phrasings that seek documentation; bare words do not ("the function that renders the docs site" is code)."""


@lru_cache(maxsize=1 << 16)
def is_documentation(path: str) -> bool:
    """Whether a root-relative '/'-separated path is a prose documentation file (cached: asked per file per search)."""
    folders, _, name = path.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    suffix = f".{suffix.lower()}" if dot and stem else ""
    stem = (stem if suffix else name).lower()
    if suffix in PROSE_SUFFIXES:
        return True
    if suffix not in ("", ".txt"):
        return False
    in_docs = any(folder.lower() in DOCS_FOLDERS for folder in folders.split("/"))
    if stem in PROSE_NAMES or (stem in ROOT_PROSE_NAMES and (not folders or in_docs)):
        return True
    return suffix == ".txt" and in_docs and not stem.startswith("requirements")


def targets_documentation(glob: str) -> bool:
    """Whether a glob is about documentation (`*.md`, `docs/**`, `README*`), not one that names everything (`**`)."""
    lowered = glob.lower()
    segments = lowered.split("/")
    return (
        any(suffix in lowered for suffix in PROSE_SUFFIXES)
        or any(segment in DOCS_FOLDERS for segment in segments)
        or any(name in segment for segment in segments for name in PROSE_NAMES | ROOT_PROSE_NAMES)
    )


def asks_for_documentation(query: str) -> bool:
    """Whether a query is about documentation itself ("where is the retry policy documented")."""
    return bool(_ASKS_FOR_DOCUMENTATION.search(query))
