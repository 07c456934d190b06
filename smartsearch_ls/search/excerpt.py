"""What a match shows: at most 12 lines, the part a person reads to decide.

A look-up (a declaration, a path, a test file) shows the first lines of the span it found (`match_at`, on the
narrowest snippet holding it). A judged snippet is focused (`focus`): a whole function can be 160 lines; the
excerpt is the narrowest judged snippet inside it that also passed (the evidence), else the 12-line window
holding the most query terms (typed words 1, their synonyms less), with the declaration's first line preferred
on ties so a reader sees what the code is. Import statements (Python, JS/TS) count for nothing: they name what
a file uses, not what it does, and a module header's import block, dense with the query's identifiers, would
otherwise be shown instead of the docstring or code that matched. A comment line counts a quarter and a docstring's
a half: a doc comment says the question's words in its own, so it drew the window above the code that does what
they say, while a method's docstring still marks where in a class the asked method is (both measured on the
quality set's development part: `bench/ranker/README.md`). An excerpt that leaves the machine (the MCP
server's, for an agent's hosted model) has its secrets redacted as a judge's snippet has (`redacted_excerpt`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from smartsearch_ls.chunking.snippet import Snippet, split_lines
from smartsearch_ls.discovery.documentation import is_documentation
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.terms import distinct_terms, query_weights
from smartsearch_ls.judge.redact import Redacted, redact_lines, redact_shown
from smartsearch_ls.judge.secret_assignments import syntax_of
from smartsearch_ls.search.result import Match
from smartsearch_ls.search.symbols.imports import parse_imports

EXCERPT_LINES = 12
EXCERPT_CHARS = 1_500
LineKind = Literal["code", "comment", "docstring"]
_LINE_WEIGHTS: dict[LineKind, int] = {"code": 100, "comment": 25, "docstring": 50}
"""What a query term counts on a line of each kind, in hundredths."""
_COMMENT_LINE = re.compile(r"\s*(?:#(?!\[|!|include\b|define\b)|//|/\*|\*(?!\*?\w)|--(?!\w))")
"""A line that starts with a comment in the outlined languages (a `*` continues a block comment); not Rust's `#[...]`,
a shebang, C's `#include`, Python's `*args` or `**kwargs`, a `--flag`."""
_QUOTE_OR_COMMENT = re.compile(r"[rRbBuUfF]{0,2}(?:\"\"\"|'''|\"|')|#")
"""Where a line's string literal or `#` comment starts, as `_line_kinds` reads a line."""
_ONE_LINE_REST = {quote: re.compile(rf"(?:\\.|[^{quote}\\])*{quote}") for quote in "\"'"}
"""The rest of a one-line literal after its opening quote, up to the quote that closes it."""
_DOCSTRING_START = re.compile(r"\s*[rRbBuUfF]{0,2}(?:\"\"\"|''')")
"""A line that opens a triple-quoted string before anything else: a docstring's first line."""


def evidence(match: Snippet, passing: Sequence[tuple[Snippet, float]]) -> Snippet | None:
    """The best-scoring narrower passing snippet inside `match`, if any."""
    inside = [
        (s, score)
        for s, score in passing
        if s.path == match.path
        and match.start_line <= s.start_line
        and s.end_line <= match.end_line
        and s.end_line - s.start_line < match.end_line - match.start_line
    ]
    if not inside:
        return None
    return min(inside, key=lambda item: (-item[1], item[0].end_line - item[0].start_line))[0]


def focus(snippet: Snippet, query: str, within: Snippet | None = None) -> tuple[int, int, str]:
    """`(start_line, end_line, text)` of the excerpt, 1-based inclusive."""
    lines = split_lines(snippet.text)
    first = snippet.start_line
    if within is not None:
        offset = within.start_line - snippet.start_line
        lines, first = lines[offset : offset + within.end_line - within.start_line + 1], within.start_line
    if len(lines) > EXCERPT_LINES:
        # In hundredths, so sliding sums stay exact and a tie is a tie (floats drifted: a later window won).
        weights = query_weights(query)
        by_kind = {kind: {t: round(share * w) for t, w in weights.items()} for kind, share in _LINE_WEIGHTS.items()}
        imports = _import_lines(snippet)
        kinds: Sequence[LineKind] = ["code"] * len(lines) if is_documentation(snippet.path) else _line_kinds(lines)
        hits = [
            0 if first + i in imports else sum(by_kind[kinds[i]].get(t, 0) for t in distinct_terms(line))
            for i, line in enumerate(lines)
        ]
        window = sum(hits[:EXCERPT_LINES])
        best, best_hits = 0, window
        for start in range(1, len(lines) - EXCERPT_LINES + 1):
            window += hits[start + EXCERPT_LINES - 1] - hits[start - 1]
            if window > best_hits:
                best, best_hits = start, window
        lines, first = lines[best : best + EXCERPT_LINES], first + best
    while len(lines) > 1 and sum(len(line) + 1 for line in lines) > EXCERPT_CHARS:
        lines = lines[:-1]
    text = "\n".join(lines)[:EXCERPT_CHARS]
    return first, first + len(lines) - 1, text


def _line_kinds(lines: Sequence[str]) -> list[LineKind]:
    """Each line's kind: a docstring's (a line inside a triple-quoted string, or one that opens it first thing), a
    comment, or code. A triple-quoted string ends only at its own quotes (`'''` does not close `\"\"\"`), and quotes
    in a one-line literal or after a `#` open nothing (`QUOTE = '\"\"\"'` is code)."""
    kinds: list[LineKind] = []
    open_quotes: str | None = None
    for line in lines:
        if open_quotes is not None or _DOCSTRING_START.match(line):
            kinds.append("docstring")
        else:
            kinds.append("comment" if _COMMENT_LINE.match(line) else "code")
        open_quotes = _quotes_left_open(line, open_quotes)
    return kinds


def _quotes_left_open(line: str, open_quotes: str | None) -> str | None:
    """The triple quotes of a string still open at the end of `line`, given those open at its start."""
    at = 0
    while True:
        if open_quotes is not None:
            closing = line.find(open_quotes, at)
            if closing < 0:
                return open_quotes
            at, open_quotes = closing + 3, None
        found = _QUOTE_OR_COMMENT.search(line, at)
        if found is None or found[0] == "#":
            return None
        quote = found[0].lstrip("rRbBuUfF")
        if len(quote) == 3:
            at, open_quotes = found.end(), quote
        elif (rest := _ONE_LINE_REST[quote].match(line, found.end())) is not None:
            at = rest.end()
        else:
            return None  # a quote nothing closes on its line is a character (`don't` in a comment), not a string


def _import_lines(snippet: Snippet) -> set[int]:
    """The line numbers of the snippet's import statements."""
    refs = parse_imports(snippet.path, [(snippet.start_line, snippet.text)])
    return {line for ref in refs for line in range(ref.start_line, ref.end_line + 1)}


def excerpt_at(start: int, lines: Sequence[str]) -> tuple[int, int, str]:
    """`(start_line, end_line, text)` of an excerpt showing `lines` from line `start`, as `focus` returns it."""
    return start, start + max(len(lines), 1) - 1, "\n".join(lines)


def _snippet_at(index: RootIndex, path: str, line: int, last: int | None = None) -> tuple[Snippet | None, bool]:
    """The narrowest snippet of a file containing a line (or the lines `line..last`), and whether the file is an
    unsaved buffer."""
    entries = index.entries([path])
    if not entries:
        return None, False
    entry = entries[0][1]
    best: Snippet | None = None
    for doc in entry.docs:
        snippet = index.snippets[doc]
        if snippet is None or not snippet.start_line <= line <= (last or line) <= snippet.end_line:
            continue
        if best is None or snippet.end_line - snippet.start_line < best.end_line - best.start_line:
            best = snippet
    return best, entry.unsaved


def match_at(index: RootIndex, path: str, start: int, end: int, symbol: str | None, score: float) -> Match | None:
    """A match for the span `start..end` of a file, its excerpt the span's first lines."""
    snippet, unsaved = _snippet_at(index, path, start)
    if snippet is None:
        return None
    lines = split_lines(snippet.text)[start - snippet.start_line :][: min(EXCERPT_LINES, end - start + 1)]
    span = (start, max(end, start))
    return Match.of(index.root, path, excerpt_at(start, lines), span, symbol=symbol, relevance=score, unsaved=unsaved)


def redacted_excerpt(index: RootIndex, match: Match) -> Redacted:
    """The match's excerpt with the secrets a judge is not sent redacted, for a result that leaves the machine.

    Every excerpt is lines of one indexed snippet (`focus`, `match_at`), so it is cut from that snippet's redaction
    (`redact_lines`), whole lines (a line `focus` cut short is redacted whole, so no secret is cut into a piece no
    pattern knows), then held to `EXCERPT_CHARS`, or to the excerpt's own length when a look-up's was longer, plus
    what the markers add over the values they stand for (a marker is mostly longer than its secret, and cutting that
    growth off would drop the excerpt's last lines, so its text would no longer span its range). Should
    the file have changed since the search and no snippet hold those lines any more, the excerpt is redacted on its
    own."""
    snippet, _ = _snippet_at(index, match.path, match.start_line, match.end_line)
    if snippet is None:
        return redact_shown(match.excerpt, syntax=syntax_of(match.path))
    redacted = redact_lines(snippet, match.start_line, match.end_line)
    start = match.start_line - snippet.start_line
    written = "\n".join(split_lines(snippet.text)[start : start + match.end_line - match.start_line + 1])
    growth = max(len(redacted.text) - len(written), 0)
    return replace(redacted, text=redacted.text[: max(len(match.excerpt), EXCERPT_CHARS) + growth])
