"""One file's entry in a root's index: its text chunked into snippets, each snippet added to the postings.

Both ways a file is indexed go through `index_text`: `RootIndex` for a file read or edited in this process, and
`bulk`'s worker processes for their share of a first build, which index into postings and a snippet list of
their own that the root's index then absorbs. So neither needs the other to turn a file into an entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from smartsearch_ls.chunking.chunker import chunk_file
from smartsearch_ls.chunking.snippet import Declaration, Snippet
from smartsearch_ls.discovery.reading import FileStamp, ReadFile, SkipReason
from smartsearch_ls.index.bm25 import Bm25Index
from smartsearch_ls.index.terms import meta_terms, text_terms
from smartsearch_ls.pickling import by_fields


@by_fields
@dataclass(slots=True)
class FileEntry:
    """What the index holds for one listed file."""

    stamp: FileStamp | None
    """Size and mtime when read from disk; None for an unsaved buffer, so the next refresh re-reads it."""
    digest: str
    skipped: SkipReason | None
    docs: tuple[int, ...] = ()
    declarations: tuple[Declaration, ...] = ()
    lines: int = 0
    unsaved: bool = False


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
