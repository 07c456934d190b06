"""One lock for the judge's heavy imports (Pydantic AI, ONNX Runtime), which are made on first use.

They are left out of start-up (~1.1 s; see `judge.judgments`), so their first use can come from several
threads at once: the server's warm-up, background embedding, a search resolving its judge. Python's per-module
import locks do not make that safe for a package whose modules import each other: two threads each holding part
of `pydantic_ai` left one of them with a partially initialized module ("cannot import name 'Model' from
partially initialized module 'pydantic_ai.models'"), and the search failed. Every import of those modules
after start-up is therefore made under `HEAVY_IMPORTS`; once a module is loaded, taking the lock costs nothing
worth counting.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smartsearch_ls.judge.local.model import LocalJudgeModel

HEAVY_IMPORTS = threading.RLock()
"""Held while importing Pydantic AI, the judge modules built on it, or ONNX Runtime (re-entrant: one such import
can lead to another in the same thread)."""


def load_local_model() -> LocalJudgeModel:
    """The embedded judge's model for this process (`judge.local.model.local_model`), its modules imported here.

    The one way in for every caller (a search resolving `local`, the shortlist's encoder, the server's warm-up).
    Raises `ImportError` when its runtime (Pydantic AI, ONNX Runtime) is missing, which is now found only here,
    and `LocalModelUnavailable` without its weights; each caller turns those into its own message.
    """
    with HEAVY_IMPORTS:
        from smartsearch_ls.judge.local.model import local_model

    return local_model()
