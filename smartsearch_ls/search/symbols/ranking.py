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
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.discovery.file_kinds import in_test_module, is_test_file
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
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


LOOK_UPS = 3
"""Times a look-up runs before it leaves out the matches whose slots a sync freed or reused while it ran: each run
but the last starts again on the synced index instead (an edit landing mid-look-up)."""

_Match = tuple[tuple[int, int, float, bool], SymbolIndex, int, int, float]
"""A match's sort key, index, table slot, the slot's generation when matched, and coverage."""


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

    The stages keep table slots, which a sync frees and gives to other declarations, and each stage takes the symbol
    index's lock anew: the slots a look-up may show are read under the lock once the stages are done, each checked
    against the generation it was matched at, and made `Declaration`s before any `context` call (which syncs the symbol
    index: `declaration_terms`).

    A slot changed since it matched makes the look-up run again on the synced index, at most `LOOK_UPS` times. The last
    run leaves such matches out of the hits but not of the count, and may then show fewer than `limit` hits although
    matches below the cut's tier exist (the cut was set before they were left out): it takes an edit synced within
    every run, and the count is read by tests and bench only.
    """
    wanted = SymbolQuery.of(query)
    cap = max(limit * 5, 200)
    last_stage = 0 if max_tier <= 3 else 1 if max_tier == 4 else 2
    for attempt in range(LOOK_UPS):
        indexes = [symbol_index(scope.index) for scope in scopes]
        containers: list[dict[str, bool] | None] = []
        in_scope = 0
        for scope, symbols in zip(scopes, indexes, strict=True):
            contains, count = symbols.in_scope(scope)
            containers.append(contains)
            in_scope += count
        found = _matches(indexes, containers, wanted, limit, cap, last_stage, tests_first, max_tier)
        hits = _hits(found, indexes, limit, context, stale_left_out=attempt == LOOK_UPS - 1)
        if hits is not None:
            break
    assert hits is not None, "the last run leaves stale matches out rather than answering None"
    hits.sort(key=lambda item: item[0])
    shown = [
        SymbolHit(symbols.index, declaration, score, tier, centrality, ctx)
        for _, symbols, declaration, score, tier, centrality, ctx in hits[:limit]
    ]
    return shown, len(found), in_scope


def _matches(
    indexes: list[SymbolIndex],
    containers: list[dict[str, bool] | None],
    wanted: SymbolQuery,
    limit: int,
    cap: int,
    last_stage: int,
    tests_first: bool,
    max_tier: int,
) -> list[_Match]:
    """Every match of the stages that ran, best first; a slot is kept with its generation (`_hits` checks it)."""
    found: list[_Match] = []
    seen: list[set[str]] = [set() for _ in indexes]
    for stage in range(last_stage + 1):
        for number, symbols in enumerate(indexes):
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
                        found.append((key, symbols, slot, table.generations[slot], coverage))
        if len(found) >= limit or (stage == 1 and found):
            break  # letters in order only when nothing closer matched
    found.sort(key=lambda item: item[0])
    return found


_Hit = tuple[tuple[object, ...], SymbolIndex, Declaration, float, int, float, float]
"""A shown match's order, index, declaration, score, tier, centrality and context."""


def _hits(
    found: list[_Match],
    indexes: list[SymbolIndex],
    limit: int,
    context: Callable[[RootIndex, Declaration], float] | None,
    *,
    stale_left_out: bool,
) -> list[_Hit] | None:
    """The matches that may be shown (down to the `limit`-th's tier), in no order: each index's read under its lock.

    None when a slot was freed or taken since it was matched, unless `stale_left_out`: then that match is left out
    (its declaration changed or went while the look-up ran). Without a context, each index's matches are ordered
    under its lock and only its first `limit` become `Declaration`s; with one, every match does, and the context
    scores them once the lock is let go."""
    cut_tier = found[min(limit, len(found)) - 1][0][0] if found else 0
    shown = list(itertools.takewhile(lambda item: item[0][0] <= cut_tier, found))
    hits: list[_Hit] = []
    for symbols in dict.fromkeys(indexes):
        mine = [item for item in shown if item[1] is symbols]
        if not mine:
            continue
        graph = symbols.graph()  # it syncs: before the slots are read, so that the check below sees what it freed
        table = symbols.table
        mentions: dict[str, int] = {}
        ranked: list[tuple[tuple[object, ...], int, int, float, float]] = []
        scored: list[tuple[tuple[int, int, float, bool], Declaration, float, float, float]] = []
        with symbols.lock:
            for key, _, slot, generation, coverage in mine:
                if table.generations[slot] != generation:
                    if stale_left_out:
                        continue
                    return None
                name, path = table.names[slot], table.paths[slot]
                lower = name.lower()
                count = mentions.get(lower)
                if count is None:
                    count = mentions[lower] = symbols.mentions(name)
                centrality = float(count + graph.importers.get(path, 0))
                rank = graph.rank.get(path, 0.0)
                if context is not None:
                    scored.append((key, table.get(slot), coverage, centrality, rank))
                    continue
                kind_rank = _KIND_RANK.get(table.kind(slot), 3)
                order = (
                    *key[:2],
                    -0.0,
                    *key[2:],
                    -centrality,
                    -rank,
                    kind_rank,
                    len(path),
                    path,
                    table.start_line(slot),
                )
                ranked.append((order, slot, key[0], coverage, centrality))
            ranked.sort(key=lambda item: item[0])
            for order, slot, tier, coverage, centrality in ranked[:limit]:
                hits.append((order, symbols, table.get(slot), _score(tier, coverage), tier, centrality, 0.0))
        if context is None:
            continue  # `scored` is filled only when there is a context
        for key, declaration, coverage, centrality, rank in scored:
            ctx = context(symbols.index, declaration)
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
            hits.append((order, symbols, declaration, _score(key[0], coverage), key[0], centrality, round(ctx, 3)))
    return hits
