"""Ripgrep-style globs matched in Python, after listing.

A `--glob` given to rg *overrides* its ignore rules (`rg --files -g .env` lists a hidden `.env`), so user
globs never reach rg: the listing is made with ignore rules intact, and globs only narrow it here. Syntax
as in ripgrep/gitignore: a glob without `/` matches the file name at any depth; with `/` it matches the
path from the root; `**` spans directories, `*` and `?` stay within one, `{a,b}` alternates, `[...]` is
a class; a leading `!` negates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import re2


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "\\" and i + 1 < n:  # an escaped character stands for itself, as ripgrep reads it
            out.append(re.escape(glob[i + 1]))
            i += 2
        elif c == "[":
            end = glob.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = glob[i + 1 : end].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                i = end + 1
        elif c == "{":
            end = glob.find("}", i)
            if end < 0:
                out.append(re.escape(c))
                i += 1
            else:
                out.append("(?:" + "|".join(_translate(p) for p in glob[i + 1 : end].split(",")) + ")")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def glob_problem(glob: str) -> str | None:
    """What is wrong with a glob (a leading `!` allowed), or None: what ripgrep would refuse, we refuse too,
    rather than read an unclosed `[` or `{` as a literal character and quietly match nothing."""
    body = glob.strip().removeprefix("!")
    if not body:
        return "a glob must not be empty"
    depth, i = 0, 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if i + 1 == len(body):
                return f"{glob!r} ends with a lone backslash"
            i += 1
        elif c == "[":
            end = body.find("]", i + 2)
            if end < 0:
                return f"{glob!r} has an unclosed character class `[`"
            i = end
        elif c == "{":
            if depth:
                return f"{glob!r} nests an alternation `{{` inside another"
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        i += 1
    if depth:
        return f"{glob!r} has an unclosed alternation `{{`"
    try:
        re.compile(_pattern(body))  # first: its messages say what is wrong without logging to stderr
        compile_any((body,))
    except re.error as error:
        return f"{glob!r} is not a valid glob ({error.msg})"
    except re2.error as error:
        return f"{glob!r} is not a valid glob ({error})"
    return None


def _pattern(glob: str) -> str:
    """The regular expression a glob means, for a whole root-relative path."""
    anchored = "/" in glob.rstrip("/")
    body = _translate(glob.lstrip("/").rstrip("/"))
    prefix = "" if anchored else "(?:.*/)?"
    # A glob naming a directory also matches everything under it, as in gitignore.
    return f"{prefix}{body}(?:/.*)?"


@dataclass(frozen=True)
class GlobSet:
    """Include globs (any may match; none given means all) and exclude globs (none may match)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @classmethod
    def of(cls, globs: Iterable[str]) -> GlobSet:
        """Split a ripgrep-style list where `!glob` excludes."""
        include, exclude = [], []
        for glob in globs:
            glob = glob.strip()
            if glob.startswith("!"):
                exclude.append(glob[1:])
            elif glob:
                include.append(glob)
        return cls(tuple(include), tuple(exclude))

    def names(self, path: str) -> bool:
        """Whether any include glob matches, ignoring the excludes: "is this path one of these"."""
        return bool(self.include) and compile_any(self.include).fullmatch(_matchable(path)) is not None

    def matches(self, path: str) -> bool:
        """Whether a root-relative '/'-separated path passes."""
        if not self.include and not self.exclude:
            return True  # no glob: asked for every listed file of every search, so no call at all
        path = _matchable(path)
        if self.include and compile_any(self.include).fullmatch(path) is None:
            return False
        return not self.exclude or compile_any(self.exclude).fullmatch(path) is None


def _matchable(path: str) -> str:
    """The path as RE2 can take it: a name that is not UTF-8 (its bytes kept as lone surrogates) has each
    undecodable byte stand as one `?`, which `?` and `*` still match as they would the byte."""
    return path if path.isascii() else path.encode("utf-8", "replace").decode("utf-8")


SIMPLE_WILDCARDS = 2
"""Wildcard runs (`*`, `**`) and alternations a glob may hold and still be matched by Python's `re`."""


@lru_cache(maxsize=256)
def compile_any(globs: tuple[str, ...]) -> re.Pattern[str] | re2._Regexp:
    """One pattern matching what any of `globs` matches (none: nothing), so a path costs one call, not one per
    glob. These are the user's globs, and a backtracking matcher's time grows as the path's length to the power
    of the glob's wildcards: Python's `re` took tens of seconds to turn down a long name for `*a*a*a*a*a*a*b`,
    holding the GIL, so one request froze the server. RE2's time is linear whatever the glob, but a call costs
    several times `re`'s, so the everyday globs (`*.py`, `src/**`, `tests/**/test_*.py`: at most
    `SIMPLE_WILDCARDS`) stay with `re` (docs/design.md, "Globs")."""
    body = "|".join(f"(?:{_pattern(g)})" for g in globs)
    if all(len(_WILDCARD_RUNS.findall(g)) + g.count("{") <= SIMPLE_WILDCARDS for g in globs):
        return re.compile(body or "(?!)", re.DOTALL)
    return re2.compile(f"(?s){body}")


_WILDCARD_RUNS = re.compile(r"\*+")


SECRET_GLOBS: tuple[str, ...] = (
    ".env*",
    "*.env",
    "*.ppk",
    "credentials",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.keystore",
    "*.jks",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    "*.kdbx",
)
"""Files that hold credentials: never indexed, whatever the ignore files say, so never sent to a judge. Matched
without regard to case (`server.PEM`, `.ENV` too). `*.env` is `deploy/prod.env`, `*.ppk` a PuTTY key, `credentials`
the AWS CLI's file (`credentials.py` is code and stays)."""


_CREDENTIALS = re.compile("|".join(f"(?:{_pattern(g)})" for g in SECRET_GLOBS), re.DOTALL)
"""Python's `re` here: these globs are fixed, one `*` each, and every listed file is checked against them on
every refresh, so one combined pattern with `re`'s cheap calls, not RE2's."""


def is_credential(path: str) -> bool:
    """Whether a root-relative '/'-separated path names a credential file (`SECRET_GLOBS`, any case)."""
    return _CREDENTIALS.fullmatch(path.lower()) is not None
