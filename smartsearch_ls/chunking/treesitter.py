"""The outline of a file in any language of `languages.LANGUAGES`, from tree-sitter.

Declarations come from one query per language run in C over the whole tree, so Python only touches the
matched nodes; the block walk then only looks at the top level and inside blocks too long for one
snippet. Parsers and compiled queries are built once per process and reused (both are costly to make).

Trade-offs: a tree with an ERROR node at the top level (or right under a top-level node) is refused,
so the caller falls back to windows, but errors deeper down are tolerated, so a half-typed function
still chunks. tree-sitter counts rows at `\\n` only, so a lone `\\r` is replaced by `\\n` before
parsing: same byte length, editor line numbers. Columns are converted from UTF-8 bytes to characters.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import tree_sitter

from smartsearch_ls.chunking.blocks import Block, Outline
from smartsearch_ls.chunking.languages import Pattern, TsLanguage
from smartsearch_ls.chunking.snippet import Declaration

_LONE_CR = re.compile(r"\r(?!\n)")
_QUALIFIER_NOISE = re.compile(r"[<\[(].*|[&*\s]|\bmut\b|'\w+", re.DOTALL)
"""Generics, pointers and references around a type name: `*Server`, `&'a mut Foo<T>`, `Box[T]`."""
_CLASS_LIKE = frozenset({"class", "struct", "interface", "enum", "impl"})
_WRAPPER_DEPTH = 3
"""How far `export const f = () => ...` may sit above the declaration it wraps."""


@dataclass(frozen=True, slots=True)
class _Compiled:
    parser: tree_sitter.Parser
    query: tree_sitter.Query


@functools.cache
def _compiled(language: TsLanguage) -> _Compiled:
    grammar = tree_sitter.Language(language.grammar())
    source = "\n".join(pattern.query for pattern in language.patterns)
    return _Compiled(tree_sitter.Parser(grammar), tree_sitter.Query(grammar, source))


def outline(language: TsLanguage, path: str, text: str, lines: Sequence[str]) -> Outline:
    """Parse `text`; raises ValueError when the top level does not parse."""
    if "\r" in text:
        text = _LONE_CR.sub("\n", text)
    source = text.encode("utf-8")
    compiled = _compiled(language)
    root = compiled.parser.parse(source).root_node
    if root.has_error and _broken_top_level(root):
        raise ValueError("syntax error at the top level")
    found = _Declarations(language, path, source, lines)
    found.collect(tree_sitter.QueryCursor(compiled.query).matches(root))
    walker = _Walker(found.owners, language.comments, found.signatures)
    return Outline(walker.blocks(root), walker.children, found.declarations)


class _Scope(NamedTuple):
    end: int
    """End byte of the declaration."""
    node_id: int
    qualified: str
    kind: str


@dataclass(slots=True)
class _ColumnWalk:
    """Where the byte-to-character conversion of one line stopped last."""

    encoded: bytes
    """The line in UTF-8; empty when it is ASCII and bytes are characters."""
    byte: int = 0
    char: int = 0


class _Declarations:
    """Named declarations from query matches, qualified through the ones that enclose them."""

    def __init__(self, language: TsLanguage, path: str, source: bytes, lines: Sequence[str]):
        self.language = language
        self.path = path
        self.source = source
        self.lines = lines
        self.declarations: list[Declaration] = []
        self.owners: dict[int, str] = {}
        """Node id of each declaration that gets its own snippet -> its qualified name."""
        self.signatures: dict[int, str] = {}
        """Node id of each bodiless signature (a TypeScript overload) -> its qualified name: the signatures
        right above a function join its snippet, so its overloads and body are read, and found, as one."""
        self._columns: dict[int, _ColumnWalk] = {}

    def collect(self, matches: list[tuple[int, dict[str, list[tree_sitter.Node]]]]) -> None:
        best: dict[tuple[int, int], tuple[int, tree_sitter.Node, tree_sitter.Node, tree_sitter.Node | None]] = {}
        for index, captures in matches:
            decl = captures["decl"][0]
            receiver = captures.get("receiver")
            for name in captures["name"]:
                key = (decl.id, name.id)
                if key not in best or best[key][0] > index:
                    best[key] = (index, decl, name, receiver[0] if receiver else None)
        ordered = sorted(best.values(), key=lambda m: (m[1].start_byte, -m[1].end_byte, m[0]))
        scopes: list[_Scope] = []  # the declarations enclosing the current one, innermost last
        for index, decl, name_node, receiver in ordered:
            while scopes and scopes[-1].end <= decl.start_byte:
                scopes.pop()
            parent = next((scope for scope in reversed(scopes) if scope.node_id != decl.id), None)
            scopes.append(self._add(self.language.patterns[index], decl, name_node, receiver, parent))

    def _add(
        self,
        pattern: Pattern,
        decl: tree_sitter.Node,
        name_node: tree_sitter.Node,
        receiver: tree_sitter.Node | None,
        parent: _Scope | None,
    ) -> _Scope:
        kind = pattern.kind
        written = self._text(name_node)
        dotted = _qualifier(written)
        name = dotted.rsplit(".", 1)[-1] if "::" in written else dotted
        if receiver is not None:
            qualified = f"{_qualifier(self._text(receiver))}.{dotted}"
        else:
            qualified = f"{parent.qualified}.{dotted}" if parent else dotted
        if kind == "function" and parent is not None and parent.kind in _CLASS_LIKE:
            kind = "method"
        elif kind == "method" and name == self.language.constructor:
            kind = "constructor"
        elif kind == "variable" and name.isupper():
            kind = "constant"
        if pattern.own_snippet:
            self.owners[decl.id] = qualified
        elif decl.type == "function_signature":
            self.signatures[decl.id] = qualified
        scope = _Scope(decl.end_byte, decl.id, qualified, kind)
        if kind == "impl":
            return scope
        start, end = _rows(decl)
        row, byte_column = name_node.start_point
        column = self._char_column(row, byte_column) + max(written.rfind(name), 0)  # `B::C` is named at `C`
        self.declarations.append(Declaration(name, qualified, kind, self.path, start, end, row + 1, column))
        return scope

    def _char_column(self, row: int, byte_column: int) -> int:
        """Characters before `byte_column` on `row`; linear per row even on one-line minified files."""
        walk = self._columns.get(row)
        if walk is None:
            line = self.lines[row]
            walk = self._columns[row] = _ColumnWalk(b"" if line.isascii() else line.encode("utf-8"))
        if not walk.encoded:
            return byte_column
        if byte_column < walk.byte:
            walk.byte = walk.char = 0
        walk.char += len(walk.encoded[walk.byte : byte_column].decode("utf-8", "ignore"))
        walk.byte = byte_column
        return walk.char

    def _text(self, node: tree_sitter.Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _qualifier(text: str) -> str:
    """A name as it reads in a qualified name: `Foo` for `*Foo[T]`, `A.B` for Ruby's `A::B`."""
    text = text.strip("\"'`")
    return _QUALIFIER_NOISE.sub("", text).replace("::", ".") or text


class _Walker:
    """Blocks from tree nodes: named children, with comments stuck to the declaration below them."""

    def __init__(self, owners: dict[int, str], comments: frozenset[str], signatures: dict[int, str]):
        self.owners = owners
        self.comments = comments
        self.signatures = signatures

    def children(self, block: Block) -> list[Block]:
        return self.blocks(block.node)  # type: ignore[arg-type]

    def blocks(self, node: tree_sitter.Node) -> list[Block]:
        out: list[Block] = []
        overloads: list[str | None] = []  # per block of `out`: the function it is an overload signature of
        lead: tuple[int, int] | None = None  # the run of comment lines right above the next block
        for child in node.named_children:
            start, end = _rows(child)
            if child.type in self.comments:
                lead = (lead[0], end) if lead is not None and start <= lead[1] + 1 else (start, end)
                continue
            symbol = self.owners.get(child.id) or self._wrapped(child, self.owners)
            overload = None if symbol else self.signatures.get(child.id) or self._wrapped(child, self.signatures)
            # A doc comment with one blank line under it still belongs to the declaration (koa's style): nothing
            # else can stand in that line, since any named node there would have ended the comment run.
            if (symbol or overload) and lead is not None and lead[1] >= start - 2:
                start = min(start, lead[0])
            lead = None
            while symbol is not None and overloads and overloads[-1] == symbol and out[-1].end >= start - 1:
                start = out.pop().start  # its overloads, right above it, join the implementation's snippet
                overloads.pop()
            out.append(Block(start, end, symbol, child))
            overloads.append(overload)
        return out

    def _wrapped(self, node: tree_sitter.Node, names: dict[int, str]) -> str | None:
        """The declaration in `names` that `node` only wraps (`export ...`, `const f = ...`, Go's `type X struct`).

        A wrapper adds no lines of its own: it ends where the declaration ends and starts where it
        starts or with a comment or decorator, so a class body holding one method is not a wrapper.
        """
        start, end = _rows(node)
        for _ in range(_WRAPPER_DEPTH):
            children = node.named_children
            inner = [child for child in children if child.type not in self.comments]
            if len(inner) != 1:
                return None
            inner_start, inner_end = _rows(inner[0])
            if inner_end != end or (inner_start != start and children[0].type not in self.comments):
                return None
            node = inner[0]
            symbol = names.get(node.id)
            if symbol is not None:
                return symbol
        return None


def _broken_top_level(root: tree_sitter.Node) -> bool:
    """An ERROR node at the top or one level below: the file's structure itself did not parse."""
    if root.is_error:
        return True
    for child in root.children:
        if child.is_error or (child.has_error and any(grandchild.is_error for grandchild in child.children)):
            return True
    return False


def _rows(node: tree_sitter.Node) -> tuple[int, int]:
    """A node's first and last line, 1-based; a node ending right after a line end ends on that line."""
    start_row = node.start_point.row
    end_row, end_column = node.end_point
    if end_column == 0 and end_row > start_row:
        end_row -= 1
    return start_row + 1, end_row + 1
