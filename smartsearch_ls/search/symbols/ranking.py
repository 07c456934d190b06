"""Symbol look-up: which declarations a name query finds, and in what order.

The declarations come from the symbol index (`symbol_index`); this module only matches and ranks them.
Ranking (`find_symbols`): tier first, then tests after non-tests (unless tests are wanted), then query-token
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.discovery.file_kinds import in_test_module, is_test_file
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.search.symbols.graph import ImportGraph
from smartsearch_ls.search.symbols.index import SymbolIndex, name_tokens, symbol_index

TIER_SCORES = (1.0, 0.95, 0.9, 0.7, 0.5, 0.3)
_KIND_RANK = {"class": 0, "interface": 0, "struct": 0, "enum": 0, "function": 1, "method": 1, "constructor": 2}


@functools.lru_cache(maxsize=100_000)
def _is_test_file(path: str) -> bool:
    """Cached by path: a look-up asks it of every declaration it matches, most of them in a few files."""
    return is_test_file(path)


@dataclass(frozen=True, slots=True)
class SymbolHit:
    index: RootIndex
    declaration: Declaration
    score: float
    tier: int = 0
    centrality: float = 0.0
    context: float = 0.0


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


def tier_of(query: SymbolQuery, name: str, qualified: str) -> tuple[int, float]:
    """(tier, token coverage) of a declaration, by its names, for a query; tier 6 when it does not match."""
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
    # Each match's sort key, index, table slot and coverage: a `Declaration` is made only for a match shown.
    found: list[tuple[tuple[int, int, float, bool], SymbolIndex, int, float]] = []
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
            table = symbols.table
            with symbols.lock:
                for lower in _stage(symbols, wanted, stage, cap):
                    if lower in seen[number]:
                        continue
                    seen[number].add(lower)
                    for slot in symbols.by_name.get(lower, ()):
                        path = table.paths[slot]
                        if contains is not None and not contains.get(path, False):
                            continue
                        qualified = table.qualified_name(slot)
                        tier, coverage = tier_of(wanted, table.names[slot], qualified)
                        if tier == 6 and stage == 2:
                            ratio = _subsequence(wanted.text.lower(), qualified.lower())
                            if not ratio and not wanted.qualifier:
                                ratio = _subsequence(wanted.name.lower(), lower)
                            tier, coverage = (5, ratio) if ratio else (6, 0.0)
                        if tier > max_tier:
                            continue
                        test = _is_test_file(path) or in_test_module(path, qualified)
                        nested = qualified.lower() != wanted.text.lower()
                        key = (tier, int(test != tests_first), -coverage, nested)
                        found.append((key, symbols, slot, coverage))
        if len(found) >= limit or (stage == 1 and found):
            break  # letters in order only when nothing closer matched
    found.sort(key=lambda item: item[0])
    cut_tier = found[min(limit, len(found)) - 1][0][0] if found else 0
    # Each shown match's order, and what its hit is made of once it is among the first `limit`.
    hits: list[tuple[tuple[object, ...], SymbolIndex, int, Declaration | None, float, int, float, float]] = []
    graphs: dict[int, ImportGraph] = {}
    mentions: dict[tuple[int, str], int] = {}
    for key, symbols, slot, coverage in found:
        tier = key[0]
        if tier > cut_tier:
            break  # below the `limit`-th hit's tier: counted, never shown
        table = symbols.table
        name, path = table.names[slot], table.paths[slot]
        centrality = rank = ctx = 0.0
        graph = graphs.get(id(symbols))
        if graph is None:
            graph = graphs[id(symbols)] = symbols.graph()
        lower = name.lower()
        count = mentions.get((id(symbols), lower))
        if count is None:
            count = mentions[(id(symbols), lower)] = symbols.mentions(name)
        centrality = float(count + graph.importers.get(path, 0))
        rank = graph.rank.get(path, 0.0)
        declaration = None
        if context is not None:
            declaration = table.get(slot)
            ctx = context(symbols.index, declaration)
        order = (
            *key[:2],
            -ctx,
            *key[2:],
            -centrality,
            -rank,
            _KIND_RANK.get(table.kind(slot), 3),
            len(path),
            path,
            table.start_line(slot),
        )
        hits.append((order, symbols, slot, declaration, _score(tier, coverage), tier, centrality, round(ctx, 3)))
    hits.sort(key=lambda item: item[0])
    shown = [
        SymbolHit(symbols.index, declaration or symbols.table.get(slot), score, tier, centrality, ctx)
        for _, symbols, slot, declaration, score, tier, centrality, ctx in hits[:limit]
    ]
    return shown, len(found), in_scope
