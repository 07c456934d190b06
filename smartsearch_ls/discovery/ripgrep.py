"""Listing files with ripgrep, so a search sees exactly what `rg` would: .gitignore, .ignore and hidden rules.

`rg` comes from the `ripgrep==14.1.0` wheel, which installs the binary next to the interpreter; that copy
is preferred over whatever is on PATH so the rules do not change with the machine. `--no-require-git`
makes .gitignore count in a folder that is not (yet) a git checkout, as a user who wrote one expects.
Symlinks are not followed, so nothing outside the root is listed through one.

rg exits 2 when some path could not be read (a folder without read permission, one removed while it walked)
and lists everything else: that is a partial listing, not a failure. What was listed is used, and the paths it
could not read come back with rg's message, so a search can count them and say that it is not complete. Only a
listing with nothing in it and an error (the root itself unreadable or gone) fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from smartsearch_ls.discovery.errors import CapExceeded, ListingFailed, RipgrepNotFound
from smartsearch_ls.discovery.globs import SECRET_GLOBS

MAX_FILES = 200_000
"""Listing cap: far above any single repository an editor opens (the Linux kernel has ~90k files)."""


@cache
def find_rg() -> str:
    """The `rg` next to this interpreter, else on PATH."""
    beside = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("rg")
    if found:
        return found
    raise RipgrepNotFound(
        "ripgrep (`rg`) was not found next to the Python interpreter nor on PATH. "
        "Install it with `pip install ripgrep==14.1.0` in the same environment."
    )


@dataclass(frozen=True, slots=True)
class Listing:
    """What rg listed under a root, and what it could not read."""

    paths: list[str]
    """Root-relative '/'-separated paths of the files rg would search."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """Root-relative paths rg could not read (files below them are missing from `paths`), each with rg's message."""


def list_files(root: Path, exclude: Sequence[str] = ()) -> Listing:
    """The files rg would search under `root`, minus excluded and secret files, and the paths it could not read."""
    command = [find_rg(), "--files", "--null", "--no-require-git", "--sort", "none"]
    # Negated globs only ever remove files from the listing, so handing them to rg is safe.
    for glob in exclude:
        command += ["--glob", f"!{glob.removeprefix('!')}"]
    for glob in SECRET_GLOBS:
        command += ["--iglob", f"!{glob}"]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, check=False)
    except OSError as error:  # the root cannot be entered (no execute permission) or is gone
        raise ListingFailed(f"cannot list {root}: {error.strerror or error}") from error
    # NUL-separated, so a name holding a line break stays one name.
    paths = [name for name in done.stdout.decode("utf-8", errors="surrogateescape").split("\0") if name]
    messages = done.stderr.decode(errors="replace").strip()
    # 1: nothing to list; 2: some path could not be read, the rest is listed
    if done.returncode not in (0, 1, 2) or (done.returncode == 2 and not paths):
        raise ListingFailed(f"rg --files could not list {root}: {messages or f'exit status {done.returncode}'}")
    if len(paths) > MAX_FILES:
        raise CapExceeded(
            f"{root} holds {len(paths):,} searchable files, over the cap of {MAX_FILES:,}: "
            "narrow the directory or glob."
        )
    if os.sep != "/":
        paths = [p.replace(os.sep, "/") for p in paths]
    return Listing([p.removeprefix("./") for p in paths], _unreadable(messages))


def _unreadable(messages: str) -> dict[str, str]:
    """The paths of rg's error messages (`rg: ./private: Permission denied (os error 13)`), each with its message.

    Only messages about a path that could not be read (an OS error) are taken: others (a malformed ignore file)
    do not leave files out of the listing."""
    unreadable = {}
    for line in messages.splitlines():
        if not line.startswith("rg: ") or not line.endswith(")") or "(os error " not in line:
            continue
        path, _, message = line.removeprefix("rg: ").rpartition(": ")
        if path:
            unreadable[path.replace(os.sep, "/").removeprefix("./").rstrip("/")] = message
    return unreadable
