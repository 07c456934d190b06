"""Text to unit vectors with all-MiniLM-L6-v2: the WordPiece tokenizer, the ONNX session, and pooling.

Vectors are what sentence-transformers computes for this model (mean of the token states under the attention
mask, then L2-normalized), so a dot product is a cosine. Texts are cut at 128 tokens: the judge only needs
the head of a snippet (its signature and first lines), and attention cost grows with the square of the length.
Each text is run alone: the shipped model quantizes its activations per run, so a vector computed in a batch
moves with the company it is computed in (bench/README.md, the embedder's batch, says by how much). Alone, a
snippet's vector is the same whoever computes it (background embedding, the shortlist, the judge), and so is
every ranking built on it: a search answers the same whatever background embedding had reached.

One `Embedder` runs one inference at a time: ONNX Runtime already spreads a batch over every core, and two
batches at once would only fight over them. Calls block, so async code runs them in a worker thread.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tokenizers import Tokenizer

from smartsearch_ls.embedding.weights import LocalModelUnavailable, resolve_weights
from smartsearch_ls.lazy_imports import HEAVY_IMPORTS

if TYPE_CHECKING:
    import onnxruntime as ort

MAX_TOKENS = 128
BATCH_SIZE = 1
"""Texts per ONNX run: one, so a vector does not depend on its batch (above). Larger batches amortize little here
(their activations leave the CPU's cache) and ONNX Runtime's arena keeps, for the life of the process, what the
largest one needed (`python -m bench.embed_batch` measures both)."""

DISABLED_OPTIMIZERS = ["SkipLayerNormFusion"]
"""Session rewrites that measured slower: onnxruntime's fused residual-add + layer norm took 2 CPU-ms per
snippet more than the separate `Add` and `LayerNormalization` it replaces (10% of the model's time)."""

DIMENSIONS = 384

QUERY_CACHE_SIZE = 64
"""Query vectors kept: within one search the shortlist and the local judge both need the query's vector, and an
editor asks its recent queries again."""


def load_tokenizer() -> Tokenizer:
    """The model's own tokenizer, shipped in `assets/`, truncating at `MAX_TOKENS` and padding per batch."""
    tokenizer = Tokenizer.from_str((files(__package__) / "assets" / "tokenizer.json").read_text(encoding="utf-8"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch, not the file's fixed 128
    return tokenizer


class Embedder:
    """Normalized float32 sentence vectors for snippets and queries."""

    def __init__(self, session: ort.InferenceSession, tokenizer: Tokenizer) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._lock = threading.Lock()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queries_lock = threading.Lock()

    @classmethod
    def load(cls, weights: str | Path | None = None, *, threads: int | None = None) -> Embedder:
        """Verify the weights (see `resolve_weights`) and open a CPU session on them."""
        with HEAVY_IMPORTS:  # paid by the first load rather than by every import of this module
            import onnxruntime as ort

        verified = resolve_weights(weights)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or 0  # 0: one thread per core
        # Threads that spin between runs steal the core the event loop and tokenizer need.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # By path, not as the verified bytes: handed bytes, ONNX Runtime keeps a second copy of the weights in the
        # process for the session's life (`python -m bench.memory`).
        session = ort.InferenceSession(
            str(verified.source), options, providers=["CPUExecutionProvider"], disabled_optimizers=DISABLED_OPTIMIZERS
        )
        if not verified.unchanged():
            raise LocalModelUnavailable(
                f"The local judge's weights at {verified.source} changed while they were loading (a reinstall?), "
                "so they were not used: restart the server, or run the command again."
            )
        return cls(session, load_tokenizer())

    def embed_snippets(self, texts: list[str]) -> np.ndarray:
        """One unit vector per text, shape `(len(texts), 384)`; a snippet's is `chunking.snippet.snippet_text`."""
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return vectors
        ids, mask = self._encode(texts)  # padded to the longest of all: each batch is cut back to its own
        lengths = mask.sum(axis=1)
        order = np.argsort(lengths, kind="stable")  # by tokens, not characters: 0.3% padding instead of 7%
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            width = int(lengths[batch].max())
            vectors[batch] = self._run(ids[batch, :width], mask[batch, :width])
        return vectors

    def embed_groups(self, groups: list[list[str]]) -> np.ndarray:
        """One unit vector per non-empty group of texts, the normalized mean of theirs, shape `(len(groups), 384)`,
        with float16's precision: the values the root's index keeps, so a cosine is the same whether the judge
        computed the vector or the index handed it over. A group of one text gets that text's vector
        (`embedding.passages` averages a snippet's windows)."""
        vectors = self.embed_snippets([text for group in groups for text in group])
        starts = np.cumsum([0] + [len(group) for group in groups[:-1]])
        means = np.add.reduceat(vectors, starts, axis=0) if len(vectors) else vectors
        unit = means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
        return unit.astype(np.float16).astype(np.float32)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text without the model's two marks, at most `MAX_TOKENS - 2` (what a vector can see)."""
        return [sum(e.attention_mask) - 2 for e in self._tokenizer.encode_batch(list(texts))]

    def embed_query(self, query: str) -> np.ndarray:
        """The query's unit vector, shape `(384,)`, read-only; the model is symmetric, so no prefix is needed. The
        last `QUERY_CACHE_SIZE` queries' vectors are kept."""
        with self._queries_lock:
            vector = self._queries.get(query)
            if vector is not None:
                self._queries.move_to_end(query)
                return vector
        vector = self._run(*self._encode([query]))[0]
        vector.setflags(write=False)  # shared by every caller that asks for this query
        with self._queries_lock:
            self._queries[query] = vector
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector

    def _encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask, `(len(texts), longest)` int64, padded on the right."""
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        return ids, mask

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with self._lock:
            (states,) = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )
        weights = mask[..., None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
