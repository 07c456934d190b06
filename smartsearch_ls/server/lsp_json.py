"""Engine results in LSP shapes: URIs, 0-based lines, characters in the negotiated position encoding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.uris import from_fs_path

from smartsearch_ls.search.openable import FileCandidate, UnresolvedImport
from smartsearch_ls.search.result import Copy, Match, SearchResult
from smartsearch_ls.search.wire import Place, match_wire, result_wire


def char_length(text: str, encoding: str) -> int:
    """A line's length in the client's position units (UTF-16 code units unless negotiated otherwise)."""
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def excerpt_range(match: Match, encoding: str) -> types.Range:
    """The excerpt's lines, whole: from the first line's start to the last line's end."""
    last = match.excerpt.rsplit("\n", 1)[-1]
    return types.Range(
        start=types.Position(line=match.start_line - 1, character=0),
        end=types.Position(line=match.end_line - 1, character=char_length(last, encoding)),
    )


def snippet_range(match: Match | Copy) -> types.Range:
    """The judged snippet's lines, whole: it ends where the line after it starts."""
    return types.Range(
        start=types.Position(line=match.snippet_start_line - 1, character=0),
        end=types.Position(line=match.snippet_end_line, character=0),
    )


def uri_of(match: Match | Copy | FileCandidate | UnresolvedImport) -> str:
    return file_uri(match.root / match.path)


def file_uri(path: Path | str) -> str:
    return from_fs_path(str(path)) or Path(path).as_uri()


def _import_location(unresolved: UnresolvedImport) -> types.Location:
    line = types.Position(line=unresolved.line - 1, character=0)
    return types.Location(uri=uri_of(unresolved), range=types.Range(start=line, end=line))


_CONVERTER = get_converter()


def result_dict(result: SearchResult, encoding: str) -> dict[str, Any]:
    """The `smartSearch/query` result, as the contract shapes it."""
    return result_wire(result, _placer(encoding), _copy_place, file_uri, _import_location)


def matches_dicts(matches: list[Match], encoding: str) -> list[dict[str, Any]]:
    """Matches as the result shapes them, as plain JSON: a streamed search's partial results travel inside a
    `$/progress` value, which is any JSON and is not converted on the way out."""
    place = _placer(encoding)
    return [_CONVERTER.unstructure(match_wire(m, place, _copy_place)) for m in matches]


def _placer(encoding: str) -> Place:
    def place(match: Match) -> dict[str, Any]:
        location = types.Location(uri=uri_of(match), range=excerpt_range(match, encoding))
        return {"location": location, "snippetRange": snippet_range(match)}

    return place


def _copy_place(copy: Copy) -> dict[str, Any]:
    return {"uri": uri_of(copy), "snippetRange": snippet_range(copy)}


SYMBOL_KINDS: dict[str, types.SymbolKind] = {
    "class": types.SymbolKind.Class,
    "method": types.SymbolKind.Method,
    "function": types.SymbolKind.Function,
    "interface": types.SymbolKind.Interface,
    "struct": types.SymbolKind.Struct,
    "enum": types.SymbolKind.Enum,
    "module": types.SymbolKind.Module,
    "namespace": types.SymbolKind.Namespace,
    "constant": types.SymbolKind.Constant,
    "variable": types.SymbolKind.Variable,
    "field": types.SymbolKind.Field,
    "property": types.SymbolKind.Property,
    "constructor": types.SymbolKind.Constructor,
    "type_parameter": types.SymbolKind.TypeParameter,
}


def symbol_kind(kind: str) -> types.SymbolKind:
    return SYMBOL_KINDS.get(kind, types.SymbolKind.Object)
