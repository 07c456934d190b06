"""The symbol index: every declaration of a root by name, kept in step with the index.

It is derived from a `RootIndex` and follows it lazily: on a look-up after the index's `generation` moved,
only files whose snippets or declarations changed (a keystroke changes one) are taken out and put back;
the import graph re-reads only those files' imports, and is re-resolved whole only when files appear or
disappear. Nothing here reads a file: texts are the index's snippets (an unsaved buffer's text when open).

It holds what the look-ups need and nothing of how they rank: names in a sorted list (for equal names and
prefixes), a word -> names map (for shared words) and all names joined (for letters in order), so that
`symbols.find_symbols` costs the names it could return, not the corpus; the graph arithmetic is in
`import_graph`. The declarations themselves are slots of a `DeclarationTable`, each name's an array of slot numbers:
an entry restarted or built in bulk keeps its declarations pickled, and the index reads them without keeping them
as objects.
"""

from __future__ import annotations

import bisect
import functools
import threading
import weakref
from array import array
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Declaration, Snippet
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.index.terms import identifier_terms, name_words
from smartsearch_ls.search.symbols.graph import ImportGraph, edges_of, rank_files
from smartsearch_ls.search.symbols.imports import ImportRef, Resolution, Resolver, parse_imports
from smartsearch_ls.search.symbols.table import Converted, DeclarationTable

NAMES_REMEMBERED = 8_192
"""Names whose words `name_tokens` keeps for the look-ups. Building or updating the index splits each name it meets
once, with `name_words`, so it neither fills this nor pushes out what look-ups met (bench/README.md)."""


@functools.lru_cache(maxsize=NAMES_REMEMBERED)
def name_tokens(name: str) -> tuple[str, ...]:
    """`name_words`, remembered: the look-ups meet the same names query after query."""
    return name_words(name)


def name_term(name: str) -> str | None:
    """The BM25 term a name is indexed under (whole for compound names, else its stemmed word)."""
    terms = identifier_terms(name)
    return terms[0] if terms else None


BULK_NAMES = 64
"""Names added or dropped at once past which `sorted_names` is rebuilt in one pass rather than edited one name at
a time: each edit shifts the list, so dropping one file of many thousand constants cost time quadratic in its
size."""


@dataclass(slots=True)
class _File:
    docs: tuple[int, ...]
    declared: tuple[Declaration, ...] | bytes
    """The entry's `declared` when learned: a new one (an edit) is told by its identity."""
    slots: array[int]
    """The file's declarations in the table, in their order."""
    imports: list[ImportRef] | None = None


class SymbolIndex:
    """Declarations and imports of one root; `sync()` before reading (the look-ups do it)."""

    def __init__(self, index: RootIndex) -> None:
        self._ref = weakref.ref(index)
        self.generation = -1
        self.files: dict[str, _File] = {}
        self.table = DeclarationTable()
        self.by_name: dict[str, array[int]] = {}
        """Each lower-case name's declarations as table slots, grouped by file in the order files were learned."""
        self.sorted_names: list[str] = []
        self.by_token: dict[str, list[str]] = {}
        """Each word's names, in no order: a list, as a set of a few names costs several times its entries, and a root
        has thousands of words (names leave by `_forget`'s filtering, rarely: when no file declares them any more)."""
        self._spelled: dict[str, str] = {}
        """The spelling whose words a name with capitals was filed under in `by_token` (the first file's to declare
        it), so it leaves those words whichever file declares it last (`FooBar` is filed under `foo` and `bar`, a
        later `foobar` would say `foobar`); a lower-case name's words are its own."""
        self.lock = threading.RLock()
        self._resolver: Resolver | None = None
        self._stale_imports: set[str] = set()
        self._stale_edges: set[str] = set()
        self._graph = ImportGraph()
        self._graph_dirty = True
        self._token_counts: dict[str, int] = {}
        self._scope_cache: dict[tuple[object, ...], tuple[dict[str, bool] | None, int]] = {}
        self._joined: str | None = None

    @property
    def index(self) -> RootIndex:
        index = self._ref()
        if index is None:
            raise RuntimeError("the root index is gone")
        return index

    # -- following the index ------------------------------------------------------------------------

    def sync(self, limit: int | None = None) -> bool:
        """Catch up with the index: every changed file, or at most `limit` of them; True once caught up.

        The limit lets the server build a large root's symbols in slices between searches: a whole first
        sync of a large root is long, and a thread holding the GIL that long slows every search
        that runs beside it (see `prepare`). Files gone from the index are dropped at every call, so between
        slices the names are those of files that exist, some of them not learned yet."""
        index = self.index
        with self.lock:
            if index.generation == self.generation:
                return True
            with index.lock:
                generation = index.generation
                entries = dict(index.files)
            set_changed = False
            for path in [p for p in self.files if p not in entries]:
                self._forget(self.files.pop(path).slots)
                self._graph.edges.pop(path, None)
                self._stale_imports.discard(path)
                self._stale_edges.discard(path)
                set_changed = True
            budget = max(1, limit) if limit is not None else len(entries)
            caught_up = True
            for path, entry in entries.items():
                cached = self.files.get(path)
                if cached is not None and cached.docs is entry.docs and cached.declared is entry.declared:
                    continue
                if budget == 0:
                    caught_up = False
                    break
                budget -= 1
                if cached is None:
                    set_changed = True
                    slots = self._learn(path, self.table.convert(entry.declarations))
                elif cached.declared is not entry.declared:
                    slots = self._replace(path, cached.slots, entry.declarations)
                else:
                    slots = cached.slots
                self.files[path] = _File(entry.docs, entry.declared, slots)
                self._stale_imports.add(path)
            if set_changed:
                self._resolver = None
                self._graph_dirty = True
            if caught_up:
                self.generation = generation
            return caught_up

    def prepare(self, limit: int) -> bool:
        """One slice of what look-ups need (names, imports or import edges of `limit` files, or the ranking);
        True when all is done.

        The server calls this between searches rather than building everything in one call: a large root's whole
        build, run in a thread beside the first search after a restart, held the GIL so often that the search
        was much slower (bench/README.md). Every slice, the last one (the ranking) included, is short."""
        with self.lock:
            if not self.sync(limit):
                return False
            waiting = [path for path in self._stale_imports if path in self.files][: max(1, limit)]
            for path in waiting:
                self.imports_of(path)
            if waiting:
                return False
            resolver = self.resolver
            edges = list(self._stale_edges)[: max(1, limit)]
            if edges:
                self._update_edges(edges, resolver)
                return False
            self.graph()
            return True

    def _learn(self, path: str, converted: Converted, places: dict[str, int] | None = None) -> array[int]:
        """Put a file's declarations in the table and under their names; a name in `places` takes the file's slots
        at that position of its array (where the file's were before an edit), so its order does not change."""
        slots = self.table.add(path, converted)
        grouped: dict[str, array[int]] = {}
        for slot, declaration in zip(slots, converted.declarations, strict=True):
            name = declaration.name
            lower = name.lower()
            # A name already in lower case is its own key: most are, and a copy of each was held for the index's life.
            key = name if lower == name else lower
            found = grouped.get(key)
            if found is None:
                found = grouped[key] = array("i")
            found.append(slot)
        added: list[str] = []
        for lower, found in grouped.items():
            known = self.by_name.get(lower)
            if known is None:
                self.by_name[lower] = found
                added.append(lower)
                spelling = self.table.names[found[0]]
                if spelling != lower:
                    self._spelled[lower] = spelling
                for token in set(name_words(spelling)):
                    self.by_token.setdefault(token, []).append(lower)
            elif places is not None and lower in places:
                at = places[lower]
                known[at:at] = found
            else:
                known.extend(found)
        if added:
            self._joined = None
            if len(added) > BULK_NAMES:  # one sort of nearly sorted lists, not a shifting insert per name
                self.sorted_names = sorted(self.sorted_names + added)
            else:
                for lower in added:
                    bisect.insort(self.sorted_names, lower)
        return slots

    def _replace(self, path: str, old: array[int], new: tuple[Declaration, ...]) -> array[int]:
        """A file's declarations changed: names still there are swapped in place, so a keystroke costs little.

        The new declarations are converted before the old slots are freed: when that fails (the sync with it), the
        file keeps its old slots and names, as if not edited, rather than slots another file may take."""
        converted = self.table.convert(new)
        places = self._forget(old, {d.name.lower() for d in new})
        return self._learn(path, converted, places)

    def _forget(self, slots: array[int], kept: set[str] | None = None) -> dict[str, int]:
        """Take a file's slots out of their names and the table; a name in `kept` stays, even with no slots left, and
        is answered with where the file's slots were in its array."""
        gone: set[str] = set()
        words: set[str] = set()
        places: dict[str, int] = {}
        grouped: dict[str, list[int]] = {}
        for slot in slots:
            grouped.setdefault(self.table.names[slot].lower(), []).append(slot)
        for lower, mine in grouped.items():
            found = self.by_name.get(lower)
            if found is None:
                continue
            at = found.index(mine[0])  # a file's slots under a name lie together: `_learn` puts them in at once
            del found[at : at + len(mine)]
            if kept is not None and lower in kept:
                places[lower] = at
            if found or lower in places:
                continue
            del self.by_name[lower]
            self._token_counts.pop(lower, None)
            gone.add(lower)
            words.update(name_words(self._spelled.pop(lower, lower)))
        if gone:
            for token in words:  # one pass over each word's names, however many of them go
                names = self.by_token.get(token)
                if names is not None:
                    kept = [name for name in names if name not in gone]
                    if kept:
                        self.by_token[token] = kept
                    else:
                        del self.by_token[token]
            self._joined = None
            if len(gone) > BULK_NAMES:  # one pass, not a shifting delete per name
                self.sorted_names = [name for name in self.sorted_names if name not in gone]
            else:
                for lower in gone:
                    at = bisect.bisect_left(self.sorted_names, lower)
                    if at < len(self.sorted_names) and self.sorted_names[at] == lower:
                        self.sorted_names.pop(at)
        self.table.drop(slots)
        return places

    def declarations_named(self, path: str, name: str) -> list[Declaration]:
        """A file's declarations of one name, in their order; read under the lock, as a sync frees an edited file's
        slots and gives them to the next file it learns.

        Its readers (references, following an import) want one name of each file they visit: a `Declaration` is made
        only for the slots whose name is that one, as making one per slot of the file made them several times slower
        (bench/README.md)."""
        with self.lock:
            found = self.files.get(path)
            if found is None:
                return []
            names = self.table.names
            return [self.table.get(slot) for slot in found.slots if names[slot] == name]

    # -- texts and imports --------------------------------------------------------------------------

    def snippets_of(self, path: str) -> list[Snippet]:
        found = self.files.get(path)
        if found is None:
            return []
        snippets = self.index.snippets
        return [s for d in found.docs if d < len(snippets) and (s := snippets[d]) is not None]

    def text_of(self, path: str) -> str | None:
        """A file's text as the index holds it (lines outside every snippet are blank)."""
        pieces = self.snippets_of(path)
        if not pieces:
            return None
        lines: dict[int, str] = {}
        for snippet in pieces:
            for offset, line in enumerate(snippet.text.split("\n")):
                lines.setdefault(snippet.start_line + offset, line.rstrip("\r"))
        return "\n".join(lines.get(n, "") for n in range(1, max(lines) + 1))

    def imports_of(self, path: str) -> list[ImportRef]:
        with self.lock:
            found = self.files.get(path)
            if found is None:
                return []
            if found.imports is None or path in self._stale_imports:
                found.imports = parse_imports(path, ((s.start_line, s.text) for s in self.snippets_of(path)))
                self._stale_imports.discard(path)
                self._stale_edges.add(path)
            return found.imports

    @property
    def resolver(self) -> Resolver:
        with self.lock:
            if self._resolver is None:
                self._resolver = Resolver(self.files, self.text_of)
                self._stale_edges.update(self.files)
            return self._resolver

    def resolve(self, ref: ImportRef, name: str | None = None) -> Resolution:
        return self.resolver.resolve(ref, name)

    def graph(self) -> ImportGraph:
        """The import graph (file -> files it imports), importer counts and PageRank; brought up to date lazily."""
        with self.lock:
            self.sync()
            resolver = self.resolver
            for path in list(self._stale_imports):
                self.imports_of(path)
            self._update_edges(list(self._stale_edges), resolver)
            if self._graph_dirty:
                rank_files(self._graph, self.files)
                self._graph_dirty = False
            return self._graph

    def _update_edges(self, paths: list[str], resolver: Resolver) -> None:
        """Re-resolve these files' imports into graph edges (under the lock)."""
        for path in paths:
            if path not in self.files:
                self._stale_edges.discard(path)
                continue
            edges = edges_of(path, self.imports_of(path), resolver)
            self._stale_edges.discard(path)
            if self._graph.edges.get(path) != edges:
                if edges or path in self._graph.edges:
                    self._graph.edges[path] = edges
                self._graph_dirty = True

    def in_scope(self, scope: Scope) -> tuple[dict[str, bool] | None, int]:
        """Which files a scope holds (None: all) and how many declarations they have; cached per generation."""
        everywhere = not scope.prefix and not scope.globs.include and not scope.globs.exclude
        key = (self.generation, scope.prefix, scope.globs.include, scope.globs.exclude)
        cached = self._scope_cache.get(key)
        if cached is None:
            with self.lock:
                contains = None if everywhere else {p: scope.contains(p) for p in self.files}
                count = sum(len(f.slots) for p, f in self.files.items() if contains is None or contains[p])
            if len(self._scope_cache) > 16:
                self._scope_cache.clear()
            cached = self._scope_cache[key] = (contains, count)
        return cached

    def token_count(self, lower: str) -> int:
        """How many words a (lower-case) name has."""
        found = self._token_counts.get(lower)
        if found is None:
            slots = self.by_name.get(lower)
            name = self.table.names[slots[0]] if slots else lower
            found = self._token_counts[lower] = max(len(name_words(name)), 1)
        return found

    def joined_names(self) -> str:
        """Every distinct lower-case name, one a line, for the in-order-letters stage (one regex pass)."""
        if self._joined is None:
            self._joined = "\n".join(self.sorted_names)
        return self._joined

    def mentions(self, name: str) -> int:
        """Snippets whose text mentions the name's term (live or not yet compacted): a cheap popularity."""
        term = name_term(name)
        return self.index.bm25.frequency(term) if term else 0


_REGISTRY: dict[int, tuple[weakref.ref[RootIndex], SymbolIndex]] = {}
_REGISTRY_LOCK = threading.Lock()


def symbol_index(index: RootIndex, *, synced: bool = True) -> SymbolIndex:
    """The symbol index of a root index (one per root index, created on first use), synced unless told not to."""
    with _REGISTRY_LOCK:
        found = _REGISTRY.get(id(index))
        if found is None or found[0]() is not index:
            for key in [k for k, (ref, _) in _REGISTRY.items() if ref() is None]:
                del _REGISTRY[key]
            found = (weakref.ref(index), SymbolIndex(index))
            _REGISTRY[id(index)] = found
    if synced:
        found[1].sync()
    return found[1]
