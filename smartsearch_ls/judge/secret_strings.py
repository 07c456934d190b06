"""A secret written as a string over several lines: a key under `API_KEY =` and triple quotes, on the lines below.

A module of its own because the one-line reading (`secret_assignments.ASSIGNMENT`) cannot take it: it reads the
triple quotes as an empty literal and the lines below as no value. Here the text is scanned once for its strings
(one-line literals and `#` and `//` comments stepped over, so that quotes inside them open nothing), so that opening
quotes are told from those closing a docstring, and each string that goes on over lines below a secret's name
(`secret_assignments.ASSIGNMENT_LEAD`, before its quotes on the line, on a line above with `=` or `(` ending it, or
with a call between: `dedent(`) has its lines decided one by one, as a lone literal of that name would be. A line with
spaces inside it, in a string of several lines, is text (prose, SQL, a help message) and is kept; once a line is
taken for a secret, every other line without spaces is taken as the rest of it (a key wrapped over lines). A
template's fields (`${user}`, an f-string's `{name}`) are left out before deciding. Lines keep their indentation and
line ends. In documentation (`prose`) only fenced code blocks are read, each on its own.

A string the text ends inside (a snippet cut there) ends with the text. A text that begins inside a string (a window
cut through it) reads each later string's quotes the other way round: so quotes read as closing ones are decided too
when a secret's name stands before them. What a scan cannot tell: a stray backtick outside strings and comments (a
Go raw string ending in a backslash, a regex's character class) turns the later strings the other way round too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smartsearch_ls.judge.secret_assignments import (
    ASSIGNMENT_LEAD,
    REDACTED,
    SECRET_WORD,
    Syntax,
    is_secret,
    without_template_fields,
)

_TOKEN = re.compile(
    r"(?=[\\`\"'#/])(?:\\.|```|\"\"\"|'''|`|\"(?:\\.|[^\"\\\n])*+\"|'(?:\\.|[^'\\\n])*+'|(?:#|//)[^\n]*)",
    re.DOTALL,
)
"""What the scan steps over: an escaped character, a Markdown fence (no string), the triple quotes or the backtick
that open a string over lines, and, taken whole, a one-line literal and a comment (`this.#token` is JavaScript's
private field, told apart after the match), so that quotes inside them open nothing. The lookahead lets the
search skip to where a token can start."""
_CLOSING = {quotes: re.compile(rf"\\.|{re.escape(quotes)}", re.DOTALL) for quotes in ('"' * 3, "'" * 3, "`")}
"""What closes a string opened by each kind of quotes, an escaped character stepped over."""
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)
_PREFIX_LETTERS = frozenset("rbuRBUfF")
_BETWEEN = re.compile(r"[ \t]*(?:[A-Za-z_][\w.]{0,60}\()?\(?(?:\s|\\|(?:#|//)[^\n]*)*+")
"""What may stand between a secret's name and its string's quotes: nothing, an opening parenthesis, a call
(`textwrap.dedent(`), and line ends, comments and a line-continuing backslash (`API_KEY = (` or Kotlin's `val apiKey
=` over the quotes)."""
_LINES_ABOVE = 3
"""How many lines above its quotes a string's name is looked for (a comment line may stand between)."""
_LEAD_REACH = 400
"""And how many characters: a bound whatever the lines' length, so that looking is never quadratic."""
_OPENS_BELOW = re.compile(r"(?:=|\(|\\)[ \t]*(?:(?:#|//)[^\n]*)?\r?\n?\Z")
_LINE_END = re.compile(r"(\r\n|\r|\n)")
_INNER_SPACE = re.compile(r"\S\s+\S")


def may_open_a_string(line: str) -> bool:
    """Whether a line naming a secret may open a string over the lines below it: it holds triple quotes or a backtick,
    or it ends in `=`, `(` or a backslash (the quotes on a line below). Most texts have no such line, and are not
    scanned for their strings at all."""
    return '"' * 3 in line or "'" * 3 in line or "`" in line or _OPENS_BELOW.search(line) is not None


def redacted_strings(text: str, mark: str, syntax: Syntax) -> tuple[str, int]:
    """`text` with each line of a secret string over several lines replaced by `mark`, and how many strings had any.
    Lines already holding a marker, or empty, are left as they are."""
    pieces: list[str] = []
    at = 0
    count = 0
    for floor, opening, start, end, reversed_reading in _strings(text, syntax):
        if start < at or _LINE_END.search(text, start, end) is None:
            continue  # inside a string blanked already, or on one line
        name = _name_before(text, floor, opening)
        if name is None:
            continue
        quotes = text[opening:start]
        formatted = "f" in quotes.lower() or text.startswith(".format(", end + len(quotes.lstrip("rbuRBUfF")))
        blanked = _blanked_lines(text[start:end], name, quotes[-1], mark, formatted=formatted, code=reversed_reading)
        if blanked is not None:
            pieces += (text[at:start], blanked)
            at = end
            count += 1
    pieces.append(text[at:])
    return "".join(pieces), count


def _strings(text: str, syntax: Syntax) -> Iterator[tuple[int, int, int, int, bool]]:
    """Each string opened by triple quotes or a backtick, in order: where the code it is in starts (the text's
    start, or its fenced block's in `prose`), where the string starts (its prefix, if any), where its text starts and
    where it ends (at its closing quotes, or the code's end), and whether it is one only if the text began inside a
    string: closing quotes are given as the start of a string too, running to the next quotes of their kind."""
    for floor, ceiling in _code_regions(text, syntax):
        at = floor
        while (token := _TOKEN.search(text, at, ceiling)) is not None:
            quotes = token[0]
            at = token.end()
            if quotes[0] == "#" and token.start() and text[token.start() - 1] == ".":
                at = token.start() + 1  # `this.#token`: a name, not a comment
                continue
            if quotes not in _CLOSING:
                continue
            closing = _CLOSING[quotes]
            end = ceiling
            while (close := closing.search(text, at, ceiling)) is not None:
                at = close.end()
                if close[0] == quotes:
                    end = close.start()
                    break
            yield floor, _prefix_start(text, token.start()), token.end(), end, False
            if end < ceiling:
                after = _next_quotes(text, quotes, end + len(quotes), ceiling)
                yield floor, end, end + len(quotes), after, True
            at = max(at, end)


def _next_quotes(text: str, quotes: str, at: int, ceiling: int) -> int:
    """Where the next `quotes` after `at` are, or `ceiling`: what a string opened by closing quotes would run to."""
    found = text.find(quotes, at, ceiling)
    return ceiling if found < 0 else found


def _code_regions(text: str, syntax: Syntax) -> list[tuple[int, int]]:
    """The parts of the text whose strings are read: all of it, or in documentation each fenced code block's body
    (its prose is no code: an apostrophe or a lone backtick in it opens nothing)."""
    if syntax != "prose":
        return [(0, len(text))]
    regions: list[tuple[int, int]] = []
    opened: tuple[str, int] | None = None  # the open fence's marks, where its body starts
    for fence in _FENCE.finditer(text):
        marks = fence[1]
        if opened is None:
            opened = (marks, fence.end() + 1)
        elif marks[0] == opened[0][0] and len(marks) >= len(opened[0]) and not fence[2].strip():
            regions.append((opened[1], fence.start()))
            opened = None
    if opened is not None and opened[1] < len(text):
        regions.append((opened[1], len(text)))
    return regions


def _prefix_start(text: str, quotes: int) -> int:
    """Where the string whose quotes are at `quotes` starts: at its prefix (`f`, `rb`), if it has one."""
    start = quotes
    while start > max(0, quotes - 2) and text[start - 1] in _PREFIX_LETTERS:
        start -= 1
    if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return quotes  # the end of a name, not a prefix
    return start


def _name_before(text: str, floor: int, opening: int) -> str | None:
    """The secret's name before a string starting at `opening` (its separator, and `_BETWEEN` between them; a `:`
    only on the quotes' own line, since a line ending in one opens a block, not a value); None when none stands
    there. Looked for on the quotes' line and the `_LINES_ABOVE` above it, within `_LEAD_REACH` characters."""
    reach = max(floor, opening - _LEAD_REACH)
    window = max(reach, text.rfind("\n", reach, opening) + 1)
    for _ in range(_LINES_ABOVE):
        if window <= reach:
            break
        window = max(reach, text.rfind("\n", reach, window - 1) + 1)
    if SECRET_WORD.search(text, window, opening) is None:
        return None  # most strings over lines are docstrings, below no name at all
    for lead in ASSIGNMENT_LEAD.finditer(text, window, opening):
        between = _BETWEEN.match(text, lead.end(), opening)
        if between is None or between.end() != opening:
            continue
        separator = lead[0].rstrip()
        if "\n" in between[0] and separator.endswith(":") and not separator.endswith(":="):
            continue
        return lead["name"]
    return None


def _blanked_lines(body: str, name: str, quote: str, mark: str, *, formatted: bool, code: bool) -> str | None:
    """A string's text with its lines that read as a secret of `name` replaced by `mark`, indentation and line ends
    kept; None when none does. `code`: it may be code (read after quotes that may close a string rather than open
    one), so a line with spaces inside it is kept even alone."""
    parts = _LINE_END.split(body)  # lines at even places, their line ends between
    values = {number: parts[number].strip() for number in range(0, len(parts), 2)}
    values = {number: value for number, value in values.items() if value and REDACTED not in value}
    several = code or len(values) > 1
    secret = [
        number
        for number, value in values.items()
        if not (several and _INNER_SPACE.search(value))
        and is_secret(name, without_template_fields(value, quote, formatted=formatted), quoted=True)
    ]
    if not secret:
        return None
    rest = [
        number
        for number, value in values.items()
        if number not in secret and not _INNER_SPACE.search(value) and any(c.isalnum() for c in value)
    ]
    for number in secret + rest:  # the rest of a key wrapped over lines: its short or all-letter pieces
        line, value = parts[number], values[number]
        indent = len(line) - len(line.lstrip())
        parts[number] = line[:indent] + mark + line[indent + len(value) :]
    return "".join(parts)
