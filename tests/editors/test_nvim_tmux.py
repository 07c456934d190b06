"""The Neovim plugin used the way a person uses it: a real Neovim in a terminal (tmux), `:SmartSearch` typed
with send-keys, the quickfix list read off the screen with capture-pane, a match opened with Enter, and
`:checkhealth smartsearch` read for the server it found.

Nothing tells the plugin where the server is (no `cmd`, not on PATH): on 0.11 it finds the project's
`.venv` once Neovim's trust prompt is answered with "allow"; on 0.7, which has no trust list, it finds the
`~/.local/bin` that `pip install --user` and `pipx` install into.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.prerequisites import require
from tests.support.model_servers import ModelServer

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editors" / "nvim"
WORKSPACE = Path(__file__).resolve().with_name("workspace")
SERVER = Path(sys.executable).with_name("smartsearch-ls")  # the one pip installed beside this interpreter

INIT_LUA = """\
vim.opt.runtimepath:prepend(os.getenv("SS_PLUGIN"))
vim.cmd("runtime plugin/smartsearch.lua")
vim.o.laststatus = 2
vim.o.ruler = true
require("smartsearch").setup({
  judge = { model = "system-one:test" },
  cacheDir = os.getenv("SS_CACHE"),
})
"""


class Terminal:
    """One tmux server of its own (its own socket), one window, a fixed size."""

    def __init__(self, socket: Path, env: dict[str, str]) -> None:
        self.socket, self.env = socket, env

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-S", str(self.socket), *args], env=self.env, capture_output=True, text=True, timeout=30
        )
        assert result.returncode == 0, f"tmux {args}: {result.stderr}"
        return result.stdout

    def start(self, command: list[str], cwd: Path) -> None:
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", "250", "-y", "50", "-c", str(cwd), *command)
        self.tmux("set-option", "-g", "remain-on-exit", "on")  # a crash stays on screen for the failure message

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-l", text)

    def press(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J")

    def wait_for(self, what: str, found: Callable[[str], bool], timeout: float = 90) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if found(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")
            time.sleep(0.25)

    def wait_for_text(self, text: str, timeout: float = 90) -> str:
        return self.wait_for(repr(text), lambda screen: text in screen, timeout)

    def stop(self) -> None:
        subprocess.run(["tmux", "-S", str(self.socket), "kill-server"], env=self.env, capture_output=True, timeout=30)


@pytest.fixture
def tmux() -> str:
    path = shutil.which("tmux")
    if path is None:
        require("tmux not found; install it with `apt-get install -y tmux`")
    assert path is not None
    return path


@pytest.fixture
def terminal(tmux: str, tmp_path: Path, nvim: Path, model_server: ModelServer) -> Iterator[tuple[Terminal, Path]]:
    workspace = tmp_path / "workspace"
    shutil.copytree(WORKSPACE, workspace)
    (workspace / ".git").mkdir()
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    assert SERVER.is_file(), f"{SERVER} missing: run `pip install -e .` in the repository"
    if nvim_has_trust_list(nvim):
        # The project's own environment, as `python -m venv .venv && .venv/bin/pip install ...` leaves it.
        (workspace / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    else:
        (home / ".local" / "bin").mkdir(parents=True)
        (home / ".local" / "bin" / "smartsearch-ls").symlink_to(SERVER)
    init = tmp_path / "init.lua"
    init.write_text(INIT_LUA)
    # No smartsearch-ls on PATH: the plugin has to find it where a person's install put it.
    path = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep) if d and d != str(SERVER.parent))
    env = {
        "PATH": path,
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "SS_PLUGIN": str(PLUGIN),
        "SS_CACHE": str(tmp_path / "index-cache"),
        "SYSTEM_ONE_BASE_URL": f"{model_server.base_url}/v1",
        **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")},
    }
    term = Terminal(tmp_path / "tmux.sock", env)
    term.start([str(nvim), "-u", str(init), "net/retry.py"], cwd=workspace)
    try:
        yield term, workspace
    finally:
        term.stop()


def nvim_has_trust_list(nvim: Path) -> bool:
    """`vim.secure` (Neovim 0.9+)."""
    out = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "+lua io.stdout:write(tostring(vim.secure ~= nil))", "+qa!"],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    return out.strip().endswith("true")


def command(term: Terminal, text: str) -> None:
    term.press("Escape")
    term.type(":" + text)
    term.press("Enter")


def test_search_in_a_terminal(terminal: tuple[Terminal, Path]) -> None:
    term, workspace = terminal
    if (workspace / ".venv").exists():
        # Opening the file starts the server: Neovim asks before running the project's own executable.
        term.wait_for_text("is not trusted")
        term.type("a")
    term.wait_for_text("retry.py")

    command(term, "SmartSearch parse config file")
    # The list fills with partial results while the search runs: wait for the final message, not the first row.
    match_row = "config_loader.py|4 col 1| parse_config_file (1.00) def parse_config_file(path):"
    final_message = 'SmartSearch "parse config file": 1 match'
    screen = term.wait_for(
        f"{match_row!r} and {final_message!r}", lambda screen: match_row in screen and final_message in screen
    )
    assert "[Quickfix List]" in screen, screen

    # The quickfix window has the cursor on the match: Enter opens it.
    term.press("Enter")
    command(term, 'echo "AT " . expand("%:p") . ":" . line(".") . ":" . col(".")')
    term.wait_for_text(f"AT {workspace}/config_loader.py:4:1")

    command(term, "checkhealth smartsearch")
    if (workspace / ".venv").exists():
        server, source = workspace / ".venv" / "bin" / "smartsearch-ls", "the project's .venv"
    else:
        server, source = Path(term.env["HOME"]) / ".local" / "bin" / "smartsearch-ls", f"{term.env['HOME']}/.local/bin"
    health = term.wait_for_text("index ready")
    assert f"server: {server} (from {source}), version: smartsearch-ls " in health, health
    assert "ERROR" not in health, health

    command(term, "qall!")
