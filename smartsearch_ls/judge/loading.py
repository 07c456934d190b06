"""The embedded judge's model, its Pydantic AI modules imported under the shared lock for heavy imports.

`judge.local.model` imports Pydantic AI (~1 s), so it is imported here on first use, under
`lazy_imports.HEAVY_IMPORTS`, rather than with the modules that name the judge; the embedder and vector cache
the model wraps are `embedding.loading`'s, the ones the index's shortlist uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smartsearch_ls.lazy_imports import HEAVY_IMPORTS

if TYPE_CHECKING:
    from smartsearch_ls.judge.local.model import LocalJudgeModel


def load_local_model() -> LocalJudgeModel:
    """The embedded judge's model for this process (`judge.local.model.local_model`), its modules imported here.

    The one way in for every caller that needs the judge (a search resolving `local`, the server's warm-up).
    Raises `ImportError` when its runtime (Pydantic AI, ONNX Runtime) is missing, which is now found only here,
    and `LocalModelUnavailable` without its weights; each caller turns those into its own message.
    """
    with HEAVY_IMPORTS:
        from smartsearch_ls.judge.local.model import local_model

    return local_model()
