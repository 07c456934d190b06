"""The recipe that made the shipped model: it rebuilds the pinned bytes from the source file, fuses exactly, and
leaves a graph it does not recognize unfused rather than half-rewritten."""

from __future__ import annotations

import collections
import hashlib
import logging

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from bench.model import quantize
from bench.model.fusion import FusionMismatch, fuse
from bench.model.quantize import fold_casts, source_model
from smartsearch_ls.embedding.encoder import Embedder, load_tokenizer
from smartsearch_ls.embedding.weights import MODEL_SHA256, resolve_weights

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


def assert_the_recipe_ran_in_full(model: bytes) -> None:
    ops = op_counts(model)  # fused attention on int8, fused GELU, int8 dense layers
    assert ops["QAttention"] == 6 and ops["FastGelu"] == 6 and ops["MatMulInteger"] == 18, ops
    assert ops["Softmax"] == ops["Erf"] == ops["MatMul"] == 0, ops


def test_the_recipe_rebuilds_the_base_model_byte_for_byte_and_agrees_with_its_source():
    source = source_model()
    built = quantize.requantize(source)
    assert hashlib.sha256(built).hexdigest() == quantize.BASE_SHA256  # `python -m bench.model`
    agreement = (vectors(built) * vectors(source)).sum(axis=1)
    assert agreement.min() > 0.97, agreement
    assert_the_recipe_ran_in_full(built)


def test_the_shipped_model_is_the_pinned_fine_tuned_file_made_by_the_same_recipe():
    shipped = resolve_weights()
    assert shipped.sha256 == MODEL_SHA256 != quantize.BASE_SHA256
    assert_the_recipe_ran_in_full(shipped.data)
    parse_code, parse_question, pool_code, blend_code = vectors(shipped.data)
    assert parse_question @ parse_code > max(parse_question @ pool_code, parse_question @ blend_code)


def test_fusion_alone_keeps_the_float_model_exact(tmp_path):
    folded = fold_casts(source_model(), tmp_path / "folded.onnx")
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
    folded = fold_casts(source_model(), tmp_path / "folded.onnx")
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
        unfused = quantize.requantize(source_model())
    assert "quantizing it unfused" in caplog.text
    assert op_counts(unfused)["QAttention"] == 0 and op_counts(unfused)["MatMulInteger"] > 0
    assert (vectors(unfused) * vectors(source_model())).sum(axis=1).min() > 0.97
