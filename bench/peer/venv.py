"""The peer's own venv, `bench/.corpora/.peer-venv`, with pydantic-ai-harness 0.62.0 and pydantic-ai-slim 2.62.0.

Why a separate venv: the peer pins pydantic-ai-slim==2.62.0 while this project runs a newer one, and a benchmark
of the peer must run the peer's own pins, not whatever resolves next to ours. The `coder` extra brings the
ripgrep wheel, whose `rg` the peer needs on PATH (`run_peer.py` puts the venv's bin first).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.corpora import CORPORA_DIR

PEER_VENV = CORPORA_DIR / ".peer-venv"
PEER_REQUIREMENTS = ("pydantic-ai-harness[coder]==0.62.0", "pydantic-ai-slim==2.62.0")
RUN_PEER = Path(__file__).resolve().parent / "run_peer.py"


def peer_python() -> Path:
    return PEER_VENV / "bin" / "python"


def is_ready() -> bool:
    """Whether the venv exists and imports the peer at the pinned versions."""
    if not peer_python().exists():
        return False
    check = (
        "from importlib.metadata import version as v; import pydantic_ai_harness.smart_search; "
        "assert v('pydantic-ai-harness') == '0.62.0' and v('pydantic-ai-slim') == '2.62.0'"
    )
    return subprocess.run([str(peer_python()), "-c", check], capture_output=True, check=False).returncode == 0


def setup(log=print) -> Path:
    """Create the venv (with this interpreter's Python) and install the pinned peer; a no-op when ready."""
    if is_ready():
        log(f"peer venv ready: {PEER_VENV}")
        return PEER_VENV
    log(f"creating {PEER_VENV}")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(PEER_VENV)], check=True)
    pip = [str(peer_python()), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *PEER_REQUIREMENTS], check=True)
    if not is_ready():
        raise RuntimeError("the peer venv was installed but does not import pydantic_ai_harness at the pinned versions")
    log(f"peer venv ready: {PEER_VENV}")
    return PEER_VENV


def run(corpus_dir: Path, queries: Path, output: Path, extra: list[str] | None = None) -> int:
    """Run `run_peer.py` in the peer venv; returns its exit code."""
    cmd = [str(peer_python()), str(RUN_PEER), str(corpus_dir), str(queries), str(output), *(extra or [])]
    return subprocess.run(cmd, check=False).returncode
