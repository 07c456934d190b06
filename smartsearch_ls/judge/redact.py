"""Secrets out of snippets before a judge sees them.

Credential files (`.env*`, keys, keystores) are never indexed at all (`discovery.globs.SECRET_GLOBS`), but
secrets also live inside ordinary source: a test fixture with a real API key, a config module with a
password, a private key pasted into a docstring. Whatever the judge is (a hosted model bills and may log
what it is sent), such values are replaced by `[REDACTED:<kind>]` in the text that is framed for the judge.
The index, the excerpts returned to the editor and the command line, and the judgment cache keep the original
text: those stay on the machine. What leaves it is redacted: what is framed for judging, and the excerpts the MCP
server returns to an agent (`redact_lines`), which forwards them to its hosted model. Line breaks are kept, so the
judged text has the snippet's line count and an excerpt's lines can be cut from its snippet's redaction.

What is recognized: the well-known shapes of provider tokens, `Bearer` and `Basic` credentials, passwords in
URLs, private key blocks, and assignments whose name says "secret" in the syntaxes code and config files use
(`judge.secret_assignments`: which names, which values, and why `key = dict_key` is left alone). Names alone
(`token = get_token()`) are not secrets, nor are templates made of other values (`token =
f"{user}-{time.time()}"`). A private key block is found on the whole file (`chunking.key_blocks`): a snippet that
starts inside one, below its `BEGIN` line, has those lines blanked too (`redact_snippet`), since its own text
cannot tell key material from any other base64. So is a YAML block scalar under a secret-sounding name
(`chunking.secret_blocks`: `password: |` and its more-indented lines): in a config file, a snippet that starts in
its body has those lines blanked, by the name alone, each as a `secret` marker counted as one `assignment`, the
way a block seen whole is. A secret of no recognized shape (a password in a comment, a value under an unrelated
name) is sent as it is.
Counting: each search reports how many of its shortlisted snippets had something redacted, through the
`RedactionTally` a front end installs with `tally_redactions()` (the judge runner adds to it); the MCP server
counts its excerpts in a tally of their own.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

from smartsearch_ls.chunking.key_blocks import KEY_BEGIN, KEY_END
from smartsearch_ls.chunking.secret_blocks import YAML_BLOCK
from smartsearch_ls.chunking.snippet import Snippet, split_lines
from smartsearch_ls.judge import secret_assignments
from smartsearch_ls.judge.secret_assignments import (
    ASSIGNMENT,
    ASSIGNMENT_LEAD,
    DOCKER_ENV,
    REDACTED,
    SECRET_WORD,
    SECRET_WORD_LOWERED,
    XML_ADD,
    XML_ELEMENT,
    Syntax,
    syntax_of,
)
from smartsearch_ls.judge.secret_strings import may_open_a_string, redacted_strings

_PRIVATE_KEY = re.compile(rf"{KEY_BEGIN}.*?(?:{KEY_END}|\Z)", re.DOTALL)
_KEY_END = re.compile(KEY_END)

_TOKENS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    # (kind, literals one of which every match contains, pattern): a substring test skips most snippets at C speed
    ("openai-key", ("sk-",), re.compile(r"(?<![A-Za-z0-9_-])sk-(?:[A-Za-z0-9]+-){0,3}[A-Za-z0-9_-]{16,}")),
    (
        "aws-access-key",
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"),
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Z0-9])"),
    ),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    ),
    ("slack-token", ("xox",), re.compile(r"(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}")),
    ("google-api-key", ("AIza",), re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}")),
    ("stripe-key", ("k_live_", "k_test_"), re.compile(r"(?<![A-Za-z0-9_])[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}")),
    ("jwt", ("eyJ",), re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)

_BEARER = re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/-]{8,}=*)")
_BASIC = re.compile(r"(?i)(\bbasic\s+)([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])")
_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@\"']+:)([^\s@/\"']{3,})(@)")


def _bearer(found: re.Match[str]) -> str | None:
    """A bearer token of 16 characters, or of 8 with a digit: "Bearer authentication" in prose is not one."""
    token = found[2]
    return found[1] + _mark("bearer-token") if len(token) >= 16 or any(c.isdigit() for c in token) else None


def _basic(found: re.Match[str]) -> str | None:
    """HTTP Basic credentials: base64 of `user:password`, which is what tells them from "Basic usage"."""
    try:
        decoded = base64.b64decode(found[2], validate=True)
    except (binascii.Error, ValueError):
        return None
    return found[1] + _mark("basic-auth") if b":" in decoded else None


def _mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True, slots=True)
class Redacted:
    """A text with its secrets replaced, and what was replaced."""

    text: str
    kinds: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.kinds)


REMEMBERED_SNIPPETS = 2_048
"""Snippets whose redaction is kept: a judged search redacts its whole shortlist, and the next searches of a
session shortlist mostly the same snippets, which would otherwise be scanned again each time."""


def redact_snippet(snippet: Snippet) -> Redacted:
    """What a judge may see of a snippet: its text redacted, including the lines of a private key block or of a
    secret YAML block scalar it starts inside (`Snippet.key_until`, `Snippet.secret_until`, found on the whole
    file), with unquoted values read as its file's syntax does."""
    key_lines = max(0, min(snippet.key_until, snippet.end_line) - snippet.start_line + 1)
    secret_lines = max(0, min(snippet.secret_until, snippet.end_line) - snippet.start_line + 1)
    return _remembered(snippet.text, syntax_of(snippet.path), key_lines, secret_lines)


def redact_lines(snippet: Snippet, first: int, last: int) -> Redacted:
    """Lines `first..last` (1-based, in the file) of the snippet as a judge sees them (`redact_snippet`): an excerpt
    cut from the snippet's redaction is blanked where a private key block or a secret block scalar begun above the
    excerpt goes on, which
    the excerpt's own text cannot tell. Its kinds are those of these lines alone (`_shown`)."""
    start, stop = first - snippet.start_line, last - snippet.start_line + 1
    return _shown(split_lines(redact_snippet(snippet).text)[start:stop], split_lines(snippet.text)[start:stop])


def redact_shown(text: str, *, syntax: Syntax = "config") -> Redacted:
    """`redact`, with the kinds named as `redact_lines` names them, for text returned beside its excerpts."""
    return _shown(split_lines(redact(text, syntax=syntax).text), split_lines(text))


def _shown(shown: list[str], written: list[str]) -> Redacted:
    """Redacted lines and the kinds of what they lost, each named as its `[REDACTED:<kind>]` marker names it (so
    markers the source itself holds are not counted), and a key block's body, whose lines are blanked with one
    marker on the block's first line, counted once."""
    kinds = Counter(_MARKER.findall("\n".join(shown))) - Counter(_MARKER.findall("\n".join(written)))
    # Not strict: a key block's lone `\r` line ends become `\n`s only as many as it had `\n`s, which must not fail a
    # search (the lines after such a block are then compared with others, and a changed line can only add a kind).
    if any(now != then and not _MARKER.search(now) for now, then in zip(shown, written, strict=False)):
        kinds["private-key"] = max(kinds["private-key"], 1)
    return Redacted("\n".join(shown), tuple(sorted(kinds.elements())))


_MARKER = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")


@lru_cache(maxsize=REMEMBERED_SNIPPETS)
def _remembered(text: str, syntax: Syntax, key_lines: int, secret_lines: int) -> Redacted:
    return redact(text, syntax=syntax, key_lines=key_lines, secret_lines=secret_lines)


def redact(text: str, *, syntax: Syntax = "config", key_lines: int = 0, secret_lines: int = 0) -> Redacted:
    """`text` with every secret replaced by `[REDACTED:<kind>]`; newlines are kept.

    `syntax`: how the text writes values (`secret_assignments.Syntax`); the default reads the most as literals.
    `key_lines`: how many of the text's first lines continue a private key block that began above the text.
    `secret_lines`: how many continue the body of a secret-named YAML block scalar that began above it; blanked
    only in `config` syntax, where the block's own `name: |` line is redacted too.
    """
    kinds: list[str] = []
    if key_lines:
        text = _blank_key_lines(text, key_lines)
        kinds.append("private-key")
    if secret_lines and syntax == "config":
        text, blanked = _blank_block_lines(text, key_lines, secret_lines, _mark("secret"))
        if blanked:
            kinds.append("assignment")  # what a block seen whole is counted as (`secret_assignments.redacted_block`)

    def sub(
        kind: str,
        pattern: re.Pattern[str],
        replace: Callable[[re.Match[str]], str | None],
        source: str,
        lines: list[tuple[int, int]] | None = None,
        *,
        below: bool = True,
    ) -> str:
        """`pattern.sub`, where `replace` may turn a match down (None). The search then goes on from the end of the
        match's `lead` when it has one: an assignment whose value is no secret may hold one
        (`{password: x, token: "..."}`, the rest of that line being the first one's unquoted value). `lines`: the
        source's lines naming a secret, where alone an `ASSIGNMENT` is looked for (`_assignments_starting_on`,
        which reads one below its line unless `below` is false)."""
        find = (
            (lambda at: pattern.search(source, at))
            if lines is None
            else _assignments_starting_on(source, lines, below=below)
        )
        pieces: list[str] = []
        at = 0
        while (found := find(at)) is not None:
            # Already redacted by an earlier, more specific pattern, or of a secret's shape but not one. An
            # assignment leaves out what was redacted itself (`secret_assignments.redacted`), so that a literal
            # beside a provider's key is still decided.
            skip = REDACTED in found[0] and pattern is not _PRIVATE_KEY and pattern is not ASSIGNMENT
            replaced = None if skip else replace(found)
            if replaced is None:
                resume = found.end("lead") if "lead" in pattern.groupindex else found.end()
                pieces.append(source[at:resume])
                at = resume
                continue
            kinds.append(kind)
            pieces += (source[at : found.start()], replaced)
            at = found.end()
        pieces.append(source[at:])
        return "".join(pieces)

    # Each pattern runs only where a literal its matches must contain is present: a judged search redacts
    # every shortlisted snippet, and scanning all of them with every pattern cost a large share of a search.
    if "-----BEGIN" in text:
        text = sub("private-key", _PRIVATE_KEY, lambda m: _mark("private-key") + "\n" * m[0].count("\n"), text)
    for kind, literals, pattern in _TOKENS:
        if any(literal in text for literal in literals):
            text = sub(kind, pattern, lambda m, k=kind: _mark(k), text)
    lowered = text.lower()
    if "bearer" in lowered:
        text = sub("bearer-token", _BEARER, _bearer, text)
    if "basic" in lowered:
        text = sub("basic-auth", _BASIC, _basic, text)
    if "://" in text:
        text = sub("url-password", _URL_PASSWORD, lambda m: m[1] + _mark("password") + m[3], text)
    if lines := _lines_naming_a_secret(text):
        secret = _mark("secret")

        def assignment(found: re.Match[str]) -> str | None:
            return secret_assignments.redacted(found, secret, syntax, kept)

        def kept(between: str) -> str:
            """What stands between the secret literals of a value read (in brackets, over several lines): its
            comments may hold an assignment of their own (`"hunter2"  # old: password = "..."`), which resuming
            after the value would never search. Each is read on its own line: it is in a comment or a literal."""
            inside = _lines_naming_a_secret(between)
            return sub("assignment", ASSIGNMENT, assignment, between, inside, below=False) if inside else between

        strings_may_open = any(may_open_a_string(text[start:end]) for start, end in lines)
        text = sub("assignment", ASSIGNMENT, assignment, text, lines)
        if strings_may_open:
            text, strings = redacted_strings(text, secret, syntax)
            kinds += ["assignment"] * strings
        if "</" in text:
            text = sub("assignment", XML_ELEMENT, lambda m: secret_assignments.redacted_element(m, secret), text)
        if "<add" in lowered:
            text = sub("assignment", XML_ADD, lambda m: secret_assignments.redacted_attribute(m, secret), text)
        if syntax == "config" and ("|" in text or ">" in text):
            text = sub("assignment", YAML_BLOCK, lambda m: secret_assignments.redacted_block(m, secret), text)
        if "ENV" in text:
            text = sub("assignment", DOCKER_ENV, lambda m: secret_assignments.redacted_env(m, secret), text)
    return Redacted(text, tuple(kinds))


def _lines_naming_a_secret(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of each line holding a `SECRET_WORD`, its newline included, in order; one scan of the text."""
    spans: list[tuple[int, int]] = []
    lowered = text.lower()
    # Lower-casing kept every position when it kept the length (no letter became two). The long s is the one letter
    # the case-insensitive pattern reads as an ASCII one (`s`) that lower-casing leaves as it is.
    same_places = len(lowered) == len(text) and "\u017f" not in text
    words = SECRET_WORD_LOWERED.finditer(lowered) if same_places else SECRET_WORD.finditer(text)
    for found in words:
        if spans and found.start() < spans[-1][1]:
            continue  # on the line already taken
        start = text.rfind("\n", 0, found.start()) + 1
        newline = text.find("\n", found.end())
        spans.append((start, len(text) if newline < 0 else newline + 1))
    return spans


def _assignments_starting_on(
    text: str, lines: list[tuple[int, int]], *, below: bool = True
) -> Callable[[int], re.Match[str] | None]:
    """The first `ASSIGNMENT` at or after a position that starts on one of `lines` (`_lines_naming_a_secret`),
    read on the whole text from there, or with `below` false on its line only.

    Looked for only on those lines: the name looks ahead for a secret word at every position, which on a whole
    snippet cost more than all the other patterns together. Read on the whole text: a value in brackets goes on
    below its name's line (`PASSWORD = (` over its literals, empty lines and comments between them), and the
    pattern alone says where it ends, so no second reading of the lines below can stop short of it.

    On its line only, as every assignment was read before values went below their name: one in a comment (after the
    line's first `#`, `//` or `/*` outside its string literals: `# old: token = (`, not `x = "#"; token = (`), one
    inside a string literal (`"token=(#",`) and one inside a value already read across lines (in one of its comments
    or literals). Read below, each such `token=(` read the comments and literals after it to the text's end, and the
    next line's read them again: quadratic in the text's length (the inputs that showed it are the speed test's, in
    tests/judge/test_redact.py).
    Read from a line's code, a value is made of literals, commas and comments, so the leads on the lines it
    goes on over are in its literals or comments: only one per line is read below, and not again on the lines below.
    A value's own comments are searched by `redact`'s `kept`. `this.#token = [` is JavaScript's private field, not a
    comment."""
    ends = [end for _, end in lines]
    code: dict[int, tuple[int, list[int], list[int]]] = {}  # a line's (by its index) comment start and literals
    read_until = 0 if below else len(text)

    def find(at: int) -> re.Match[str] | None:
        nonlocal read_until
        for index in range(bisect_right(ends, at), len(lines)):
            start, end = lines[index]
            where = max(at, start)
            while (lead := ASSIGNMENT_LEAD.search(text, where, end)) is not None:
                on_its_line = lead.start() < read_until
                if not on_its_line:
                    if index not in code:
                        code[index] = _code_of_line(text, start, end)
                    comment, opens, closes = code[index]
                    inside = bisect_right(opens, lead.start() - 1) - 1  # the last literal opened before the lead
                    on_its_line = lead.start() > comment or (inside >= 0 and lead.start() < closes[inside])
                if (found := ASSIGNMENT.match(text, lead.start(), end if on_its_line else len(text))) is not None:
                    if found.end() > end:
                        read_until = found.end()
                    return found
                where = lead.start() + 1
        return None

    return find


_QUOTE_OR_COMMENT = re.compile(r"[\"'`]|(?<!\.)#|//|/\*")
_CLOSING = {quote: re.compile(rf"(?:\\.|[^{quote}\\\n])*+{quote}") for quote in "\"'`"}
"""What follows a quote up to the one closing it on its line, as `secret_assignments.ASSIGNMENT` reads a literal."""


def _code_of_line(text: str, start: int, end: int) -> tuple[int, list[int], list[int]]:
    """Where the line `text[start:end]`'s first comment (`#`, `//`, `/*`) outside its string literals is (or its
    end), and where each of its literals before it opens and closes. A quote that no other closes on its line is a
    character like any other, and so is every later one of its kind (the same reading of escapes goes on from it):
    each is tried once."""
    opens: list[int] = []
    closes: list[int] = []
    unclosed: set[str] = set()
    at = start
    while (found := _QUOTE_OR_COMMENT.search(text, at, end)) is not None:
        mark = found[0]
        if mark in ("#", "//", "/*"):  # as `secret_assignments._GAP` reads comments: a value never goes on past one
            return found.start(), opens, closes
        at = found.end()
        if mark in unclosed:
            continue
        if (closing := _CLOSING[mark].match(text, at, end)) is None:
            unclosed.add(mark)
            continue
        opens.append(found.start())
        closes.append(closing.end())
        at = closing.end()
    return end, opens, closes


def _blank_key_lines(text: str, count: int) -> str:
    """The text with its first `count` lines blanked, the first one marked; what follows the `END` line's
    armor (a closing quote) is kept."""
    lines = text.split("\n")
    count = min(count, len(lines))
    end = _KEY_END.search(lines[count - 1])
    tail = lines[count - 1][end.end() :] if end is not None else ""
    lines[:count] = [""] * count
    lines[0] = _mark("private-key")
    lines[count - 1] += tail
    return "\n".join(lines)


def _blank_block_lines(text: str, skip: int, count: int, mark: str) -> tuple[str, bool]:
    """The text with each of its first `count` lines that holds something replaced by `mark`, its indentation (and
    a `\r` line end) kept, as `secret_assignments.redacted_block` blanks a block it sees whole; and whether any
    was. The first `skip` lines, a key block's that were blanked already (a key under `private_key: |`), are left."""
    lines = text.split("\n")
    blanked = False
    for number in range(skip, min(count, len(lines))):
        line = lines[number]
        content = line.rstrip("\r")
        if content.strip():
            lines[number] = content[: len(content) - len(content.lstrip())] + mark + line[len(content) :]
            blanked = True
    return "\n".join(lines), blanked


@dataclass
class RedactionTally:
    """Snippets with secrets redacted during one search (shortlisted ones, judged or answered from the cache)."""

    snippets: int = 0
    secrets: int = 0
    kinds: set[str] = field(default_factory=set)

    def add(self, redacted: Redacted) -> None:
        if redacted.count:
            self.snippets += 1
            self.secrets += redacted.count
            self.kinds.update(redacted.kinds)

    def warnings(self, *, returned: bool = False) -> list[str]:
        """What a result says when something was redacted: what, and that only known shapes are recognized, so the
        count never reads as "every secret was caught". `returned`: the tally counts the excerpts (and import
        specifiers) of a result returned to an agent, not the snippets sent for judging."""
        if not self.snippets:
            return []
        values = "value" if self.secrets == 1 else "values"
        redacted = f"Redacted {self.secrets} {values} of a known secret shape ({', '.join(sorted(self.kinds))}) in"
        if returned:
            places = "excerpt or import" if self.snippets == 1 else "excerpts and imports"
            return [
                f"{redacted} {self.snippets} {places} of this result, as a judge is sent them. Only known shapes are "
                "recognized: any other secret in this result is returned as written."
            ]
        snippets = "snippet" if self.snippets == 1 else "snippets"
        return [
            f"{redacted} {self.snippets} {snippets} before judging; they were judged without those values. Only known "
            "shapes are recognized: any other secret in the judged snippets was sent as written."
        ]


_CURRENT: contextvars.ContextVar[RedactionTally | None] = contextvars.ContextVar("smartsearch_redactions", default=None)


def current_tally() -> RedactionTally | None:
    """The tally of the search running in this context, if its front end installed one."""
    return _CURRENT.get()


@contextmanager
def tally_redactions() -> Iterator[RedactionTally]:
    """Count redactions of the searches run inside this block (in this task and the tasks it starts)."""
    tally = RedactionTally()
    token = _CURRENT.set(tally)
    try:
        yield tally
    finally:
        _CURRENT.reset(token)
