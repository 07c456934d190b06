"""Which declarations each tree-sitter language has: the data that drives `treesitter.py`.

Every language is one table entry: its grammar wheel, its extensions, the node types that are comments
(attached to the declaration below them) and one query pattern per kind of declaration. Adding a
language means adding an entry, not code. Each pattern captures the declaration as `@decl` and its name
as `@name`; a Go method also captures its receiver type as `@receiver`, which becomes its qualifier.

Kinds are LSP SymbolKind names in lower case, plus `impl`: a Rust impl block, which qualifies what it
holds (`impl Foo` gives `Foo.new`) and is chunked like a declaration but is not one itself. `variable`
becomes `constant` when the name is UPPER_CASE; `function` becomes `method` directly inside a class-like
declaration. Type aliases are `type_parameter`, as rust-analyzer reports them.

A pattern with `own_snippet=False` (fields, constants, signatures, aliases) is only listed as a
declaration: those are small and sit in the code around them rather than getting a snippet each. A Go type is
a snippet of its own whatever it is a type of: `type Collection []*Version` with its doc comment is asked for by
its name as a struct is (its methods are snippets of their own either way).
Only statement-level declarations are named; functions passed as arguments stay anonymous.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_ruby
import tree_sitter_rust
import tree_sitter_typescript


@dataclass(frozen=True, slots=True)
class Pattern:
    kind: str
    query: str
    own_snippet: bool = True


@dataclass(frozen=True, slots=True)
class TsLanguage:
    name: str
    grammar: Callable[[], object]
    """The grammar wheel's language capsule."""
    extensions: tuple[str, ...]
    patterns: tuple[Pattern, ...]
    comments: frozenset[str]
    """Node types stuck to the declaration that follows them: comments, attributes, decorators."""
    constructor: str | None = None
    """The method name that makes a method a constructor."""


def _p(kind: str, query: str, own_snippet: bool = True) -> Pattern:
    return Pattern(kind, query, own_snippet)


_FUNCTION_VALUE = "[(arrow_function) (function_expression) (generator_function)]"
_JS_COMMON = (
    _p("function", "(function_declaration name: (_) @name) @decl"),
    _p("function", "(generator_function_declaration name: (_) @name) @decl"),
    _p("function", f"(variable_declarator name: (identifier) @name value: {_FUNCTION_VALUE}) @decl"),
    _p("class", "(variable_declarator name: (identifier) @name value: (class)) @decl"),
    _p("class", "(class_declaration name: (_) @name) @decl"),
    _p("method", "(method_definition name: (_) @name) @decl"),
    # CommonJS and prototype methods, `res.jsonp = function jsonp(obj) {...}`, `proto.x = () => {...}`: a
    # function assigned to a member is that object's method, named `res.jsonp`.
    _p(
        "method",
        "(expression_statement (assignment_expression"
        " left: (member_expression object: [(identifier) (member_expression) (this)] @receiver"
        f" property: (property_identifier) @name) right: {_FUNCTION_VALUE})) @decl",
    ),
    # A module that exports one function it names, `module.exports = function optionMatcher(args) {...}`: named
    # by the function's own name (after the pattern above, so the snippet is too), not only `module.exports`.
    _p(
        "function",
        "(expression_statement (assignment_expression"
        " left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)"
        ' right: (function_expression name: (identifier) @name)) (#eq? @_module "module") (#eq? @_exports "exports"))'
        " @decl",
    ),
    # An object literal's function-valued key, `{ redirect: function (url) {...} }`.
    _p("method", f"(pair key: [(property_identifier) (string)] @name value: {_FUNCTION_VALUE}) @decl"),
    _p("variable", "(program (lexical_declaration (variable_declarator name: (identifier) @name) @decl))", False),
    _p("variable", "(program (variable_declaration (variable_declarator name: (identifier) @name) @decl))", False),
    _p(
        "variable",
        "(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @decl)))",
        False,
    ),
)
_TS_ONLY = (
    _p("class", "(abstract_class_declaration name: (_) @name) @decl"),
    _p("interface", "(interface_declaration name: (_) @name) @decl"),
    _p("enum", "(enum_declaration name: (_) @name) @decl"),
    _p("namespace", "(internal_module name: (_) @name) @decl"),
    _p("module", "(module name: (_) @name) @decl"),
    _p("type_parameter", "(type_alias_declaration name: (_) @name) @decl", False),
    _p("method", "(method_signature name: (_) @name) @decl", False),
    _p("method", "(abstract_method_signature name: (_) @name) @decl", False),
    _p("function", "(function_signature name: (_) @name) @decl", False),
    _p("field", "(public_field_definition name: (_) @name) @decl", False),
    _p("property", "(property_signature name: (_) @name) @decl", False),
)
_JS_COMMENTS = frozenset({"comment", "decorator"})

JAVASCRIPT = TsLanguage(
    "javascript",
    tree_sitter_javascript.language,
    (".js", ".mjs", ".cjs", ".jsx"),
    (*_JS_COMMON, _p("field", "(field_definition property: (_) @name) @decl", False)),
    _JS_COMMENTS,
    "constructor",
)
TYPESCRIPT = TsLanguage(
    "typescript",
    tree_sitter_typescript.language_typescript,
    (".ts", ".mts", ".cts"),
    _JS_COMMON + _TS_ONLY,
    _JS_COMMENTS,
    "constructor",
)
TSX = TsLanguage(
    "tsx", tree_sitter_typescript.language_tsx, (".tsx",), _JS_COMMON + _TS_ONLY, _JS_COMMENTS, "constructor"
)
GO = TsLanguage(
    "go",
    tree_sitter_go.language,
    (".go",),
    (
        _p("function", "(function_declaration name: (_) @name) @decl"),
        _p(
            "method",
            "(method_declaration receiver: (parameter_list (parameter_declaration type: (_) @receiver))"
            " name: (_) @name) @decl",
        ),
        _p("struct", "(type_spec name: (_) @name type: (struct_type)) @decl"),
        _p("interface", "(type_spec name: (_) @name type: (interface_type)) @decl"),
        _p("type_parameter", "(type_spec name: (_) @name) @decl"),
        _p("type_parameter", "(type_alias name: (_) @name) @decl", False),
        _p("field", "(field_declaration name: (_) @name) @decl", False),
        _p("method", "(method_elem name: (_) @name) @decl", False),
        _p("constant", "(source_file (const_declaration (const_spec name: (_) @name) @decl))", False),
        _p("variable", "(source_file (var_declaration (var_spec name: (_) @name) @decl))", False),
        _p("variable", "(source_file (var_declaration (var_spec_list (var_spec name: (_) @name) @decl)))", False),
    ),
    frozenset({"comment"}),
)
RUST = TsLanguage(
    "rust",
    tree_sitter_rust.language,
    (".rs",),
    (
        _p("function", "(function_item name: (_) @name) @decl"),
        _p("function", "(function_signature_item name: (_) @name) @decl", False),
        _p("function", "(macro_definition name: (_) @name) @decl"),
        _p("struct", "(struct_item name: (_) @name) @decl"),
        _p("struct", "(union_item name: (_) @name) @decl"),
        _p("enum", "(enum_item name: (_) @name) @decl"),
        _p("interface", "(trait_item name: (_) @name) @decl"),
        _p("impl", "(impl_item type: (_) @name) @decl"),
        _p("module", "(mod_item name: (_) @name) @decl"),
        _p("constant", "(const_item name: (_) @name) @decl", False),
        _p("variable", "(static_item name: (_) @name) @decl", False),
        _p("type_parameter", "(type_item name: (_) @name) @decl", False),
        _p("field", "(field_declaration name: (_) @name) @decl", False),
    ),
    frozenset({"line_comment", "block_comment", "attribute_item"}),
)
JAVA = TsLanguage(
    "java",
    tree_sitter_java.language,
    (".java",),
    (
        _p("class", "(class_declaration name: (_) @name) @decl"),
        _p("class", "(record_declaration name: (_) @name) @decl"),
        _p("interface", "(interface_declaration name: (_) @name) @decl"),
        _p("interface", "(annotation_type_declaration name: (_) @name) @decl"),
        _p("enum", "(enum_declaration name: (_) @name) @decl"),
        _p("method", "(method_declaration name: (_) @name) @decl"),
        _p("constructor", "(constructor_declaration name: (_) @name) @decl"),
        _p("constructor", "(compact_constructor_declaration name: (_) @name) @decl"),
        _p("field", "(field_declaration declarator: (variable_declarator name: (_) @name)) @decl", False),
    ),
    frozenset({"line_comment", "block_comment"}),
)
RUBY = TsLanguage(
    "ruby",
    tree_sitter_ruby.language,
    (".rb", ".rake", ".gemspec"),
    (
        _p("class", "(class name: (_) @name) @decl"),
        _p("module", "(module name: (_) @name) @decl"),
        _p("method", "(method name: (_) @name) @decl"),
        _p("method", "(singleton_method name: (_) @name) @decl"),
        _p("constant", "(assignment left: (constant) @name) @decl", False),
    ),
    frozenset({"comment"}),
    "initialize",
)

LANGUAGES: tuple[TsLanguage, ...] = (JAVASCRIPT, TYPESCRIPT, TSX, GO, RUST, JAVA, RUBY)
