"""The embedded `local` judge: all-MiniLM-L6-v2 run in-process on ONNX Runtime, no network, no API key.

`model.local_model()` is the judge for the name `local`: a Pydantic AI decision model that answers `Relevance`
through an ordinary `Agent` run. `Embedder` and `EmbeddingCache` are the same vectors for the index's
shortlist, so a snippet embedded there is not embedded again when it is judged. The names below import
neither Pydantic AI nor ONNX Runtime; `judge.local.model` (the decision model) and `Embedder.load` do.
"""

from smartsearch_ls.judge.local.cache import EmbeddingCache, content_key
from smartsearch_ls.judge.local.encoder import Embedder, snippet_text
from smartsearch_ls.judge.local.weights import MODEL_ENV, MODEL_SHA256, LocalModelUnavailable, resolve_weights

__all__ = (
    "MODEL_ENV",
    "MODEL_SHA256",
    "Embedder",
    "EmbeddingCache",
    "LocalModelUnavailable",
    "content_key",
    "resolve_weights",
    "snippet_text",
)
