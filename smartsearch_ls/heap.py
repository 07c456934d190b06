"""Freed memory handed back to the system, so the server's resident size follows what it keeps.

glibc's allocator keeps the pages of freed allocations inside its heaps for later reuse, and gives them back only
from the top of a heap. A server that loads or builds an index, or embeds a folder in the background, frees far more
than it keeps of what is too large for Python's own small-object pools (arrays, token lists, the bytes of files and
of a persisted index), and those pages stay resident among the objects that survive: the process looks as large as
its busiest moment, for the rest of its life. `malloc_trim(0)` returns every free page inside every heap, cheaply
next to the work it follows (bench/README.md has the figures), so the server calls it after each stage and every few
seconds of background work. Where the C library is not glibc (macOS, musl) there is nothing to call and this does
nothing.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return None
    return getattr(libc, "malloc_trim", None)


_TRIM = _malloc_trim()


def release_free_memory() -> bool:
    """Give the allocator's free pages back to the system; whether there was an allocator to ask."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
