"""Persisting a root's index so that a restart, or the next CLI run, starts warm.

One file per root under the cache directory, named by a hash of the root's path. It is written to a
temporary file and renamed into place, so a reader (another server on the same root, a crash mid-write)
sees either the old index or the new one, never half of one. A header with a format version and a
checksum of the payload turns a truncated, corrupted or outdated file into a plain cache miss: the index
is rebuilt, never trusted. A cache directory that cannot be written only costs warmth.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = 2
"""Bump when what is persisted, or how files are chunked or tokenized, changes."""

_MAGIC = b"smartsearch-index\n"


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/smartsearch-ls`, else `~/.cache/smartsearch-ls`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "smartsearch-ls"


def index_path(cache_dir: Path, root: Path) -> Path:
    """Where the index of `root` is kept."""
    key = hashlib.blake2b(str(root.resolve()).encode(), digest_size=10).hexdigest()
    return cache_dir / "index" / f"{root.name or 'root'}-{key}.pickle"


def save(path: Path, payload: dict[str, Any]) -> bool:
    """Write atomically; False (and a log line) when the cache cannot be written."""
    data = pickle.dumps({"format": FORMAT, **payload}, protocol=pickle.HIGHEST_PROTOCOL)
    header = _MAGIC + hashlib.blake2b(data, digest_size=16).hexdigest().encode() + b"\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(header)
                handle.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        log.warning("could not persist the index to %s: %s", path, error)
        return False
    return True


def load(path: Path) -> dict[str, Any] | None:
    """The payload saved at `path`, or None when it is missing, damaged or from another format."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head, _, data = raw.partition(b"\n")
    checksum, _, data = data.partition(b"\n")
    if head + b"\n" != _MAGIC or hashlib.blake2b(data, digest_size=16).hexdigest().encode() != checksum:
        log.warning("ignoring a damaged index at %s; it will be rebuilt", path)
        return None
    try:
        payload = pickle.loads(data)
    except Exception as error:  # a checksum-valid but unloadable file: another version's classes
        log.warning("ignoring an unreadable index at %s (%s); it will be rebuilt", path, error)
        return None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        return None
    return payload
