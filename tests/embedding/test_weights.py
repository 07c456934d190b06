"""Weights resolution: the shipped file is verified wherever it comes from, and absence is explained."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import onnxruntime as ort
import pytest

from smartsearch_ls.embedding import encoder as encoder_module
from smartsearch_ls.embedding import weights
from smartsearch_ls.embedding.encoder import Embedder, load_tokenizer
from smartsearch_ls.embedding.weights import MODEL_ENV, MODEL_SHA256, LocalModelUnavailable, resolve_weights


@pytest.fixture(autouse=True)
def no_env_override(monkeypatch):
    monkeypatch.delenv(MODEL_ENV, raising=False)


def test_installed_package_is_the_pinned_file():
    resolved = resolve_weights()
    assert resolved.sha256 == MODEL_SHA256
    assert hashlib.sha256(resolved.data).hexdigest() == MODEL_SHA256
    assert resolved.source.name == "model.onnx"


def test_corrupted_copy_is_refused_with_its_hash(tmp_path, monkeypatch):
    data = bytearray(resolve_weights().data)
    data[len(data) // 2] ^= 0xFF
    corrupt = tmp_path / "model.onnx"
    corrupt.write_bytes(bytes(data))
    with pytest.raises(LocalModelUnavailable, match="not the pinned file") as raised:
        resolve_weights(corrupt)
    assert hashlib.sha256(data).hexdigest() in str(raised.value)
    assert "pip install --force-reinstall smartsearch-ls" in str(raised.value)
    monkeypatch.setenv(MODEL_ENV, str(corrupt))  # the env var is verified just the same
    with pytest.raises(LocalModelUnavailable, match="not the pinned file"):
        Embedder.load()


def test_missing_file_names_how_to_restore_it(tmp_path, monkeypatch):
    with pytest.raises(LocalModelUnavailable, match=r"pip install --force-reinstall smartsearch-ls"):
        resolve_weights(tmp_path / "absent.onnx")
    monkeypatch.setattr(weights, "default_path", lambda: tmp_path / "deleted" / "model.onnx")
    with pytest.raises(LocalModelUnavailable, match=r"cannot read its weights at .*deleted"):
        resolve_weights()


def test_the_shipped_model_is_package_data_and_runs_as_is():
    """No re-quantization, no download: the package's own file is the one that loads, offline."""
    assert weights.default_path().parent.name == "assets"
    vectors = Embedder.load().embed_snippets(["def parse_config(path): ...", "reject expired sessions"])
    assert vectors.shape == (2, 384) and abs(float(vectors[0] @ vectors[0]) - 1) < 1e-5


def test_env_var_points_at_a_good_copy(tmp_path, monkeypatch):
    copy = tmp_path / "elsewhere.onnx"
    copy.write_bytes(resolve_weights().data)
    monkeypatch.setenv(MODEL_ENV, str(copy))
    assert resolve_weights().source == copy


def test_weights_changed_between_their_check_and_their_load_are_refused(tmp_path, monkeypatch):
    """ONNX Runtime reads the verified file again by its path: a file replaced or rewritten meanwhile is not used."""
    copy = tmp_path / "model.onnx"
    copy.write_bytes(resolve_weights().data)
    verify = encoder_module.resolve_weights

    def verified_then_rewritten(path=None):
        verified = verify(path)
        later = verified.stamp.mtime_ns + 10**9
        os.utime(copy, ns=(later, later))
        return verified

    monkeypatch.setattr(encoder_module, "resolve_weights", verified_then_rewritten)
    with pytest.raises(LocalModelUnavailable, match="changed while they were loading"):
        Embedder.load(copy)
    monkeypatch.setattr(encoder_module, "resolve_weights", verify)
    assert Embedder.load(copy).embed_query("parse a date").shape == (384,)


def test_opened_by_its_path_the_model_gives_what_its_verified_bytes_give(monkeypatch):
    opened = []
    session = ort.InferenceSession

    def recording(model, options, **kwargs):
        opened.append((model, options, kwargs))
        return session(model, options, **kwargs)

    monkeypatch.setattr(ort, "InferenceSession", recording)
    by_path = Embedder.load()
    model, options, kwargs = opened[0]
    assert isinstance(model, str)
    from_bytes = Embedder(session(resolve_weights().data, options, **kwargs), load_tokenizer())
    for text in ("parse a date string", "def area(r):\n    return 3.14159 * r * r"):
        assert np.array_equal(by_path.embed_query(text), from_bytes.embed_query(text))
    assert np.array_equal(
        by_path.embed_snippets(["x = 1", "return y"]), from_bytes.embed_snippets(["x = 1", "return y"])
    )
