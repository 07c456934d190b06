"""`expandRelated`: follow imports from what a search found to the files a reader opens next.

Two ways: the query's names are followed from every import of them to their declarations (through
re-exports: `__init__.py`, `export * from`), and the best files are followed to the files they import and
the files that import them. An import that leads nowhere is reported in the coverage (`unresolved_imports`)
rather than dropped, so that a gap in what was followed is visible.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.search.excerpt import match_at
from smartsearch_ls.search.merge import overlaps
from smartsearch_ls.search.openable import FileCandidate, UnresolvedImport
from smartsearch_ls.search.result import Match, SearchResult
from smartsearch_ls.search.routing import Plan
from smartsearch_ls.search.symbols.imports import ImportRef
from smartsearch_ls.search.symbols.index import SymbolIndex, symbol_index

if TYPE_CHECKING:
    from smartsearch_ls.search.request import SearchRequest

MAX_HOPS = 5
"""Re-exports followed from an import to the declaration (`__init__.py`, `export * from`)."""


def expand_related(request: SearchRequest, shape: Plan, result: SearchResult) -> SearchResult:
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
        if len(matches) < request.limit and not any(overlaps(match, m) for m in matches):
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
    for declaration in symbols.declarations_named(target, name):
        if declaration.qualified_name == name:
            return declaration, None
    onward = [r for r in symbols.imports_of(target) if any(imported == name for imported, _ in r.names)]
    onward += [r for r in symbols.imports_of(target) if r.reexport and any(i == "*" for i, _ in r.names)]
    for next_ref in onward:
        found, _ = _follow(symbols, next_ref, name, seen)
        if found is not None:
            return found, None
    return None, "missing"
