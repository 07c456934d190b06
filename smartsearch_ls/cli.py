"""`smartsearch query ...`: the engine at a terminal, for people and scripts.

The index is persisted between runs (like the server's), so the second query on a root starts warm; so are the
snippet vectors a search with the embedded judge computed, so a later query does not embed them again.
Output follows ripgrep's habits: 1-based lines, `path:start-end` first, exit 0 with matches, 1 with none,
2 on an error with the message on stderr. `--json` prints one object: the contract's result with lines
instead of LSP ranges.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from smartsearch_ls import __version__
from smartsearch_ls.discovery.errors import DiscoveryError
from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.gc_pause import gc_paused
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.judge.judgments import JudgeFailed, JudgmentCache
from smartsearch_ls.judge.models import LOCAL, JudgeUnavailable, configured_judge
from smartsearch_ls.judge.redact import tally_redactions
from smartsearch_ls.search.engine import SearchRequest, search
from smartsearch_ls.search.params import InvalidQuery, parse_params
from smartsearch_ls.search.result import Match, SearchResult, summary
from smartsearch_ls.search.routing import route
from smartsearch_ls.search.wire import result_wire
from smartsearch_ls.settings import Settings, merge


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smartsearch", description="Find code by behavior, in plain English.")
    parser.add_argument("--version", action="version", version=f"smartsearch {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    query = commands.add_parser("query", help="search a folder", description="Search a folder by behavior.")
    query.add_argument("query", help='what the code does, e.g. "where do we reject expired sessions"')
    query.add_argument("--root", default=".", help="folder to search (default: the current one)")
    query.add_argument("--glob", help="ripgrep-style glob that narrows the files searched")
    query.add_argument("--limit", type=int, help="matches to print (1-100, default 10)")
    query.add_argument("--candidates", type=int, help="snippets shortlisted and judged (1-256, default 128)")
    query.add_argument("--judge", help="judge model: `local` (default) or any Pydantic AI model name")
    query.add_argument("--threshold", type=float, help="relevance a match needs (0-1, default 0.5)")
    query.add_argument("--concurrency", type=int, help="judgments in flight at once (default 8)")
    query.add_argument("--timeout", type=float, help="seconds per judgment (default 30)")
    query.add_argument("--mode", choices=["auto", "behavior", "symbol", "path"], default="auto")
    query.add_argument(
        "--intent", choices=["definition", "references", "tests", "file"], help="what to find about a name"
    )
    query.add_argument("--context", help="words that re-rank (never widen) the hits, e.g. 'goal progress'")
    query.add_argument(
        "--expand-related", action="store_true", help="follow an imported name's import to its definition"
    )
    query.add_argument("--exclude", action="append", default=[], help="glob never indexed nor judged (repeatable)")
    query.add_argument("--cache-dir", help="where the persisted index lives")
    query.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point."""
    args = build_parser().parse_args(argv)
    try:
        code = asyncio.run(_query(args))
    except (InvalidQuery, DiscoveryError, JudgeUnavailable, JudgeFailed, ValueError) as error:
        print(f"smartsearch: {error}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # `smartsearch query ... | head`
        code = 0
    sys.exit(code)


def _settings(args: argparse.Namespace) -> Settings:
    given = {
        "judge.model": args.judge,
        "judge.timeout": args.timeout,
        "threshold": args.threshold,
        "concurrency": args.concurrency,
        "exclude": args.exclude or None,
        "cacheDir": args.cache_dir,
    }
    settings, problems = merge(Settings(), given)
    if problems:
        raise ValueError("; ".join(problem.message for problem in problems))
    return settings


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
    root = Path(args.root)
    if not root.is_dir():
        raise ValueError(f"--root {args.root!r} is not a directory.")
    mode = None if params.mode == "auto" else params.mode
    judge = configured_judge(settings) if (mode or route(params.query)) == "behavior" else None
    with gc_paused():
        index, _ = RootIndex.open_warm(root, exclude=tuple(settings.exclude), cache_dir=settings.cacheDir)
        # The index lives until the command exits: frozen before the collector resumes, its million objects are
        # walked by none of the collections the symbol build and the search set off (0.3-0.5 s of a 3 s run on a
        # 1.2 M-line root).
        gc.freeze()
    # The embedded judge embeds its candidates anyway (and shares the vectors), so the semantic side of the
    # shortlist costs nothing extra then; with a hosted judge it would cost seconds per one-shot run. Symbol and
    # path searches embed nothing and do not read the vectors.
    local_judge = judge is not None and settings.judge.model == LOCAL
    dense = DenseIndex.for_root(index) if settings.semantic and local_judge else None
    scope = Scope(index, "", GlobSet.of([params.glob]) if params.glob else GlobSet())
    request = SearchRequest.of(params, settings, [scope], mode, dense=[dense] if dense is not None else [])
    embedded_before = dense.progress()[0] if dense is not None else 0
    with tally_redactions() as redactions:
        result = await search(request, judge, JudgmentCache())
    result = replace(result, warnings=[*result.warnings, *redactions.warnings()])
    if dense is not None and (dense.adopt_cached() or dense.progress()[0] > embedded_before):
        dense.persist()  # what this search embedded is not embedded again by the next one
    if args.json:
        print(json.dumps(to_json(result), indent=2))
    else:
        _print_human(result)
    return 0 if result.matches else 1


def to_json(result: SearchResult) -> dict[str, Any]:
    """The contract's result with 1-based lines in place of LSP ranges."""

    def place(match: Match) -> dict[str, Any]:
        return {
            "start_line": match.start_line,
            "end_line": match.end_line,
            "snippet_start_line": match.snippet_start_line,
            "snippet_end_line": match.snippet_end_line,
        }

    return result_wire(result, place, lambda path: path.as_uri(), lambda u: {"path": u.path, "line": u.line})


def _print_human(result: SearchResult) -> None:
    for match in result.matches:
        print(f"{match.path}:{match.start_line}-{match.end_line}  {match.relevance:.2f}  {match.symbol or ''}".rstrip())
        for line in match.excerpt.splitlines():
            print(f"    {line}")
        print()
    if result.omitted_matches:
        more = "match" if result.omitted_matches == 1 else "matches"
        print(f"({result.omitted_matches} more {more} above the threshold; raise --limit to see them)")
    print(f"searched: {summary(result.coverage)}; judge: {result.judge or 'none'}", file=sys.stderr)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
