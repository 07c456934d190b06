"""Whether ripgrep would list a file that is not on disk yet: a new buffer an editor or an agent opened.

`rg --files` only lists files that exist, so a buffer opened for a path never saved (a new file typed in the
editor, or written by an agent through it) would stay out of every search until saved. It is admitted when
ripgrep's own rules would admit it once saved: no hidden part in its path, and not ignored by the `.gitignore`,
`.ignore` and `.rgignore` files from the root down to its folder (nor `.git/info/exclude`), a deeper file's
match overriding a shallower one's, as ripgrep reads them. The exclude and credential globs are the index's own
check (`RootIndex.admits`). The patterns are read with `pathspec`'s git-style matcher.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pathspec

IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
"""In ripgrep's order of precedence within one folder: later ones win."""


def would_list(root: Path, path: str) -> bool:
    """Whether `rg --files` under `root` would list the root-relative `path` if the file existed."""
    parts = PurePosixPath(path).parts
    if not parts or any(part.startswith(".") or part == ".." for part in parts):
        return False
    ignored: bool | None = None
    folders = [Path(*parts[:depth]) for depth in range(len(parts))]
    for depth, folder in enumerate(folders):
        names = (root / ".git" / "info" / "exclude",) if depth == 0 else ()
        for file in (*names, *(root / folder / name for name in IGNORE_FILES)):
            verdict = _verdict(file, PurePosixPath(*parts[depth:]).as_posix())
            if verdict is not None:
                ignored = verdict
    return ignored is not True


def _verdict(ignore_file: Path, relative: str) -> bool | None:
    """True: `relative` (to the ignore file's folder) is ignored by it, False: re-included, None: not named."""
    try:
        lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines).check_file(relative).include
