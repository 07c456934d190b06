"""The symbol index: every declaration of a root by name, with how central it is, kept in step with the index.

It is derived from a `RootIndex` and follows it lazily: on a look-up after the index's `generation` moved,
only files whose snippets or declarations changed (a keystroke changes one) are taken out and put back;
the import graph re-reads only those files' imports, and is re-resolved whole only when files appear or
disappear. Nothing here reads a file: texts are the index's snippets (an unsaved buffer's text when open).

Ranking (`find`): tier first, then tests after non-tests (unless tests are wanted), then query-token
coverage, then centrality, then a short path:

| tier | what | relevance |
|---|---|---|
| 0 | exact name (`GitIndexer`), or exact qualified name (`Cache.get`) | 1.0 |
| 1 | the same, case-insensitively | 0.95 |
| 2 | qualified: exact name, qualifier inside the declaration's (`Cache.get` ~ `LRUCache.get`) | 0.9 |
| 3 | name prefix (`GitIdx` no, `GitInd` yes) | 0.7-0.8 |
| 4 | token coverage: the query's words among the name's (`indexer` ~ `GitIndexer`) | 0.5-0.65 |
| 5 | characters in order (`gidx` ~ `GitIndexer`) | 0.3-0.45 |

Tiers are produced in stages, each only when the ones before gave fewer than `limit` hits: names equal
or prefixed (0-3) from a sorted list, names sharing words (4) from a word -> names map, letters in order
(5) with one regex pass over all names; so a look-up costs the names it could return, not the corpus.

Centrality: how many snippets mention the name (BM25 postings of its term, so it costs one dictionary
look-up) plus how many files import the declaring file; ties go to the file's PageRank over the import graph.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from smartsearch_ls.chunking.snippet import Declaration, Snippet
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.index.terms import identifier_terms, text_terms
from smartsearch_ls.search.imports import ImportRef, Resolution, Resolver, language_of, parse_imports
from smartsearch_ls.search.result import kind_of

_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
TIER_SCORES = (1.0, 0.95, 0.9, 0.7, 0.5, 0.3)
_KIND_RANK = {"class": 0, "interface": 0, "struct": 0, "enum": 0, "function": 1, "method": 1, "constructor": 2}


@functools.lru_cache(maxsize=100_000)
def _is_test(path: str) -> bool:
    return kind_of(path) is not None


@functools.lru_cache(maxsize=100_000)
def name_tokens(name: str) -> tuple[str, ...]:
    """`parseHTTPResponse` -> (parse, http, response): lower-case words, unstemmed."""
    return tuple(p.lower() for p in _PARTS.findall(name))


def name_term(name: str) -> str | None:
    """The BM25 term a name is indexed under (whole for compound names, else its stemmed word)."""
    terms = identifier_terms(name)
    return terms[0] if terms else None


@dataclass(slots=True)
class _File:
    docs: tuple[int, ...]
    declarations: tuple[Declaration, ...]
    imports: list[ImportRef] | None = None


@dataclass(frozen=True, slots=True)
class SymbolHit:
    index: RootIndex
    declaration: Declaration
    score: float
    tier: int = 0
    centrality: float = 0.0
    context: float = 0.0


@dataclass(slots=True)
class _Graph:
    edges: dict[str, frozenset[str]] = field(default_factory=dict)
    importers: dict[str, int] = field(default_factory=dict)
    rank: dict[str, float] = field(default_factory=dict)


class SymbolIndex:
    """Declarations and imports of one root; `sync()` before reading (the look-ups do it)."""

    def __init__(self, index: RootIndex) -> None:
        self._ref = weakref.ref(index)
        self.generation = -1
        self.files: dict[str, _File] = {}
        self.by_name: dict[str, dict[str, tuple[Declaration, ...]]] = {}
        self.sorted_names: list[str] = []
        self.by_token: dict[str, set[str]] = {}
        self.lock = threading.RLock()
        self._resolver: Resolver | None = None
        self._stale_imports: set[str] = set()
        self._stale_edges: set[str] = set()
        self._graph = _Graph()
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

    def sync(self) -> None:
        index = self.index
        with self.lock:
            if index.generation == self.generation:
                return
            with index.lock:
                generation = index.generation
                items = list(index.files.items())
            seen: set[str] = set()
            set_changed = False
            for path, entry in items:
                seen.add(path)
                cached = self.files.get(path)
                if cached is not None and cached.docs is entry.docs and cached.declarations is entry.declarations:
                    continue
                if cached is None:
                    set_changed = True
                    self._learn(path, entry.declarations)
                elif cached.declarations is not entry.declarations:
                    self._replace(path, cached.declarations, entry.declarations)
                self.files[path] = _File(entry.docs, entry.declarations)
                self._stale_imports.add(path)
            for path in [p for p in self.files if p not in seen]:
                self._forget(path, self.files.pop(path).declarations)
                self._graph.edges.pop(path, None)
                set_changed = True
            if set_changed:
                self._resolver = None
                self._graph_dirty = True
            self.generation = generation

    def _learn(self, path: str, declarations: tuple[Declaration, ...]) -> None:
        grouped: dict[str, list[Declaration]] = {}
        for declaration in declarations:
            grouped.setdefault(declaration.name.lower(), []).append(declaration)
        for lower, found in grouped.items():
            paths = self.by_name.get(lower)
            if paths is None:
                paths = self.by_name[lower] = {}
                bisect.insort(self.sorted_names, lower)
                self._joined = None
                for token in set(name_tokens(found[0].name)):
                    self.by_token.setdefault(token, set()).add(lower)
            paths[path] = tuple(found)

    def _replace(self, path: str, old: tuple[Declaration, ...], new: tuple[Declaration, ...]) -> None:
        """A file's declarations changed: names still there are swapped in place, so a keystroke costs little."""
        kept = {d.name.lower() for d in new}
        self._forget(path, tuple(d for d in old if d.name.lower() not in kept))
        self._learn(path, new)

    def _forget(self, path: str, declarations: tuple[Declaration, ...]) -> None:
        for lower in {d.name.lower() for d in declarations}:
            paths = self.by_name.get(lower)
            if paths is None:
                continue
            paths.pop(path, None)
            if not paths:
                del self.by_name[lower]
                self._joined = None
                self._token_counts.pop(lower, None)
                at = bisect.bisect_left(self.sorted_names, lower)
                if at < len(self.sorted_names) and self.sorted_names[at] == lower:
                    self.sorted_names.pop(at)
                for declaration in declarations:
                    if declaration.name.lower() == lower:
                        for token in set(name_tokens(declaration.name)):
                            names = self.by_token.get(token)
                            if names is not None:
                                names.discard(lower)
                                if not names:
                                    del self.by_token[token]
                        break

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

    def graph(self) -> _Graph:
        """The import graph (file -> files it imports), importer counts and PageRank; brought up to date lazily."""
        with self.lock:
            self.sync()
            resolver = self.resolver
            for path in list(self._stale_imports):
                self.imports_of(path)
            if self._stale_edges:
                for path in self._stale_edges:
                    if path not in self.files:
                        continue
                    targets: set[str] = set()
                    for ref in self.imports_of(path):
                        names = [n for n, _ in ref.names] if ref.language == "python" and ref.names else [None]
                        for name in names:
                            target = resolver.resolve(ref, name).target
                            if target is not None and target != path:
                                targets.add(target)
                    edges = frozenset(targets)
                    if self._graph.edges.get(path) != edges:
                        if edges or path in self._graph.edges:
                            self._graph.edges[path] = edges
                        self._graph_dirty = True
                self._stale_edges.clear()
            if self._graph_dirty:
                self._rank()
                self._graph_dirty = False
            return self._graph

    def _rank(self) -> None:
        edges = {p: t for p, t in self._graph.edges.items() if p in self.files}
        importers: dict[str, int] = {}
        for targets in edges.values():
            for target in targets:
                importers[target] = importers.get(target, 0) + 1
        nodes = sorted({*edges, *importers})
        self._graph.importers = importers
        if not nodes:
            self._graph.rank = {}
            return
        number = {p: i for i, p in enumerate(nodes)}
        n = len(nodes)
        sources = np.array([number[p] for p, ts in edges.items() for _ in ts], dtype=np.int64)
        targets = np.array([number[t] for ts in edges.values() for t in ts], dtype=np.int64)
        out_degree = np.bincount(sources, minlength=n).astype(np.float64)
        rank = np.full(n, 1.0 / n)
        dangling = out_degree == 0
        for _ in range(30):
            share = np.where(dangling, 0.0, rank / np.maximum(out_degree, 1))
            spread = np.bincount(targets, weights=share[sources], minlength=n)
            rank = 0.15 / n + 0.85 * (spread + rank[dangling].sum() / n)
        self._graph.rank = {p: float(rank[i]) * n for p, i in number.items()}

    def in_scope(self, scope: Scope) -> tuple[dict[str, bool] | None, int]:
        """Which files a scope holds (None: all) and how many declarations they have; cached per generation."""
        everywhere = not scope.prefix and not scope.globs.include and not scope.globs.exclude
        key = (self.generation, scope.prefix, scope.globs.include, scope.globs.exclude)
        cached = self._scope_cache.get(key)
        if cached is None:
            with self.lock:
                contains = None if everywhere else {p: scope.contains(p) for p in self.files}
                count = sum(len(f.declarations) for p, f in self.files.items() if contains is None or contains[p])
            if len(self._scope_cache) > 16:
                self._scope_cache.clear()
            cached = self._scope_cache[key] = (contains, count)
        return cached

    def token_count(self, lower: str) -> int:
        """How many words a (lower-case) name has."""
        found = self._token_counts.get(lower)
        if found is None:
            paths = self.by_name.get(lower)
            declaration = next(iter(paths.values()))[0] if paths else None
            found = self._token_counts[lower] = max(len(name_tokens(declaration.name if declaration else lower)), 1)
        return found

    def joined_names(self) -> str:
        """Every distinct lower-case name, one a line, for the in-order-letters stage (one regex pass)."""
        if self._joined is None:
            self._joined = "\n".join(self.sorted_names)
        return self._joined

    def mentions(self, name: str) -> int:
        """Snippets whose text mentions the name's term (live or not yet compacted): a cheap popularity."""
        term = name_term(name)
        postings = self.index.bm25.body.get(term) if term else None
        return len(postings) // 2 if postings is not None else 0


_REGISTRY: dict[int, tuple[weakref.ref[RootIndex], SymbolIndex]] = {}
_REGISTRY_LOCK = threading.Lock()


def symbol_index(index: RootIndex) -> SymbolIndex:
    """The symbol index of a root index (one per root index, created on first use), synced."""
    with _REGISTRY_LOCK:
        found = _REGISTRY.get(id(index))
        if found is None or found[0]() is not index:
            for key in [k for k, (ref, _) in _REGISTRY.items() if ref() is None]:
                del _REGISTRY[key]
            found = (weakref.ref(index), SymbolIndex(index))
            _REGISTRY[id(index)] = found
    found[1].sync()
    return found[1]


# -- look-ups -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SymbolQuery:
    """A name query split into what the tiers compare."""

    text: str
    name: str
    qualifier: str
    tokens: tuple[str, ...]

    @classmethod
    def of(cls, query: str) -> SymbolQuery:
        wanted = re.sub(r"::|#", ".", query.strip()).removesuffix("()")
        qualifier, _, name = wanted.rpartition(".")
        return cls(wanted, name, qualifier, tuple(dict.fromkeys(name_tokens(wanted))))


def tier_of(query: SymbolQuery, declaration: Declaration) -> tuple[int, float]:
    """(tier, token coverage) of a declaration for a query; tier 6 when it does not match."""
    name, qualified = declaration.name, declaration.qualified_name
    lower_name = name.lower()
    if lower_name == query.name.lower():
        if not query.qualifier:
            return (0 if name == query.name else 1), 1.0
        if qualified == query.text or qualified.endswith("." + query.text):
            return 0, 1.0
        lower_q = qualified.lower()
        if lower_q == query.text.lower() or lower_q.endswith("." + query.text.lower()):
            return 1, 1.0
        if query.qualifier.lower() in lower_q.rpartition(".")[0]:
            return 2, 1.0
    if not query.qualifier and len(lower_name) > len(query.name) and lower_name.startswith(query.name.lower()):
        return 3, len(query.name) / len(lower_name)
    if query.tokens:
        mine = set(name_tokens(qualified))
        matched = sum(1 for t in query.tokens if t in mine)
        if matched and matched * 2 >= len(query.tokens):
            return 4, matched / len(query.tokens) * matched / max(len(mine), 1)
    return 6, 0.0


def _subsequence(needle: str, haystack: str) -> float:
    position = 0
    for char in needle:
        position = haystack.find(char, position)
        if position < 0:
            return 0.0
        position += 1
    return len(needle) / max(len(haystack), 1)


def _score(tier: int, coverage: float) -> float:
    if tier <= 2:
        return TIER_SCORES[tier]
    if tier == 3:
        return round(0.7 + 0.1 * coverage, 3)
    if tier == 4:
        return round(0.5 + 0.15 * coverage, 3)
    return round(0.3 + 0.15 * coverage, 3)


def _stage(symbols: SymbolIndex, query: SymbolQuery, stage: int, cap: int) -> list[str]:
    """Lower-case names worth scoring at one stage: 0 same name and prefixes, 1 shared words, 2 in-order letters.

    Stages 1 and 2 keep the `cap` best names only (most of the query's words in the fewest words; the
    shortest names holding the letters): they rank below stage 0 and exist to fill a short answer.
    """
    lower = query.name.lower()
    if not lower:
        return []
    if stage == 0:
        names = [lower] if lower in symbols.by_name else []
        if not query.qualifier:
            at = bisect.bisect_right(symbols.sorted_names, lower)
            while at < len(symbols.sorted_names) and symbols.sorted_names[at].startswith(lower):
                names.append(symbols.sorted_names[at])
                at += 1
        return names
    if stage == 1:
        counts: dict[str, int] = {}
        for token in query.tokens:
            for name in symbols.by_token.get(token, ()):
                counts[name] = counts.get(name, 0) + 1
        need = (len(query.tokens) + 1) // 2
        kept = [(c / symbols.token_count(n), -c, n) for n, c in counts.items() if c >= need]
        return [n for _, _, n in sorted(kept, key=lambda item: (-item[1], -item[0], item[2]))[:cap]]
    needle = re.sub(r"[^a-z0-9_$]", "", query.text.lower())
    if not needle:
        return []
    pattern = "".join(f"[^\\n{re.escape(c)}]*{re.escape(c)}" for c in needle)
    found = re.findall(f"^{pattern}[^\\n]*$", symbols.joined_names(), re.MULTILINE)
    return sorted(found, key=len)[:cap]


def find_symbols(
    scopes: Sequence[Scope],
    query: str,
    limit: int,
    *,
    tests_first: bool = False,
    context: Callable[[RootIndex, Declaration], float] | None = None,
    max_tier: int = 5,
) -> tuple[list[SymbolHit], int, int]:
    """The best `limit` declarations for a name query, how many matched, and how many declarations were in scope.

    Stages run until `limit` hits are found: same name and prefixes (tiers 0-3), then shared words (tier 4),
    then letters in order (tier 5); the count of matches covers the stages that ran.
    """
    wanted = SymbolQuery.of(query)
    found: list[tuple[tuple[int, int, float, bool], SymbolIndex, Declaration, float]] = []
    in_scope = 0
    cap = max(limit * 5, 200)
    last_stage = 0 if max_tier <= 3 else 1 if max_tier == 4 else 2
    indexes = [(scope, symbol_index(scope.index)) for scope in scopes]
    containers: list[dict[str, bool] | None] = []
    for scope, symbols in indexes:
        contains, count = symbols.in_scope(scope)
        containers.append(contains)
        in_scope += count
    seen: list[set[str]] = [set() for _ in indexes]
    for stage in range(last_stage + 1):
        for number, (_, symbols) in enumerate(indexes):
            contains = containers[number]
            with symbols.lock:
                for lower in _stage(symbols, wanted, stage, cap):
                    if lower in seen[number]:
                        continue
                    seen[number].add(lower)
                    for path, declarations in symbols.by_name.get(lower, {}).items():
                        if contains is not None and not contains.get(path, False):
                            continue
                        for declaration in declarations:
                            tier, coverage = tier_of(wanted, declaration)
                            if tier == 6 and stage == 2:
                                ratio = _subsequence(wanted.text.lower(), declaration.qualified_name.lower())
                                if not ratio and not wanted.qualifier:
                                    ratio = _subsequence(wanted.name.lower(), lower)
                                tier, coverage = (5, ratio) if ratio else (6, 0.0)
                            if tier > max_tier:
                                continue
                            test = _is_test(path)
                            nested = declaration.qualified_name.lower() != wanted.text.lower()
                            key = (tier, int(test != tests_first), -coverage, nested)
                            found.append((key, symbols, declaration, coverage))
        if len(found) >= limit or (stage == 1 and found):
            break  # letters in order only when nothing closer matched
    found.sort(key=lambda item: item[0])
    cut_tier = found[min(limit, len(found)) - 1][0][0] if found else 0
    hits: list[tuple[tuple[object, ...], SymbolHit]] = []
    graphs: dict[int, _Graph] = {}
    mentions: dict[tuple[int, str], int] = {}
    for key, symbols, declaration, coverage in found:
        tier = key[0]
        if tier > cut_tier:
            break  # below the `limit`-th hit's tier: counted, never shown
        centrality = rank = ctx = 0.0
        graph = graphs.get(id(symbols))
        if graph is None:
            graph = graphs[id(symbols)] = symbols.graph()
        lower = declaration.name.lower()
        count = mentions.get((id(symbols), lower))
        if count is None:
            count = mentions[(id(symbols), lower)] = symbols.mentions(declaration.name)
        centrality = float(count + graph.importers.get(declaration.path, 0))
        rank = graph.rank.get(declaration.path, 0.0)
        if context is not None:
            ctx = context(symbols.index, declaration)
        hit = SymbolHit(symbols.index, declaration, _score(tier, coverage), tier, centrality, round(ctx, 3))
        order = (
            *key[:2],
            -ctx,
            *key[2:],
            -centrality,
            -rank,
            _KIND_RANK.get(declaration.kind, 3),
            len(declaration.path),
            declaration.path,
            declaration.start_line,
        )
        hits.append((order, hit))
    hits.sort(key=lambda item: item[0])
    return [h for _, h in hits[:limit]], len(found), in_scope


def declaration_terms(index: RootIndex, declaration: Declaration) -> set[str]:
    """Terms of a declaration's path, qualified name and the snippet that holds it (for context re-ranking)."""
    terms = set(text_terms(declaration.path)) | set(text_terms(declaration.qualified_name))
    symbols = symbol_index(index)
    for snippet in symbols.snippets_of(declaration.path):
        if snippet.start_line <= declaration.name_line <= snippet.end_line:
            terms.update(text_terms(snippet.text))
            break
    return terms


def language_files(symbols: SymbolIndex) -> list[str]:
    return [p for p in symbols.files if language_of(p) is not None]
