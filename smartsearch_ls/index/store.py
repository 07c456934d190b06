"""Persisting a root's index so that a restart, or the next CLI run, starts warm.

One file per root under the cache directory, named by a hash of the root's path. It is written to a
temporary file and renamed into place, so a reader (another server on the same root, a crash mid-write)
sees either the old index or the new one, never half of one. A header with a format version and a
checksum of the payload turns a truncated, corrupted or outdated file into a plain cache miss: the index
is rebuilt, never trusted. The version is read before anything is unpickled, so a file written by another
version of the package is never handed to classes that have changed shape. A cache directory that cannot
be written only costs warmth.

Only a regular file is read, without following a link: a FIFO put at the index path blocked the reader for
ever, a link to `/dev/zero` read until memory ran out. A persist killed mid-write leaves its temporary file
(as large as the index); loading removes those that have not been written to for `STALE_TEMPORARY_SECONDS`,
which leaves alone the one another process on the same cache is writing.

A payload's lists and dicts are written as a run of separate pickles of `PART_ITEMS` items (`Parts`), after the
payload's other values: one pickle of the whole payload kept a memo entry for every object it wrote, hundreds of
thousands on a large root, at the moment the server had just built the index and held the most. A file written as
one pickle (before parts) loads as before. A payload's matrices (a root's vectors, given as a `RowSource`) follow the
pickles as raw rows (`Matrix`), which a load hands to the caller a chunk at a time (`MatrixReader`): unpickled
whole, they were a copy as large as the file held beside the arrays the caller fills from it, at the moment a
restart peaked.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import stat
import tempfile
import time
import zlib
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from smartsearch_ls.index.gc_pause import gc_paused

log = logging.getLogger(__name__)

FORMAT = 19
"""Bump when what is persisted, or how files are chunked or tokenized, changes (3: the checksum is a CRC-32; 4:
TypeScript overload signatures join their function's snippet, a file whose name is not UTF-8 is skipped, and a
file's stamp holds its change time; 5: JavaScript methods assigned to members are declarations, and a doc comment
one blank line above a declaration joins it; 6: a snippet that starts inside a private key block says so; 7: a
snippet's text is held compressed; 8: a snippet keeps the key of its vector;
9: a postings table is persisted as its buffer and the arrays cut out of it since; 10: a file's declarations are one
pickle of their own inside its entry's, unpickled when first read; 11: a term's postings may lie in the buffer and go
on in an array of what it gained since; 12: that array's table field is `gains`; 13: a snippet that starts inside
the body of a secret-named YAML block scalar says so, `Snippet.secret_until`; 14: such a block is also one whose head
has a comment, an anchor or a tag after the key, is a list item's or has a quoted key, or whose value starts below
an empty line; 15: declarations named through their wrappers, taken back; 16: a Go type of any kind is a snippet of
its own; 17: a split declaration's leftover lines joined the snippet before them, taken back; 18: as 16; 19:
a module exporting one named function, `module.exports = function NAME`, is named NAME)."""

STALE_TEMPORARY_SECONDS = 600.0
"""A temporary file untouched this long belongs to a persist that was killed: a whole index is written in seconds."""

CHECKSUM_CHUNK = 1 << 20
"""Bytes read at a time to checksum a persisted file before it is unpickled."""

PART_ITEMS = 512
"""Items of a list, or pairs of a dict, pickled together: the memo a pickle keeps is as large as one part."""

MATRIX_CHUNK_ROWS = 1024
"""Rows of a `Matrix` written, or handed to a `MatrixReader`, at a time."""

_MAGIC = b"smartsearch-index"
"""Followed by a space, the format version and a line end, then the payload's checksum on the second line."""


def header(data: bytes | memoryview, version: int = FORMAT) -> bytes:
    """The two header lines of a persisted payload.

    The checksum catches a truncated or damaged file, not tampering (the file is a pickle of a private cache):
    CRC-32 does that many times faster than a cryptographic hash, which took a sizeable share of a warm start.
    """
    return _header_line(version, zlib.crc32(data))


def _header_line(version: int, checksum: int) -> bytes:
    return b"%s %d\n%08x\n" % (_MAGIC, version, checksum)


def index_path(cache_dir: Path, root: Path) -> Path:
    """Where the index of `root` is kept."""
    key = hashlib.blake2b(str(root.resolve()).encode(), digest_size=10).hexdigest()
    return cache_dir / "index" / f"{root.name or 'root'}-{key}.pickle"


@dataclass(frozen=True, slots=True)
class Matrix:
    """Stands in the pickle for a 2-D array of the payload, whose rows follow the pickles raw, in C order."""

    shape: tuple[int, int]
    dtype: str
    """numpy's `dtype.str`, byte order included."""


@dataclass(frozen=True, slots=True)
class RowSource:
    """A 2-D array to persist like one (raw, after the pickles) that is made a chunk of rows at a time while it is
    written, so that no copy of all of it is ever held."""

    shape: tuple[int, int]
    dtype: str
    chunks: Callable[[], Iterable[npt.NDArray[Any]]]
    """The rows in order, in chunks of any size, each of `dtype`: all of them at each call."""


NextRows = Callable[[int], npt.NDArray[Any]]
"""The next `count` rows of a `Matrix` being read, as an array of them (a fresh chunk each call)."""

MatrixReader = Callable[[dict[str, Any], Matrix, NextRows], Any]
"""What becomes of a `Matrix` of the payload on load: called with the payload read so far (every value but the
matrices), the matrix's shape and a `NextRows` that must be read to the last row; returns the payload's value."""


def whole_matrix(payload: dict[str, Any], matrix: Matrix, next_rows: NextRows) -> npt.NDArray[Any]:
    """The default `MatrixReader`: the array itself (read-only: a view of the bytes read)."""
    return next_rows(matrix.shape[0])


def save(path: Path, payload: dict[str, Any], *, version: int = FORMAT) -> bool:
    """Write atomically; False (and a log line) when the cache cannot be written. `version`: the payload's format,
    the index's unless it is a file of another shape (`dense.VECTORS_FORMAT`).

    The payload is pickled straight into the file, hashed on the way, and the header is written over a
    placeholder of the same length at the end: pickling into memory first held a second copy of the whole
    index at the moment the server had just finished building it. Its `RowSource`s are written after it, raw.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(header(b"", version))  # placeholder: every header of this version has the same length
                hashing = _HashingWriter(handle)
                matrices = {key: value for key, value in payload.items() if isinstance(value, RowSource)}
                skeleton = {
                    key: Matrix(matrices[key].shape, matrices[key].dtype) if key in matrices else value
                    for key, value in payload.items()
                }
                _dump_in_parts(skeleton, hashing)
                for source in matrices.values():
                    _write_rows(source, hashing)
                handle.seek(0)
                handle.write(_header_line(version, hashing.checksum))
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        log.warning("could not persist the index to %s: %s", path, error)
        return False
    return True


@dataclass(frozen=True, slots=True)
class Parts:
    """Stands in the first pickle for a list or dict of the payload whose items follow in pickles of their own."""

    kind: type[list[Any]] | type[dict[Any, Any]]
    length: int


def _dump_in_parts(payload: dict[str, Any], sink: _HashingWriter) -> None:
    """The payload with each list and dict replaced by its `Parts`, then their items, `PART_ITEMS` to a pickle."""
    collections = {key: value for key, value in payload.items() if type(value) in (list, dict)}
    skeleton = {key: Parts(type(value), len(value)) if key in collections else value for key, value in payload.items()}
    # Without a memo: what stays in the skeleton (a root's postings: their buffers, their hundred thousand terms, the
    # arrays of what terms gained since) shares little, a word that is both a body and a name term, which is then
    # written, and loaded, twice; a memo kept every term, and a copy of every array's bytes, alive until the whole
    # skeleton was written, the moment a session peaks. A cycle in it would raise rather than recurse.
    pickler = pickle.Pickler(sink, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(skeleton)
    for value in collections.values():
        items = list(value.items()) if isinstance(value, dict) else value
        for start in range(0, len(items), PART_ITEMS):
            pickle.dump(items[start : start + PART_ITEMS], sink, protocol=pickle.HIGHEST_PROTOCOL)


def _write_rows(source: RowSource, sink: _HashingWriter) -> None:
    """The source's rows, raw; a chunk of another width or dtype, or rows short of or past its shape, raise."""
    rows, columns = source.shape
    written = 0
    for chunk in source.chunks():
        if chunk.ndim != 2 or chunk.shape[1] != columns or chunk.dtype.str != source.dtype:
            raise ValueError(f"a chunk of shape {chunk.shape} and {chunk.dtype} for rows of {columns} {source.dtype}")
        written += len(chunk)
        if written > rows:
            raise ValueError(f"more than the {rows} rows said")
        if len(chunk):  # a view of no rows cannot be cast to bytes
            sink.write(memoryview(np.ascontiguousarray(chunk)).cast("B"))
    if written != rows:
        raise ValueError(f"{written} rows written of the {rows} said")


def _read_matrices(payload: dict[str, Any], handle: BinaryIO, reader: MatrixReader) -> None:
    """Replace each `Matrix` of the payload, in order, by what `reader` makes of its rows read from `handle`."""
    for key, value in payload.items():
        if not isinstance(value, Matrix):
            continue
        dtype = np.dtype(value.dtype)
        rows, columns = value.shape
        left = rows

        def next_rows(count: int, dtype: np.dtype[Any] = dtype, columns: int = columns) -> npt.NDArray[Any]:
            nonlocal left
            if not 0 <= count <= left:
                raise ValueError(f"{count} rows asked of a matrix with {left} left")
            size = count * columns * dtype.itemsize
            data = handle.read(size)
            if len(data) != size:
                raise EOFError("the file ended inside a matrix")
            left -= count
            return np.frombuffer(data, dtype=dtype).reshape(count, columns)

        payload[key] = reader(payload, value, next_rows)
        if left:
            raise ValueError(f"{left} rows of {key!r} were not read")


def _load_parts(handle: BinaryIO) -> Any:
    """The payload `_dump_in_parts` wrote, or what a file of one pickle holds."""
    payload = pickle.load(handle)
    if not isinstance(payload, dict):
        return payload
    for key, value in payload.items():
        if isinstance(value, Parts):
            items: list[Any] = []
            while len(items) < value.length:
                part = pickle.load(handle)
                if not isinstance(part, list) or not part:
                    raise ValueError(f"part of {key!r} is not a list of items")
                items.extend(part)
            payload[key] = dict(items) if value.kind is dict else items
    return payload


class _HashingWriter:
    """A file-like sink for `pickle.dump` that checksums what passes through it."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self.checksum = zlib.crc32(b"")

    def write(self, data: bytes | memoryview | pickle.PickleBuffer) -> int:
        self.checksum = zlib.crc32(data, self.checksum)
        return self._handle.write(data)


def load(
    path: Path,
    *,
    version: int = FORMAT,
    older: Collection[int] = (),
    read_matrix: MatrixReader = whole_matrix,
) -> dict[str, Any] | None:
    """The payload saved at `path` in format `version` (or one of the `older` formats the caller still reads), or
    None when it is missing, damaged, from another format or not a regular file; stale temporary files of killed
    persists beside it are removed first. Each raw matrix of the payload becomes what `read_matrix` makes of it.

    The file is read twice rather than held: once in chunks for its checksum, then unpickled straight from it.
    Reading it whole first kept its bytes, as large as the file, beside everything unpickled from them, at the moment
    a restart peaks (`python -m bench.persist_memory` measures it).
    """
    _remove_stale_temporaries(path.parent)
    handle = _open_regular(path)
    if handle is None:
        return None
    with handle:
        try:
            before = _identity(handle)
            head = handle.readline(len(_MAGIC) + 32).rstrip(b"\n")
            found = next((v for v in (version, *older) if head == b"%s %d" % (_MAGIC, v)), version)
            if head.startswith(_MAGIC) and head != b"%s %d" % (_MAGIC, found):
                log.info("the index at %s was written by another version; it will be rebuilt", path)
                return None
            written = handle.readline(16)
            start = handle.tell()
            if head + b"\n" + written != _header_line(found, _checksum_from(handle)):
                log.warning("ignoring a damaged index at %s; it will be rebuilt", path)
                return None
            handle.seek(start)
            with gc_paused():  # millions of objects, none of them garbage
                payload = _load_parts(handle)
            if isinstance(payload, dict):
                _read_matrices(payload, handle, read_matrix)
            if _identity(handle) != before:  # written in place between the two reads: not what was checked
                log.warning("ignoring the index at %s: it changed while it was read; it will be rebuilt", path)
                return None
        except Exception as error:  # a read error, or a checksum-valid but unloadable file: another version's classes
            log.warning("ignoring an unreadable index at %s (%s); it will be rebuilt", path, error)
            return None
    return payload if isinstance(payload, dict) else None


def _identity(handle: BinaryIO) -> tuple[int, int]:
    """The open file's size and change time: a save replaces the file (an open handle keeps the old one), so only a
    write in place can change them between the checksum and the unpickling."""
    status = os.fstat(handle.fileno())
    return status.st_size, status.st_ctime_ns


def _checksum_from(handle: BinaryIO) -> int:
    """The checksum of the rest of the file, read in chunks."""
    checksum = zlib.crc32(b"")
    while chunk := handle.read(CHECKSUM_CHUNK):
        checksum = zlib.crc32(chunk, checksum)
    return checksum


_KINDS = {stat.S_IFLNK: "a link", stat.S_IFIFO: "a FIFO", stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket"}


def _open_regular(path: Path) -> BinaryIO | None:
    """The regular file at `path` open for reading (never through a link), or None, logged unless it is missing."""
    try:
        kind = stat.S_IFMT(os.lstat(path).st_mode)
        if kind == stat.S_IFREG:
            # Not following a link nor blocking on a FIFO, in case one was put there since the `lstat`.
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
            try:
                kind = stat.S_IFMT(os.fstat(fd).st_mode)
            except OSError:
                os.close(fd)
                raise
            if kind != stat.S_IFREG:
                os.close(fd)
    except FileNotFoundError:
        return None
    except OSError as error:
        log.warning("ignoring the index at %s (%s); it will be rebuilt", path, error.strerror or error)
        return None
    if kind != stat.S_IFREG:
        log.warning(
            "ignoring the index at %s: not a regular file (%s); it will be rebuilt", path, _KINDS.get(kind, "a device")
        )
        return None
    return os.fdopen(fd, "rb")


def _remove_stale_temporaries(directory: Path) -> None:
    """Delete the temporary files of persists killed before their rename (`save`), if untouched for long."""
    try:
        leftovers = list(directory.glob("*.tmp"))
    except OSError:
        return
    cutoff = time.time() - STALE_TEMPORARY_SECONDS
    for leftover in leftovers:
        try:
            if leftover.lstat().st_mtime < cutoff:
                leftover.unlink()
                log.info("removed %s, left by a persist that did not finish", leftover)
        except OSError:  # gone already (another process cleaned it), or not ours to remove
            continue
