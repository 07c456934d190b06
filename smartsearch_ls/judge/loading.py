"""The embedded judge for this process, loaded on first use.

`judge.local.model` loads the shared embedder (`embedding.loading`) and the ranker; it imports no Pydantic AI,
but ONNX Runtime comes with the embedder, so it is imported here, on first use, rather than with the modules
that only name the judge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smartsearch_ls.lazy_imports import HEAVY_IMPORTS

if TYPE_CHECKING:
    from smartsearch_ls.judge.local.model import LocalJudge


def load_local_model() -> LocalJudge:
    """The embedded judge (`judge.local.model.local_judge`), its modules imported here.

    The one way in for every caller that needs the judge (a search resolving `local`, the server's warm-up).
    Raises `ImportError` when its runtime (ONNX Runtime) is missing, and `LocalModelUnavailable` without its
    weights; each caller turns those into its own message.
    """
    with HEAVY_IMPORTS:
        from smartsearch_ls.judge.local.model import local_judge

    return local_judge()
