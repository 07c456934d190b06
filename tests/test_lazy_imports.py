"""Heavy modules (Pydantic AI, ONNX Runtime) are imported on first use, which may come from several threads at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.sessions import SHARED_XDG_CACHE

REPO = Path(__file__).resolve().parents[1]

RACE = """
import sys, threading
from smartsearch_ls.index.dense import shared_encoder
from smartsearch_ls.judge.loading import load_local_model
from smartsearch_ls.judge.resolve import resolve_judge
from smartsearch_ls.server.features import lifecycle

assert "pydantic_ai" not in sys.modules, "imported at start-up: nothing left to race"
actions = [
    lambda: resolve_judge("local"),  # a search with the embedded judge
    shared_encoder,  # background embedding
    lambda: resolve_judge("test"),  # a search with another judge
    lambda: lifecycle.import_model_judging("test"),  # the server's warm-up after `initialized`
    load_local_model,  # its model warm-up
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


MISSING_RUNTIME = """
import sys
sys.modules["onnxruntime"] = None  # as if it were not installed: importing it raises ImportError
from smartsearch_ls.index.dense import shared_encoder
from smartsearch_ls.judge.resolve import JudgeUnavailable, resolve_judge

try:
    resolve_judge("local")
except JudgeUnavailable as error:
    print("judge:", error)
print("encoder:", shared_encoder())
"""


def test_a_missing_runtime_is_a_clear_error_for_the_judge_and_turns_the_semantic_side_off() -> None:
    """ONNX Runtime is imported on first use now, so its absence is found there and must still read clearly."""
    env = {**os.environ, "XDG_CACHE_HOME": str(SHARED_XDG_CACHE), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", MISSING_RUNTIME], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    judge, encoder = done.stdout.strip().splitlines()[-2:]
    assert (
        judge.startswith("judge: The embedded `local` judge cannot load")
        and "pip install /path/to/smartsearch-ls" in judge
    )
    assert encoder == "encoder: None"
    assert "the semantic shortlist is off" in done.stderr
