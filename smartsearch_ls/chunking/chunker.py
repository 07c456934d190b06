"""Chunk one file: pick the outline for its language, fall back to line windows when there is none.

This is the only place that decides between a declaration-aware chunking and plain windows, and it
promises the rest of the pipeline that chunking never raises: any failure of a parser (syntax errors,
recursion or memory limits on absurdly nested code, trees that disagree with the text's line count)
turns into windows for that file, with no declarations. A leading byte order mark is dropped first, so
snippet texts and columns are those of the text an editor shows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from smartsearch_ls.chunking import python_ast, treesitter
from smartsearch_ls.chunking.blocks import Outline, pack
from smartsearch_ls.chunking.key_blocks import key_blocks, mark_key_continuations
from smartsearch_ls.chunking.languages import LANGUAGES
from smartsearch_ls.chunking.secret_blocks import mark_secret_continuations, secret_blocks
from smartsearch_ls.chunking.snippet import ChunkedFile, Declaration, Snippet, split_lines
from smartsearch_ls.chunking.windows import line_windows

Outliner = Callable[[str, str, Sequence[str]], Outline]

_OUTLINERS: dict[str, Outliner] = {".py": python_ast.outline, ".pyi": python_ast.outline, ".pyw": python_ast.outline}
for _language in LANGUAGES:
    for _extension in _language.extensions:
        _OUTLINERS[_extension] = functools.partial(treesitter.outline, _language)


def chunk_file(path: str, text: str) -> ChunkedFile:
    """Snippets and declarations of the file at root-relative `path` whose content is `text`."""
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte order mark is not content: editors hide it and `ast` rejects it
    lines = split_lines(text)
    snippets, declarations = _chunk(path, text, lines)
    if "-----BEGIN" in text and (blocks := key_blocks(lines)):
        snippets = mark_key_continuations(snippets, blocks)
    if ("|" in text or ">" in text) and (blocks := secret_blocks(lines)):
        snippets = mark_secret_continuations(snippets, blocks)
    return ChunkedFile(tuple(snippets), tuple(declarations))


def _chunk(path: str, text: str, lines: Sequence[str]) -> tuple[Sequence[Snippet], Sequence[Declaration]]:
    outliner = _OUTLINERS.get(_extension_of(path))
    if outliner is not None:
        try:
            outline = outliner(path, text, lines)
            return pack(path, lines, outline), outline.declarations
        except Exception:  # any parser failure, RecursionError and MemoryError included: use windows
            pass
    return line_windows(path, lines), ()


def _extension_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""
