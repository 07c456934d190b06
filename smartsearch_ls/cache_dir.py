"""Where the package keeps what it can rebuild: persisted indexes, snippet vectors, judgments.

One directory per user, following the XDG base directory convention; settings (`cacheDir`) and the command
line (`--cache-dir`) can point elsewhere. Everything in it is a cache: deleting it only costs warmth.
"""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/smartsearch-ls`, else `~/.cache/smartsearch-ls`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "smartsearch-ls"
