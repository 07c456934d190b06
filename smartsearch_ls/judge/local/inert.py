"""Snippets that perform nothing: only imports, docstrings, comments, `pass` and bodiless signatures.

The judge's second question is whether the code itself performs the action the query describes, and such a
snippet performs none, whatever it names. The embedding cannot tell: an import block lists the very
identifiers the query is about, and a file's path (in the embedded header line) can carry a one-line
`import time` in `sessions.py` over the threshold for "reject expired sessions". So the local judge caps what
it answers for these (`model.INERT_CEILING`). Assignments are not inert: "where is the default timeout set"
is answered by a constant.

Python is read with `ast` (a module header, an `if TYPE_CHECKING:` block of imports, a class whose body is
only its docstring, an `@overload` or protocol stub whose body is `...`). JavaScript/TypeScript, Go, Rust,
Java and Ruby import forms are stripped with patterns; what is left must be blank or comments. A snippet
that does not parse (a block cut out of a long function) is never called inert.
"""

from __future__ import annotations

import ast
import re
import textwrap

_PY_SUFFIXES = (".py", ".pyi", ".pyw")

_IMPORT_FORMS = re.compile(
    r"""
    \bimport\s+type\s+[^;'"]*?\bfrom\s*['"][^'"\n]+['"]\s*;?           # TS: import type {A} from "x"
    | \bimport\s+[^;'"]*?\bfrom\s*['"][^'"\n]+['"]\s*;?                 # JS/TS: import ... from "x"
    | \bimport\s*['"][^'"\n]+['"]\s*;?                                  # JS/TS: import "x"
    | \bexport\s+(?:type\s+)?(?:\*|\{[^}]*\})(?:\s+as\s+\w+)?\s*from\s*['"][^'"\n]+['"]\s*;?  # re-export
    | \b(?:const|let|var)\s+[\w${}\s,:]+=\s*require\(\s*['"][^'"\n]+['"]\s*\)\s*;?  # CommonJS
    | \bimport\s*\([^)]*\)                                              # Go: import ( ... )
    | \bimport\s+(?:\w+\s+)?"[^"\n]+"                                   # Go: import "x"
    | \bpackage\s+[\w.]+\s*;?                                           # Go, Java
    | \bimport\s+(?:static\s+)?[\w.]+(?:\.\*)?\s*;                      # Java
    | \b(?:pub\s+)?use\s+[\w:{},\s*]+;                                   # Rust
    | \b(?:pub\s+)?mod\s+\w+\s*;                                         # Rust
    | \bextern\s+crate\s+\w+(?:\s+as\s+\w+)?\s*;                         # Rust
    | \brequire(?:_relative)?\s*\(?\s*['"][^'"\n]+['"]\s*\)?             # Ruby
    """,
    re.VERBOSE,
)
_SLASH_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_HASH_COMMENTS = re.compile(r"^\s*#[^\n]*", re.MULTILINE)
_COMMENTS_BY_SUFFIX = {
    **dict.fromkeys(
        (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".go", ".rs", ".java"), _SLASH_COMMENTS
    ),
    ".rb": _HASH_COMMENTS,
}
"""The languages whose import forms `_IMPORT_FORMS` knows, and how each writes a comment. Any other file is never
called inert: in C a `#define` sets a value, in CSS `#header { ... }` styles one."""


def performs_nothing(path: str, code: str) -> bool:
    """Whether the snippet at `path` holds nothing but imports, documentation and bodiless declarations."""
    if not code.strip():
        return False  # nothing to say about an empty snippet; it matches nothing anyway
    if path.endswith(_PY_SUFFIXES):
        try:
            tree = ast.parse(textwrap.dedent(code))
        except (SyntaxError, ValueError):
            return False
        return _inert_body(tree.body)
    comments = _COMMENTS_BY_SUFFIX.get(path[path.rfind(".") :].lower()) if "." in path else None
    return comments is not None and not comments.sub("", _IMPORT_FORMS.sub("", code)).strip()


def _inert_body(body: list[ast.stmt]) -> bool:
    return all(_inert(statement) for statement in body)


def _inert(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import | ast.ImportFrom | ast.Pass):
        return True
    if isinstance(node, ast.Expr):  # a docstring, or the `...` of a stub
        value = node.value
        return isinstance(value, ast.Constant) and (value.value is Ellipsis or isinstance(value.value, str))
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return _inert_body(node.body)
    if isinstance(node, ast.If):  # `if TYPE_CHECKING:` imports
        return _inert_body(node.body) and _inert_body(node.orelse)
    return False
