"""What the embedder's batch size costs in time and keeps in memory: the ONNX Runtime arena holds what the largest
batch needed, for the life of the process.

`python -m bench.embed_batch [--runs N] [--sizes 16 4] [--corpus click]` embeds the first `SNIPPETS` snippets of
a prepared corpus (`python -m bench prepare`), as the product embeds them (`snippet_text`, the shipped model, its
session options), in a fresh interpreter per run with `encoder.BATCH_SIZE` set to each size in turn, alternated,
so every size sees the same machine. Each run prints its seconds per snippet and the process's peak resident
memory (`os.wait4`'s rusage).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.corpora import CORPORA_DIR

REPO = Path(__file__).resolve().parents[1]
SNIPPETS = 512
PROBE = """
import sys
from pathlib import Path
from bench.quality.baselines import text_files
from smartsearch_ls.chunking.chunker import chunk_file
from smartsearch_ls.chunking.snippet import snippet_text
from smartsearch_ls.embedding import encoder
encoder.BATCH_SIZE = int(sys.argv[1])
texts = [snippet_text(s.path, s.symbol, s.text)
         for rel, text in text_files(Path(sys.argv[2])) for s in chunk_file(rel, text).snippets][: int(sys.argv[3])]
embedder = encoder.Embedder.load()
embedder.embed_snippets(texts[:16])
import time
started = time.perf_counter()
embedder.embed_snippets(texts)
print(time.perf_counter() - started, len(texts))
"""


def run_once(size: int, root: Path) -> tuple[float, int, float]:
    """(seconds, snippets, peak MiB) of one process embedding with batches of `size`."""
    child = subprocess.Popen(
        [sys.executable, "-c", PROBE, str(size), str(root), str(SNIPPETS)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the probe failed with batches of {size}")
    seconds, count = output.split()
    return float(seconds), int(count), usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 4])
    parser.add_argument("--corpus", default="click")
    args = parser.parse_args()
    root = CORPORA_DIR / args.corpus
    print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    for run in range(args.runs):
        for size in args.sizes:
            seconds, count, peak = run_once(size, root)
            print(f"run {run + 1}  batch {size:3}  {1000 * seconds / count:.2f} ms/snippet  peak {peak:.0f} MiB")


if __name__ == "__main__":
    main()
