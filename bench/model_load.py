"""The embedded model's cold load: a fresh process with an empty cache, to the first query vector.

`python -m bench.model_load [--runs N] [--repo DIR]` runs `load_encoder()` and one `embed_query` in N fresh
interpreters, each with its own empty `XDG_CACHE_HOME` (a machine's first start), and prints the wall time and the
peak resident memory of each (the child's own rusage from `os.wait4`; a process it spawned and waited for, as the
old re-quantization did, is not in it, so an older commit's peak is a lower bound).
`--repo` points at another checkout of this repository (`git worktree add`), so an older commit and this one can be
run alternately in one session: that is how README's start-up figures compare them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = (
    "from smartsearch_ls.embedding.loading import load_encoder; "
    "load_encoder().embedder.embed_query('reject expired sessions')"
)


def run_once(repo: Path) -> tuple[float, float]:
    """(seconds, peak MiB) of one cold load from `repo`."""
    with tempfile.TemporaryDirectory(prefix="model-load-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache, "PYTHONPATH": str(repo)}
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", PROBE], env=env, cwd=repo)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"the load failed in {repo} (exit {child.returncode})")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repo", type=Path, action="append", help="a checkout to run (repeatable; default: this)")
    args = parser.parse_args()
    repos = args.repo or [REPO]
    for run in range(args.runs):
        for repo in repos:  # alternated, so every checkout sees the same machine
            seconds, peak = run_once(repo)
            print(f"run {run + 1}  {repo}  {seconds:.2f} s  peak {peak:.0f} MiB")


if __name__ == "__main__":
    main()
