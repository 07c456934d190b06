"""The units that flow through the pipeline: a snippet to judge and a declaration to name.

Both are plain frozen values so they can be cached, persisted and compared without surprises. Lines are
1-based and inclusive, counted the way editors count them (`\\n`, `\\r\\n` and a lone `\\r` end a line;
form feeds and other Unicode separators do not), so a range maps straight onto an LSP position.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from dataclasses import dataclass, field

from smartsearch_ls.pickling import by_fields

LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""Line ends as LSP clients count them; `str.splitlines` also splits on form feeds and would drift."""


def snippet_text(path: str, symbol: str | None, code: str) -> str:
    """What is embedded for a snippet: a `path :: symbol` header line, then the code (the header helps a little)."""
    return f"{path} :: {symbol}\n{code}" if symbol else f"{path}\n{code}"


def content_key(text: str) -> str:
    """The key of an embedded text in every vector store: its sha1, so an edit or a move makes a new key and a stale
    vector is never served (a lone surrogate is hashed as a snippet packs it, so any text a snippet holds has a key)."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


def split_lines(text: str) -> list[str]:
    """The text's lines without their line ends, numbered as an editor numbers them."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # a final line end does not start another line
    return lines


@dataclass(frozen=True, slots=True, init=False)
class Snippet:
    """A span of one file that is shortlisted and judged as a whole.

    Its text is held zlib-compressed (`packed`) and unpacked on each read of `text`: a large repository's
    index holds every line of its code in snippets, as Python strings several times the size of their
    compressed bytes (four bytes a character in any snippet with one emoji), while a search reads the text of
    a few hundred of them. Build one from its text; `replace` gives a copy with some fields changed.

    It carries the key of its vector (`key`), computed once from its text when it is made and persisted with it, so
    whatever keys snippets by vector (the root's dense index, the local judge) needs no text to do so: a restart
    keys every snippet of the root.
    """

    path: str
    """Relative to the search root, '/'-separated."""
    start_line: int
    end_line: int
    packed: bytes = field(repr=False)
    """The text, UTF-8 and zlib-compressed (`text` unpacks it)."""
    symbol: str | None
    """The enclosing declaration's qualified name, e.g. `Cache.get`; None for a plain line window."""
    key_until: int
    """When the snippet starts inside a private key block whose `BEGIN` line is above it: the block's last line,
    so its lines up to there are redacted before judging (`chunking.key_blocks`); 0 otherwise."""
    key: str = field(repr=False, compare=False)
    """`content_key(snippet_text(path, symbol, text))`: the key of its vector."""
    secret_until: int
    """When the snippet starts inside the body of a YAML block scalar whose name says secret (`password: |`) and
    whose `name: |` line is above it: the block's last line, so its lines up to there are redacted before judging
    (`chunking.secret_blocks`); 0 otherwise. Apart from `key_until`, so each is redacted as what it is; last, so
    a snippet pickled before it was added loads with 0."""

    def __init__(
        self,
        path: str,
        start_line: int,
        end_line: int,
        text: str,
        symbol: str | None = None,
        key_until: int = 0,
        secret_until: int = 0,
    ) -> None:
        self._set(path, start_line, end_line, _pack(text), symbol, key_until, _key(path, symbol, text), secret_until)

    def _set(self, *values: object) -> None:
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)  # frozen: the one way to fill the slots

    @property
    def text(self) -> str:
        return zlib.decompress(self.packed).decode("utf-8", "surrogatepass")

    def replace(
        self, *, text: str | None = None, key_until: int | None = None, secret_until: int | None = None
    ) -> Snippet:
        """A copy with its text (a redacted one, say), its key block's end or its secret block's end changed."""
        copy = object.__new__(Snippet)
        copy._set(
            self.path,
            self.start_line,
            self.end_line,
            self.packed if text is None else _pack(text),
            self.symbol,
            self.key_until if key_until is None else key_until,
            self.key if text is None else _key(self.path, self.symbol, text),
            self.secret_until if secret_until is None else secret_until,
        )
        return copy

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _unpickle_snippet, tuple(getattr(self, name) for name in self.__slots__)


def _key(path: str, symbol: str | None, text: str) -> str:
    return content_key(snippet_text(path, symbol, text))


def _pack(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


_PATH, _START_LINE, _END_LINE, _PACKED, _SYMBOL, _KEY_UNTIL, _KEY, _SECRET_UNTIL = (
    getattr(Snippet, name).__set__ for name in Snippet.__slots__
)
"""The slots' own setters, in the order `__reduce__` gives their values."""


def _unpickle_snippet(
    path: str,
    start_line: int,
    end_line: int,
    packed: bytes,
    symbol: str | None,
    key_until: int,
    key: str,
    secret_until: int = 0,
) -> Snippet:
    """The persisted index's snippets come back as they were packed, without compressing again.

    Each slot is set through its own descriptor, not `_set`'s loop of `object.__setattr__`: a restart unpickles
    every snippet of the root before it can answer, and that generic path was most of the time it took."""
    snippet = object.__new__(Snippet)
    _PATH(snippet, path)
    _START_LINE(snippet, start_line)
    _END_LINE(snippet, end_line)
    _PACKED(snippet, packed)
    _SYMBOL(snippet, symbol)
    _KEY_UNTIL(snippet, key_until)
    _KEY(snippet, key)
    _SECRET_UNTIL(snippet, secret_until)
    return snippet


def is_module_header(snippet: Snippet) -> bool:
    """A file's first lines outside any declaration: imports, constants and a module docstring, which describes
    what the file's code does rather than doing it."""
    return starts_a_module(snippet.symbol, snippet.start_line)


def starts_a_module(symbol: str | None, start_line: int) -> bool:
    """`is_module_header` for a place known by its symbol and first line (a match, a snippet's span)."""
    return symbol is None and start_line == 1


@by_fields
@dataclass(frozen=True, slots=True)
class Declaration:
    """A named declaration the chunker found: what `workspace/symbol` and symbol search answer from."""

    name: str
    """The bare name, e.g. `get`."""
    qualified_name: str
    """Dotted through enclosing declarations, e.g. `Cache.get`."""
    kind: str
    """An LSP SymbolKind name in lower case: class, method, function, interface, struct, enum, module..."""
    path: str
    start_line: int
    end_line: int
    name_line: int
    """The line holding the name itself (after decorators), for a selection range."""
    name_column: int
    """0-based column of the name on `name_line`, in characters."""


@dataclass(frozen=True, slots=True)
class ChunkedFile:
    """Everything the index keeps from one file."""

    snippets: tuple[Snippet, ...]
    declarations: tuple[Declaration, ...]
