"""The cross-encoder that re-reads the local judge's best candidates, the question and the snippet together.

The bi-encoder's cosine compares a question and a snippet embedded apart: it says how alike two texts are, not
whether one answers the other. This model (all-MiniLM-L6-v2 fine-tuned by `bench/train/crossencoder.py`) reads
`question [SEP] snippet` as one sequence, through the product's own `Embedder` (its tokenizer, 128-token cut and
pooling), and a linear head turns the pooled vector into a relevance logit. It reads only the few best
candidates (`ranker.CROSS_CANDIDATES`): a pair costs what a snippet's embedding costs. Pairs already read are
remembered (`PAIR_CACHE_SIZE`), so the same search again, or the next keystroke's, reads only what is new.

Its weights are package data pinned by hash, as the embedding model's are, and loaded on the first search that
needs them.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import numpy as np

from smartsearch_ls.embedding.encoder import Embedder
from smartsearch_ls.embedding.weights import REINSTALL_HINT, read_pinned

CROSS_ENCODER_SHA256 = ""
"""sha256 of `assets/cross_encoder.onnx`, the fused int8 export of the run `bench/train/README.md` records."""

PAIR_CACHE_SIZE = 4096


def pair_text(question: str, snippet: str) -> str:
    """The one sequence the cross-encoder reads (the tokenizer keeps `[SEP]` as its special token)."""
    return f"{question} [SEP] {snippet}"


def assets() -> Path:
    return Path(str(files(__package__) / "assets"))


class CrossEncoder:
    """An embedder over pair texts and the head that scores its vectors."""

    def __init__(self, embedder: Embedder, weight: np.ndarray, bias: float) -> None:
        self.embedder = embedder
        self.weight = weight.astype(np.float32)
        self.bias = float(bias)
        self._read: OrderedDict[bytes, float] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def load(cls) -> CrossEncoder:
        """The package's cross-encoder, its bytes verified; raises `LocalModelUnavailable` when they are not."""
        model = read_pinned(
            assets() / "cross_encoder.onnx", CROSS_ENCODER_SHA256, restore=f"reinstall it with `{REINSTALL_HINT}`"
        )
        head = json.loads((assets() / "cross_encoder.json").read_text(encoding="utf-8"))
        return cls(Embedder.open(model.data), np.array(head["weight"], dtype=np.float32), head["bias"])

    def logits(self, question: str, snippets: Sequence[str]) -> np.ndarray:
        """The relevance logit of each snippet's embedded text (`snippet_text`) for the question."""
        keys = [hashlib.blake2b(pair_text(question, text).encode(), digest_size=16).digest() for text in snippets]
        with self._lock:
            known = {key: self._read[key] for key in keys if key in self._read}
        new = [i for i, key in enumerate(keys) if key not in known]
        if new:
            vectors = self.embedder.embed_snippets([pair_text(question, snippets[i]) for i in new])
            for i, logit in zip(new, vectors @ self.weight + self.bias, strict=True):
                known[keys[i]] = float(logit)
            with self._lock:
                for i in new:
                    self._read[keys[i]] = known[keys[i]]
                while len(self._read) > PAIR_CACHE_SIZE:
                    self._read.popitem(last=False)
        return np.array([known[key] for key in keys], dtype=np.float64)


_loaded: list[CrossEncoder] = []
_loading = threading.Lock()


def cross_encoder() -> CrossEncoder:
    """The process's cross-encoder, loaded once under a lock (concurrent searches may ask for it at once)."""
    with _loading:
        if not _loaded:
            _loaded.append(CrossEncoder.load())
        return _loaded[0]
