"""The packaged extension inside a real VS Code: the .vsix installed into code-server 4.99.4 (VS Code 1.99.3),
driven in headless Chromium by code_server/drive.mjs as a person would (command palette, query, QuickPick,
Enter), against the real server that the extension finds by itself in the workspace's `.venv`.

`.ci/install-code-server` installs code-server, playwright-core and Chromium; under CI (`CI` set) a missing
piece fails instead of skipping. SS_E2E_SCREENSHOT=path keeps the screenshot (editors/vscode/images/ holds
the one README shows).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.prerequisites import require
from tests.support.model_servers import ModelServer

REPO = Path(__file__).resolve().parents[2]
VSCODE = REPO / "editors" / "vscode"
DRIVER = Path(__file__).resolve().with_name("code_server") / "drive.mjs"
WORKSPACE = Path(__file__).resolve().with_name("workspace")
SERVER = Path(sys.executable).with_name("smartsearch-ls")
E2E_HOME = Path(
    os.environ.get("SMARTSEARCH_E2E_HOME")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "smartsearch-ls-e2e"
)
APP = E2E_HOME / "app"
CODE_SERVER = APP / "node_modules" / ".bin" / "code-server"
CHROMIUM = Path(os.environ.get("SS_CHROMIUM", "/usr/bin/chromium"))
QUERY = "parse config file"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_http(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"code-server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    raise AssertionError(f"code-server did not answer on {url}:\n{log.read_text()}")


@pytest.fixture
def tools() -> None:
    if not (CODE_SERVER.exists() and (APP / "node_modules" / "playwright-core").is_dir()):
        require(f"code-server/playwright-core not installed in {APP}; run .ci/install-code-server")
    if not CHROMIUM.exists():
        require(f"{CHROMIUM} not found; run .ci/install-code-server (apt-get install chromium)")
    if shutil.which("npm") is None or not (VSCODE / "node_modules").is_dir():
        require("npm or editors/vscode/node_modules is missing; run `npm ci` in editors/vscode")


@pytest.fixture
def vsix(tools: None, tmp_path: Path) -> Path:
    out = tmp_path / "smartsearch.vsix"
    result = subprocess.run(
        ["npm", "run", "package", "--", "--out", str(out)], cwd=VSCODE, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0 and out.is_file(), f"npm run package:\n{result.stdout}\n{result.stderr}"
    return out


@pytest.fixture
def code_server(vsix: Path, tmp_path: Path, model_server: ModelServer) -> Iterator[tuple[str, Path, Path]]:
    """code-server on a loopback port with the .vsix installed, serving a copy of the fixture workspace."""
    workspace = tmp_path / "workspace"
    shutil.copytree(WORKSPACE, workspace)
    assert SERVER.is_file(), f"{SERVER} missing: run `pip install -e .` in the repository"
    # The project's own environment, as `python -m venv .venv && .venv/bin/pip install ...` leaves it.
    (workspace / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    home, data, extensions = tmp_path / "home", tmp_path / "data", tmp_path / "extensions"
    (data / "User").mkdir(parents=True)
    home.mkdir()
    settings = {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "update.mode": "none",
        "smartsearch.judge.model": "system-one:test",
        "smartsearch.cacheDir": str(tmp_path / "index-cache"),
    }
    (data / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    # No smartsearch-ls on PATH or in ~/.local/bin: the extension has to find the workspace's .venv.
    path = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep) if d and d != str(SERVER.parent))
    env = {
        **os.environ,
        "PATH": path,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "SYSTEM_ONE_BASE_URL": f"{model_server.base_url}/v1",
    }
    dirs = ["--user-data-dir", str(data), "--extensions-dir", str(extensions)]
    installed = subprocess.run(
        [CODE_SERVER, *dirs, "--install-extension", str(vsix)], env=env, capture_output=True, text=True, timeout=120
    )
    assert installed.returncode == 0 and "successfully installed" in installed.stdout, installed.stdout + installed.stderr
    port = _free_port()
    log = tmp_path / "code-server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [CODE_SERVER, *dirs, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry"]
            + ["--disable-update-check", "--disable-workspace-trust", str(workspace)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its extension hosts and the language server go with it
        )
    try:
        _wait_for_http(f"http://127.0.0.1:{port}/healthz", process, log)
        yield f"http://127.0.0.1:{port}/?folder={workspace}", workspace, data
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            try:
                process.wait(timeout=15)
                break
            except subprocess.TimeoutExpired:
                continue
        # Extension hosts outlive their parent for a reconnection grace period: end the whole group.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _output_channel(data: Path) -> str:
    logs = sorted(data.glob("logs/*/exthost*/smartsearch-ls.smartsearch/SmartSearch.log"))
    return "\n".join(log.read_text(errors="replace") for log in logs)


def test_find_code_by_behavior_in_code_server(code_server: tuple[str, Path, Path], tmp_path: Path) -> None:
    url, workspace, data = code_server
    shot = tmp_path / "find-code-by-behavior.png"
    env = {**os.environ, "SS_URL": url, "SS_QUERY": QUERY, "SS_SCREENSHOT": str(shot), "SS_APP": str(APP)}
    env["SS_CHROMIUM"] = str(CHROMIUM)
    run = subprocess.run(["node", DRIVER], env=env, capture_output=True, text=True, timeout=420)
    output = _output_channel(data)
    try:
        seen = json.loads(run.stdout)
    except json.JSONDecodeError:
        seen = {"error": f"no JSON from the driver (exit {run.returncode})", "stdout": run.stdout}
    context = f"{json.dumps(seen, indent=2)}\nstderr:\n{run.stderr[-3000:]}\nSmartSearch output:\n{output}"
    assert run.returncode == 0 and "error" not in seen, context

    # The extension found the server by itself and said which, from where, and its version.
    server = workspace / ".venv" / "bin" / "smartsearch-ls"
    assert f"Server: `{server}` (from the workspace's .venv), version: smartsearch-ls " in output, context

    assert seen["pickTitle"].startswith(f"SmartSearch: {QUERY} — 1 match · judged "), context
    assert [(item["label"], item["description"]) for item in seen["items"]] == [
        ("config_loader.py:4", "parse_config_file  1.00")
    ], context
    # Why it matched; `meaning` follows once background embedding has reached the snippet.
    detail = seen["items"][0]["detail"]
    words = "name: parse, config · path: config · code: parse, config"
    assert detail.startswith(f"def parse_config_file(path):  ·  {words}"), context
    # Enter opened the file with the cursor at the match.
    assert seen["activeTab"].startswith("config_loader.py"), context
    assert seen["selection"] == "Ln 4, Col 1", context
    assert shot.is_file() and shot.stat().st_size > 10_000, context
    if keep := os.environ.get("SS_E2E_SCREENSHOT"):
        shutil.copyfile(shot, keep)
