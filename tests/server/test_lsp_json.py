"""Every declaration kind the chunkers name has its own LSP SymbolKind (none falls back to Object)."""

from __future__ import annotations

from lsprotocol import types

from smartsearch_ls.chunking.languages import LANGUAGES
from smartsearch_ls.server.lsp_json import symbol_kind

DERIVED = {"method", "constructor", "constant", "field", "variable", "class", "function"}
"""Kinds the chunkers give beyond their patterns' own: a function in a class, an UPPER_CASE variable, Python's."""


def test_every_declaration_kind_maps_to_its_own_symbol_kind() -> None:
    kinds = {p.kind for language in LANGUAGES for p in language.patterns if p.kind != "impl"} | DERIVED
    assert "type_parameter" in kinds
    assert {kind: symbol_kind(kind) for kind in kinds if symbol_kind(kind) == types.SymbolKind.Object} == {}
    assert symbol_kind("type_parameter") == types.SymbolKind.TypeParameter
