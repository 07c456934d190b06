"""Listing files with ripgrep, so a search sees exactly what `rg` would: .gitignore, .ignore and hidden rules.

`rg` comes from the `ripgrep==14.1.0` wheel, which installs the binary next to the interpreter; that copy
is preferred over whatever is on PATH so the rules do not change with the machine. `--no-require-git`
makes .gitignore count in a folder that is not (yet) a git checkout, as a user who wrote one expects.
Symlinks are not followed, so nothing outside the root is listed through one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from smartsearch_ls.discovery.errors import CapExceeded, RipgrepNotFound
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


def list_files(root: Path, exclude: Sequence[str] = ()) -> list[str]:
    """Root-relative '/'-separated paths of the files rg would search, minus excluded and secret files."""
    command = [find_rg(), "--files", "--null", "--no-require-git", "--no-messages", "--sort", "none"]
    # Negated globs only ever remove files from the listing, so handing them to rg is safe.
    for glob in exclude:
        command += ["--glob", f"!{glob.removeprefix('!')}"]
    for glob in SECRET_GLOBS:
        command += ["--iglob", f"!{glob}"]
    done = subprocess.run(command, cwd=root, capture_output=True, check=False)
    if done.returncode not in (0, 1):  # 1: nothing to list
        message = done.stderr.decode(errors="replace").strip()
        raise RuntimeError(f"rg --files failed in {root}: {message}")
    # NUL-separated, so a name holding a line break stays one name.
    paths = [name for name in done.stdout.decode("utf-8", errors="surrogateescape").split("\0") if name]
    if len(paths) > MAX_FILES:
        raise CapExceeded(
            f"{root} holds {len(paths):,} searchable files, over the cap of {MAX_FILES:,}: "
            "narrow the directory or glob."
        )
    if os.sep != "/":
        paths = [p.replace(os.sep, "/") for p in paths]
    return [p.removeprefix("./") for p in paths]
