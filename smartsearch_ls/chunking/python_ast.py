"""The outline of a Python file, from the standard `ast` module.

`ast` is exact and ships with Python, at the price of building a full tree of Python objects (roughly
the same speed as tree-sitter-python plus a walk on this machine, see the package tests and report).
Only statement lists are walked, never expressions, so declarations inside lambdas or comprehensions
do not exist here, and a file written for a newer Python than the one running fails to parse (the
caller then falls back to windows).

Line numbers: for text given as `str`, CPython's tokenizer ends lines at `\\n`, `\\r\\n` and a lone
`\\r` and treats form feeds and U+2028 as ordinary characters, exactly as editors do (the tests pin
this). Columns from `ast` are UTF-8 byte offsets and are converted to characters here.

Declarations: classes, functions, methods (functions whose nearest enclosing declaration is a class),
module-level assignments (`constant` when the name is UPPER_CASE, else `variable`) and class-level
assignments (`field`). Names are dotted through enclosing declarations: `Cache.get`, `outer.inner`.
Module-level code between declarations gets no symbol.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

from smartsearch_ls.chunking.blocks import Block, Outline
from smartsearch_ls.chunking.snippet import Declaration

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_ASSIGNS = (ast.Assign, ast.AnnAssign)
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
    ast.ExceptHandler,
    ast.match_case,
)
"""The nodes that hold more statements (besides defs); the only ones the declaration walk enters."""
_NESTED = ("body", "handlers", "orelse", "finalbody", "cases")
"""The fields of compound statements that hold more statements."""
_NAME_AFTER_KEYWORD = re.compile(r"(?:async\s+)?(?:def|class)\s+(\w+)")


def outline(path: str, text: str, lines: Sequence[str]) -> Outline:
    """Parse `text` (raises on anything `ast` rejects) and describe its declarations and blocks."""
    module = ast.parse(text)
    declarations: list[Declaration] = []
    _declare(module.body, None, "module", path, lines, declarations)

    def children(block: Block) -> list[Block]:
        node, scope, in_class = block.node  # type: ignore[misc]
        if block.symbol is not None:
            return _blocks(node.body, block.symbol, isinstance(node, ast.ClassDef), lines, node.lineno)
        return _blocks(list(_statements(node)), scope, in_class, lines, block.start)

    return Outline(_blocks(module.body, None, False, lines, 0), children, declarations)


def _blocks(
    statements: Sequence[ast.AST], scope: str | None, in_class: bool, lines: Sequence[str], floor: int
) -> list[Block]:
    """One block per statement; a def or class starts at its decorators and the comments just above."""
    blocks: list[Block] = []
    for node in statements:
        start, end = _span(node)
        if isinstance(node, _DEFS):
            symbol = f"{scope}.{node.name}" if scope else node.name
            while start - 1 > floor and lines[start - 2].lstrip().startswith("#"):
                start -= 1
            blocks.append(Block(start, end, symbol, (node, symbol, in_class)))
        else:
            blocks.append(Block(start, end, None, (node, scope, in_class)))
        floor = end
    return blocks


def _declare(
    statements: Sequence[ast.AST],
    scope: str | None,
    context: str,
    path: str,
    lines: Sequence[str],
    out: list[Declaration],
) -> None:
    """Append the declarations in `statements`; `context` is module, class or function."""
    for node in statements:
        if isinstance(node, _DEFS):
            qualified = f"{scope}.{node.name}" if scope else node.name
            if isinstance(node, ast.ClassDef):
                kind, inner = "class", "class"
            else:
                kind, inner = ("method" if context == "class" else "function"), "function"
            line = lines[node.lineno - 1]
            column = _chars(line, node.col_offset)
            match = _NAME_AFTER_KEYWORD.match(line, column)
            if match is not None:
                column = match.start(1)
            start, end = _span(node)
            out.append(Declaration(node.name, qualified, kind, path, start, end, node.lineno, column))
            _declare(node.body, qualified, inner, path, lines, out)
        elif isinstance(node, _ASSIGNS):
            if context != "function":
                _declare_assignment(node, scope, context, path, lines, out)
        elif isinstance(node, _COMPOUND):
            _declare(list(_statements(node)), scope, context, path, lines, out)


def _declare_assignment(
    node: ast.Assign | ast.AnnAssign,
    scope: str | None,
    context: str,
    path: str,
    lines: Sequence[str],
    out: list[Declaration],
) -> None:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        names = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
        for name in names:
            if not isinstance(name, ast.Name):
                continue
            kind = "field" if context == "class" else "constant" if name.id.isupper() else "variable"
            qualified = f"{scope}.{name.id}" if scope else name.id
            column = _chars(lines[name.lineno - 1], name.col_offset)
            out.append(
                Declaration(
                    name.id, qualified, kind, path, node.lineno, node.end_lineno or node.lineno, name.lineno, column
                )
            )


def _statements(node: ast.AST) -> Iterator[ast.AST]:
    """The statements (and except handlers / match cases) directly inside a compound statement.

    An `elif` is an `If` alone in the `orelse` of the one before: its branches are taken as siblings, so that a
    chain of a thousand, which nests a thousand deep without indenting, is walked in a loop rather than by
    recursing a thousand times (both the declaration walk and `pack` would hit the recursion limit). Other
    nesting is bounded by Python's 100 levels of indentation."""
    while isinstance(node, ast.If) and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        yield from node.body
        node = node.orelse[0]
    for field in _NESTED:
        yield from getattr(node, field, ())


def _span(node: ast.AST) -> tuple[int, int]:
    """First and last line of a statement, handler or match case, decorators included."""
    if isinstance(node, ast.match_case):
        return node.pattern.lineno, node.body[-1].end_lineno or node.pattern.lineno
    start: int = node.lineno  # type: ignore[attr-defined]
    end: int = node.end_lineno or start  # type: ignore[attr-defined]
    for decorator in getattr(node, "decorator_list", ()):
        start = min(start, decorator.lineno)
    return start, end


def _chars(line: str, byte_offset: int) -> int:
    """A UTF-8 byte offset into `line` as a character offset."""
    if line.isascii():
        return byte_offset
    return len(line.encode("utf-8", "surrogatepass")[:byte_offset].decode("utf-8", "ignore"))
