"""A secret written as a string over several lines: a key under `API_KEY =` and triple quotes, on the lines below.

A module of its own because the one-line reading (`secret_assignments.ASSIGNMENT`) cannot take it: it reads the
triple quotes as an empty literal and the lines below as no value. Here the text is scanned once for its strings, so
that opening quotes are told from those closing a docstring (a docstring whose last line ends in `password=` opens
nothing), and each string that goes on over lines below a secret's name (`secret_assignments.ASSIGNMENT_LEAD`,
directly before its quotes or before an opening parenthesis) has its lines decided one by one, as a lone literal of
that name would be: a key wrapped over lines is one generated-looking token a line, where a line of prose under a
key's name (`expired_token =` over an error message) is not, and joined the two would read alike. A template's fields
(`${user}`, an f-string's `{name}`) are left out before deciding. Lines keep their indentation and line ends.

A string the text ends inside (a snippet cut there) ends with the text. A string the text begins inside (a window
cut through it) is not known to be one: its closing quotes read as an opening, and the lines below them are decided
only if a secret's name stands before those quotes.
"""

from __future__ import annotations

import re

from smartsearch_ls.judge.secret_assignments import (
    ASSIGNMENT_LEAD,
    REDACTED,
    SECRET_WORD,
    is_secret,
    without_template_fields,
)

_TOKEN = re.compile(r"\\.|```|\"\"\"|'''|`|\"(?:\\.|[^\"\\\n])*+\"|'(?:\\.|[^'\\\n])*+'", re.DOTALL)
"""What the scan steps over: an escaped character, a Markdown fence (no string), the triple quotes or the backtick
that open a string over lines, and a one-line literal taken whole, so that triple quotes inside one open nothing."""
_CLOSING = {quotes: re.compile(rf"\\.|{re.escape(quotes)}", re.DOTALL) for quotes in ('"' * 3, "'" * 3, "`")}
"""What closes a string opened by each kind of quotes, an escaped character stepped over."""
_PREFIX_LETTERS = frozenset("rbuRBUfF")
_OPENING = re.compile(r"\(\s*\Z")
"""An opening parenthesis between the name and the quotes: `API_KEY = (` over the quotes (a long line wrapped)."""
_LEAD_REACH = 300
"""How far before its quotes a string's name is looked for: its line, or the line before it."""


def may_open_a_string(line: str) -> bool:
    """Whether a line naming a secret may open a string over the lines below it: it holds triple quotes or a backtick,
    or it ends in an opening parenthesis (the quotes on the next line). Most texts have no such line, and are not
    scanned for their strings at all."""
    return '"' * 3 in line or "'" * 3 in line or "`" in line or line.rstrip().endswith("(")


def redacted_strings(text: str, mark: str) -> tuple[str, int]:
    """`text` with each line of a secret string over several lines replaced by `mark`, and how many strings had any.
    Lines already holding a marker, or empty, are left as they are."""
    pieces: list[str] = []
    at = 0
    count = 0
    for opening, start, end in _strings(text):
        if "\n" not in text[start:end]:
            continue
        name = _name_before(text, opening)
        if name is None:
            continue
        quotes = text[opening:start]
        formatted = "f" in quotes.lower() or text.startswith(".format(", end + len(quotes.lstrip("rbuRBUfF")))
        blanked = _blanked_lines(text[start:end], name, quotes[-1], mark, formatted=formatted)
        if blanked is not None:
            pieces += (text[at:start], blanked)
            at = end
            count += 1
    pieces.append(text[at:])
    return "".join(pieces), count


def _strings(text: str) -> list[tuple[int, int, int]]:
    """Each string opened by triple quotes or a backtick: where it starts (its prefix, if any), where its text
    starts and where it ends (at its closing quotes, or the text's end)."""
    found: list[tuple[int, int, int]] = []
    at = 0
    while (token := _TOKEN.search(text, at)) is not None:
        quotes = token[0]
        at = token.end()
        if quotes not in _CLOSING:
            continue
        end = len(text)
        closing = _CLOSING[quotes]
        while (close := closing.search(text, at)) is not None:
            at = close.end()
            if close[0] == quotes:
                end = close.start()
                break
        found.append((_prefix_start(text, token.start()), token.end(), end))
        at = max(at, end)
    return found


def _prefix_start(text: str, quotes: int) -> int:
    """Where the string whose quotes are at `quotes` starts: at its prefix (`f`, `rb`), if it has one."""
    start = quotes
    while start > max(0, quotes - 2) and text[start - 1] in _PREFIX_LETTERS:
        start -= 1
    if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return quotes  # the end of a name, not a prefix
    return start


def _name_before(text: str, opening: int) -> str | None:
    """The secret's name directly before a string starting at `opening`, with its separator (`API_KEY = `,
    `"token": `) and maybe an opening parenthesis between them; None when no such name stands there."""
    reach = max(0, opening - _LEAD_REACH)
    line_start = text.rfind("\n", reach, opening) + 1
    if not text[line_start:opening].strip():  # the quotes on a line of their own, below `API_KEY = (`
        line_start = text.rfind("\n", reach, max(reach, line_start - 1)) + 1
    if SECRET_WORD.search(text, line_start, opening) is None:
        return None  # most strings over lines are docstrings, below no name at all
    for lead in ASSIGNMENT_LEAD.finditer(text, line_start, opening):
        if lead.end() == opening or _OPENING.match(text, lead.end(), opening):
            return lead["name"]
    return None


def _blanked_lines(body: str, name: str, quote: str, mark: str, *, formatted: bool) -> str | None:
    """A string's text with each of its lines that reads as a secret of `name` replaced by `mark`, its indentation
    and line end kept; None when none does."""
    lines = body.split("\n")
    blanked = False
    for number, line in enumerate(lines):
        value = line.strip()
        if not value or REDACTED in value:
            continue
        if is_secret(name, without_template_fields(value, quote, formatted=formatted), quoted=True):
            indent = len(line) - len(line.lstrip())
            lines[number] = line[:indent] + mark + line[indent + len(value) :]
            blanked = True
    return "\n".join(lines) if blanked else None
