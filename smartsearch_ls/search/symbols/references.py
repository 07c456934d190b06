"""Where a name is used: call sites, imports and mentions, found lexically from the index, across files.

The BM25 postings of the name's term say which snippets can hold it, so only those are scanned, line by
line, for the whole word. Nothing is read from disk: hidden, ignored and excluded files are not in the
index, so they are never searched. The declaration lines of the name itself are left out (that is the
`definition` intent). For a qualified name (`Cache.get`) only attribute uses (`.get`) and imports count,
in files that mention the qualifier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from smartsearch_ls.chunking.snippet import Snippet, split_lines
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.search.result import kind_of
from smartsearch_ls.search.symbols.index import name_term, symbol_index
from smartsearch_ls.search.symbols.ranking import SymbolQuery

MAX_SCANNED = 20_000
"""Snippets scanned for one name at most; past it the result says it is incomplete."""

RELEVANCE = {"import": 0.9, "call": 0.85, "mention": 0.7}


@dataclass(frozen=True, slots=True)
class Reference:
    index: RootIndex
    path: str
    line: int
    text: str
    snippet: Snippet
    kind: str
    """`import`, `call` or `mention`."""
    unsaved: bool


@dataclass(frozen=True, slots=True)
class References:
    found: list[Reference]
    scanned: int
    complete: bool


def find_references(scopes: Sequence[Scope], query: str, *, tests_only: bool = False) -> References:
    """Every use of the named symbol in the scopes, grouped by file (files with more uses first, tests last)."""
    wanted = SymbolQuery.of(query)
    name = wanted.name
    term = name_term(name)
    if not name or term is None:
        return References([], 0, True)
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    qualifier = wanted.qualifier.rpartition(".")[2]
    qualifier_word = re.compile(rf"(?<![\w$]){re.escape(qualifier)}(?![\w$])") if qualifier else None
    found: dict[tuple[str, str, int], Reference] = {}
    scanned = 0
    complete = True
    for scope in scopes:
        index = scope.index
        symbols = symbol_index(index)
        with index.lock:
            postings = index.bm25.body.get(term)
            docs = np.unique(np.frombuffer(postings, dtype=np.int32)[0::2]) if postings is not None else []
            alive = index.bm25.alive
            snippets = [s for d in docs if alive[d] and (s := index.snippets[d]) is not None]
            unsaved = {p for p, e in index.files.items() if e.unsaved}
        snippets = [s for s in snippets if scope.contains(s.path) and (not tests_only or kind_of(s.path, s.symbol))]
        if scanned + len(snippets) > MAX_SCANNED:
            snippets = snippets[: max(MAX_SCANNED - scanned, 0)]
            complete = False
        scanned += len(snippets)
        by_path: dict[str, list[Snippet]] = {}
        for snippet in snippets:
            by_path.setdefault(snippet.path, []).append(snippet)
        for path, pieces in by_path.items():
            if qualifier_word is not None and not any(qualifier_word.search(s.text) for s in symbols.snippets_of(path)):
                continue
            definitions = {d.name_line for d in symbols.declarations_named(path, name)}
            imports = [r for r in symbols.imports_of(path)]
            for snippet in pieces:
                text = snippet.text  # unpacked once: a snippet holds its text compressed
                if not word.search(text):
                    continue
                for offset, line in enumerate(split_lines(text)):
                    number = snippet.start_line + offset
                    if number in definitions or (path, str(index.root), number) in found:
                        continue
                    hit = word.search(line)
                    if hit is None:
                        continue
                    is_import = any(r.start_line <= number <= r.end_line for r in imports)
                    if qualifier_word is not None and not is_import and not line[: hit.start()].endswith("."):
                        continue
                    after = line[hit.end() :].lstrip()
                    kind = "import" if is_import else "call" if after.startswith(("(", "<")) else "mention"
                    found[(path, str(index.root), number)] = Reference(
                        index, path, number, line, snippet, kind, path in unsaved
                    )
    per_file: dict[tuple[str, str], list[Reference]] = {}
    for (path, root, _), reference in found.items():
        per_file.setdefault((root, path), []).append(reference)
    files = sorted(
        per_file.items(),
        key=lambda item: (
            kind_of(item[0][1]) is not None and not tests_only,
            not any(r.kind == "import" for r in item[1]),
            -len(item[1]),
            item[0][1],
        ),
    )
    ordered = [r for _, refs in files for r in sorted(refs, key=lambda r: r.line)]
    return References(ordered, scanned, complete)
