"""attrs' generated methods compiled once, and reused by the server's later starts.

`lsprotocol.types`, which pygls imports, defines hundreds of attrs classes, and attrs writes each class's
`__init__`, `__repr__`, `__eq__`... as Python source and compiles it while the module is imported: a large part of
the server's imports before it can answer `initialize`, spent again at every start on the same text.
While `reused_attrs_code` is open, the name `compile` in attrs' own module (`attr._make`, which calls the builtin by
that name) is a stand-in that looks the call up in a table of code objects an earlier start wrote with `marshal`, as
Python's own `.pyc` files are, and compiles only what the table lacks. That is the narrowest hook there is: it
replaces no function of attrs and depends on no signature of one; an attrs that stops calling `compile` from that
module only makes the hook idle, and one that defines a `compile` of its own is left alone.

Nothing here can make a start fail where compiling would not have: an entry is keyed by everything a compilation
depends on (the exact source and filename, mode, flags and optimization level) in a file stamped with the
interpreter's bytecode magic number and checked with a CRC-32, so a file that is missing, damaged, unreadable, not a
regular file, written by another Python, or holding the text of other versions of attrs or of its users, is an entry
that misses, and the method is compiled as before. The file lives under the default cache directory (the server's
imports come before its settings, so a `cacheDir` set there cannot move it), and is written atomically.
"""

from __future__ import annotations
import __future__  # the module, for the flags a caller's `from __future__` imports give `compile`

import builtins
import logging
import marshal
import os
import stat
import sys
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import reduce
from importlib.util import MAGIC_NUMBER
from operator import or_
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

log = logging.getLogger(__name__)

FORMAT = b"smartsearch-attrs-code 1 "
"""Leads the file, with the interpreter's magic number: bump the number when the layout after them changes."""

MOST_BYTES = 64 << 20
"""A larger file is not read: the server's table is a few MB, and something that size is not one."""

STALE_TEMPORARY_SECONDS = 600.0
"""A temporary file untouched this long belongs to a write that was killed: the table is written in milliseconds."""

REWRITE_SHARE = 0.1
"""A start rewrites the table when it compiled more than this share of what it asked for: about what a rewrite
costs, as the compilations it spares the next start."""

_INHERITED_FLAGS = reduce(
    or_, (getattr(__future__, name).compiler_flag for name in __future__.all_feature_names if name != "nested_scopes")
)
"""The flags `compile` takes from its caller's `from __future__` imports unless told not to (CPython's PyCF_MASK;
`nested_scopes`'s flag is a code flag now, which it does not take)."""

Key = tuple[str, str, str, int, int]
"""A compilation's inputs: source, filename, mode, flags, optimization level."""


class CodeTable:
    """The code objects of an earlier start, and the stand-in for `compile` that reuses them."""

    def __init__(self, known: dict[Any, Any]) -> None:
        self.known = known
        self.used: dict[Key, CodeType] = {}
        """What this start asked for: the table the next start reads, if this one writes it."""
        self.reused = 0
        self.compiled = 0
        self.compiled_unknown_name = False
        """Whether one of the compilations was for a filename (attrs names it after the class) the table lacked."""
        self._known_names: set[Any] | None = None

    def compile(
        self,
        source: Any,
        filename: Any,
        mode: Any,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
        **options: Any,
    ) -> Any:
        """`compile` as its caller would have had it, from the table when the table holds it."""
        if not dont_inherit:  # the builtin would inherit its caller's futures (attrs' module's), not this module's
            flags |= sys._getframe(1).f_code.co_flags & _INHERITED_FLAGS
        if options or not (type(source) is str and type(filename) is str and type(mode) is str):
            return builtins.compile(source, filename, mode, flags, True, optimize, **options)
        key = (source, filename, mode, flags, sys.flags.optimize if optimize == -1 else optimize)
        code = self.known.get(key)
        if type(code) is CodeType:
            self.reused += 1
        else:
            code = builtins.compile(source, filename, mode, flags, True, optimize)
            if type(code) is not CodeType:  # an AST, asked for by `flags`: nothing to keep
                return code
            self.compiled += 1
            if self._known_names is None:
                self._known_names = {known[1] for known in self.known if type(known) is tuple and len(known) == 5}
            self.compiled_unknown_name = self.compiled_unknown_name or filename not in self._known_names
        self.used[key] = code
        return code

    def worth_saving(self) -> bool:
        """Whether the next start gains from this start's table: it compiled a class the table lacked, or more than
        `REWRITE_SHARE` of what it asked for (a new attrs or lsprotocol). A few classes the table has but whose text
        changed are left to compile: attrs writes the hash of a name, which differs in every process, into a frozen
        class's `__hash__`, so such a class misses at every start, and a rewrite for it is one no later start uses.
        """
        asked = self.reused + self.compiled
        return self.compiled_unknown_name or self.compiled > REWRITE_SHARE * asked


def table_path(cache_dir: Path) -> Path | None:
    """This interpreter's table under `cache_dir`, or None for an interpreter that caches no bytecode."""
    tag = sys.implementation.cache_tag
    return cache_dir / "code" / f"attrs-{tag}.marshal" if tag else None


@contextmanager
def reused_attrs_code(cache_dir: Path) -> Iterator[CodeTable | None]:
    """While open, attrs compiles its generated methods through a table read from `cache_dir`, which is written back
    when the block ends if the next start gains from it. Yields the table (None when there is no hook to set: an
    interpreter without bytecode caching, an attrs without that module, or one with a `compile` of its own)."""
    path = table_path(cache_dir)
    make = _attrs_module()
    if path is None or make is None or "compile" in vars(make):
        yield None
        return
    table = CodeTable(_read(path))
    make.compile = table.compile  # type: ignore[attr-defined]
    try:
        yield table
    finally:
        if vars(make).get("compile") == table.compile:
            del make.compile  # type: ignore[attr-defined]
    # After the block on purpose, not in its `finally`: imports that failed leave a table not worth writing.
    log.debug("attrs' generated methods: %d reused, %d compiled", table.reused, table.compiled)
    if table.worth_saving():
        _write(path, table.used)


def _attrs_module() -> ModuleType | None:
    try:
        import attr._make as make
    except ImportError:  # an attrs laid out otherwise: imported as it will be, compiling as it always did
        return None
    return make


def _read(path: Path) -> dict[Any, Any]:
    """The table at `path`, or an empty one when it is missing or cannot be trusted."""
    try:
        data = _read_regular(path)
        if data is None:
            return {}
        header = FORMAT + MAGIC_NUMBER
        checksum, payload = data[len(header) : len(header) + 4], data[len(header) + 4 :]
        if not data.startswith(header) or checksum != zlib.crc32(payload).to_bytes(4, "little"):
            log.info("ignoring %s: damaged, or written by another Python; it will be written again", path)
            return {}
        table = marshal.loads(payload)
    except Exception as error:  # unreadable, or a checksum-valid file marshal refuses: compiling is always possible
        log.info("ignoring %s (%s); it will be written again", path, error)
        return {}
    return table if type(table) is dict else {}


def _read_regular(path: Path) -> bytes | None:
    """The bytes of the regular file at `path`, or None: missing, another kind of file (a FIFO would block the start
    for ever), or too large to be a table. Never read through a link."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:  # missing, or a link
        return None
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_size > MOST_BYTES:
            return None
        return handle.read(MOST_BYTES + 1)


def _write(path: Path, table: dict[Key, CodeType]) -> None:
    """Replace the file at `path` with `table`, atomically; a cache that cannot be written only costs the next start
    its compilations."""
    import tempfile  # here, not at the top: it imports `random` and `shutil`, which `--help` need not load

    try:
        payload = marshal.dumps(table)
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_temporaries(path)
        fd, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(FORMAT + MAGIC_NUMBER + zlib.crc32(payload).to_bytes(4, "little") + payload)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except Exception as error:  # whatever fails here, this start has its classes already
        log.info("could not write %s: %s", path, error)


def _remove_stale_temporaries(path: Path) -> None:
    """Delete temporary files of writes killed before their rename, if untouched for long (a recent one may be another
    server's write in progress)."""
    cutoff = time.time() - STALE_TEMPORARY_SECONDS
    for leftover in path.parent.glob(f"{path.name}*.tmp"):
        try:
            if leftover.lstat().st_mtime < cutoff:
                leftover.unlink()
        except OSError:  # gone already (another process cleaned it)
            continue
