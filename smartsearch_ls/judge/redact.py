"""Secrets out of snippets before a judge sees them.

Credential files (`.env*`, keys, keystores) are never indexed at all (`discovery.globs.SECRET_GLOBS`), but
secrets also live inside ordinary source: a test fixture with a real API key, a config module with a
password, a private key pasted into a docstring. Whatever the judge is (a hosted model bills and may log
what it is sent), such values are replaced by `[REDACTED:<kind>]` in the text that is framed for the judge.
The index, the excerpts returned to the editor and the judgment cache keep the original text: only what
leaves for judging is redacted. Line breaks are kept, so the judged text has the snippet's line count.

Patterns are the well-known shapes of provider tokens plus assignments whose name says "secret" and whose
value is a quoted literal (`password = "..."`); names alone (`token = get_token()`) are not secrets, nor are
templates made of other values (`token = f"{user}-{time.time()}"`: under 4 characters left without their fields).
A private key block is found on the whole file (`chunking.key_blocks`): a snippet that starts inside one, below
its `BEGIN` line, has those lines blanked too (`redact_snippet`), since its own text cannot tell key material
from any other base64.
Counting: each search reports how many of its shortlisted snippets had something redacted, through the
`RedactionTally` a front end installs with `tally_redactions()` (the judge runner adds to it).
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from smartsearch_ls.chunking.key_blocks import KEY_BEGIN, KEY_END
from smartsearch_ls.chunking.snippet import Snippet

_PRIVATE_KEY = re.compile(rf"{KEY_BEGIN}.*?(?:{KEY_END}|\Z)", re.DOTALL)
_KEY_END = re.compile(KEY_END)
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]{0,40}?"
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key"
    r"|credentials?|client[_-]?secret)"
    r"[A-Za-z0-9_.-]{0,40}"
)

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

_BEARER = re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/-]{16,}=*)")
_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@\"']+:)([^\s@/\"']{3,})(@)")
_QUOTED_ASSIGNMENT = re.compile(
    rf"(?i)(?P<lead>(?<![A-Za-z0-9_])[\"']?{_SECRET_NAME}[\"']?\s*(?::=|=>|==|=|:)\s*[rbuf]?)"
    r"(?P<q>[\"'])(?P<value>[^\"'\n]{4,})(?P=q)"
)
_SECRET_WORD = re.compile(
    r"(?i)passw|passphrase|secret|token|credential|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key"
)
"""A word every `_QUOTED_ASSIGNMENT` match contains: searched first, it spares most snippets that pattern's scan
(the costliest of all: 85 of ~170 ms for 256 snippets of `large`)."""
_ENV_WORDS = ("PASSW", "SECRET", "TOKEN", "APIKEY", "API_KEY", "ACCESSKEY", "ACCESS_KEY")
"""Literals one of which every `_ENV_ASSIGNMENT` match contains."""
_ENV_ASSIGNMENT = re.compile(
    r"(?m)^(?P<lead>[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY)[A-Z0-9_]*"
    r"[ \t]*=[ \t]*)(?P<value>[^\s\"'#]{8,})"
)


_TEMPLATE_FIELD = re.compile(r"\{(?:[A-Za-z_][A-Za-z0-9_.]*(?:\([^{}]*\)|\[[^{}]*\])*|[0-9]*)(?:![rsa])?(?::[^{}]*)?\}")
"""A replacement field of an f-string or `str.format`: `{user}`, `{self.name!r}`, `{time.time()}`, `{0}`, `{}`."""


def _built_from_placeholders(found: re.Match[str]) -> bool:
    """Whether a quoted value is a template of other values rather than a literal that could be a secret.

    Only an f-string, or a string `.format(...)` is called on, is a template; `{{`/`}}` are literal braces there,
    and a field must name a value. What is left must be under 4 characters: `f"{user}-{time.time()}"` is not a
    secret, `f"hunter2-{suffix}"`, `"{hunter2}"` and `"${s3cr3t}"` are treated as one.
    """
    template = found["lead"][-1:] in ("f", "F") or found.string.startswith(".format(", found.end())
    if not template:
        return False
    literal = _TEMPLATE_FIELD.sub("", found["value"].replace("{{", "\0\0").replace("}}", "\0\0"))
    return len(literal) < 4


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


def redact_snippet(snippet: Snippet) -> Redacted:
    """What a judge may see of a snippet: its text redacted, including the lines of a private key block it starts
    inside (`Snippet.key_until`, found on the whole file)."""
    return redact(snippet.text, key_lines=max(0, min(snippet.key_until, snippet.end_line) - snippet.start_line + 1))


def redact(text: str, *, key_lines: int = 0) -> Redacted:
    """`text` with every secret replaced by `[REDACTED:<kind>]`; newlines are kept.

    `key_lines`: how many of the text's first lines continue a private key block that began above the text.
    """
    kinds: list[str] = []
    if key_lines:
        text = _blank_key_lines(text, key_lines)
        kinds.append("private-key")

    def sub(
        kind: str,
        pattern: re.Pattern[str],
        replace: Callable[[re.Match[str]], str],
        source: str,
        harmless: Callable[[re.Match[str]], bool] = lambda found: False,
    ) -> str:
        def one(found: re.Match[str]) -> str:
            if "[REDACTED:" in found[0] and pattern is not _PRIVATE_KEY:
                return found[0]  # already redacted by an earlier, more specific pattern
            if harmless(found):
                return found[0]
            kinds.append(kind)
            return replace(found)

        return pattern.sub(one, source)

    # Each pattern runs only where a literal its matches must contain is present: a judged search redacts
    # every shortlisted snippet, and scanning all of them with every pattern cost ~85 ms a search on `large`.
    if "-----BEGIN" in text:
        text = sub("private-key", _PRIVATE_KEY, lambda m: _mark("private-key") + "\n" * m[0].count("\n"), text)
    for kind, literals, pattern in _TOKENS:
        if any(literal in text for literal in literals):
            text = sub(kind, pattern, lambda m, k=kind: _mark(k), text)
    if "bearer" in text.lower():
        text = sub("bearer-token", _BEARER, lambda m: m[1] + _mark("bearer-token"), text)
    if "://" in text:
        text = sub("url-password", _URL_PASSWORD, lambda m: m[1] + _mark("password") + m[3], text)
    if _SECRET_WORD.search(text):
        text = sub(
            "assignment",
            _QUOTED_ASSIGNMENT,
            lambda m: f"{m['lead']}{m['q']}{_mark('secret')}{m['q']}",
            text,
            harmless=_built_from_placeholders,
        )
    if any(word in text for word in _ENV_WORDS):
        text = sub("assignment", _ENV_ASSIGNMENT, lambda m: m["lead"] + _mark("secret"), text)
    return Redacted(text, tuple(kinds))


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

    def warning(self) -> str | None:
        """The line a result carries when something was redacted."""
        if not self.snippets:
            return None
        kinds = ", ".join(sorted(self.kinds))
        return (
            f"Redacted {self.secrets} secrets ({kinds}) in {self.snippets} snippets before judging; "
            "their relevance was judged without those values."
        )


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
