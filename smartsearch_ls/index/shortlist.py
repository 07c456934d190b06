"""The shortlist: which snippets are worth a judgment, ranked by BM25 and, where vectors exist, by meaning.

It is a shortlist, not a verdict. BM25 misses code worded unlike the query, so when the root has a
`DenseIndex` the snippets nearest the query's vector are candidates too, and both signals are fused into one
score: a weighted mix of their z-scores over the scope (weight measured in `bench/hybrid/`; equal-weight
reciprocal rank fusion was measured worse than either signal's scores). Snippets not embedded yet simply have
no cosine; the best lexical candidates are embedded on the spot, and until every snippet has a vector only
theirs take part, so the answer is the same whatever background embedding had reached. The result says how
many snippets were in scope, how many were shortlisted, and what share of them the semantic side covered; a
scope no larger than `candidates` is shortlisted whole, and then the search is complete: every snippet was
judged.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.documentation import is_documentation, targets_documentation
from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.discovery.reading import SkipReason
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.entries import FileEntry
from smartsearch_ls.index.root_index import RootIndex, summary
from smartsearch_ls.index.terms import query_weights

LEXICAL_RESERVE = 16
"""One place in this many at the end of a hybrid shortlist (8 of 128) is kept for the best word matches the
fused order left out: on the development part of the quality set they hold answers the fusion ranked too low
(`bench/hybrid/README.md`)."""

DENSE_WEIGHT = 0.8
"""The cosine's share of the fused score, BM25 having the rest: the best on each corpus of the behavior set when
chosen on the other (see `bench/hybrid/README.md`)."""

Scores = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Scope:
    """Where one search looks inside one root: a folder prefix ('' for all) and narrowing globs."""

    index: RootIndex
    prefix: str = ""
    globs: GlobSet = field(default_factory=GlobSet)
    mount: str = ""
    """Where this root lies below the folder searched, when it is a workspace folder nested in it: globs are
    also tried against paths as seen from the searched folder."""

    def listing_key(self) -> tuple[object, ...]:
        """What decides which of the root's files are in this scope (`contains`, `asks_for`): every field but the
        index; a field added above that changes them belongs here too."""
        return self.prefix, self.globs, self.mount

    def contains(self, path: str) -> bool:
        """Whether a root-relative path lies in this scope."""
        return self._in_folder(path) and any(self.globs.matches(form) for form in self._forms(path))

    def unreadable(self) -> dict[str, str]:
        """Paths in this scope's folder that rg could not read, with its message: whatever the globs say, files
        below them may belong to the scope, and they were not searched."""
        return {path: message for path, message in self.index.unreadable.items() if self._in_folder(path)}

    def _in_folder(self, path: str) -> bool:
        return not self.prefix or path == self.prefix or path.startswith(self.prefix + "/")

    def asks_for(self, path: str) -> bool:
        """Whether an include glob that is about documentation (`*.md`, `docs/**`) names this in-scope path."""
        wanted = GlobSet(tuple(g for g in self.globs.include if targets_documentation(g)))
        return bool(wanted.include) and any(wanted.names(form) for form in self._forms(path))

    def _forms(self, path: str) -> tuple[str, ...]:
        """A path as globs are tried against it: relative to the scope's folder, then to the root; for a nested
        root, only as seen from the searched folder (an exclude written from there must hold)."""
        if self.mount:
            return (f"{self.mount}/{path}",)
        return (path[len(self.prefix) + 1 :], path) if self.prefix else (path,)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A shortlisted snippet and where it came from."""

    index: RootIndex
    snippet: Snippet
    score: float
    """The fused score the shortlist ranked by."""
    unsaved: bool
    lexical: float = 0.0
    """Its BM25 score alone (0: it came in by meaning)."""
    cosine: float | None = None
    """Its cosine with the query, when it had a vector."""


@dataclass(frozen=True, slots=True)
class Shortlist:
    """The ranked candidates, and what the scope held."""

    candidates: list[Candidate]
    files: int
    skipped: Counter[SkipReason]
    snippets: int
    matched: int
    """Snippets with any lexical match; more than `len(candidates)` means the lexical side was cut."""
    dense_used: bool = False
    """Cosines took part in the ranking: some scope had an embedding index, a model, and embedded snippets."""
    embedded: int = 0
    """In-scope snippets whose cosine took part in the ranking."""
    documentation: int = 0
    """Snippets of prose documentation left out (`documentation=False`): counted in `files` (their files) but not
    in `snippets`, which are the snippets the shortlist chose from."""
    vectors: int = 0
    """In-scope snippets that had a vector: below `snippets`, background embedding is still under way."""

    @property
    def dense_coverage(self) -> float:
        """The share of in-scope snippets the semantic side saw; 0 when it was not used."""
        return self.embedded / self.snippets if self.dense_used and self.snippets else 0.0


def unreadable_warning(scopes: Sequence[Scope]) -> str | None:
    """What a result says when rg could not read some path in its scopes; such a result is not complete."""
    gaps = {str(s.index.root / p): m for s in scopes for p, m in s.unreadable().items()}
    if not gaps:
        return None
    paths, them = ("1 path", "it") if len(gaps) == 1 else (f"{len(gaps)} paths", "them")
    return f"{paths} could not be read, so no file under {them} was searched: {summary(gaps)}."


def fuse(lexical: Scores, cosines: Scores, weight: float = DENSE_WEIGHT) -> Scores:
    """`weight * z(cosine) + (1 - weight) * z(BM25)`, z-scores over the scope; no vector counts as an average cosine."""
    has = ~np.isnan(cosines)
    return (weight * np.where(has, _z(cosines, has), 0.0) + (1 - weight) * _z(lexical, None)).astype(np.float32)


def _z(values: Scores, where: npt.NDArray[np.bool_] | None) -> Scores:
    sample = values if where is None else values[where]
    if len(sample) == 0:
        return np.zeros_like(values)
    spread = float(sample.std())
    return (values - float(sample.mean())) / spread if spread > 0 else np.zeros_like(values)


SCOPES_KEPT = 16
"""Scopes whose snippets are kept per root (`_in_scope`); past that many the root's kept scopes start over. A
person searches a handful (the root, a folder, a glob or two); the bound keeps an agent trying glob after glob
from holding an array of every root's snippets for each."""


@dataclass(frozen=True, slots=True)
class _InScope:
    """What a scope holds of its root at one generation of the index."""

    docs: npt.NDArray[np.int64]
    unsaved: frozenset[int]
    """Those of `docs` that come from unsaved editor buffers."""
    files: int
    """In-scope files, documentation left out included."""
    left_out: int
    """Snippets of documentation left out."""
    skipped: Counter[SkipReason]
    """In-scope files skipped, by reason (read only)."""


_kept: dict[int, tuple[weakref.ref[RootIndex], int, dict[tuple[object, ...], _InScope]]] = {}
"""By root index (its id, checked through the weak reference): the generation its kept scopes were listed at, and
those scopes."""
_kept_lock = threading.Lock()


def _in_scope(scope: Scope, documentation: bool) -> _InScope:
    """The scope's snippets, listed once per generation of its index: listing walks every file of the root, the
    costliest part of a shortlist on a large root (bench/README.md has the figures), while a search changes nothing
    in it. The caller holds the index's lock, under which its generation moves."""
    index = scope.index
    key = (*scope.listing_key(), documentation)
    with _kept_lock:
        held = _kept.get(id(index))
        if held is None or held[0]() is not index or held[1] != index.generation:
            for gone in [k for k, (ref, _, _) in _kept.items() if ref() is None]:
                del _kept[gone]
            held = _kept[id(index)] = (weakref.ref(index), index.generation, {})
        found = held[2].get(key)
    if found is None:
        found = _list_scope(scope, documentation)
        with _kept_lock:
            if len(held[2]) >= SCOPES_KEPT:
                held[2].clear()
            held[2][key] = found
    return found


def _list_scope(scope: Scope, documentation: bool) -> _InScope:
    entries: list[FileEntry] = []
    skipped: Counter[SkipReason] = Counter()
    files = left_out = 0
    for path, entry in scope.index.files.items():
        if not scope.contains(path):
            continue
        files += 1
        if entry.skipped is not None:
            skipped[entry.skipped] += 1
        if not documentation and is_documentation(path) and not scope.asks_for(path):
            left_out += len(entry.docs)
        else:
            entries.append(entry)
    docs = np.fromiter((d for e in entries for d in e.docs), dtype=np.int64)
    docs.setflags(write=False)  # shared by every search of this generation
    unsaved = frozenset(d for e in entries if e.unsaved for d in e.docs)
    return _InScope(docs, unsaved, files, left_out, skipped)


def shortlist(
    scopes: Sequence[Scope],
    query: str,
    candidates: int,
    dense: Sequence[DenseIndex] = (),
    *,
    embed_missing: int | None = None,
    documentation: bool = True,
) -> Shortlist:
    """The best `candidates` snippets of all scopes for `query`, best first.

    `dense` holds the embedding indexes of the scopes' roots (matched by `index`); with none, or without a
    model, the ranking is BM25 alone. Up to `embed_missing` (default: all) of each scope's `candidates` best
    lexical candidates that lack a vector are embedded now (the costly part of a cold search); 0 never embeds.
    Until a scope's every snippet has a vector, its cosines are those of that pool alone (`_settled`).
    `documentation=False` leaves prose documentation files out (`discovery.documentation`), except those a
    scope's glob about documentation names (`Scope.asks_for`).
    """
    weights = query_weights(query)
    by_root = {id(d.index): d for d in dense}
    budget = embed_missing
    query_vector: Scores | None = None
    per_scope: list[_ScopeScores] = []
    files = snippets = matched = embedded = stored = left_out = 0
    skipped: Counter[SkipReason] = Counter()
    for scope in scopes:
        index = scope.index
        with index.lock:
            held = _in_scope(scope, documentation)
            docs, unsaved = held.docs, held.unsaved
            scores = index.bm25.scores(weights)[docs] if len(docs) else np.zeros(0, dtype=np.float32)
        files += held.files
        left_out += held.left_out
        skipped.update(held.skipped)
        snippets += len(docs)
        matched += int((scores > 0).sum())
        small = len(docs) <= candidates  # a scope this small is judged whole
        pool = np.arange(len(docs)) if small else _best(scores, scores > 0, candidates)
        cosines = None
        semantic = by_root.get(id(index))
        # With nothing stored and nothing to embed, no snippet could get a cosine: the model is not even loaded
        # (its imports and session cost a search that cannot use them).
        wanted = semantic is not None and len(docs) > 0 and (budget != 0 or semantic.holds_vectors())
        if semantic is not None and wanted and semantic.available():
            if query_vector is None:
                query_vector = semantic.query_vector(query)
            if budget is None or budget > 0:
                embedded_now = semantic.embed(docs[pool][:budget], readings=False)  # the judge reads the rest
                budget = None if budget is None else budget - embedded_now
            cosines = semantic.cosines(query_vector, docs)
            cosines, vectors_seen = _settled(cosines, pool)
            stored += vectors_seen
            embedded += 0 if cosines is None else int((~np.isnan(cosines)).sum())
        per_scope.append(_ScopeScores(index, docs, scores, cosines, unsaved, pool, small))
    dense_used = embedded > 0
    ranked: list[tuple[float, int, int]] = []  # (score, scope number, position in the scope)
    best_lexical: list[tuple[float, float, int, int]] = []  # (BM25 score, fused score, scope number, position)
    for number, scope_scores in enumerate(per_scope):
        lexical, cosines = scope_scores.lexical, scope_scores.cosines
        eligible = lexical > 0
        scores = lexical
        if dense_used:
            if cosines is not None:
                eligible |= ~np.isnan(cosines)
                scores = fuse(lexical, cosines)
            else:
                scores = fuse(lexical, np.full(len(lexical), np.nan, dtype=np.float32))
        small = scope_scores.small
        keep = np.argsort(-scores, kind="stable") if small else _best(scores, eligible, candidates)
        ranked.extend((float(scores[i]), number, int(i)) for i in keep)
        if dense_used and not small:  # the pool is the scope's best lexical matches, best first
            best_lexical.extend((float(lexical[i]), float(scores[i]), number, int(i)) for i in scope_scores.pool)
    ranked.sort(key=lambda item: -item[0])
    chosen: list[Candidate] = []
    for score, number, position in with_lexical_reserve(ranked, best_lexical, candidates):
        where = per_scope[number]
        doc = int(where.docs[position])
        snippet = where.index.snippets[doc]
        if snippet is not None:
            cosines = where.cosines
            cosine = None if cosines is None or np.isnan(cosines[position]) else float(cosines[position])
            lexical_score = float(where.lexical[position])
            chosen.append(Candidate(where.index, snippet, score, doc in where.unsaved, lexical_score, cosine))
    for semantic in dense:
        semantic.share(c.snippet for c in chosen if c.index is semantic.index)
    return Shortlist(chosen, files, skipped, snippets, matched, dense_used, embedded, left_out, stored)


@dataclass(frozen=True, slots=True)
class _ScopeScores:
    """One scope's snippets as the shortlist scored them."""

    index: RootIndex
    docs: npt.NDArray[np.int64]
    lexical: Scores
    cosines: Scores | None
    unsaved: frozenset[int]
    pool: npt.NDArray[np.int64]
    """Positions of its `candidates` best lexical matches, best first (all of a small scope): what a search
    embeds itself, and where the lexical reserve comes from."""
    small: bool
    """No more snippets than `candidates`: judged whole."""


def with_lexical_reserve(
    ranked: list[tuple[float, int, int]], best_lexical: list[tuple[float, float, int, int]], count: int
) -> list[tuple[float, int, int]]:
    """The first `count` places of the fused order `ranked`, its last `count // LEXICAL_RESERVE` given to the best
    word matches (`best_lexical`) it left out, if any."""
    if not best_lexical:
        return ranked[:count]
    head = ranked[: count - count // LEXICAL_RESERVE]
    taken = {(number, position) for _, number, position in head}
    extra = [(fused, number, position) for _, fused, number, position in sorted(best_lexical, key=lambda b: -b[0])]
    for score, number, position in extra + ranked[len(head) :]:
        if len(head) == count:
            break
        if (number, position) not in taken:
            head.append((score, number, position))
            taken.add((number, position))
    return head


def _settled(cosines: Scores, pool: npt.NDArray[np.int64]) -> tuple[Scores | None, int]:
    """The cosines a scope's ranking may use, and how many of its snippets had a vector.

    All of them once every snippet has a vector. Before that, only the lexical pool's (the best lexical
    candidates, which a search embeds itself), or none when some of the pool has no vector either: whatever
    else background embedding has reached would change the candidates, the z-scores and so the answer with how
    far it had got.
    """
    has = ~np.isnan(cosines)
    if has.all():
        return cosines, len(cosines)
    if not has[pool].all():
        return None, int(has.sum())
    settled = np.full(len(cosines), np.nan, dtype=np.float32)
    settled[pool] = cosines[pool]
    return settled, int(has.sum())


def _best(scores: Scores, eligible: npt.NDArray[np.bool_], count: int) -> npt.NDArray[np.int64]:
    """Positions of the `count` best eligible scores, best first."""
    positions = np.flatnonzero(eligible)
    return positions[np.argsort(-scores[positions], kind="stable")[:count]]
