"""Where a search may look: a directory must resolve inside one of the roots.

Paths are compared after resolving symlinks and `..`, so neither `../..`, an absolute path elsewhere, nor a
symlinked folder pointing out of the workspace can widen a search. URIs and plain paths are both accepted
because editors send the former and people type the latter.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from smartsearch_ls.discovery.errors import OutsideWorkspace


def path_from(value: str) -> Path:
    """A filesystem path from a `file:` URI or a plain path."""
    if value.startswith("file:"):
        parsed = urlparse(value)
        return Path(unquote(parsed.path))
    if "://" in value:
        raise OutsideWorkspace(f"Only file: URIs name a directory here, not {value!r}.")
    return Path(value).expanduser()


def resolve_directory(directory: str, roots: Sequence[Path], base: Path | None = None) -> tuple[Path, Path]:
    """`(root, directory)` both resolved, where `directory` lies inside `root`; relative paths start at `base`."""
    try:
        candidate = path_from(directory)
        if not candidate.is_absolute():
            candidate = (base or (roots[0] if roots else Path.cwd())) / candidate
        resolved = candidate.resolve()
        is_dir = resolved.is_dir()
    except (OSError, ValueError, RuntimeError) as error:  # NUL bytes, a symlink loop, a name too long
        raise OutsideWorkspace(f"{directory[:200]!r} is not a usable path ({error}).") from None
    for root in sorted((r.resolve() for r in roots), key=lambda r: len(r.parts), reverse=True):
        if resolved == root or root in resolved.parents:
            if not is_dir:
                raise OutsideWorkspace(f"{directory!r} is not a directory inside the workspace.")
            return root, resolved
    names = ", ".join(str(r) for r in roots) or "(none)"
    raise OutsideWorkspace(f"{directory!r} is outside the workspace folders ({names}): pick a folder inside one.")


def relative_to_root(path: Path, root: Path) -> str | None:
    """The root-relative '/'-path of a file, or None when it is not inside the root (symlinks resolved)."""
    try:
        resolved = path.resolve()
    except OSError:
        return None
    if resolved != path.absolute() and path.is_symlink():
        return None  # a symlink is never followed, even to a file inside the root
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
