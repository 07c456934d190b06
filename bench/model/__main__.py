"""`python -m bench.model [--out PATH]`: rebuild the base model from its source file with the recipe, byte for byte.

The shipped model is fine-tuned from this base (`bench/train/`) and made by the same recipe, so whether the recipe
still makes the pinned base bytes (`quantize.BASE_SHA256`) says whether an installed onnxruntime or a change to
the recipe would make another file of the same weights. `--out` writes the base model there when it does.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from bench.model.quantize import BASE_SHA256, requantize, source_model


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.model", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="write the rebuilt base model here when it is the pinned file")
    args = parser.parse_args()
    built = requantize(source_model())
    digest = hashlib.sha256(built).hexdigest()
    print(f"recipe output: {len(built):,} bytes, sha256 {digest}; pinned base: {BASE_SHA256}")
    if digest != BASE_SHA256:
        print("the recipe no longer makes the pinned base: an export by it would not be the shipped file's recipe")
        return 1
    if args.out is not None:
        args.out.write_bytes(built)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
