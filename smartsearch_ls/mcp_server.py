"""`smartsearch mcp`: the engine as one MCP tool over stdio, for agents that do not speak LSP.

An MCP client (Claude Desktop, Claude Code, any agent with an MCP host) starts `smartsearch mcp` and calls one
tool, `smart_search`. It takes `smartSearch/query`'s params, with `directory` required on every call because
there is no workspace, and answers with what `smartsearch query --json` prints: the contract's result with
1-based lines, as `structuredContent` and as JSON text. Its input schema is `QueryParams`' own, validated by
`parse_params`, so the fields, their bounds and every message are the server's and the command line's. What
the caller can fix (a bad field, a folder that is not one, a judge that is missing or fails, a cap reached)
comes back as a tool error (`isError`) with the command line's message, which the model reads and acts on.

Unlike the command line's, the result is redacted: an agent forwards it to its model, usually a hosted one, so
the secrets a judge is never sent (`judge.redact`) are not returned either. Excerpts and the import specifiers of
`coverage.unresolvedImports` carry `[REDACTED:<kind>]` in their place, and a warning says how many and of what
kinds (`redacted_for_agent`).

It uses the SDK's low-level `Server`, not `MCPServer`: that one derives a tool's schema from a function's
signature (a second copy of the params) and words validation errors itself.

Each directory is opened once per process (the persisted index, under the same cache directory as the command
line and the language server) and brought up to date with the disk before every call, so an agent's edits
between calls are searched; past `MAX_FOLDERS` the least recently used one is closed.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from smartsearch_ls import __version__
from smartsearch_ls.folder_search import FAILURES, FolderIndex, folder_of, judge_for, search_folder, to_json
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.redact import RedactionTally, redact_shown
from smartsearch_ls.judge.resolve import is_local
from smartsearch_ls.judge.secret_assignments import syntax_of
from smartsearch_ls.search.excerpt import redacted_excerpt
from smartsearch_ls.search.request import InvalidQuery, QueryParams, parse_params
from smartsearch_ls.search.result import Match, SearchResult
from smartsearch_ls.settings import Settings

log = logging.getLogger(__name__)

TOOL = "smart_search"

MAX_FOLDERS = 4
"""Folders kept open at once: an agent works in one or two repositories at a time, and each open folder holds
its whole index (files, snippets, postings, vectors) in memory. A closed one reopens warm from the cache."""

DESCRIPTION = """\
Find code in a folder by what it does, in plain English ("where do we reject expired sessions"), or jump to an
identifier (`SessionStore.get`) or a path (`config/loader.py`). Prose is answered by a judged search: snippets
shortlisted by words and meaning, each scored for relevance by the configured judge. Returns the best matches
(path, 1-based lines, enclosing symbol, relevance in [0, 1], excerpt) with coverage and warnings: no matches do
not prove absence, read `coverage` and `warnings`. Only `directory` is searched, with its ignore rules; hidden,
ignored, binary and credential files are never read. Secrets of known shapes in excerpts are returned as
`[REDACTED:<kind>]`."""


def input_schema() -> dict[str, Any]:
    """`QueryParams`' schema with `directory` required, and without the LSP's progress tokens."""
    schema = QueryParams.model_json_schema(by_alias=True)
    properties = schema["properties"]
    del properties["workDoneToken"], properties["partialResultToken"]
    properties["directory"] = {
        "type": "string",
        "title": "Directory",
        "description": "The folder to search: an absolute path or a file: URI (a relative path starts at the "
        "server's working directory). It is indexed once per server process and kept up to date.",
    }
    schema["required"] = ["query", "directory"]
    return schema


class OpenFolders:
    """The folders this process has searched, each opened once and refreshed before every search."""

    def __init__(self, settings: Settings, capacity: int = MAX_FOLDERS) -> None:
        self._settings = settings
        self._capacity = capacity
        self._open: OrderedDict[Path, FolderIndex] = OrderedDict()
        self._locks: dict[Path, asyncio.Lock] = {}

    async def get(self, root: Path) -> FolderIndex:
        """`root`'s folder, opened or brought up to date with the disk; one open or refresh of a root at a time."""
        async with self._locks.setdefault(root, asyncio.Lock()):
            folder = self._open.get(root)
            if folder is None:
                folder = await asyncio.to_thread(FolderIndex.open, root, self._settings)
            else:
                await asyncio.to_thread(folder.refresh)
            self._open[root] = folder
            self._open.move_to_end(root)
        while len(self._open) > self._capacity:
            gone, _ = self._open.popitem(last=False)
            if not self._locks[gone].locked():
                del self._locks[gone]
            gc.unfreeze()  # the dropped index was frozen when opened (`FolderIndex.open`): let it be collected
        return folder


class SmartSearchTool:
    """The `smart_search` tool: arguments in, the command line's JSON or its error message out."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.folders = OpenFolders(settings)
        self.judgments = JudgmentCache()

    def tool(self) -> types.Tool:
        return types.Tool(
            name=TOOL,
            title="SmartSearch",
            description=DESCRIPTION,
            input_schema=input_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=True,
                idempotent_hint=True,
                # A hosted judge is sent the shortlisted snippets (secrets redacted); the embedded one runs here.
                open_world_hint=not is_local(self.settings.judge.model),
            ),
        )

    async def call(self, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            result = to_json(await self._search(arguments))
        except FAILURES as error:
            log.info("%s failed: %s", TOOL, error)
            return _error(str(error))
        except Exception as error:  # an engine bug must not end the session: the model reads it, stderr has the rest
            log.exception("%s crashed", TOOL)
            # An unforeseen error's text may quote what it failed on (a line of a file), and the agent's model is
            # usually hosted: it is redacted as the excerpts are.
            said = redact_shown(f"{type(error).__name__}: {error}").text
            return _error(f"{TOOL} failed unexpectedly ({said}); the server's log has more.")
        text = types.TextContent(type="text", text=json.dumps(result, indent=1))
        return types.CallToolResult(content=[text], structured_content=result)

    async def _search(self, arguments: dict[str, Any]) -> SearchResult:
        params = parse_params(arguments)
        if params.directory is None:
            raise InvalidQuery("directory", "Field required")
        root = folder_of(params.directory, "`directory`")
        judge = await judge_for(params, self.settings)
        folder = await self.folders.get(root)
        result = await search_folder(folder, params, self.settings, judge, self.judgments)
        return redacted_for_agent(result, folder.index)


def redacted_for_agent(result: SearchResult, index: RootIndex) -> SearchResult:
    """The result with the source text it returns (the matches' and the closest candidate's excerpts, unresolved
    imports' specifiers) redacted as a judge's snippets are, and a warning saying what was."""
    tally = RedactionTally()

    def redacted(match: Match) -> Match:
        excerpt = redacted_excerpt(index, match)
        tally.add(excerpt)
        return replace(match, excerpt=excerpt.text)

    matches = [redacted(match) for match in result.matches]
    closest = redacted(result.closest) if result.closest is not None else None
    imports = []
    for unresolved in result.coverage.unresolved_imports:
        specifier = redact_shown(unresolved.specifier, syntax=syntax_of(unresolved.path))
        tally.add(specifier)
        imports.append(replace(unresolved, specifier=specifier.text))
    coverage = replace(result.coverage, unresolved_imports=tuple(imports))
    warnings = [*result.warnings, *tally.warnings(returned=True)]
    return replace(result, matches=matches, closest=closest, coverage=coverage, warnings=warnings)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def build_server(settings: Settings) -> Server[Any]:
    """The MCP server: `tools/list` and `tools/call`, nothing else."""
    search = SmartSearchTool(settings)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[search.tool()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name != TOOL:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool {params.name!r}: the one tool is {TOOL!r}.")
        return await search.call(params.arguments or {})

    return Server(
        "smartsearch",
        version=__version__,
        title="SmartSearch",
        instructions=f"Call `{TOOL}` to find code by behavior in a folder, or to jump to an identifier or a path.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(settings: Settings) -> None:
    """Serve MCP on stdin and stdout until the client closes them."""
    server = build_server(settings)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
