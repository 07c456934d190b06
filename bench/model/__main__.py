"""`python -m bench.model [--check]`: rebuild the shipped model from its source file with the recipe, byte for byte.

Without `--check` it writes `smartsearch_ls/embedding/assets/model.onnx` when the recipe made the pinned bytes
(`embedding.weights.MODEL_SHA256`); with it, it only says whether it does. A different onnxruntime may make other
bytes: shipping them means a new pin, re-embedded caches, and the ranker refitted on vectors of the new file, so
they are never written over the shipped file here.
"""

from __future__ import annotations

import argparse
import hashlib
import sys

from bench.model.quantize import requantize, source_model
from smartsearch_ls.embedding.weights import MODEL_SHA256, default_path


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.model", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that the recipe makes the pinned bytes")
    args = parser.parse_args()
    built = requantize(source_model())
    digest = hashlib.sha256(built).hexdigest()
    print(f"recipe output: {len(built):,} bytes, sha256 {digest}; pinned: {MODEL_SHA256}")
    if digest != MODEL_SHA256:
        print("not written: shipping other bytes means a new pin, re-embedded caches and a refitted ranker")
        return 1
    if not args.check:
        default_path().write_bytes(built)
        print(f"wrote {default_path()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
