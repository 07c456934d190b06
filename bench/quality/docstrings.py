"""An automatic quality set: docstring first sentences as queries, over a copy of the corpus without any prose.

Why: a hand-written set is small; docstrings give hundreds of queries with an unambiguous answer for free. But
a docstring sits inside the very function it describes, so searching for its sentence in the original tree is
a string match. The copy therefore has every docstring and comment blanked out, with line numbers kept (a
removed line becomes an empty line), so the gold span of each function is the same in both trees and the engine
has to find the function from its code alone. Only Python files are copied: docs and other prose repeat the
docstrings (Sphinx autodoc pages) and would leak the answers.
"""

from __future__ import annotations

import ast
import io
import json
import random
import re
import shutil
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MIN_WORDS = 5
DEFAULT_SAMPLE = 300
DEFAULT_SEED = 0
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n\s*\n")


def _is_string_statement(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _docstring_nodes(tree: ast.AST) -> Iterator[tuple[ast.Expr, bool]]:
    """Every bare string statement (docstrings, and attribute docstrings after an assignment), and whether it
    must become `pass` because its block holds nothing else (only the first such string of the block does).
    """
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            strings = [stmt for stmt in block if _is_string_statement(stmt)]
            only_strings = len(strings) == len(block)
            for i, stmt in enumerate(strings):
                assert isinstance(stmt, ast.Expr)
                yield stmt, only_strings and i == 0


def strip_python(text: str) -> str:
    """`text` without comments and docstrings, every line kept at its number.

    A docstring that is its body's only statement becomes `pass`, so the copy still parses. Raises
    `SyntaxError` (or `tokenize.TokenError`) for a file that does not parse.
    """
    tree = ast.parse(text)
    lines = text.split("\n")
    # (start line, start col, end line, end col, replacement), columns in characters. `ast` gives UTF-8 byte
    # columns, `tokenize` character columns.
    edits: list[tuple[int, int, int, int, str]] = []
    for expr, alone in _docstring_nodes(tree):
        assert expr.end_lineno is not None and expr.end_col_offset is not None
        start = _char_col(lines[expr.lineno - 1], expr.col_offset)
        end = _char_col(lines[expr.end_lineno - 1], expr.end_col_offset)
        edits.append((expr.lineno, start, expr.end_lineno, end, "pass" if alone else ""))
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            (sl, sc), (el, ec) = token.start, token.end
            edits.append((sl, sc, el, ec, ""))
    # From the end of the file backwards, so earlier columns stay valid.
    for sl, sc, el, ec, replacement in sorted(edits, reverse=True):
        head, tail = lines[sl - 1][:sc], lines[el - 1][ec:]
        if not replacement and tail.lstrip().startswith(";"):
            replacement = "pass"  # `"""doc"""; rest` would otherwise start with a bare `;`
        lines[sl - 1] = (head + replacement + tail).rstrip()
        for n in range(sl, el):
            lines[n] = ""
    return "\n".join(lines)


def _char_col(line: str, byte_col: int) -> int:
    """A UTF-8 byte column of `line` as a character column."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


@dataclass(frozen=True, slots=True)
class DocQuery:
    path: str
    start_line: int
    end_line: int
    qualified_name: str
    query: str


def first_sentence(docstring: str) -> str:
    """The docstring up to its first sentence end or blank line, whitespace collapsed."""
    head = _SENTENCE_END.split(docstring.strip(), maxsplit=1)[0]
    return " ".join(head.split())


def function_queries(rel: str, text: str) -> list[DocQuery]:
    """One candidate query per function or method whose docstring's first sentence has `MIN_WORDS`+ words."""
    out: list[DocQuery] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(child)
                sentence = first_sentence(doc) if doc else ""
                if len(sentence.split()) >= MIN_WORDS:
                    start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    assert child.end_lineno is not None
                    out.append(DocQuery(rel, start, child.end_lineno, prefix + child.name, sentence))
                walk(child, f"{prefix}{child.name}.")

    walk(ast.parse(text), "")
    return out


@dataclass(frozen=True, slots=True)
class DocstringSet:
    stripped_root: Path
    queries_path: Path
    files: int
    candidates: int
    sampled: int


def build(
    source_root: Path,
    stripped_root: Path,
    queries_path: Path,
    corpus_name: str,
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int = DEFAULT_SEED,
) -> DocstringSet:
    """Copy every parseable `.py` of `source_root` stripped into `stripped_root`, and write sampled queries.

    Query lines have the quality-set format (`corpus`, `query`, `gold`) plus `symbol`, with `corpus` set to
    `corpus_name` (the stripped tree's name), so the same metrics score them.
    """
    if stripped_root.exists():
        shutil.rmtree(stripped_root)
    candidates: list[DocQuery] = []
    files = 0
    for path in sorted(source_root.rglob("*.py")):
        rel = path.relative_to(source_root).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
            stripped = strip_python(text)
            ast.parse(stripped)
        except (SyntaxError, UnicodeDecodeError, tokenize.TokenError, ValueError):
            continue
        target = stripped_root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(stripped, encoding="utf-8")
        files += 1
        candidates.extend(function_queries(rel, text))
    rng = random.Random(seed)
    picked = rng.sample(candidates, min(sample, len(candidates)))
    picked.sort(key=lambda q: (q.path, q.start_line))
    queries_path.parent.mkdir(parents=True, exist_ok=True)
    with queries_path.open("w", encoding="utf-8") as f:
        for q in picked:
            gold = [{"path": q.path, "start_line": q.start_line, "end_line": q.end_line}]
            f.write(json.dumps({"corpus": corpus_name, "query": q.query, "gold": gold, "symbol": q.qualified_name}))
            f.write("\n")
    return DocstringSet(stripped_root, queries_path, files, len(candidates), len(picked))
