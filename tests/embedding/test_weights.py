"""Weights resolution: the shipped file is verified wherever it comes from, and absence is explained."""

from __future__ import annotations

import hashlib

import pytest

from smartsearch_ls.embedding import weights
from smartsearch_ls.embedding.encoder import Embedder
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
