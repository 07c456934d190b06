"""One file's entry in a root's index: its text chunked into snippets, each snippet added to the postings.

Both ways a file is indexed go through `index_text`: `RootIndex` for a file read or edited in this process, and
`bulk`'s worker processes for their share of a first build, which index into postings and a snippet list of
their own that the root's index then absorbs. So neither needs the other to turn a file into an entry.

An entry pickles its declarations as one `bytes` of their own, and one unpickled (a restart's, or a worker's share)
keeps that for its life: a search reads the snippets and postings, never the declarations (they serve the symbol
index, `workspace/symbol` and the symbol look-ups), and on a large root rebuilding them was a large part of a
restart's unpickling, before its first answer (bench/README.md has the figures). The symbol index, built in the
background after the first search, reads them a slice of files at a time into columns of its own, so a reading makes
objects that are not kept; such an entry saved writes back the bytes it came with.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from dataclasses import dataclass

from smartsearch_ls.chunking.chunker import chunk_file
from smartsearch_ls.chunking.snippet import Declaration, Snippet
from smartsearch_ls.discovery.reading import FileStamp, ReadFile, SkipReason
from smartsearch_ls.index.bm25 import Bm25Index
from smartsearch_ls.index.terms import meta_terms, text_terms


@dataclass(slots=True, eq=False)
class FileEntry:
    """What the index holds for one listed file (compared by identity: its declarations may be held either way)."""

    stamp: FileStamp | None
    """Size and mtime when read from disk; None for an unsaved buffer, so the next refresh re-reads it."""
    digest: str
    skipped: SkipReason | None
    docs: tuple[int, ...] = ()
    declared: tuple[Declaration, ...] | bytes = ()
    """The declarations, or their pickle (an entry unpickled), kept as such for the entry's life: `declarations`
    unpickles a copy at each read."""
    lines: int = 0
    unsaved: bool = False

    @property
    def declarations(self) -> tuple[Declaration, ...]:
        """The declarations, unpickled afresh at each read when the entry holds their pickle, and not kept: the symbol
        index holds every declaration in columns of its own (`DeclarationTable`), and tells a file whose declarations
        changed by the identity of `declared`, which a read leaves as it was."""
        declared = self.declared
        return pickle.loads(declared) if isinstance(declared, bytes) else declared

    def __reduce__(self) -> tuple[type[FileEntry], tuple[object, ...]]:
        """Pickled as `FileEntry(*fields)` (as `pickling.by_fields` does), the declarations as a pickle of their own."""
        declared = self.declared
        if not isinstance(declared, bytes):
            declared = pickle.dumps(declared, protocol=pickle.HIGHEST_PROTOCOL)
        return FileEntry, (self.stamp, self.digest, self.skipped, self.docs, declared, self.lines, self.unsaved)


_NO_DECLARATIONS = pickle.dumps((), protocol=pickle.HIGHEST_PROTOCOL)


def declarations_load(entries: Iterable[FileEntry]) -> bool:
    """Whether the first of `entries` that declares something unpickles its declarations: the rest are read lazily,
    so a persisted index whose `Declaration`s no longer load (a class changed without a format bump) must fail its
    load, and be rebuilt, rather than every symbol look-up after it."""
    for entry in entries:
        if isinstance(entry.declared, bytes) and entry.declared != _NO_DECLARATIONS:
            try:
                entry.declarations  # noqa: B018 - read for its unpickling
            except Exception:  # any failure of a pickle written by another version of this code
                return False
            return True
    return True


def index_text(
    bm25: Bm25Index, snippets: list[Snippet | None], path: str, read: ReadFile, *, unsaved: bool
) -> FileEntry:
    """The entry of one file as read (from disk, or an editor buffer when `unsaved`), its snippets (when there is
    text) appended to `snippets` and added to `bm25`. An unsaved buffer gets no stamp, so a refresh re-reads it."""
    stamp, digest, text = None if unsaved else read.stamp, read.digest, read.text
    if text is None:
        return FileEntry(stamp, digest, read.skipped, unsaved=unsaved)
    chunked = chunk_file(path, text)
    docs = []
    for snippet in chunked.snippets:
        docs.append(bm25.add(text_terms(snippet.text), meta_terms(path, snippet.symbol)))
        snippets.append(snippet)
    return FileEntry(stamp, digest, None, tuple(docs), chunked.declarations, text.count("\n") + 1, unsaved)
