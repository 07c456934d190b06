"""Query shapes and intents: which look-ups and searches a request runs, and how their hits are merged.

`search()` in the engine hands every request here. Identifier-, path- and prose-shaped queries (see
`routing`), the `intent` (`definition`, `references`, `tests`, `file`), `context` words that re-rank and
never widen, `expandRelated` (follow imports), the openable `candidates` and the coverage that tells
"searched everything, found nothing" from "did not look" are all decided in this module. The judged search
itself stays in the engine and is passed in as `behavior`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from smartsearch_ls.chunking.snippet import Declaration, split_lines
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.index.terms import query_weights, text_terms
from smartsearch_ls.judge.runner import JudgeConfig, Judged, JudgmentCache
from smartsearch_ls.search.excerpt import EXCERPT_LINES
from smartsearch_ls.search.imports import ImportRef
from smartsearch_ls.search.lookup import find_paths, match_at
from smartsearch_ls.search.openable import FileCandidate, UnresolvedImport
from smartsearch_ls.search.references import RELEVANCE, Reference, find_references
from smartsearch_ls.search.result import Coverage, Match, Mode, SearchResult, kind_of
from smartsearch_ls.search.routing import Plan, identifiers_in, plan
from smartsearch_ls.search.symbols import (
    SymbolHit,
    SymbolIndex,
    declaration_terms,
    find_symbols,
    name_tokens,
    symbol_index,
)

if TYPE_CHECKING:
    from smartsearch_ls.search.engine import SearchRequest

Behavior = Callable[["SearchRequest", JudgeConfig, JudgmentCache, "Judged | None", list[str]], Awaitable[SearchResult]]

CONTEXT_WEIGHT = 0.25
"""How much full context agreement adds to a judged, path or reference hit's relevance when re-ranking."""

MAX_HOPS = 5
"""Re-exports followed from an import to the declaration (`__init__.py`, `export * from`)."""


@dataclass(frozen=True, slots=True)
class _Context:
    weights: dict[str, float]
    total: float

    @classmethod
    def of(cls, text: str | None) -> _Context | None:
        weights = query_weights(text) if text else {}
        total = sum(w for w in weights.values() if w >= 1.0)
        return cls(weights, total) if total else None

    def score(self, terms: set[str] | dict[str, int]) -> float:
        return min(sum(w for t, w in self.weights.items() if t in terms) / self.total, 1.0)


# -- entry point ----------------------------------------------------------------------------------------


async def run(
    request: SearchRequest,
    judge: JudgeConfig | None,
    cache: JudgmentCache,
    on_judged: Judged | None,
    warnings: list[str],
    behavior: Behavior,
) -> SearchResult:
    """Route by shape (or the forced `mode`), apply the intent, merge, re-rank by context, list candidates."""
    shape = _plan(request)
    context = _Context.of(request.context)
    if shape.mode == "path":
        result = await asyncio.to_thread(_path_search, request, shape, context, warnings)
    elif shape.mode == "symbol":
        result = await asyncio.to_thread(_symbol_search, request, shape, context, warnings)
    else:
        result = await _prose_search(request, shape, context, judge, cache, on_judged, warnings, behavior)
    if request.expand_related:
        result = await asyncio.to_thread(_expand, request, shape, result)
    return replace(result, intent=request.intent)


def _plan(request: SearchRequest) -> Plan:
    if request.mode is None:
        return plan(request.query)
    if request.mode == "symbol":
        return Plan("symbol", (request.query.strip(),))
    if request.mode == "behavior":
        return Plan("behavior", identifiers_in(request.query) if request.intent else ())
    return Plan(request.mode)


# -- symbol-shaped ----------------------------------------------------------------------------------------


def _symbol_search(request: SearchRequest, shape: Plan, context: _Context | None, warnings: list[str]) -> SearchResult:
    name = shape.identifiers[0]
    files, snippets = _scope_counts(request.scopes)
    if request.intent == "references":
        matches, scanned, complete = _reference_matches(request, name, context, tests_only=False)
        coverage = _coverage(request, files, snippets, ("references",), (name,), complete, scanned=scanned)
        if not matches:
            warnings.append(f"No use of {name!r} was found in {files} files (a lexical scan of {scanned} snippets).")
        return _result(request, matches, coverage, warnings, "symbol")
    if request.intent == "tests":
        matches, scanned, complete, symbols = _test_matches(request, name, context)
        coverage = _coverage(request, files, snippets, ("symbol", "tests"), (name,), complete, symbols, scanned)
        if not matches:
            warnings.append(f"No test file uses or is named after {name!r} ({files} files searched).")
        return _result(request, matches, coverage, warnings, "symbol")
    hits, _, symbols = find_symbols(
        request.scopes, name, 100 if request.intent == "file" else request.limit, context=_decl_context(context)
    )
    matches = [m for h in hits if (m := _declaration_match(h)) is not None]
    searches: tuple[str, ...] = ("symbol",)
    if request.intent == "file":
        refs, scanned, _ = _reference_matches(request, name, context, tests_only=False)
        matches = sorted(_one_per_file([*matches, *refs]), key=lambda m: m.kind is not None)
        searches = ("symbol", "references")
    coverage = _coverage(request, files, snippets, searches, (name,), True, symbols)
    if not matches:
        warnings.append(
            f"No declaration is named like {name!r} among {symbols} declarations in {files} files; "
            "try a behavior search in plain words."
        )
    return _result(request, matches, coverage, warnings, "symbol")


def _decl_context(context: _Context | None) -> Callable[[RootIndex, Declaration], float] | None:
    if context is None:
        return None
    return lambda index, declaration: context.score(declaration_terms(index, declaration))


def _declaration_match(hit: SymbolHit) -> Match | None:
    d = hit.declaration
    match = match_at(hit.index, d.path, d.start_line, d.end_line, d.qualified_name, hit.score)
    return replace(match, source="declaration") if match is not None else None


def _reference_matches(
    request: SearchRequest, name: str, context: _Context | None, *, tests_only: bool
) -> tuple[list[Match], int, bool]:
    found = find_references(request.scopes, name, tests_only=tests_only)
    references = found.found
    if context is not None:
        per_file: dict[str, float] = {}
        for ref in references:
            key = f"{ref.index.root}/{ref.path}"
            terms = set(text_terms(ref.path)) | set(text_terms(ref.snippet.text))
            per_file[key] = max(per_file.get(key, 0.0), context.score(terms))
        order = {key: i for i, key in enumerate(dict.fromkeys(f"{r.index.root}/{r.path}" for r in references))}
        references = sorted(
            references,
            key=lambda r: (
                kind_of(r.path) is not None and not tests_only,
                -per_file[f"{r.index.root}/{r.path}"],
                order[f"{r.index.root}/{r.path}"],
                r.line,
            ),
        )
    return [_reference_match(r) for r in references], found.scanned, found.complete


def _reference_match(ref: Reference) -> Match:
    return Match(
        root=ref.index.root,
        path=ref.path,
        start_line=ref.line,
        end_line=ref.line,
        snippet_start_line=ref.snippet.start_line,
        snippet_end_line=ref.snippet.end_line,
        symbol=ref.snippet.symbol,
        kind=kind_of(ref.path),
        relevance=RELEVANCE[ref.kind],
        excerpt=ref.text,
        unsaved=ref.unsaved,
        source="import" if ref.kind == "import" else "reference",
    )


def _test_matches(request: SearchRequest, name: str, context: _Context | None) -> tuple[list[Match], int, bool, int]:
    """Tests named after the symbol first, then test snippets that use it, one match per test snippet."""
    tokens = set(name_tokens(name.rpartition(".")[2]))
    hits, _, symbols = find_symbols(request.scopes, name, 100, tests_first=True, context=_decl_context(context))
    named = [
        m
        for h in hits
        if kind_of(h.declaration.path) and h.tier <= 4 and tokens <= set(name_tokens(h.declaration.name))
        if (m := _declaration_match(h)) is not None
    ]
    named = [replace(m, source="declaration") for m in named]
    found = find_references(request.scopes, name, tests_only=True)
    per_snippet: dict[tuple[str, str, int], list[Reference]] = {}
    for ref in found.found:
        per_snippet.setdefault((str(ref.index.root), ref.path, ref.snippet.start_line), []).append(ref)
    using: list[tuple[float, Match]] = []
    for refs in per_snippet.values():
        first, snippet = refs[0], refs[0].snippet
        start = snippet.start_line if first.line - snippet.start_line < EXCERPT_LINES else first.line - 2
        end = min(snippet.end_line, start + EXCERPT_LINES - 1)
        lines = split_lines(snippet.text)[start - snippet.start_line : end - snippet.start_line + 1]
        ctx = context.score(set(text_terms(snippet.text)) | set(text_terms(first.path))) if context else 0.0
        match = Match(
            root=first.index.root,
            path=first.path,
            start_line=start,
            end_line=start + max(len(lines), 1) - 1,
            snippet_start_line=snippet.start_line,
            snippet_end_line=snippet.end_line,
            symbol=snippet.symbol,
            kind=kind_of(first.path),
            relevance=round(min(0.6 + 0.1 * len(refs), 0.9), 3),
            excerpt="\n".join(lines),
            unsaved=first.unsaved,
            source="reference",
        )
        if not any(_overlaps(match, m) for m in named):
            using.append((ctx, match))
    using.sort(key=lambda item: -item[0])
    return [*named, *(m for _, m in using)], found.scanned, found.complete, symbols


# -- path-shaped --------------------------------------------------------------------------------------------


def _path_search(request: SearchRequest, shape: Plan, context: _Context | None, warnings: list[str]) -> SearchResult:
    files, snippets = _scope_counts(request.scopes)
    found = find_paths(request.scopes, request.query)
    scored: list[tuple[float, Match]] = []
    for scope, path, score in found:
        first = min(
            (s.start_line for _, e in scope.index.entries([path]) for d in e.docs if (s := scope.index.snippets[d])),
            default=1,
        )
        match = match_at(scope.index, path, first, first + 11, None, score)
        if match is not None:
            ctx = context.score(set(text_terms(path)) | set(text_terms(match.excerpt))) if context else 0.0
            scored.append((score + CONTEXT_WEIGHT * ctx, replace(match, source="path")))
    scored.sort(key=lambda item: -item[0])
    matches = [m for _, m in scored]
    searches: tuple[str, ...] = ("path",)
    if request.intent in ("references", "tests") and matches:
        best = [m for m in matches if m.relevance == matches[0].relevance]
        importers = _importer_matches(request.scopes, best, tests_only=request.intent == "tests")
        if request.intent == "tests":
            importers = _dedupe([*importers, *_tests_named_after(request, best)])
        matches = importers
        searches = ("path", request.intent)
    coverage = _coverage(request, files, snippets, searches, (), True)
    if not matches:
        what = {"references": "imports", "tests": "tests of"}.get(request.intent or "", "")
        warnings.append(
            f"No indexed file {what + ' ' if what else ''}matches {request.query!r} ({files} files searched)."
            if what
            else f"No indexed file path matches {request.query!r} ({files} files searched)."
        )
    return _result(request, matches, coverage, warnings, "path")


def _importer_matches(scopes: Sequence[Scope], targets: Sequence[Match], *, tests_only: bool) -> list[Match]:
    """The import statements, anywhere in the target's root, that lead to one of the target files."""
    found: list[Match] = []
    for target in targets:
        index = next((s.index for s in scopes if s.index.root == target.root), None)
        if index is None:
            continue
        symbols = symbol_index(index)
        graph = symbols.graph()
        for path, edges in sorted(graph.edges.items()):
            if target.path not in edges or (tests_only and not kind_of(path)):
                continue
            for ref in symbols.imports_of(path):
                names = [n for n, _ in ref.names] if ref.language == "python" and ref.names else [None]
                if any(symbols.resolve(ref, n).target == target.path for n in names):
                    match = _line_match(index, path, ref.start_line, ref.end_line, "import", 0.9)
                    if match is not None:
                        found.append(match)
                    break
    found.sort(key=lambda m: (kind_of(m.path) is not None and not tests_only, m.path))
    return found


def _tests_named_after(request: SearchRequest, targets: Sequence[Match]) -> list[Match]:
    stems = {t.path.rsplit("/", 1)[-1].split(".", 1)[0].removeprefix("test_") for t in targets}
    found: list[Match] = []
    for scope, path, _ in ((s, p, 0.0) for s in request.scopes for p, _e in s.index.entries() if s.contains(p)):
        if not kind_of(path):
            continue
        base = path.rsplit("/", 1)[-1].split(".", 1)[0]
        if base.removeprefix("test_").removesuffix("_test") in stems:
            match = match_at(scope.index, path, 1, 12, None, 0.8)
            if match is not None:
                found.append(replace(match, source="path"))
    return found


def _line_match(index: RootIndex, path: str, start: int, end: int, source: str, score: float) -> Match | None:
    match = match_at(index, path, start, end, None, score)
    if match is None:
        return None
    symbols = symbol_index(index)
    holder = next((s for s in symbols.snippets_of(path) if s.start_line <= start <= s.end_line), None)
    return replace(
        match,
        source=source,
        symbol=holder.symbol if holder else None,
        snippet_start_line=holder.start_line if holder else match.snippet_start_line,
        snippet_end_line=holder.end_line if holder else match.snippet_end_line,
    )


# -- prose-shaped ----------------------------------------------------------------------------------------------


async def _prose_search(
    request: SearchRequest,
    shape: Plan,
    context: _Context | None,
    judge: JudgeConfig | None,
    cache: JudgmentCache,
    on_judged: Judged | None,
    warnings: list[str],
    behavior: Behavior,
) -> SearchResult:
    """Symbol (or reference) hits of the names in the sentence first, then the judged search."""
    intent = request.intent
    if judge is None and not shape.identifiers:
        raise ValueError("a behavior search needs a judge")
    first: list[Match] = []
    searches: list[str] = []
    symbols = scanned = 0
    complete_lookup = True
    if shape.identifiers:
        for name in shape.identifiers:
            if intent == "references":
                found, n, ok = await asyncio.to_thread(_reference_matches, request, name, context, tests_only=False)
                scanned += n
                complete_lookup &= ok
                first.extend(found)
            elif intent == "tests":
                found, n, ok, s = await asyncio.to_thread(_test_matches, request, name, context)
                scanned, symbols = scanned + n, symbols + s
                complete_lookup &= ok
                first.extend(found)
            else:
                hits, _, s = await asyncio.to_thread(
                    find_symbols, request.scopes, name, request.limit, context=_decl_context(context), max_tier=2
                )
                symbols += s
                first.extend(m for h in hits if (m := _declaration_match(h)) is not None)
        searches.append(intent if intent in ("references", "tests") else "symbol")
    first = _dedupe(first)
    room = request.limit if intent in ("definition", "references", "tests") else math.ceil(request.limit / 2)
    shown_first = first[:room]
    scopes = request.scopes
    if intent == "tests":
        scopes = [_TestScope(s.index, s.prefix, s.globs) for s in scopes]
    widened = min(100, max(request.limit * 3, 30)) if context is not None or intent else request.limit
    judged_request = replace(request, scopes=scopes, limit=widened, mode="behavior", intent=None, context=None)
    if judge is None:
        warnings.append("No judge is configured, so only the names in the query were looked up.")
        files, snippets = _scope_counts(request.scopes)
        base = SearchResult([], 0, Coverage(files=files, snippets=snippets, complete=False), warnings, "behavior", None)
    else:
        base = await behavior(judged_request, judge, cache, on_judged, warnings)
        searches.append("behavior")
    judged = [replace(m, source="judged") for m in base.matches]
    omitted = base.omitted_matches
    if context is not None:
        scored = [(m.relevance + CONTEXT_WEIGHT * context.score(_match_terms(m)), m) for m in judged]
        judged = [m for _, m in sorted(scored, key=lambda item: -item[0])]
    if intent == "definition":
        judged = sorted(judged, key=lambda m: m.symbol is None)
    if intent == "file":
        judged = _one_per_file([*shown_first, *judged])[len(_one_per_file(shown_first)) :]
        shown_first = _one_per_file(shown_first)
    judged = [m for m in judged if not any(_same_place(m, f) for f in shown_first)]
    everything = [*shown_first, *judged]
    matches = everything[: request.limit]
    omitted += len(everything) - len(matches) + len(first) - len(shown_first)
    coverage = replace(
        base.coverage,
        roots=_roots(request.scopes),
        symbols=symbols,
        searches=tuple(searches),
        identifiers=shape.identifiers,
        reference_snippets=scanned,
        complete=base.coverage.complete and complete_lookup,
    )
    candidates = _candidates([*first, *judged], request.limit)
    return SearchResult(matches, omitted, coverage, base.warnings, "behavior", base.judge, candidates)


@dataclass(frozen=True, slots=True)
class _TestScope(Scope):
    """A scope narrowed to test files (the `tests` intent of a prose query)."""

    def contains(self, path: str) -> bool:
        return kind_of(path) is not None and Scope.contains(self, path)


def _match_terms(match: Match) -> set[str]:
    return set(text_terms(match.path)) | set(text_terms(match.symbol or "")) | set(text_terms(match.excerpt))


def _same_place(a: Match, b: Match) -> bool:
    return a.root == b.root and a.path == b.path and (a.start_line, a.end_line) == (b.start_line, b.end_line)


def _overlaps(a: Match, b: Match) -> bool:
    return (
        a.root == b.root
        and a.path == b.path
        and a.snippet_start_line <= b.snippet_end_line
        and b.snippet_start_line <= a.snippet_end_line
    )


def _dedupe(matches: list[Match]) -> list[Match]:
    seen: set[tuple[object, str, int]] = set()
    kept = []
    for match in matches:
        key = (match.root, match.path, match.start_line)
        if key not in seen:
            seen.add(key)
            kept.append(match)
    return kept


def _one_per_file(matches: list[Match]) -> list[Match]:
    seen: set[tuple[object, str]] = set()
    kept = []
    for match in matches:
        if (match.root, match.path) not in seen:
            seen.add((match.root, match.path))
            kept.append(match)
    return kept


# -- related files ---------------------------------------------------------------------------------------------


def _expand(request: SearchRequest, shape: Plan, result: SearchResult) -> SearchResult:
    """Follow imports: of the query's names to their declarations, and of the best files to their neighbours."""
    related: list[FileCandidate] = []
    unresolved: dict[tuple[str, str, int, str], UnresolvedImport] = {}
    extra: list[Match] = []
    indexes = list({id(s.index): s.index for s in request.scopes}.values())
    names = [i.rpartition(".")[2] for i in shape.identifiers] if shape.mode != "path" else []
    for index in indexes:
        symbols = symbol_index(index)
        graph = symbols.graph()
        for name in names:
            leads: dict[tuple[str, int], list[str]] = {}
            for path in sorted(symbols.files):
                for ref in symbols.imports_of(path):
                    imported = _imported_name(ref, name)
                    if imported is None:
                        continue
                    declaration, reason = _follow(symbols, ref, imported)
                    if declaration is None:
                        unresolved[(str(index.root), path, ref.start_line, ref.specifier)] = UnresolvedImport(
                            index.root, path, ref.start_line, ref.specifier, name, reason or "missing"
                        )
                        continue
                    leads.setdefault((declaration.path, declaration.start_line), []).append(path)
                    if not any(m.path == declaration.path and m.start_line == declaration.start_line for m in extra):
                        match = match_at(
                            index, declaration.path, declaration.start_line, declaration.end_line,
                            declaration.qualified_name, 1.0,
                        )  # fmt: skip
                        if match is not None:
                            extra.append(replace(match, source="related"))
            for (path, _), importers in leads.items():
                shown = ", ".join(importers[:3]) + (f" (+{len(importers) - 3})" if len(importers) > 3 else "")
                related.append(FileCandidate(index.root, path, f"defines {name}, imported by {shown}"))
        tops = [c for c in result.candidates if c.root == index.root][:3]
        for top in tops:
            for target in sorted(graph.edges.get(top.path, ())):
                related.append(FileCandidate(index.root, target, f"imported by {top.path}"))
            for path, edges in sorted(graph.edges.items()):
                if top.path in edges:
                    related.append(FileCandidate(index.root, path, f"imports {top.path}"))
            for ref in symbols.imports_of(top.path):
                resolution = symbols.resolve(ref)
                if resolution.target is None and resolution.reason == "missing":
                    if (
                        ref.language == "python"
                        and ref.names
                        and any(symbols.resolve(ref, n).target for n, _ in ref.names)
                    ):
                        continue
                    unresolved[(str(index.root), top.path, ref.start_line, ref.specifier)] = UnresolvedImport(
                        index.root, top.path, ref.start_line, ref.specifier, None, "missing"
                    )
    seen_files = {(c.root, c.path) for c in result.candidates}
    related_files: list[FileCandidate] = []
    for candidate in related:
        if (candidate.root, candidate.path) not in {(c.root, c.path) for c in related_files}:
            related_files.append(candidate)
    related_files = related_files[: request.limit]
    matches = list(result.matches)
    for match in extra:
        if len(matches) < request.limit and not any(_overlaps(match, m) for m in matches):
            matches.append(match)
    candidates = list(result.candidates)
    for candidate in related_files:
        if len(candidates) >= request.limit:
            break
        if (candidate.root, candidate.path) not in seen_files:
            candidates.append(candidate)
            seen_files.add((candidate.root, candidate.path))
    coverage = replace(
        result.coverage,
        searches=(*result.coverage.searches, "related"),
        unresolved_imports=tuple(unresolved.values()),
    )
    return replace(result, matches=matches, candidates=candidates, related=related_files, coverage=coverage)


def _imported_name(ref: ImportRef, name: str) -> str | None:
    """The name `ref` imports that the query names (by its imported or its local name), if any.

    A plain Python `import a.b` imports the module itself: it counts when `b` (or `a`) is the name, and
    is followed to the module's file (returned as `""`).
    """
    for imported, local in ref.names:
        if name in (imported, local) and imported != "*":
            return imported if ref.language == "js" or "." not in imported else ""
    if (
        ref.language == "python"
        and not ref.names
        and name in (ref.specifier.split(".")[-1], ref.specifier.split(".")[0])
    ):
        return ""
    return None


def _follow(
    symbols: SymbolIndex, ref: ImportRef, name: str, seen: set[str] | None = None
) -> tuple[Declaration | None, str | None]:
    """The declaration an import of `name` leads to, through re-exports; or why it leads nowhere.

    `name` is `""` for an import of a module itself. Re-exports are followed depth first, a named re-export
    (`from .x import name`, `export { name } from`) before a star (`export * from`), at most `MAX_HOPS` deep.
    """
    seen = seen if seen is not None else set()
    module_import = name == "" or (ref.language == "python" and not ref.names)
    resolution = symbols.resolve(ref, None if ref.language == "js" or module_import else name)
    if resolution.target is None:
        return None, resolution.reason
    target = resolution.target
    if target in seen or len(seen) >= MAX_HOPS:
        return None, "missing"
    seen.add(target)
    stem = target.rsplit("/", 1)[-1].split(".")[0]
    if module_import or name == "default" or stem == name or (stem == "__init__" and target.split("/")[-2] == name):
        return Declaration(name or stem, name or stem, "module", target, 1, 1, 1, 0), None
    declared = symbols.files.get(target)
    if declared is not None:
        for declaration in declared.declarations:
            if declaration.name == name and declaration.qualified_name == name:
                return declaration, None
    onward = [r for r in symbols.imports_of(target) if any(imported == name for imported, _ in r.names)]
    onward += [r for r in symbols.imports_of(target) if r.reexport and any(i == "*" for i, _ in r.names)]
    for next_ref in onward:
        found, _ = _follow(symbols, next_ref, name, seen)
        if found is not None:
            return found, None
    return None, "missing"


# -- shared ---------------------------------------------------------------------------------------------------


def _scope_counts(scopes: Sequence[Scope]) -> tuple[int, int]:
    files = snippets = 0
    for scope in scopes:
        for path, entry in scope.index.entries():
            if scope.contains(path):
                files += 1
                snippets += len(entry.docs)
    return files, snippets


def _roots(scopes: Sequence[Scope]) -> tuple[str, ...]:
    return tuple(str(s.index.root / s.prefix) if s.prefix else str(s.index.root) for s in scopes)


def _coverage(
    request: SearchRequest,
    files: int,
    snippets: int,
    searches: tuple[str, ...],
    identifiers: tuple[str, ...],
    complete: bool,
    symbols: int = 0,
    scanned: int = 0,
) -> Coverage:
    skipped: dict[str, int] = {}
    for scope in request.scopes:
        for path, entry in scope.index.entries():
            if entry.skipped is not None and scope.contains(path):
                skipped[str(entry.skipped)] = skipped.get(str(entry.skipped), 0) + 1
    return Coverage(
        files=files,
        skipped_files=sum(skipped.values()),
        snippets=snippets,
        complete=complete,
        skipped_by_reason=dict(sorted(skipped.items())),
        roots=_roots(request.scopes),
        symbols=symbols,
        searches=searches,
        identifiers=identifiers,
        reference_snippets=scanned,
    )


def _result(
    request: SearchRequest, ordered: list[Match], coverage: Coverage, warnings: list[str], mode: Mode
) -> SearchResult:
    if request.intent == "file":
        ordered = _one_per_file(ordered)
    matches = ordered[: request.limit]
    if any(m.unsaved for m in matches):
        warnings.append("Some matches come from unsaved editor buffers; their lines may differ from the files on disk.")
    return SearchResult(
        matches, len(ordered) - len(matches), coverage, warnings, mode, None, _candidates(ordered, request.limit)
    )


def _candidates(ordered: Sequence[Match], limit: int) -> list[FileCandidate]:
    """Distinct files in hit order, each with why it is worth opening."""
    reasons: dict[tuple[object, str], list[Match]] = {}
    for match in ordered:
        found = reasons.get((match.root, match.path))
        if found is None:
            if len(reasons) >= limit:
                continue
            found = reasons[(match.root, match.path)] = []
        found.append(match)
    return [FileCandidate(root, path, _reason(ms)) for (root, path), ms in reasons.items()]  # type: ignore[arg-type]


def _reason(matches: list[Match]) -> str:
    first = matches[0]
    if first.source == "declaration":
        return f"declares {first.symbol}"
    if first.source in ("reference", "import"):
        imports = sum(1 for m in matches if m.source == "import")
        uses = len(matches) - imports
        parts = [f"{imports} import{'s' if imports != 1 else ''}"] if imports else []
        parts += [f"{uses} use{'s' if uses != 1 else ''}"] if uses else []
        return " and ".join(parts)
    if first.source == "judged":
        return f"judged relevant {first.relevance:g}" + (f" ({first.symbol})" if first.symbol else "")
    if first.source == "path":
        return "path matches"
    return first.source or "match"
