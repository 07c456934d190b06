"""Comments of a non-Python source file, found with tree-sitter: blanked in a copy that keeps every line at its
number, and read back as the doc comment written above a declaration.

Why blank them: a training pair is (a function's doc comment -> the function's code). If the code still held the
comment, the pair would teach matching a sentence against a copy of itself, and the engine's lexical half would
find it by string match. Why keep line numbers: the gold span is cut in the stripped file, and the same lines
read in the original show the comment it came from, which is how a pair is checked by eye.

Comments are found by the grammar (a `//` inside a string or a regex literal is not one), with the same grammar
wheels the engine chunks with. A removed comment leaves its line breaks (a block comment's lines become blank
lines) and a space when it sat between two tokens, so the code still parses the same. A file whose tree has
errors is refused: the grammar did not understand it, so neither its comments nor its declarations can be
trusted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter
import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_ruby
import tree_sitter_rust
import tree_sitter_typescript


@dataclass(frozen=True, slots=True)
class _Grammar:
    capsule: Callable[[], object]
    comment_types: tuple[str, ...]
    doc_prefixes: tuple[str, ...]
    """How a comment that documents the next declaration starts, by the language's convention: JSDoc and
    Javadoc blocks, Go's plain `//` runs, Rust's outer `///` (not `//!`, which documents the enclosing module)."""


_JS_DOC = ("/**", "//")  # JSDoc, and the `//` runs some libraries (underscore) write above each function
GRAMMARS: dict[str, _Grammar] = {
    "javascript": _Grammar(tree_sitter_javascript.language, ("comment", "html_comment"), _JS_DOC),
    "typescript": _Grammar(tree_sitter_typescript.language_typescript, ("comment", "html_comment"), _JS_DOC),
    "tsx": _Grammar(tree_sitter_typescript.language_tsx, ("comment", "html_comment"), _JS_DOC),
    "go": _Grammar(tree_sitter_go.language, ("comment",), ("//", "/*")),
    "rust": _Grammar(tree_sitter_rust.language, ("line_comment", "block_comment"), ("///", "/**")),
    "ruby": _Grammar(tree_sitter_ruby.language, ("comment",), ("#", "=begin")),
    "java": _Grammar(tree_sitter_java.language, ("line_comment", "block_comment"), ("/**",)),
}

_ATTRIBUTE = re.compile(r"\s*(#\[|@[A-Za-z])")
"""A Rust attribute, a decorator or an annotation: may stand between a doc comment and its declaration."""
_BLOCK_BODIES = frozenset({"statement_block", "block", "class_body", "body_statement", "constructor_body"})


@dataclass(frozen=True, slots=True)
class Comment:
    start_line: int
    """1-based, like every line number here."""
    end_line: int
    text: str
    own_line: bool
    """Nothing but whitespace before it on its first line: not a trailing comment of the code line."""

    @property
    def is_block(self) -> bool:
        """A `/* */` or `=begin` block: one is a whole doc comment, where `//` and `#` lines form runs."""
        return self.text.startswith(("/*", "=begin"))


@functools.cache
def _compiled(language: str) -> tuple[tree_sitter.Parser, tree_sitter.Query]:
    grammar = GRAMMARS[language]
    ts_language = tree_sitter.Language(grammar.capsule())
    query = tree_sitter.Query(ts_language, " ".join(f"({t}) @c" for t in grammar.comment_types))
    return tree_sitter.Parser(ts_language), query


class ParsedFile:
    """One file's tree and comments, its stripped text, and the doc comment of each declaration."""

    def __init__(self, language: str, text: str):
        """Parse `text` (line ends already `\\n`); raises ValueError when the tree has syntax errors."""
        parser, query = _compiled(language)
        self.language = language
        self.source = text.encode("utf-8")
        self.tree = parser.parse(self.source)
        if self.tree.root_node.has_error:
            raise ValueError("the grammar does not parse this file")
        nodes = sorted(
            (node for nodes in tree_sitter.QueryCursor(query).captures(self.tree.root_node).values() for node in nodes),
            key=lambda node: node.start_byte,
        )
        nodes = _outermost(nodes)
        self.comments = tuple(self._comment(node) for node in nodes)
        self.stripped = _blank(self.source, [(node.start_byte, node.end_byte) for node in nodes]).decode("utf-8")
        self._lines = text.split("\n")
        self._by_end = {comment.end_line: comment for comment in self.comments}

    def _comment(self, node: tree_sitter.Node) -> Comment:
        start, end = _rows(node)
        line_start = self.source.rfind(b"\n", 0, node.start_byte) + 1
        own_line = not self.source[line_start : node.start_byte].strip()
        text = self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        return Comment(start, end, text.rstrip("\n"), own_line)  # a Rust line comment holds its line break

    def doc_above(self, line: int) -> str | None:
        """The doc comment right above `line` (attributes and decorators may sit between), or None.

        A blank line in between means the comment is about something else (a section header, a license).
        """
        above = line - 1
        while above >= 1 and above not in self._by_end and _ATTRIBUTE.match(self._lines[above - 1]):
            above -= 1
        prefixes = GRAMMARS[self.language].doc_prefixes
        comment = self._by_end.get(above)
        run: list[Comment] = []
        while comment is not None and comment.own_line and comment.text.startswith(prefixes):
            if comment.is_block and run:
                break  # a block above a run of line comments is a separate comment
            run.append(comment)
            if comment.is_block:
                break
            comment = self._by_end.get(comment.start_line - 1)
        return "\n".join(comment.text for comment in reversed(run)) or None

    def has_body(self, name_line: int, name_column: int, start_line: int, end_line: int) -> bool:
        """Whether the declaration named at (`name_line`, `name_column` in characters) and spanning
        `start_line..end_line` has a non-empty body: a signature in a trait or an interface, an empty
        method or an assembly stub has no behavior for a query to describe.
        """
        line = self._lines[name_line - 1]
        column = len(line[:name_column].encode("utf-8"))
        node: tree_sitter.Node | None = self.tree.root_node.descendant_for_point_range(
            (name_line - 1, column), (name_line - 1, column)
        )
        while node is not None and node.start_point.row >= start_line - 1:
            if _rows(node) == (start_line, end_line):
                body = _body(node)
                if body is not None:
                    return not _is_empty(body)
            node = node.parent
        return False


def _body(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The body of a function-like node, or of the function a declarator, an assignment or an object key holds:
    `const f = () => ...`, `proto.f = function () {...}`, `{ f: function () {...} }`, or
    `var f = _curry2(function f(a, b) {...})` as ramda defines every function."""
    value = node.child_by_field_name("value") or node.child_by_field_name("right")
    candidates = [node, value]
    if value is not None and value.type == "call_expression" and (arguments := value.child_by_field_name("arguments")):
        candidates.extend(arguments.named_children)
    for candidate in candidates:
        if candidate is not None and (body := candidate.child_by_field_name("body")) is not None:
            return body
    return None


def _is_empty(body: tree_sitter.Node) -> bool:
    """A `{}` block (or one holding only comments); an expression body (`x => x`) is never empty."""
    if body.type not in _BLOCK_BODIES:
        return False
    return all(child.type in ("comment", "line_comment", "block_comment") for child in body.named_children)


def _outermost(nodes: list[tree_sitter.Node]) -> list[tree_sitter.Node]:
    """Drop comment nodes nested in another (a Rust doc comment's inner node), sorted by start."""
    out: list[tree_sitter.Node] = []
    for node in nodes:
        if out and node.start_byte < out[-1].end_byte:
            continue
        out.append(node)
    return out


def _blank(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    """`source` without the byte `spans`, each replaced by its own line breaks, or by a space between two
    tokens; lines left with trailing whitespace are trimmed."""
    out = bytearray()
    position = 0
    for start, end in spans:
        out += source[position:start]
        breaks = source.count(b"\n", start, end)
        if breaks:
            out += b"\n" * breaks
        elif out[-1:].strip() and source[end : end + 1].strip():
            out += b" "  # `a/* x */b` must stay two tokens
        position = end
    out += source[position:]
    return b"\n".join(line.rstrip() for line in bytes(out).split(b"\n"))


def _rows(node: tree_sitter.Node) -> tuple[int, int]:
    """A node's first and last line, 1-based; a node ending right after a line break ends on that line (the
    chunker counts the same way, so spans compare)."""
    start_row = node.start_point.row
    end_row, end_column = node.end_point
    if end_column == 0 and end_row > start_row:
        end_row -= 1
    return start_row + 1, end_row + 1
