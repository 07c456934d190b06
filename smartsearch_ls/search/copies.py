"""The same code in several files is one answer, listed with its copies.

A package that ships one library twice (an ES module build beside a CommonJS one, `dist/esm/` and `dist/cjs/`, a
vendored copy, a bundle beside its sources) holds every function twice, word for word or nearly. Each copy scores
as the other does, so an answer's first ten held five things twice and hid the next five. A snippet whose
declaration and code are those of a better-ranked one (`copy_key`) is therefore folded into it: the answer shows
the best copy once and says where the others are (`Match.copies`), so a reader who wants the source rather than the
build still finds it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from smartsearch_ls.chunking.snippet import Snippet

T = TypeVar("T")

_EXPORTED = re.compile(r"^export\s+(?:default\s+)?")
"""What an ES module build adds in front of a declaration the CommonJS build of the same source leaves bare."""

_QUALIFIER = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]*\.(?=[A-Za-z_$])")
"""A name's qualifier (`identity.` in `identity.isScalar(key)`, `this.`, `self.`): a CommonJS build calls an imported
function through its module's object where the ES module build imports the name itself, so two builds of one
function differ by the qualifiers of the names they import."""


CopyKey = tuple[str, str | None, str]
"""A snippet's file name, declaration and the digest of its code as compared (`copy_key`)."""


def copy_key(snippet: Snippet) -> CopyKey:
    """Equal for two snippets that are copies: the same declaration, in files of the same name, with the same code,
    its lines compared without their indentation (a build re-indents), without empty lines, without an ES module's
    `export` and without qualifiers (`_QUALIFIER`). Dropping qualifiers could make two different functions equal
    (`a.size` and `b.size`), so the file's name must match too: two builds keep their files' names."""
    lines = (_QUALIFIER.sub("", _EXPORTED.sub("", line.strip())) for line in snippet.text.splitlines())
    code = "\n".join(line for line in lines if line)
    file_name = snippet.path.rpartition("/")[2]
    return file_name, snippet.symbol, hashlib.sha1(code.encode("utf-8", "surrogatepass")).hexdigest()


def fold_copies(
    items: Sequence[T], snippet_of: Callable[[T], Snippet], key_of: Callable[[Snippet], CopyKey] = copy_key
) -> list[tuple[T, list[T]]]:
    """`items` (best first) with each copy of an earlier item folded into it: every item kept, in order, with the
    later items that are its copies, in theirs. Copies in one file are not folded: two equal declarations of one
    file (overloads, a method of two classes in a file) are two places a reader may need. `key_of` lets a caller
    that folds the same snippets again reuse their keys (each unpacks and hashes a snippet's text)."""
    kept: list[tuple[T, list[T]]] = []
    first: dict[CopyKey, tuple[str, list[T]]] = {}
    for item in items:
        snippet = snippet_of(item)
        key = key_of(snippet)
        found = first.get(key)
        if found is not None and found[0] != snippet.path:
            found[1].append(item)
            continue
        if found is None:
            copies: list[T] = []
            first[key] = (snippet.path, copies)
            kept.append((item, copies))
        else:
            kept.append((item, []))
    return kept
