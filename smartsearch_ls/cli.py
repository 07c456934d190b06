"""`smartsearch query ...`: the engine at a terminal, for people and scripts; `smartsearch index`: a folder prepared
for them ahead of time (`prepare`); `smartsearch mcp`: for agents.

The index is persisted between runs (like the server's), so the second query on a root starts warm; so are the
snippet vectors a search with the embedded judge computed, so a later query does not embed them again.
Output follows ripgrep's habits: 1-based lines, `path:start-end` first, exit 0 with matches, 1 with none,
2 on an error with the message on stderr. `--json` prints one object: the contract's result with lines
instead of LSP ranges. What a search of one folder takes (settings, params, the index, the JSON) is shared with
the MCP server in `folder_search`; `mcp` takes the same settings and hands them to `mcp_server`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from typing import get_args

from smartsearch_ls import __version__
from smartsearch_ls.folder_search import (
    FAILURES,
    FolderIndex,
    folder_of,
    judge_for,
    search_folder,
    settings_from,
    to_json,
)
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.prepare import prepare
from smartsearch_ls.search.answer_order import description_kind
from smartsearch_ls.search.request import Intent, Mode, parse_params
from smartsearch_ls.search.result import SearchResult, summary
from smartsearch_ls.search.why import Why
from smartsearch_ls.settings import Settings

REPORT_SECONDS = 2.0
"""How often `index` says how far embedding has got."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smartsearch", description="Find code by behavior, in plain English.")
    parser.add_argument("--version", action="version", version=f"smartsearch {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    query = commands.add_parser(
        "query",
        help="search a folder",
        description="Search a folder by behavior.",
        epilog="Exit status, as ripgrep's: 0 with matches, 1 with none (the output, --json's too, is still whole), "
        "2 on an error.",
    )
    query.add_argument("query", help='what the code does, e.g. "where do we reject expired sessions"')
    query.add_argument("--root", default=".", help="folder to search (default: the current one)")
    query.add_argument(
        "--glob",
        action="append",
        help="ripgrep-style glob that narrows the files searched (repeatable: a file matching any is searched, one "
        "matching a !GLOB is not, whatever the order)",
    )
    query.add_argument("--limit", type=int, help="matches to print (1-100, default 10)")
    query.add_argument("--candidates", type=int, help="snippets shortlisted and judged (1-256, default 128)")
    query.add_argument("--mode", choices=["auto", *get_args(Mode)], default="auto")
    query.add_argument("--intent", choices=get_args(Intent), help="what to find about a name")
    query.add_argument("--context", help="words that re-rank (never widen) the hits, e.g. 'goal progress'")
    query.add_argument(
        "--expand-related", action="store_true", help="follow an imported name's import to its definition"
    )
    query.add_argument("--json", action="store_true", help="print one JSON object")
    query.add_argument("--explain", action="store_true", help="say under each match why it ranked")
    _add_settings(query)
    index = commands.add_parser(
        "index",
        help="index a folder and embed all of it ahead of queries",
        description="Build a folder's persisted index and embed every snippet, so later queries start warm and "
        "search the whole folder by meaning.",
    )
    index.add_argument("--root", default=".", help="folder to index (default: the current one)")
    index.add_argument("--judge", help="the judge later queries use: `local` (default) also embeds what it reads")
    index.add_argument("--exclude", action="append", default=[], help="glob never indexed (repeatable)")
    index.add_argument("--cache-dir", help="where the persisted index lives")
    mcp = commands.add_parser(
        "mcp",
        help="serve agents over MCP (stdio)",
        description="Serve the `smart_search` tool to an MCP client over stdio (needs the `mcp` extra).",
    )
    _add_settings(mcp)
    mcp.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser


def _add_settings(parser: argparse.ArgumentParser) -> None:
    """The settings both commands take, named after the server's."""
    parser.add_argument("--judge", help="judge model: `local` (default) or any Pydantic AI model name")
    parser.add_argument("--threshold", type=float, help="relevance a match needs (0-1, default 0.5)")
    parser.add_argument("--concurrency", type=int, help="judgments in flight at once (default 8)")
    parser.add_argument("--timeout", type=float, help="seconds per judgment (default 30)")
    parser.add_argument("--exclude", action="append", default=[], help="glob never indexed nor judged (repeatable)")
    parser.add_argument("--cache-dir", help="where the persisted index lives")


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point."""
    args = build_parser().parse_args(argv)
    try:
        code = _COMMANDS[args.command](args)
    except FAILURES as error:
        print(f"smartsearch: {error}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # `smartsearch query ... | head`
        code = 0
    except Exception as error:  # a defect: still an error's status, never 1, which a script reads as "no match"
        print(f"smartsearch: internal error ({type(error).__name__}: {error}); please report it", file=sys.stderr)
        code = 2
    sys.exit(code)


def _settings(args: argparse.Namespace) -> Settings:
    """The settings a command was given (`index` takes only some of them)."""
    return settings_from(
        {
            "judge.model": args.judge,
            "judge.timeout": getattr(args, "timeout", None),
            "threshold": getattr(args, "threshold", None),
            "concurrency": getattr(args, "concurrency", None),
            "exclude": args.exclude or None,
            "cacheDir": args.cache_dir,
        }
    )


def _index(args: argparse.Namespace) -> int:
    settings = _settings(args)
    root = folder_of(args.root, "--root")
    reported = [0.0]

    def report(embedded: int, total: int) -> None:
        if time.monotonic() - reported[0] >= REPORT_SECONDS:
            reported[0] = time.monotonic()
            print(f"smartsearch: embedded {embedded:,} of {total:,} snippets", file=sys.stderr, flush=True)

    prepared = prepare(root, settings, report)
    print(f"{root}: {prepared.files:,} files ({prepared.skipped:,} skipped), {prepared.snippets:,} snippets")
    if prepared.semantic:
        print(f"embedded: {prepared.embedded:,} of {prepared.snippets:,} snippets")
    else:
        print("embedded: none (no local model: searches use words alone)")
    return 0


async def _query(args: argparse.Namespace) -> int:
    settings = _settings(args)
    params = parse_params(
        {
            key: value
            for key, value in {
                "query": args.query,
                "glob": args.glob,
                "limit": args.limit,
                "candidates": args.candidates,
                "mode": args.mode,
                "intent": args.intent,
                "context": args.context,
                "expandRelated": args.expand_related or None,
            }.items()
            if value is not None
        }
    )
    root = folder_of(args.root, "--root")
    judge = await judge_for(params, settings)
    result = await search_folder(FolderIndex.open(root, settings), params, settings, judge, JudgmentCache())
    if args.json:
        print(json.dumps(to_json(result), indent=2))
    else:
        _print_human(result, explain=args.explain)
    return 0 if result.matches else 1


def _run_query(args: argparse.Namespace) -> int:
    return asyncio.run(_query(args))


def _serve_mcp(args: argparse.Namespace) -> int:
    settings = _settings(args)
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="smartsearch mcp: %(levelname)s %(message)s")
    try:
        from smartsearch_ls.mcp_server import serve  # the SDK and its web stack, only for this command
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in ("mcp", "mcp_types"):
            raise
        raise ValueError(
            f"{error}: install the MCP extra into the environment that runs smartsearch, from your checkout: "
            "pip install '/path/to/smartsearch-ls[mcp]'"
        ) from None
    serve(settings)
    return 0


def explained(why: Why) -> str:
    """A match's evidence on one line, as a person reads it."""
    places = [f"{place}: {', '.join(terms)}" for place, terms in (("name", why.name), ("path", why.path),
              ("code", why.body)) if terms]  # fmt: skip
    parts = ["words in " + "; ".join(places) if places else "none of the question's words"]
    if why.semantic is not None:
        parts.append(f"meaning {why.semantic:.2f}")
    if why.factors:
        parts.append("weighed most: " + ", ".join(f"{name} ({effect:+.1f})" for name, effect in why.factors))
    return " | ".join(parts)


def _print_human(result: SearchResult, *, explain: bool = False) -> None:
    for match in result.matches:
        # Labeled, since a rule on the answer puts each after code that scored lower.
        placed = (
            description_kind(match.path, match.symbol, match.snippet_start_line) if result.mode == "behavior" else None
        )
        tags = ["[test]"] if match.kind == "test" else [f"[{placed}]"] if placed else []
        label = "  ".join([match.symbol or "", *tags]).strip()
        print(f"{match.path}:{match.start_line}-{match.end_line}  {match.relevance:.2f}  {label}".rstrip())
        for line in match.excerpt.splitlines():
            print(f"    {line}")
        if explain and match.why is not None:
            print(f"    why: {explained(match.why)}")
        if match.copies:
            places = ", ".join(f"{c.path}:{c.snippet_start_line}-{c.snippet_end_line}" for c in match.copies)
            print(f"    same code in: {places}")
        print()
    if explain and result.closest is not None:
        closest = result.closest
        place = f"{closest.path}:{closest.start_line}-{closest.end_line}"
        print(f"closest, below the threshold: {place}  {closest.relevance:.2f}  {closest.symbol or ''}".rstrip())
        if closest.why is not None:
            print(f"    why: {explained(closest.why)}")
    if result.omitted_matches:
        more = "match" if result.omitted_matches == 1 else "matches"
        print(f"({result.omitted_matches} more {more} above the threshold; raise --limit to see them)")
    print(f"searched: {summary(result.coverage)}; judge: {result.judge or 'none'}", file=sys.stderr)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"query": _run_query, "index": _index, "mcp": _serve_mcp}
