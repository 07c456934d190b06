"""A secret written as a string over several lines: a key under `API_KEY =` and triple quotes, on the lines below.

A module of its own because the one-line reading (`secret_assignments.ASSIGNMENT`) cannot take it: it reads the
triple quotes as an empty literal and the lines below as no value. Here the text is scanned once for its strings
(one-line literals and `#` and `//` comments stepped over, so that quotes inside them open nothing), so that opening
quotes are told from those closing a docstring, and each string that goes on over lines below a secret's name
(`secret_assignments.ASSIGNMENT_LEAD`, before its quotes on the line, on a line above with `=` or `(` ending it, or
with a call that keeps the value between: `dedent(`) has its lines decided one by one, as a lone literal of that name
would be. In a string of several lines, one line with spaces inside makes it a text (prose, SQL, markup), where only
what looks generated is a secret, and a line of code or markup (parentheses, a leading `<`) is no value; otherwise,
once a line is taken for a secret, every other line is taken as the rest of it (a key wrapped over lines). A
template's fields (`${user}`, an f-string's `{name}`) are left out before deciding. Lines keep their indentation and
line ends. In documentation (`prose`), the parts between code blocks' fences are read, each on its own, and prose
without a fence is not.

A string the text ends inside (a snippet cut there) ends with the text. A scan can go wrong: a text may begin inside
a string (a window cut through it), and a stray quote outside strings and comments (a Go raw string ending in a
backslash, a regex's character class) turns the reading of the later quotes round. So quotes that end their line
and that the scan took for closing ones, or never saw, are decided too when a secret's name stands before them, as
a string that may be code: a line with spaces inside is kept even alone.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from smartsearch_ls.chunking.snippet import LINE_BREAK
from smartsearch_ls.judge.secret_assignments import (
    ASSIGNMENT_LEAD,
    REDACTED,
    SECRET_WORD,
    STRING_PREFIX_LETTERS,
    Syntax,
    is_formatted,
    is_secret,
    looks_generated,
    without_template_fields,
)

_TOKEN = re.compile(
    r"(?=[\\`\"'#/])(?:\\.|```|\"\"\"|'''|`|\"(?:\\.|[^\"\\\n])*+\"|'(?:\\.|[^'\\\n])*+'"
    r"|(?:(?<!\.)#(?![A-Za-z_$][\w$]*[ \t]*=[^=])|//)[^\n]*)",
    re.DOTALL,
)
"""What the scan steps over: an escaped character, a Markdown fence (no string), the triple quotes or the backtick
that open a string over lines, and, taken whole, a one-line literal and a comment (`this.#token` is JavaScript's
private field, and so is `#apiKey = ` declaring one), so that quotes inside them open nothing. The lookahead lets
the search skip to where a token can start."""
_CLOSING = {quotes: re.compile(rf"\\.|{re.escape(quotes)}", re.DOTALL) for quotes in ('"' * 3, "'" * 3, "`")}
"""What closes a string opened by each kind of quotes, an escaped character stepped over."""
_FENCE = re.compile(r"(?<![^\n\r])[ \t]*(?:`{3,}|~{3,})[^\n\r]*")
"""A fence of a documentation's code block, however deep in a list it is indented."""
_BETWEEN = re.compile(
    r"[ \t]*(?:(?:(?:textwrap\.)?dedent|(?:inspect\.)?cleandoc|(?:base64\.)?b64decode|bytes\.fromhex|json\.loads"
    r"|str|bytes|SecretStr)\()?\(?(?:\s|\\|(?:#|//)[^\n]*)*+"
)
"""What may stand between a secret's name and its string's quotes: nothing, an opening parenthesis, a call that
keeps the value (`textwrap.dedent(`, not `input(` nor `re.compile(`), and line ends, comments and a line-continuing
backslash (`API_KEY = (` or Kotlin's `val apiKey =` over the quotes)."""
_LINES_ABOVE = 3
"""How many lines above its quotes a string's name is looked for (a comment line may stand between)."""
_LEAD_REACH = 400
"""And how many characters: a bound whatever the lines' length, so that looking is never quadratic."""
_OPENS_BELOW = re.compile(r"(?:=|\(|\\)[ \t]*(?:(?:#|//)[^\n]*)?\r?\n?\Z")
_LINE_END = re.compile(f"({LINE_BREAK.pattern})")
"""Line ends as an editor counts them, kept by a split."""
_INNER_SPACE = re.compile(r"\S\s+\S")
_ENDS_LINE = re.compile(r"[ \t]*(?:#|//|\\?[ \t]*(?:\r\n|\r|\n|\Z))")  # a comment runs to its line's end
"""What may follow opening quotes that end their line: what quotes read as closing ones must be followed by for
the text after them to be read as a string (a template ending in `&password=` is followed by code)."""
_LINE_OPENING = re.compile(
    r"[ \t]*(?:(?:export|const|let|var|val|final|static|private|public|protected|readonly)[ \t]+)*[\[{(,]?[ \t]*"
)
"""What may stand before an assignment that begins its line: indentation, declaration words, an opening bracket."""
_ANY_QUOTES = re.compile(r"\"\"\"|'''|`")
_NOT_A_VALUE = re.compile(r"[()]|^[{\[<]")
"""A line of a string over several lines that is no value, as `is_secret` reads an unquoted one: code or markup."""


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
        name = _name_before(text, floor, opening, at_line_start=reversed_reading)
        if name is None:
            continue
        quotes = text[opening:start]
        prefix = quotes.rstrip("`\"'")
        formatted = is_formatted(prefix, text, end + len(quotes) - len(prefix))
        blanked = _blanked_lines(text[start:end], name, quotes[-1], mark, formatted=formatted, code=reversed_reading)
        if blanked is not None:
            pieces += (text[at:start], blanked)
            at = end
            count += 1
    pieces.append(text[at:])
    return "".join(pieces), count


def _strings(text: str, syntax: Syntax) -> list[tuple[int, int, int, int, bool]]:
    """Each string opened by triple quotes or a backtick, by where it starts: where the code it is in starts (the
    text's start, or a part of a document's: `_code_regions`), where the string starts (its prefix, if any), where
    its text starts and where it ends (at its closing quotes, or the code's end), and whether it is one only if the
    scan went wrong. Those are read with care (`_blanked_lines`' `code`): quotes that end their line and that the scan
    read as closing a string (a text may begin inside one) or never saw (inside a string it took for one, after a
    stray quote), each as the start of a string running to the next quotes of their kind or the next string the
    scan opened, which is read on its own."""
    found: list[tuple[int, int, int, int, bool]] = []
    for floor, ceiling in _code_regions(text, syntax):
        opened: set[int] = set()  # where the scan saw strings open
        at = floor
        while (token := _TOKEN.search(text, at, ceiling)) is not None:
            quotes = token[0]
            at = token.end()
            if quotes not in _CLOSING:
                continue
            opened.add(token.start())
            closing = _CLOSING[quotes]
            end = ceiling
            while (close := closing.search(text, at, ceiling)) is not None:
                at = close.end()
                if close[0] == quotes:
                    end = close.start()
                    break
            found.append((floor, _prefix_start(text, token.start()), token.end(), end, False))
            if end == ceiling:
                at = token.end()  # unclosed: the later strings are read too (this kind cannot come again)
                continue
            at = max(at, end)
        opened_at = sorted(opened)
        for quotes in _ANY_QUOTES.finditer(text, floor, ceiling):
            if quotes.start() not in opened and _ENDS_LINE.match(text, quotes.end(), ceiling):
                after = _next_quotes(text, quotes[0], quotes.end(), ceiling)
                seen = bisect_left(opened_at, quotes.end())
                if seen < len(opened_at):
                    after = min(after, opened_at[seen])  # a string the scan saw is read on its own
                found.append((floor, quotes.start(), quotes.end(), after, True))
    return sorted(found, key=lambda string: string[2])


def _next_quotes(text: str, quotes: str, at: int, ceiling: int) -> int:
    """Where the next `quotes` after `at` are, or `ceiling`: what a string opened by closing quotes would run to."""
    found = text.find(quotes, at, ceiling)
    return ceiling if found < 0 else found


def _code_regions(text: str, syntax: Syntax) -> list[tuple[int, int]]:
    """The parts of the text whose strings are read, each on its own: all of it; or in documentation each part
    between two fences of code blocks, and before the first and after the last, read afresh at each fence (a text
    cut out of a document may begin inside a block, so which parts are blocks is not known: prose read as code holds
    no secret's name before quotes that open a string, and a stray quote in it turns nothing round beyond the next
    fence). Documentation without a fence is prose alone, and is not read."""
    if syntax != "prose":
        return [(0, len(text))]
    fences = list(_FENCE.finditer(text))
    if not fences:
        return []
    starts = [0] + [fence.end() for fence in fences]
    ends = [fence.start() for fence in fences] + [len(text)]
    return list(zip(starts, ends, strict=True))


def _prefix_start(text: str, quotes: int) -> int:
    """Where the string whose quotes are at `quotes` starts: at its prefix (`f`, `rb`), if it has one."""
    start = quotes
    while start > max(0, quotes - 2) and text[start - 1] in STRING_PREFIX_LETTERS:
        start -= 1
    if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return quotes  # the end of a name, not a prefix
    return start


def _line_start(text: str, reach: int, at: int) -> int:
    """Where the line holding `at` starts, a lone `\r` ending a line too, or `reach`."""
    return max(reach, text.rfind("\n", reach, at) + 1, text.rfind("\r", reach, at) + 1)


def _name_before(text: str, floor: int, opening: int, at_line_start: bool = False) -> str | None:
    """The secret's name before a string starting at `opening` (its separator, and `_BETWEEN` between them; a `:`
    only on the quotes' own line, since a line ending in one opens a block, not a value); None when none stands
    there. Looked for on the quotes' line and the `_LINES_ABOVE` above it, within `_LEAD_REACH` characters.
    `at_line_start`: only an assignment that begins its line counts, for quotes the scan did not open (a comment or
    a docstring naming a key before a backtick is no assignment)."""
    reach = max(floor, opening - _LEAD_REACH)
    window = _line_start(text, reach, opening)
    for _ in range(_LINES_ABOVE):
        if window <= reach:
            break
        end = window - 1  # the line end before the window, `\r\n` stepped over whole
        if text[end] == "\n" and end > reach and text[end - 1] == "\r":
            end -= 1
        window = _line_start(text, reach, end)
    if SECRET_WORD.search(text, window, opening) is None:
        return None  # most strings over lines are docstrings, below no name at all
    for lead in ASSIGNMENT_LEAD.finditer(text, window, opening):
        between = _BETWEEN.match(text, lead.end(), opening)
        if between is None or between.end() != opening:
            continue
        separator = lead[0].rstrip()
        if "\n" in between[0] and separator.endswith(":") and not separator.endswith(":="):
            continue
        if at_line_start:
            line_start = _line_start(text, window, lead.start())  # bounded: a line begun before the window is long
            if (line_start and text[line_start - 1] not in "\r\n") or not _LINE_OPENING.fullmatch(
                text, line_start, lead.start()
            ):
                continue  # quotes the scan did not open: only under an assignment that begins its line
        return lead["name"]
    return None


def _blanked_lines(body: str, name: str, quote: str, mark: str, *, formatted: bool, code: bool) -> str | None:
    """A string's text with its lines that read as a secret of `name` replaced by `mark`, indentation and line ends
    kept; None when none does. `code`: it may be code (read after quotes that may close a string rather than open
    one), so it is read as a string of several lines even with one."""
    parts = _LINE_END.split(body)  # lines at even places, their line ends between
    values = {number: parts[number].strip() for number in range(0, len(parts), 2)}
    values = {number: value for number, value in values.items() if value and REDACTED not in value}
    several = code or len(values) > 1
    # Of several lines, one with spaces inside makes the string a text (prose, SQL, markup), where only what looks
    # generated is a secret, whatever the name; a line of code or markup is no value at all.
    text = several and any(_INNER_SPACE.search(value) for value in values.values())
    candidates = {
        number: value
        for number, value in values.items()
        if not (several and (_INNER_SPACE.search(value) or (_NOT_A_VALUE.search(value) and not looks_generated(value))))
    }
    literal = {n: without_template_fields(value, quote, formatted=formatted) for n, value in candidates.items()}
    secret = {
        number
        for number, value in literal.items()
        if is_secret(name, value, quoted=True) and (not text or looks_generated(value))
    }
    if not secret:
        return None
    if not text:  # the rest of a key wrapped over lines: its short or all-letter pieces
        secret |= {number for number, value in candidates.items() if any(c.isalnum() for c in value)}
    for number in secret:
        line, value = parts[number], values[number]
        indent = len(line) - len(line.lstrip())
        parts[number] = line[:indent] + mark + line[indent + len(value) :]
    return "".join(parts)
