"""The Neovim plugin's headless end-to-end test (editors/nvim/tests/e2e.lua) against the real server.

It runs on every Neovim this project supports here (conftest.py): Debian's 0.7 and 0.11 from PyPI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.model_servers import ModelServer

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editors" / "nvim"
WORKSPACE = Path(__file__).resolve().with_name("workspace")


def _lsp_logs(home: Path) -> str:
    """Neovim's lsp.log (0.7 keeps it under the cache home, 0.11 under the state home): server stderr."""
    return "\n".join(f"--- {log}\n{log.read_text(errors='replace')[-6000:]}" for log in home.rglob("lsp.log"))


def test_plugin_end_to_end(nvim: Path, model_server: ModelServer, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(WORKSPACE, workspace)
    (workspace / ".git").mkdir()  # the root marker the plugin looks for
    home = tmp_path / "home"
    env = {
        **os.environ,
        "SS_PLUGIN": str(PLUGIN),
        "SS_WORKSPACE": str(workspace),
        "SS_PYTHON": os.environ.get("SMARTSEARCH_PYTHON", sys.executable),
        "SS_CACHE": str(tmp_path / "index-cache"),
        # The repository on PYTHONPATH so the test also runs before `pip install -e .`.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "SYSTEM_ONE_BASE_URL": f"{model_server.base_url}/v1",
        # Keep the user's Neovim state, logs and shada out of it.
        **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")},
    }
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    result = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {PLUGIN / 'tests' / 'e2e.lua'}"],
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=150,
    )
    logs = _lsp_logs(home)
    assert result.returncode == 0, (
        f"{version}: exit {result.returncode}\nstderr:\n{result.stderr}\nstdout:\n{result.stdout}\n{logs}"
    )
    # The server logs unknown keys to stderr only, which Neovim keeps in lsp.log: the plugin's settings
    # must all be names the server knows.
    assert "Unknown setting" not in logs, logs
