"""The VS Code extension's checks, run through npm in editors/vscode: type-check, bundle, the node:test
suites (unit tests and the real server over stdio), and packaging into a .vsix.

`.ci/run` installs the dependencies with `npm ci`; under CI (`CI` set) missing node_modules fail instead
of skipping, so a skipped test can never hide a missing install.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.prerequisites import require

VSCODE = Path(__file__).resolve().parents[2] / "editors" / "vscode"


@pytest.fixture(scope="module")
def npm() -> str:
    npm = shutil.which("npm")
    if npm is None or not (VSCODE / "node_modules").is_dir():
        require("npm or editors/vscode/node_modules is missing; run `npm ci` in editors/vscode")
    return npm


def run_script(npm: str, script: str) -> None:
    env = {**os.environ, "SMARTSEARCH_PYTHON": os.environ.get("SMARTSEARCH_PYTHON", sys.executable)}
    result = subprocess.run([npm, "run", script], cwd=VSCODE, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"npm run {script}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"


def test_typecheck(npm: str) -> None:
    run_script(npm, "typecheck")


def test_build(npm: str) -> None:
    run_script(npm, "build")
    assert (VSCODE / "dist" / "extension.js").is_file()


def test_node_tests(npm: str) -> None:
    run_script(npm, "test")


def test_package(npm: str) -> None:
    version = json.loads((VSCODE / "package.json").read_text())["version"]
    vsix = VSCODE / f"smartsearch-{version}.vsix"
    vsix.unlink(missing_ok=True)
    run_script(npm, "package")
    assert vsix.is_file()
