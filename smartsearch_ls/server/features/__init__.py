"""LSP features, one module per concern; `register_all` wires them onto a server."""

from __future__ import annotations

from smartsearch_ls.server.app import SmartSearchServer
from smartsearch_ls.server.features import documents, lifecycle, query, symbols


def register_all(server: SmartSearchServer) -> None:
    for feature in (lifecycle, documents, query, symbols):
        feature.register(server)
