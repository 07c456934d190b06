"""The embedded `local` judge: all-MiniLM-L6-v2 run in-process on ONNX Runtime, no network, no API key.

`local_model()` is the judge for the name `local`: a Pydantic AI decision model that answers `Relevance`
through an ordinary `Agent` run. `Embedder` and `EmbeddingCache` are the same vectors for the index's
shortlist, so a snippet embedded there is not embedded again when it is judged.
"""

from smartsearch_ls.judge.local.cache import EmbeddingCache, content_key
from smartsearch_ls.judge.local.encoder import Embedder, snippet_text
from smartsearch_ls.judge.local.model import LocalJudgeModel, local_model
from smartsearch_ls.judge.local.weights import MODEL_ENV, MODEL_SHA256, LocalModelUnavailable, resolve_weights

__all__ = (
    "MODEL_ENV",
    "MODEL_SHA256",
    "Embedder",
    "EmbeddingCache",
    "LocalJudgeModel",
    "LocalModelUnavailable",
    "content_key",
    "local_model",
    "resolve_weights",
    "snippet_text",
)
