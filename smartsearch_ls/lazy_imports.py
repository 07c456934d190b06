"""One lock for the heavy imports made on first use (Pydantic AI, ONNX Runtime), shared by every package.

They are left out of start-up (~1.1 s; see `judge.contract`), so their first use can come from several
threads at once: the server's warm-up, background embedding, a search resolving its judge. Python's per-module
import locks do not make that safe for a package whose modules import each other: two threads each holding part
of `pydantic_ai` left one of them with a partially initialized module ("cannot import name 'Model' from
partially initialized module 'pydantic_ai.models'"), and the search failed. Every import of those modules
after start-up is therefore made under `HEAVY_IMPORTS`; once a module is loaded, taking the lock costs nothing
worth counting. It lives at the top of the package, importing nothing, so that `embedding/` (ONNX Runtime) and
`judge/` (Pydantic AI) both take the same lock without importing each other.
"""

from __future__ import annotations

import threading

HEAVY_IMPORTS = threading.RLock()
"""Held while importing Pydantic AI, the judge modules built on it, or ONNX Runtime (re-entrant: one such import
can lead to another in the same thread)."""
