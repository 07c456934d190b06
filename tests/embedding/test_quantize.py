"""The re-quantized copy: same vectors as the original, cached by source hash, and never a hard failure."""

from __future__ import annotations

import collections
import hashlib
import logging

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from smartsearch_ls.embedding import quantize
from smartsearch_ls.embedding.encoder import Embedder, load_tokenizer
from smartsearch_ls.embedding.fusion import FusionMismatch, fuse
from smartsearch_ls.embedding.quantize import RECIPE, cache_path, fast_model, fold_casts, models_dir
from smartsearch_ls.embedding.weights import resolve_weights

TEXTS = [
    "def parse_iso_date(text):\n    year, month, day = text.split('-')",
    "parse a date string",
    "class Pool:\n    def acquire(self):\n        return self._free.pop()",
    "def blend(a, b, t):\n    return a * (1 - t) + b * t",
]


def op_counts(model: bytes | onnx.ModelProto) -> collections.Counter[str]:
    proto = onnx.load_from_string(model) if isinstance(model, bytes) else model
    return collections.Counter(node.op_type for node in proto.graph.node)


def vectors(model: bytes) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return Embedder(session, load_tokenizer()).embed_snippets(TEXTS)


def test_requantized_model_is_cached_and_agrees_with_the_original(tmp_path):
    weights = resolve_weights()
    fast = fast_model(weights, tmp_path)
    stored = cache_path(weights, tmp_path)
    assert stored.read_bytes() == fast
    assert weights.sha256[:16] in stored.name and RECIPE in stored.name
    assert stored.with_suffix(".sha256").read_text() == hashlib.sha256(fast).hexdigest()
    assert fast != weights.data
    agreement = (vectors(fast) * vectors(weights.data)).sum(axis=1)
    assert agreement.min() > 0.97, agreement
    ops = op_counts(fast)  # the recipe ran in full: fused attention on int8, fused GELU, int8 dense layers
    assert ops["QAttention"] == 6 and ops["FastGelu"] == 6 and ops["MatMulInteger"] == 18, ops
    assert ops["Softmax"] == ops["Erf"] == ops["MatMul"] == 0, ops


def test_fusion_alone_keeps_the_float_model_exact(tmp_path):
    folded = fold_casts(resolve_weights().data, tmp_path / "folded.onnx")
    fused = onnx.ModelProto()
    fused.CopyFrom(folded)
    fuse(fused)
    onnx.checker.check_model(fused)
    ops = op_counts(fused)
    assert ops["Attention"] == 6 and ops["FastGelu"] == 6 and ops["Softmax"] == ops["Erf"] == 0, ops
    # Padding is in play: the short texts share a batch with the long ones, so the mask must be honored.
    agreement = (vectors(fused.SerializeToString()) * vectors(folded.SerializeToString())).sum(axis=1)
    assert agreement.min() > 0.9999, agreement  # only the tanh form of GELU differs


def test_an_unexpected_graph_is_left_untouched_and_quantized_unfused(tmp_path, monkeypatch, caplog):
    folded = fold_casts(resolve_weights().data, tmp_path / "folded.onnx")
    erf = next(node for node in folded.graph.node if node.op_type == "Erf")
    erf.op_type = "Tanh"  # one layer's GELU no longer matches: no partial rewrite
    before = folded.SerializeToString()
    with pytest.raises(FusionMismatch):
        fuse(folded)
    assert folded.SerializeToString() == before

    def refuse(model: onnx.ModelProto) -> None:
        raise FusionMismatch("test")

    monkeypatch.setattr(quantize, "fuse", refuse)
    with caplog.at_level(logging.WARNING, logger=quantize.__name__):
        unfused = quantize.requantize(resolve_weights().data)
    assert "quantizing it unfused" in caplog.text
    assert op_counts(unfused)["QAttention"] == 0 and op_counts(unfused)["MatMulInteger"] > 0
    assert (vectors(unfused) * vectors(resolve_weights().data)).sum(axis=1).min() > 0.97


def test_cache_hit_skips_quantizing_and_damage_is_rebuilt(tmp_path, monkeypatch):
    weights = resolve_weights()
    built: list[int] = []
    monkeypatch.setattr(quantize, "requantize_apart", lambda model: built.append(1) or b"quantized")
    assert fast_model(weights, tmp_path) == b"quantized"
    assert fast_model(weights, tmp_path) == b"quantized"
    assert len(built) == 1
    cache_path(weights, tmp_path).write_bytes(b"truncated")
    assert fast_model(weights, tmp_path) == b"quantized"
    assert len(built) == 2


def test_unwritable_cache_still_returns_the_fast_model(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setattr(quantize, "requantize_apart", lambda model: b"quantized")
    assert fast_model(resolve_weights(), blocker / "models") == b"quantized"


@pytest.mark.parametrize("failure", [ImportError("No module named 'onnx'"), RuntimeError("bad graph")])
def test_quantizer_failure_falls_back_to_the_verified_original(tmp_path, monkeypatch, failure):
    def fail(model: bytes) -> bytes:
        raise failure

    monkeypatch.setattr(quantize, "requantize_apart", fail)
    weights = resolve_weights()
    assert fast_model(weights, tmp_path) == weights.data
    assert not cache_path(weights, tmp_path).exists()


def test_the_child_process_quantizes_exactly_as_in_process(caplog, capfd):
    """`fast_model` quantizes in a spawned child to give its memory peak back; the bytes are the same, and
    neither prints onnxruntime's advice to model authors (a user's first start showed it as a WARNING)."""
    data = resolve_weights().data
    with caplog.at_level(logging.WARNING, logger=quantize.__name__):
        apart = quantize.requantize_apart(data)
    assert "in-process" not in caplog.text  # it did run in a child, not in the fallback
    assert apart == quantize.requantize(data)
    assert "pre-processing" not in capfd.readouterr().err + caplog.text


def test_models_dir_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert models_dir() == tmp_path / "smartsearch-ls" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert models_dir() == tmp_path / "home" / ".cache" / "smartsearch-ls" / "models"
