"""The package's import graph: no cycle between modules, and the pipeline's layers import only downwards.

The graph is read with `ast` from every module of `smartsearch_ls/`, every import counted wherever it stands
(module level, inside a function, under `TYPE_CHECKING`): a cycle dodged by a late import is still a cycle a
reader has to hold in their head. `from package import name` counts as an import of `package.name` when that
is a module, else of `package`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "smartsearch_ls"
NAME = PACKAGE.name

LOWER_LAYERS = ("chunking", "discovery", "embedding", "index")
"""The pipeline's steps below the search: they know nothing of the search, the server or the command line."""

FRONT_ENDS = ("search", "server", "cli", "folder_search", "mcp_server")
"""What the lower layers must not import (the search itself, and the front ends: the language server, the command
line, and the MCP server with the folder search it shares with the command line)."""

LAUNCHERS = {f"{NAME}.__main__"}
"""`python -m smartsearch_ls`: only starts the server, so it may import it; nothing of the engine is here."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports, anywhere in its file."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against this module's package
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source for alias in node.names
            ]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def in_layer(module: str, layer: str) -> bool:
    prefix = f"{NAME}.{layer}"
    return module == prefix or module.startswith(prefix + ".")


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_the_graph_sees_function_level_relative_and_type_only_imports(tmp_path: Path) -> None:
    """The reader itself: otherwise a passing layout test could mean it read nothing."""
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.sub", "pkg.sub.d"}
    source = tmp_path / "pkg" / "sub" / "__init__.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from pkg import a\n"
        "from .. import b as bee\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.c import Thing\n"
        "def late():\n"
        "    from .d import value\n"
        "    import os\n"
    )
    assert imports_of("pkg.sub", source, known) == {"pkg.a", "pkg.b", "pkg.c", "pkg.sub.d"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_is_read() -> None:
    edges = graph()
    assert f"{NAME}.search.engine" in edges and f"{NAME}.embedding.encoder" in edges
    assert f"{NAME}.embedding.encoder" in edges[f"{NAME}.index.dense"] or any(
        in_layer(target, "embedding") for target in edges[f"{NAME}.index.dense"]
    )


def test_no_import_cycle_between_modules() -> None:
    found = cycles(graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(group) for group in found)


@pytest.mark.parametrize("layer", LOWER_LAYERS)
def test_lower_layers_import_neither_the_search_nor_a_front_end(layer: str) -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        if in_layer(module, layer)
        for target in targets
        if any(in_layer(target, front) for front in FRONT_ENDS)
    )
    assert not wrong, "\n".join(wrong)


def test_the_index_and_the_embeddings_do_not_import_the_judge() -> None:
    """Embeddings serve the shortlist and the judge alike, from below both: the index reaches them directly."""
    edges = graph()
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in edges.items()
        if in_layer(module, "index") or in_layer(module, "embedding")
        for target in targets
        if in_layer(target, "judge") or (in_layer(module, "embedding") and in_layer(target, "index"))
    )
    assert not wrong, "\n".join(wrong)


def test_the_engine_never_imports_the_server() -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        if not in_layer(module, "server") and module not in LAUNCHERS
        for target in targets
        if in_layer(target, "server")
    )
    assert not wrong, "\n".join(wrong)


def test_only_the_command_line_starts_the_mcp_server_and_only_it_imports_the_sdk() -> None:
    """The MCP face sits on top of the engine: `smartsearch mcp` imports it, nothing else does, and the SDK (an
    optional extra) is imported by it alone."""
    edges = graph()
    importers = sorted(module for module, targets in edges.items() if f"{NAME}.mcp_server" in targets)
    assert importers == [f"{NAME}.cli"]
    sdk = sorted(
        name
        for name, path in modules().items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        and any(
            module.partition(".")[0] in ("mcp", "mcp_types")
            for module in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
        )
        and not (isinstance(node, ast.ImportFrom) and node.level)
    )
    assert set(sdk) == {f"{NAME}.mcp_server"}
