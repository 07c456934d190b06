"""`python -m bench.train corpus [--only NAME...] [--limit N]`: build the training corpus (see README.md here).

`--only` rebuilds just the named packages and `--limit N` just the first N pins (a quick check of the recipe); the
queries file is assembled from every package built with the current pins either way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bench.train import build, pins


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train")
    commands = parser.add_subparsers(dest="command", required=True)
    corpus = commands.add_parser("corpus", help="fetch, strip and sample the pinned packages")
    corpus.add_argument("--only", nargs="+", metavar="NAME", choices=sorted(pins.BY_NAME), help="just these packages")
    corpus.add_argument("--limit", type=int, metavar="N", help="just the first N pinned packages")
    corpus.add_argument("--cap", type=int, default=build.DEFAULT_CAP, help="queries per package at most")
    corpus.add_argument("--seed", type=int, default=build.DEFAULT_SEED, help="seed of the per-package sample")
    args = parser.parse_args(argv)
    names = args.only or [pin.name for pin in pins.PINS]
    if args.limit is not None:
        names = names[: args.limit]
    return build.build(names, args.cap, args.seed)


if __name__ == "__main__":
    sys.exit(main())
