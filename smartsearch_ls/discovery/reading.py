"""Reading a listed file, or saying why it is skipped.

Judging a lockfile, a minified bundle or a binary wastes the judge's time and the user's money, and their
lines would drown real code in the shortlist, so such files are skipped and counted by reason: coverage
then tells "no matches" apart from "did not look". A file that vanishes between listing and reading is
skipped the same way, never an error.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

MAX_FILE_BYTES = 1 << 20
"""1 MiB: larger files are generated data far more often than code anyone searches by behavior."""

MAX_LINE_CHARS = 2_000
"""A longer line marks a minified or generated file; no 12-line excerpt of it would be readable."""

BINARY_SNIFF_BYTES = 8_192
"""Where a NUL byte betrays a binary file, as git and ripgrep look."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class SkipReason(StrEnum):
    """Why a listed file was not indexed."""

    OVERSIZED = "oversized"
    BINARY = "binary"
    NOT_UTF8 = "non-UTF-8"
    MINIFIED = "minified"
    UNREADABLE = "unreadable"
    VANISHED = "vanished"


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What tells a changed file from an unchanged one without reading it.

    The change time is there because size and mtime alone miss a same-size edit whose mtime was set back (`cp -p`,
    `rsync -t`, `touch -r`); no program can set a file's ctime. It also moves on metadata changes (a chmod), which
    costs a re-read and a hash, never a re-chunk: the content hash decides that."""

    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileStamp:
        return cls(info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@dataclass(frozen=True, slots=True)
class ReadFile:
    """A file's text, or the reason it has none."""

    stamp: FileStamp | None
    digest: str
    text: str | None
    skipped: SkipReason | None


def stamp_of(path: Path) -> FileStamp | None:
    """Size and modification time, or None when the file is gone or is not a regular file."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):  # regular files only: never a symlink, fifo or device
        return None
    return FileStamp.of(info)


def digest_of(data: bytes) -> str:
    """A content hash: equal digests mean the file need not be chunked again."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def classify_text(data: bytes) -> tuple[str | None, SkipReason | None]:
    """Decode bytes as source text, or say why they are not."""
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return None, SkipReason.BINARY
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, SkipReason.NOT_UTF8
    problem = _text_problem(text)
    return (None, problem) if problem is not None else (text, None)


def _text_problem(text: str) -> SkipReason | None:
    """Why decoded text is not source: a NUL anywhere, or a line too long to read."""
    if "\0" in text:
        return SkipReason.BINARY
    if len(text) > MAX_LINE_CHARS and _longest_line(text) > MAX_LINE_CHARS:
        return SkipReason.MINIFIED
    return None


def _longest_line(text: str) -> int:
    """Characters in the longest line; `split` and `map` run in C, where a Python `find` loop was slow on big files."""
    return max(map(len, text.split("\n")))


def _utf8_name(path: Path) -> bool:
    """Whether the file's name is UTF-8: a match must name its file in JSON and in a `file://` URI, and a name
    that is not UTF-8 (undecodable bytes, kept by Python as lone surrogates) can be put in neither."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_file(path: Path) -> ReadFile:
    """Read a listed file that must be a regular file (a symlink is never followed)."""
    stamp = stamp_of(path)
    if stamp is None:
        # Gone, or no longer a regular file (a FIFO, socket, directory or symlink put in its place: opening
        # a FIFO would block forever, and a symlink is never followed).
        present = os.path.lexists(path)
        return ReadFile(None, "", None, SkipReason.UNREADABLE if present else SkipReason.VANISHED)
    if stamp.size > MAX_FILE_BYTES:
        return ReadFile(stamp, "", None, SkipReason.OVERSIZED)
    if not _utf8_name(path):
        return ReadFile(stamp, "", None, SkipReason.NOT_UTF8)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return ReadFile(None, "", None, SkipReason.VANISHED)
    except OSError:
        return ReadFile(stamp, "", None, SkipReason.UNREADABLE)
    if len(data) > MAX_FILE_BYTES:
        return ReadFile(stamp, "", None, SkipReason.OVERSIZED)
    text, skipped = classify_text(data)
    return ReadFile(stamp, digest_of(data), text, skipped)


def read_buffer(text: str) -> ReadFile:
    """An editor buffer's text, skipped for the reasons the file on disk would be (oversized, binary, minified).

    A lone surrogate, which JSON can carry (`"\\ud800"`) and no UTF-8 can, becomes U+FFFD: one UTF-16 unit
    either way, so every position the editor sends still lands on the same character.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # only a lone surrogate fails: scanning for one on every keystroke is not free
        text = _LONE_SURROGATE.sub("\ufffd", text)
        data = text.encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        return ReadFile(None, digest_of(data), None, SkipReason.OVERSIZED)
    skipped = _text_problem(text)  # the text is decoded already: on a keystroke, no second decode
    return ReadFile(None, digest_of(data), None if skipped else text, skipped)
