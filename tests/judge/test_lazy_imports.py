"""The judge's heavy modules are imported on first use, and that first use may come from several threads at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.server.conftest import SHARED_XDG_CACHE

REPO = Path(__file__).resolve().parents[2]

RACE = """
import sys, threading
from smartsearch_ls.index.dense import shared_encoder
from smartsearch_ls.judge.models import resolve_judge
from smartsearch_ls.server.features import lifecycle

assert "pydantic_ai" not in sys.modules, "imported at start-up: nothing left to race"
actions = [
    lambda: resolve_judge("local"),  # a search with the embedded judge
    shared_encoder,  # background embedding
    lambda: resolve_judge("test"),  # a search with another judge
    lifecycle._import_judge_runner,  # the server's warm-up after `initialized`
    lifecycle._load_local_model,
]
barrier = threading.Barrier(len(actions))
errors = []

def run(action):
    barrier.wait()
    try:
        action()
    except Exception as error:
        errors.append(repr(error))

threads = [threading.Thread(target=run, args=(action,)) for action in actions]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("errors:", errors)
"""


def test_first_uses_from_several_threads_at_once_all_succeed() -> None:
    """Unserialized, one of these threads got a partially initialized `pydantic_ai` module (every time here)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(SHARED_XDG_CACHE), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "errors: []", done.stdout
